#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-errors.sh: -c: a bad token before the first disorder is an error; -c with -o is an error.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is a message; -c's threads are check.sh's"

# A bad token before any disorder: exit 2 with its line.
printf '1\n2\nx3\n1\n' >tok.txt
expect_error 2 "^tok\\.txt:3: not an integer: 'x3'\$" -- "$GPUSORT" -c tok.txt
run_cmd "$GPUSORT" -C tok.txt
[ "$STATUS" -eq 2 ] || fail "-C with a bad token exited $STATUS (2 expected)"

# Out of range before any disorder.
printf '1\n4294967296\n0\n' >range.txt
expect_error 2 "^range\\.txt:2: out of range for u32: '4294967296'; it fits --type=u64 or --type=i64\$" \
    -- "$GPUSORT" -c --type=u32 range.txt

# A disorder before the bad token: the disorder is reported (exit 1).
printf '2\n1\nabc\n' >dis.txt
expect_error 1 '^dis\.txt:2: disorder: 1$' -- "$GPUSORT" -c dis.txt

# Binary that is not a whole number of keys.
printf '\001\000\000\000\002\000' >part.bin
expect_error 2 'part\.bin' -- "$GPUSORT" -c -B --type=u32 part.bin

# -c with -o is an error, and the -o target is untouched.
printf '1\n2\n' >ok.txt
target_init
expect_error 2 '.' -- "$GPUSORT" -c -o "$TARGET" ok.txt
target_check
expect_error 2 '.' -- "$GPUSORT" -C -o "$TARGET" ok.txt
target_check

# -c checks one input: a second FILE is an error (as in GNU sort).
expect_error 2 '.' -- "$GPUSORT" -c ok.txt ok.txt

# A missing file.
expect_error 2 'missing\.txt' -- "$GPUSORT" -c missing.txt
