#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# merge.sh: -m: sorted inputs merged, with -u, with -r, from stdin, in binary.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

"$GSGEN" -n 10000 -d sorted -s 131 >a.txt
"$GSGEN" -n 50000 -d sorted -s 132 --min=-1000 --max=1000 >b.txt
: >c.txt
"$GSGEN" -n 1 -s 133 >d.txt
"$GSGEN" -n 3000 -d sorted -s 134 >s.txt

gs_ok out.txt -m a.txt b.txt c.txt d.txt
oracle a.txt b.txt c.txt d.txt >exp.txt
same exp.txt out.txt "-m of four files"
gs_ok out.txt --merge a.txt - b.txt <s.txt
oracle a.txt s.txt b.txt >exp.txt
same exp.txt out.txt "--merge with stdin"
gs_ok out.txt -m a.txt
oracle a.txt >exp.txt
same exp.txt out.txt "-m of one file"
gs_ok out.txt -m a.txt a.txt
oracle a.txt a.txt >exp.txt
same exp.txt out.txt "-m of one file twice"

# -m -u: duplicates within and across inputs.
"$GSGEN" -n 20000 -d few -s 135 --min=0 --max=50 >f1.txt
"$GSGEN" -n 20000 -d few -s 136 --min=0 --max=50 >f2.txt
oracle f1.txt >f1s.txt
oracle f2.txt >f2s.txt
gs_ok out.txt -m -u f1s.txt f2s.txt b.txt
oracle -u -- f1s.txt f2s.txt b.txt >exp.txt
same exp.txt out.txt "-m -u"

# -m -r: reverse-sorted inputs.
"$GSGEN" -n 10000 -d reversed -s 137 >r1.txt
"$GSGEN" -n 20000 -d reversed -s 138 --min=-500 --max=500 >r2.txt
gs_ok out.txt -m -r r1.txt r2.txt c.txt
oracle -r -- r1.txt r2.txt >exp.txt
same exp.txt out.txt "-m -r"
gs_ok out.txt -m -r -u r1.txt r2.txt r2.txt
oracle -r -u -- r1.txt r2.txt >exp.txt
same exp.txt out.txt "-m -r -u"

# Binary.
for t in i32 u64; do
    "$GSGEN" -b -n 5000 -t "$t" -d sorted -s 139 --endian=big >a.bin
    "$GSGEN" -b -n 7000 -t "$t" -d sorted -s 140 --endian=big >b.bin
    gs_ok out.bin -m -B --type="$t" --endian=big a.bin b.bin
    decode "$t" big a.bin b.bin | LC_ALL=C sort -n >exp.txt
    decode "$t" big out.bin >got.txt
    same exp.txt got.txt "-m -B --type=$t"
done

# -o naming an input.
gs_ok out.txt -m a.txt b.txt -o a.txt
empty out.txt "stdout with -o"
"$GSGEN" -n 10000 -d sorted -s 131 >a0.txt
oracle a0.txt b.txt >exp.txt
same exp.txt a.txt "-m -o naming an input"
