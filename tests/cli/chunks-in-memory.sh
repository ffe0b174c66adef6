#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# chunks-in-memory.sh: an input of several chunks whose runs all stay in memory,
# merged at the end, is right: binary files of three key types against gscheck's
# order check and gsgen's COUNT SUM, with -r, with -u over a few values repeated
# millions of times, and a text file against sort -n. --gpu-memory=80M makes the
# chunks a few million keys on a GPU (tests/gpu/suite.sh runs this with --device=0:
# there the runs are merged by sorting key ranges on the GPU, and the repeated values
# fill pieces of their own); on the CPU the same commands sort one chunk each.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_gscheck
not_under_tsan "on the CPU its commands sort one chunk each, as sort-large.sh's do"
leaks_checked_elsewhere "the chunks' paths are sort-large.sh's and spill.sh's"

N=20000000
seed=900
for t in u32 i64 u64; do
    seed=$((seed + 1))
    "$GSGEN" -b -t "$t" -n "$N" -s "$seed" >in.bin
    want=$("$GSGEN" -b -t "$t" -n "$N" -s "$seed" --sum)
    gs_ok out.bin -B --type="$t" --gpu-memory=80M in.bin
    sums_equal "$want" "$("$GSCHECK" -t "$t" out.bin)" "$t"
    gs_ok out.bin -B --type="$t" --gpu-memory=80M -r in.bin
    sums_equal "$want" "$("$GSCHECK" -t "$t" -r out.bin)" "$t -r"

    # Four values, five million copies each: more copies of one value than a
    # chunk holds.
    "$GSGEN" -b -t "$t" -n "$N" -s "$seed" --min=7 --max=10 >few.bin
    want=$("$GSGEN" -b -t "$t" -n "$N" -s "$seed" --min=7 --max=10 --sum)
    gs_ok out.bin -B --type="$t" --gpu-memory=80M few.bin
    sums_equal "$want" "$("$GSCHECK" -t "$t" out.bin)" "$t, four values"
    want=$("$GSGEN" -b -t "$t" -n "$N" -s "$seed" --min=7 --max=10 --distinct)
    gs_ok out.bin -B --type="$t" --gpu-memory=80M -u few.bin
    sums_equal "$want" "$("$GSCHECK" -t "$t" -u out.bin)" "$t -u, four values"
done
rm -f in.bin few.bin out.bin

# Text: 6M u64 keys, against sort -n.
"$GSGEN" -t u64 -n 6000000 -s 950 >in.txt
LC_ALL=C sort -n in.txt >exp.txt
gs_ok out.txt --type=u64 --gpu-memory=80M in.txt
same exp.txt out.txt "u64 text"
