#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-binary.sh: -c on binary input: N is the 1-based key index.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

"$GSGEN" -b -n 1000 -t u32 -d sorted -s 121 >sorted.bin
gs_ok out.txt -c -B --type=u32 sorted.bin
empty out.txt "stdout of -c -B"
gs_ok out.txt -c --input-format=binary --type=u32 sorted.bin

# Zero the key at 0-based index 500 (1-based 501).
cp sorted.bin bad.bin
dd if=/dev/zero of=bad.bin bs=4 seek=500 count=1 conv=notrunc status=none
decode u32 little bad.bin >bad.txt
read -r idx value < <(first_disorder asc bad.txt)
[ "$idx $value" = "501 0" ] || fail "od/awk oracle: $idx $value"
expect_error 1 '^bad\.bin:501: disorder: 0$' -- "$GPUSORT" -c -B --type=u32 bad.bin
run_cmd "$GPUSORT" -C -B --type=u32 bad.bin
[ "$STATUS" -eq 1 ] || fail "-C -B exited $STATUS (1 expected)"
empty "$RUN_ERR" "stderr of -C -B"

# Hand-built, big endian i64: 5 -3 7 -10 is out of order at key 2.
printf '%s\n' 5 -3 7 -10 | encode i64 big >hand.bin
expect_error 1 '^hand\.bin:2: disorder: -3$' -- "$GPUSORT" -c -B --type=i64 --endian=big hand.bin
# Read as little endian the same bytes are other, huge numbers: the oracle is od
# and GNU sort -c (one key a line, so its line is the key index).
decode i64 little hand.bin >hand-le.txt
if ! LC_ALL=C sort -n -c hand-le.txt 2>sort-c.txt; then
    idx=$(sed -E 's/^sort: [^:]*:([0-9]+): disorder: .*/\1/' sort-c.txt)
    value=$(sed -E 's/^sort: [^:]*:[0-9]+: disorder: //' sort-c.txt)
    expect_error 1 "^hand\\.bin:$idx: disorder: $value\$" -- "$GPUSORT" -c -B --type=i64 hand.bin
else
    fail "the little-endian reading of hand.bin is sorted (pick other keys)"
fi

# Binary -c with -r and -u.
printf '%s\n' 9 7 7 1 | encode i32 little >r.bin
gs_ok out.txt -c -r -B --type=i32 r.bin
expect_error 1 '^r\.bin:3: disorder: 7$' -- "$GPUSORT" -c -r -u -B --type=i32 r.bin

# From stdin.
expect_error 1 '^-:501: disorder: 0$' -- "$GPUSORT" -c -B --type=u32 <bad.bin
