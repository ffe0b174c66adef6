#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pipe-given.sh: output into a pipe on 4 threads (--parallel=4,
# WRITE_GIVE_MIN_THREADS), where the output gives the pipe fresh pages (vmsplice)
# rather than writing copies: text keys of one chunk (each batch formatted into
# fresh pages), keys and records merged in order (each thread's window fresh pages,
# handed on at its turn), -m, binary keys and records (copied into fresh pages).
# -S 48M keeps the 4 threads (THREAD_BYTES: a smaller -S takes threads away) and
# makes chunks to merge. The reader, pipekeep.py, keeps the pages it reads (spliced
# into pipes of its own) until the end, as a reader that splices does: a page given
# and then written again would show. The bytes are LC_ALL=C sort's (gsgen's in
# order for numbers), and recsort.py's for binary keys. A reader that goes away
# ends gpusort quietly, as sigpipe.sh's.

# GSREC (make check sets it) names tests/tools/gsrec; made absolute before lib.sh
# moves into the test's directory.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"

need_gsrec
command -v python3 >/dev/null || skip "no python3"
not_under_tsan "the threads that give the pipe pages run there in check_hand.c's and check_pieces.c's kept-FIFO cases"
mkdir tdir

# given WHAT EXPECTED GPUSORT-ARGS...: gpusort on 4 threads into pipekeep.py: both
# exit 0, nothing on standard error, EXPECTED's bytes, no temporary left.
given() {
    local what=$1 exp=$2 st
    shift 2
    "$GPUSORT" --parallel=4 -T tdir "$@" 2>"$RUN_ERR" |
        python3 "$srcdir/pipekeep.py" >got || fail "$what: the reader failed"
    st=${PIPESTATUS[0]}
    if [ "$st" -ne 0 ] || [ -s "$RUN_ERR" ]; then
        fail "$what: exited $st: $(cat "$RUN_ERR")"
    fi
    same "$exp" got "$what"
    [ -z "$(ls -A tdir)" ] || fail "$what: temporary files left: $(ls -A tdir)"
}

# 4M numbers: many batches of 4 threads' 64 Ki keys, and chunks under -S 48M.
"$GSGEN" -n 4000000 --min=-99999 --max=999999 -s 821 >nums.txt
"$GSGEN" -n 4000000 --min=-99999 --max=999999 -s 821 -d sorted >exp-nums.txt
given "numbers, one chunk" exp-nums.txt nums.txt
given "numbers, chunks merged" exp-nums.txt -S 48M nums.txt
split -n l/3 -d exp-nums.txt part.
given "numbers, -m" exp-nums.txt -m part.00 part.01 part.02

"$GSREC" --bench -n 600000 -s 822 --header='id,key,payload' >r.csv
{ head -n 1 r.csv; tail -n +2 r.csv | LC_ALL=C sort -t, -k2,2n; } >exp.csv
given "records, one chunk" exp.csv --header -t, -k2,2n r.csv
given "records, runs merged" exp.csv --header -S 48M -t, -k2,2n r.csv

# 1.1M u64: past one WRITE_GIVE_PIECE (8 MiB) of binary keys.
"$GSREC" --binary --type=u64 --record-size=8 -n 1100000 -s 823 >keys.bin
python3 "$srcdir/recsort.py" 8 0 u64 little keys.bin || fail "the oracle failed"
given "binary keys" exp.bin -B --type=u64 keys.bin

# 400K 24-byte records (streamed through a GPU where there is one: written in
# order as bytes).
"$GSREC" --binary --type=u64 --record-size=24 -n 400000 -s 824 >recs.bin
mkdir r && (cd r && python3 "$srcdir/recsort.py" 24 0 u64 little ../recs.bin) ||
    fail "the oracle failed"
given "binary records" r/exp.bin -B --record-size=24 --type=u64 recs.bin

# A reader that goes away after a few bytes: gpusort ends quietly, as sigpipe.sh's,
# killed by SIGPIPE (141), or with 2 where SIGPIPE is ignored (make may run us so),
# nothing left in -T.
pipe_ignored=no
if [ -r /proc/$$/status ]; then
    mask=$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status)
    if (((16#$mask >> 12) & 1)); then pipe_ignored=yes; fi
fi
for args in "nums.txt" "-S 48M nums.txt" "--header -t, -k2,2n r.csv" \
    "-B --type=u64 keys.bin" "-B --record-size=24 --type=u64 recs.bin"; do
    # shellcheck disable=SC2086 # the arguments are words on purpose
    "$GPUSORT" --parallel=4 -T tdir $args 2>err.txt | head -c 100 >/dev/null
    status=${PIPESTATUS[0]}
    empty err.txt "stderr after the reader went away ($args)"
    case $pipe_ignored:$status in
    yes:2 | no:141) ;;
    *) fail "$args: exited $status when the reader went away (SIGPIPE ignored: $pipe_ignored)" ;;
    esac
    [ -z "$(ls -A tdir)" ] || fail "$args: temporary files left: $(ls -A tdir)"
done
(
    trap '' PIPE
    "$GPUSORT" --parallel=4 nums.txt 2>err2.txt | head -c 100 >/dev/null
    echo "${PIPESTATUS[0]}" >status2.txt
)
[ "$(cat status2.txt)" -eq 2 ] || fail "with SIGPIPE ignored gpusort exited $(cat status2.txt) (2 expected)"
empty err2.txt "stderr with SIGPIPE ignored"
exit 0
