#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# at-offsets.sh: output whose layout is known ahead goes to -o's temporary the way
# the output chooses (io/layout.c): into its mapped pages where the file system
# gives space by fallocate, else written at their offsets by every thread (pwrite).
# Laid out are records (one chunk's, measured by every thread; spilled runs' merge,
# measured by seeks) and bare keys (a sorted chunk, by ranks; the merge of spilled
# runs, by the ranks of the line lengths' steps), text or binary. A file system
# without fallocate (tests/tools/faultfs.so, GS_FAULT_NO_FALLOCATE=1) takes the
# second way: the same bytes as LC_ALL=C sort (a header first, -u, lines by several
# keys, numbers) and as recsort.py (binary records and keys), in memory and
# spilled; --stats says every byte was written at its offset there, none mapped,
# and, where the file system has fallocate, that the same run wrote mapped.

# GSREC (make check sets it) names tests/tools/gsrec; made absolute before lib.sh
# moves into the test's directory.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"

need_gsrec
need_faultfs
mkdir out

# 200K lines (past the 64 Ki records from which a chunk is written at offsets),
# a header first.
"$GSREC" --bench -n 200000 -s 811 --header='id,key,payload' >r.csv
"$GSREC" --binary --type=u64 --record-size=24 -n 200000 -s 812 >recs.bin
python3 "$srcdir/recsort.py" 24 0 u64 little recs.bin || fail "the oracle failed"

can_falloc=0
command -v fallocate >/dev/null && fallocate -l 4096 out/probe 2>/dev/null && can_falloc=1
rm -f out/probe

# at_offsets WHAT EXPECTED GPUSORT-ARGS...: gpusort on 4 threads to out/o, under a
# file system without fallocate: EXPECTED's bytes, nothing written mapped; where
# the file system has fallocate, the same run without the shim wrote mapped.
at_offsets() {
    local what=$1 exp=$2
    shift 2
    run_cmd env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR="$test_dir/out" \
        GS_FAULT_NO_FALLOCATE=1 "$GPUSORT" --device=cpu --parallel=4 --stats -o out/o "$@"
    [ "$STATUS" -eq 0 ] || fail "$what: exited $STATUS: $(cat "$RUN_ERR")"
    same "$exp" out/o "$what"
    ! grep -q "written mapped" "$RUN_ERR" || fail "$what: written mapped: $(cat "$RUN_ERR")"
    grep -q "stats: $(wc -c <"$exp") bytes written at their offsets" "$RUN_ERR" ||
        fail "$what: not all written at their offsets: $(cat "$RUN_ERR")"
    [ "$(find out -mindepth 1 -printf '%f ')" = 'o ' ] ||
        fail "$what: stray files: $(find out -mindepth 1 -printf '%f ')"
    rm out/o
    [ "$can_falloc" -eq 1 ] || return 0
    run_cmd "$GPUSORT" --device=cpu --parallel=4 --stats -o out/o "$@"
    [ "$STATUS" -eq 0 ] || fail "$what (mapped): exited $STATUS: $(cat "$RUN_ERR")"
    same "$exp" out/o "$what (mapped)"
    grep -q "written mapped" "$RUN_ERR" || fail "$what: not written mapped: $(cat "$RUN_ERR")"
    rm out/o
}

{ head -n 1 r.csv; tail -n +2 r.csv | LC_ALL=C sort -t, -k2,2n; } >exp.txt
at_offsets "one chunk, a header" exp.txt --header -t, -k2,2n r.csv
at_offsets "spilled, a header" exp.txt --header -S 2M -t, -k2,2n r.csv
{ head -n 1 r.csv; tail -n +2 r.csv | LC_ALL=C sort -s -t, -k3,3 -k2,2nr; } >exp.txt
at_offsets "several keys" exp.txt --header -s -t, -k3,3 -k2,2nr r.csv
tail -n +2 r.csv >body.csv
LC_ALL=C sort -u -t, -k2,2n body.csv >exp.txt
at_offsets "-u" exp.txt -u -t, -k2,2n body.csv
at_offsets "binary records" exp.bin -B --record-size=24 --type=u64 recs.bin
at_offsets "binary records, spilled" exp.bin -B --record-size=24 --type=u64 -S 2M recs.bin

# Bare keys: 300K numbers (past the 64 Ki keys a thread from which text is laid
# out), and 1.1M binary u64 (past the 8 MiB from which a sorted chunk is).
"$GSREC" -f 1 -k 1 -n 300000 -s 813 >nums.txt
LC_ALL=C sort -n nums.txt >exp-nums.txt
at_offsets "numbers, one chunk" exp-nums.txt nums.txt
at_offsets "numbers, spilled" exp-nums.txt -S 2M nums.txt
"$GSREC" --binary --type=u64 --record-size=8 -n 1100000 -s 814 >keys.bin
mkdir k && (cd k && python3 "$srcdir/recsort.py" 8 0 u64 little ../keys.bin) ||
    fail "the oracle failed"
at_offsets "binary keys, one chunk" k/exp.bin -B --type=u64 keys.bin
at_offsets "binary keys, spilled" k/exp.bin -B --type=u64 -S 2M keys.bin
exit 0
