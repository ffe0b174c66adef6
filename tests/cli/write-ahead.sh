#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# write-ahead.sh: with 16 threads or more, text of one chunk to -o has zeros written
# ahead into -o's temporary while the chunk sorts (io/ahead.c, output_cfg_t.ahead_keys),
# bounded by the inputs' bytes plus one a file; the text is then
# placed over them and the rest cut off. Whatever the inputs' shape (a last line
# without its newline, tokens longer than their canonical lines, several files,
# -o naming an input), the file holds exactly what sort -n would have written;
# --stats says the zeros were written. Fewer threads, or -u, write none. A disk that
# fills while the zeros are written is no error where the output itself fits, and
# the usual one where it does not.
# The zeros are written while the chunk sorts, and stopped when it is sorted: on a
# busy machine the writing job may not have run by then. GS_TEST_WRITE_AHEAD_WHOLE=1
# makes gpusort let the job write them all first, so every run takes the path.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
export GS_TEST_WRITE_AHEAD_WHOLE=1

# 1.1M keys: past the 64 Ki keys a thread on 16 threads that placing takes.
n=1100000
"$GSGEN" -t u32 -n $n -s 801 >a.txt
# The same keys without the last newline: the output is one byte longer.
head -c -1 a.txt >b.txt
# Signed keys written long: signs, leading zeros, CR LF and tabs, so that the
# output is much shorter than the bound.
"$GSGEN" -t i32 -n $n -s 802 | awk '{
    if (NR % 4 == 0) print ($0 ~ /^-/ ? $0 : "+" $0)
    else if (NR % 4 == 1) print ($0 ~ /^-/ ? "-000" substr($0, 2) : "000" $0)
    else if (NR % 4 == 2) printf "%s\r\n", $0
    else printf "  %s\t\n", $0
}' >c.txt

# ahead ERRFILE WHAT: --stats in ERRFILE says zeros were written ahead.
ahead() {
    grep -q "stats: [0-9]* bytes of zeros written ahead into the output's temporary" "$1" ||
        fail "$2: no zeros written ahead: $(cat "$1")"
}

# none ERRFILE WHAT: --stats in ERRFILE has no zeros written ahead.
none() {
    if grep -q "written ahead" "$1"; then
        fail "$2: zeros written ahead, none expected: $(cat "$1")"
    fi
}

# sorted_to TYPE WHAT FILE...: gpusort -t TYPE on 16 threads, FILEs to out.txt,
# against the oracle of the FILEs; zeros written ahead.
sorted_to() {
    local type=$1 what=$2
    shift 2
    oracle "$@" >exp.txt
    run_cmd "$GPUSORT" --device=cpu --parallel=16 --stats --type="$type" -o out.txt "$@"
    [ "$STATUS" -eq 0 ] || fail "$what: exited $STATUS: $(cat "$RUN_ERR")"
    stats_only "$RUN_ERR"
    ahead "$RUN_ERR" "$what"
    same exp.txt out.txt "$what"
    rm out.txt
}

sorted_to u32 "canonical lines" a.txt
sorted_to u32 "no newline at the end" b.txt
sorted_to i32 "long tokens" c.txt
sorted_to i64 "three files" a.txt b.txt c.txt

# -o naming its own input: read whole before the temporary replaces it.
cp b.txt self.txt
oracle b.txt >exp.txt
run_cmd "$GPUSORT" --device=cpu --parallel=16 --stats --type=u32 -o self.txt self.txt
[ "$STATUS" -eq 0 ] || fail "-o naming the input: exited $STATUS: $(cat "$RUN_ERR")"
ahead "$RUN_ERR" "-o naming the input"
same exp.txt self.txt "-o naming the input"

# Two threads, or -u: no zeros, the same output.
run_cmd "$GPUSORT" --device=cpu --parallel=2 --stats --type=u32 -o out.txt a.txt
[ "$STATUS" -eq 0 ] || fail "two threads: exited $STATUS: $(cat "$RUN_ERR")"
none "$RUN_ERR" "two threads"
oracle a.txt >exp.txt
same exp.txt out.txt "two threads"
run_cmd "$GPUSORT" --device=cpu --parallel=16 --stats -u --type=i32 -o out.txt c.txt
[ "$STATUS" -eq 0 ] || fail "-u: exited $STATUS: $(cat "$RUN_ERR")"
none "$RUN_ERR" "-u"
oracle -u -- c.txt >exp.txt
same exp.txt out.txt "-u"
rm out.txt

# A full disk under -o's directory (tests/tools/faultfs.so: writes there fail past
# GS_FAULT_WRITE_AFTER bytes).
: "${FAULTFS:=}"
if [ -z "$FAULTFS" ] || [ ! -f "$(abspath "$FAULTFS")" ]; then
    echo "write-ahead.sh: FAULTFS not built: the full-disk cases skipped" >&2
    exit 0
fi
need_faultfs
oracle c.txt >exp.txt
total=$(wc -c <exp.txt)
bound=$(($(wc -c <c.txt) + 1))
[ "$bound" -gt $((total + 200000)) ] || fail "c.txt is not long enough for the test"

# The disk fills after the output's bytes but before the bound: the zeros stop
# there, quietly, and the output fits.
mkdir roomy
run_cmd env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR="$test_dir/roomy" \
    GS_FAULT_WRITE_AFTER=$((total + 100000)) "$GPUSORT" --device=cpu --parallel=16 --stats \
    --type=i32 -o roomy/out.txt c.txt
[ "$STATUS" -eq 0 ] || fail "a disk full past the output: exited $STATUS: $(cat "$RUN_ERR")"
ahead "$RUN_ERR" "a disk full past the output"
same exp.txt roomy/out.txt "a disk full past the output"
[ "$(find roomy -mindepth 1 -printf '%f ')" = 'out.txt ' ] || fail "stray files beside the output: $(find roomy -mindepth 1 -printf '%f ')"

# The disk fills before the output's end: exit 2, one message, the target untouched,
# the temporary gone.
target_init
run_cmd env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR="$TARGET_DIR" \
    GS_FAULT_WRITE_AFTER=$((total / 2)) "$GPUSORT" --device=cpu --parallel=16 --type=i32 \
    -o "$TARGET" c.txt
[ "$STATUS" -eq 2 ] || fail "a disk full before the output's end: exited $STATUS: $(cat "$RUN_ERR")"
empty "$RUN_OUT" "stdout (a disk full before the output's end)"
check_msg "$RUN_ERR" "No space left on device\$" no
target_check
