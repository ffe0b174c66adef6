#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# err-range.sh: a token out of the type's range: exit 2, FILE:LINE: out of range for
# TYPE: 'TOKEN', and the types that hold it where there are any (err-hints.sh).
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is a message"

target_init

while read -r t tok hint; do
    printf '1\n2\n%s\n3\n' "$tok" >r.txt
    re=$(printf '%s' "$tok" | sed -e 's/[+]/\\+/g')
    expect_error 2 "^r\\.txt:3: out of range for $t: '$re'$hint\$" -- "$GPUSORT" --type="$t" -o "$TARGET" r.txt
    target_check
done <<'TOKENS'
i32 3000000000 ; it fits --type=i64 or --type=u32
i32 2147483648 ; it fits --type=i64 or --type=u32
i32 -2147483649 ; it fits --type=i64
i32 99999999999999999999999999999
u32 -1 ; it fits --type=i32 or --type=i64
u32 4294967296 ; it fits --type=u64 or --type=i64
u32 +004294967296 ; it fits --type=u64 or --type=i64
i64 9223372036854775808 ; it fits --type=u64
i64 -9223372036854775809
i64 100000000000000000000
u64 18446744073709551616
u64 -1 ; it fits --type=i64
u64 -18446744073709551615
u64 99999999999999999999
TOKENS

# The default type is i64.
printf '9223372036854775808\n' >d.txt
expect_error 2 "^d\\.txt:1: out of range for i64: '9223372036854775808'; it fits --type=u64\$" -- "$GPUSORT" d.txt

# With -m and in the second file.
printf '1\n' >a.txt
printf '5\n4294967296\n' >b.txt
expect_error 2 "^b\\.txt:2: out of range for u32: '4294967296'; it fits --type=u64 or --type=i64\$" \
    -- "$GPUSORT" --type=u32 -m -o "$TARGET" a.txt b.txt
target_check
