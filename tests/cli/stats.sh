#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stats.sh: --stats: a stage table on stderr (stdout still right), the lines of text
# read and written mapped; --progress.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

"$GSGEN" -n 100000 -s 181 >in.txt
oracle in.txt >exp.txt

run_cmd "$GPUSORT" --stats --device=cpu in.txt
[ "$STATUS" -eq 0 ] || fail "--stats exited $STATUS; stderr: $(cat "$RUN_ERR")"
same exp.txt "$RUN_OUT" "stdout with --stats"
for stage in read parse sort format write; do
    grep -qiw "$stage" "$RUN_ERR" || fail "--stats does not mention '$stage': $(cat "$RUN_ERR")"
done
grep -qi 'device' "$RUN_ERR" || fail "--stats does not name the device: $(cat "$RUN_ERR")"
grep -qi 'cpu' "$RUN_ERR" || fail "--stats with --device=cpu does not say cpu: $(cat "$RUN_ERR")"

# With -o the table still goes to stderr, and nothing to stdout.
run_cmd "$GPUSORT" --stats --device=cpu -o out.txt in.txt
[ "$STATUS" -eq 0 ] || fail "--stats -o exited $STATUS"
empty "$RUN_OUT" "stdout of --stats -o"
[ -s "$RUN_ERR" ] || fail "--stats -o printed nothing on stderr"
same exp.txt out.txt "-o with --stats"

# Text of 64 Ki keys a thread or more to -o goes out mapped (io/placed.c), and --stats
# counts those bytes: all of the output here (2 threads, 200000 keys), where the
# file system gives space by fallocate.
"$GSGEN" -n 200000 -s 182 >big.txt
oracle big.txt >bigexp.txt
run_cmd "$GPUSORT" --stats --device=cpu --parallel=2 -o bigout.txt big.txt
[ "$STATUS" -eq 0 ] || fail "--stats -o of 200000 keys exited $STATUS; stderr: $(cat "$RUN_ERR")"
same bigexp.txt bigout.txt "-o written mapped"
if command -v fallocate >/dev/null && fallocate -l 4096 probe.bin 2>/dev/null; then
    bytes=$(wc -c <bigout.txt)
    grep -q "stats: $bytes bytes written mapped, placed by 2 threads" "$RUN_ERR" ||
        fail "--stats does not count the $bytes bytes written mapped: $(cat "$RUN_ERR")"
fi

# A text file of 1 MiB or more is read mapped, and --stats counts its bytes; from a
# pipe it is read the plain way, and no such line is printed.
inbytes=$(wc -c <big.txt)
[ "$inbytes" -ge 1048576 ] || fail "big.txt is too small to be read mapped ($inbytes bytes)"
grep -q "stats: $inbytes bytes of text read mapped, scanned in place" "$RUN_ERR" ||
    fail "--stats does not count the $inbytes bytes read mapped: $(cat "$RUN_ERR")"
# shellcheck disable=SC2016  # $1 is the inner shell's: gpusort's path
run_cmd sh -c 'cat big.txt | "$1" --stats --device=cpu --parallel=2 -o pipeout.txt' sh "$GPUSORT"
[ "$STATUS" -eq 0 ] || fail "--stats from a pipe exited $STATUS; stderr: $(cat "$RUN_ERR")"
same bigexp.txt pipeout.txt "big.txt from a pipe"
if grep -q "read mapped" "$RUN_ERR"; then
    fail "--stats says a pipe was read mapped: $(cat "$RUN_ERR")"
fi

# --progress: whatever it shows goes to stderr; the result is unchanged.
run_cmd "$GPUSORT" --progress in.txt
[ "$STATUS" -eq 0 ] || fail "--progress exited $STATUS; stderr: $(cat "$RUN_ERR")"
same exp.txt "$RUN_OUT" "stdout with --progress"
