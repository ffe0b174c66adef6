#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sort-large.sh: millions of keys (many parse blocks); the oracle is gsgen -d sorted,
# itself checked against sort -n here on a smaller sample.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

# gsgen -d sorted/reversed gives the keys of -d random in order: check that claim.
for t in i32 u64; do
    "$GSGEN" -n 50000 -t "$t" -s 300 >in.txt
    "$GSGEN" -n 50000 -t "$t" -s 300 -d sorted >exp.txt
    oracle in.txt >exp2.txt
    same exp2.txt exp.txt "gsgen -d sorted vs sort -n (-t $t)"
    "$GSGEN" -n 50000 -t "$t" -s 300 -d reversed >exp.txt
    oracle -r -- in.txt >exp2.txt
    same exp2.txt exp.txt "gsgen -d reversed vs sort -rn (-t $t)"
done

# 3 million i64 as text (about 60 MB).
"$GSGEN" -n 3000000 -t i64 -s 301 >in.txt
"$GSGEN" -n 3000000 -t i64 -s 301 -d sorted >exp.txt
gs_ok out.txt in.txt
same exp.txt out.txt "3M i64"
"$GSGEN" -n 3000000 -t i64 -s 301 -d reversed >exp.txt
gs_ok out.txt -r in.txt
same exp.txt out.txt "3M i64, -r"

# -c finds a disorder deep inside, at the right line.
"$GSGEN" -n 3000000 -t i64 -s 301 -d sorted >sorted.txt
gs_ok out.txt -c sorted.txt
sed '2999999s/.*/-9223372036854775808/' sorted.txt >dis.txt
expect_error 1 '^dis\.txt:2999999: disorder: -9223372036854775808$' -- "$GPUSORT" -c dis.txt

# A bad token near the end: the line is exact.
target_init
{ head -n 2999990 in.txt; echo '1 2 x3'; tail -n +2999991 in.txt; } >bad.txt
expect_error 2 "^bad\\.txt:2999991: not an integer: 'x3'; to sort lines by a field, use -k\$" -- \
    "$GPUSORT" -o "$TARGET" bad.txt
target_check
rm -f in.txt exp.txt out.txt sorted.txt dis.txt bad.txt

# 4 million u64 in binary, both byte orders: compared byte for byte.
for e in little big; do
    "$GSGEN" -b -n 4000000 -t u64 -s 302 --endian="$e" >in.bin
    "$GSGEN" -b -n 4000000 -t u64 -s 302 --endian="$e" -d sorted >exp.bin
    gs_ok out.bin -B --type=u64 --endian="$e" in.bin
    same exp.bin out.bin "4M u64 binary, --endian=$e"
done
