#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# reverse.sh: -r / --reverse: descending order, against sort -rn.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

for t in i32 u32 i64 u64; do
    "$GSGEN" -n 50000 -t "$t" -s 21 >in.txt
    gs_ok out.txt -r --type="$t" in.txt
    oracle -r -- in.txt >exp.txt
    same exp.txt out.txt "-r --type=$t"
done

"$GSGEN" -n 100000 -d few -s 22 >in.txt
gs_ok out.txt --reverse in.txt
oracle -r -- in.txt >exp.txt
same exp.txt out.txt "--reverse, few values"

printf '3\n-1\n2\n-0\n' >small.txt
gs_ok out.txt -r small.txt
printf '3\n2\n0\n-1\n' >exp.txt
same exp.txt out.txt "-r of a hand-made file"
