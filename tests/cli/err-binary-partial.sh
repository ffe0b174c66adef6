#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# err-binary-partial.sh: binary input that is not a whole number of keys: exit 2, naming file, bytes, width.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is a message"

target_init

# 14 bytes of u32 (3 keys and 2 bytes).
"$GSGEN" -b -n 4 -t u32 -s 201 | head -c 14 >p14.bin
expect_error 2 'p14\.bin' -- "$GPUSORT" -B --type=u32 -o "$TARGET" p14.bin
target_check
printf '%s\n' "$ERR_MSG" | grep -qw 14 || fail "message does not give the byte count 14: $ERR_MSG"
printf '%s\n' "$ERR_MSG" | grep -qw 4 || fail "message does not give the key width 4: $ERR_MSG"

# 19 bytes of i64 (2 keys and 3 bytes), through --input-format=binary.
"$GSGEN" -b -n 3 -t i64 -s 202 | head -c 19 >p19.bin
expect_error 2 'p19\.bin' -- "$GPUSORT" --input-format=binary -o "$TARGET" p19.bin
target_check
printf '%s\n' "$ERR_MSG" | grep -qw 19 || fail "message does not give the byte count 19: $ERR_MSG"
printf '%s\n' "$ERR_MSG" | grep -qw 8 || fail "message does not give the key width 8: $ERR_MSG"

# One byte alone; and from stdin.
printf '\001' >p1.bin
expect_error 2 'p1\.bin' -- "$GPUSORT" -B --type=i32 p1.bin
expect_error 2 '^-' -- "$GPUSORT" -B --type=i32 <p14.bin

# Two files whose bytes together are not whole keys (3 + 6 bytes of u32).
head -c 3 p14.bin >q3.bin
head -c 6 p14.bin >q6.bin
expect_error 2 'q[36]\.bin' -- "$GPUSORT" -B --type=u32 -o "$TARGET" q3.bin q6.bin
target_check
