#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sort-types.sh: random text of every key type, negative numbers included, against sort -n.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is the key types; sort-large.sh's threads sort them there"

for t in i32 u32 i64 u64; do
    "$GSGEN" -n 20000 -t "$t" -s 11 >in.txt
    case $t in
        i*) grep -q '^-' in.txt || fail "gsgen made no negative $t" ;;
    esac
    gs_ok out.txt --type="$t" in.txt
    oracle in.txt >exp.txt
    same exp.txt out.txt "--type=$t"
    gs_ok out.txt --type="$t" in.txt
    same exp.txt out.txt "--type=$t"
done

# The default type is i64.
"$GSGEN" -n 5000 -s 12 >in.txt
gs_ok out.txt in.txt
oracle in.txt >exp.txt
same exp.txt out.txt "default type"

# Narrow ranges at the ends of each type (a 64-bit chunk may be sorted as 32-bit
# offsets: the narrowing must round-trip exactly).
while read -r t lo hi; do
    "$GSGEN" -n 20000 -t "$t" -s 13 --min="$lo" --max="$hi" >in.txt
    gs_ok out.txt --type="$t" in.txt
    oracle in.txt >exp.txt
    same exp.txt out.txt "--type=$t in [$lo, $hi]"
done <<'RANGES'
i64 9223372036854000000 9223372036854775807
i64 -9223372036854775808 -9223372036854000000
i64 -1000 1000
i64 -2147483649 2147483648
u64 18446744073709000000 18446744073709551615
u64 4294967000 4294968000
i32 -2147483648 -2147483000
i32 2147483000 2147483647
u32 4294967000 4294967295
RANGES
