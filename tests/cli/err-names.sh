#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# err-names.sh: an error names the right file, keeps its reason whatever the path's
# length, and escapes a name as it escapes a token, so that it stays one line.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is a message"

# Binary inputs that together are not whole keys: the first that is not whole keys
# by itself is named (9 bytes), not the last (8, whole keys of i64).
head -c 9 /dev/zero >b9
head -c 8 /dev/zero >b8
expect_error 2 "^b9: 9 bytes: not a whole number of 8-byte keys \(the 2 inputs together: 17 bytes\)$" \
    -- "$GPUSORT" -B b9 b8
expect_error 2 "^b9: 9 bytes: not a whole number of 8-byte keys \(the 2 inputs together: 17 bytes\)$" \
    -- "$GPUSORT" -B b8 b9
expect_error 2 "^b9: 9 bytes: not a whole number of 8-byte keys$" -- "$GPUSORT" -B b9

# A path of thousands of bytes: the message keeps the reason at its end.
long=$(printf 'd%.0s' $(seq 1 250))
dir=$PWD
for _ in $(seq 1 15); do dir=$dir/$long; done
mkdir -p "$dir"
expect_error 2 "/missing\.txt': No such file or directory$" -- "$GPUSORT" "$dir/missing.txt"
[ "${#ERR_MSG}" -gt 3000 ] || fail "the long path was cut: ${#ERR_MSG} bytes"
printf '1\nx\n' >"$dir/bad.txt"
expect_error 2 "/bad\.txt:2: not an integer: 'x'$" -- "$GPUSORT" "$dir/bad.txt"
rm -rf "${dir%%/"$long"*}/$long"

# Names with a newline, a tab, a quote, a backslash and bytes past ASCII: escaped as
# tokens are, the message one line.
name=$(printf 'a\nb\tc\x27d\\e\xc3\xa9')
printf '1\nzz\n' >"$name"
expect_error 2 "^a\\\\x0ab\\\\x09c\\\\x27d\\\\x5ce\\\\xc3\\\\xa9:2: not an integer: 'zz'$" -- \
    "$GPUSORT" "$name"
expect_error 2 "^cannot read 'x\\\\x0ay': No such file or directory$" -- \
    "$GPUSORT" "$(printf 'x\ny')"
