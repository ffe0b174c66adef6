#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# formats-mixed.sh: --input-format and --output-format each alone, and after -b.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is the formats; their threads are sort-large.sh's"

# Text in, binary out.
for t in i32 u64; do
    for e in little big; do
        "$GSGEN" -n 10000 -t "$t" -s 81 >in.txt
        oracle in.txt >exp.txt
        gs_ok out.bin --type="$t" --endian="$e" --output-format=binary in.txt
        decode "$t" "$e" out.bin >got.txt
        same exp.txt got.txt "text in, binary out, --type=$t --endian=$e"
    done
done

# Binary in, text out.
for t in u32 i64; do
    for e in little big; do
        "$GSGEN" -b -n 10000 -t "$t" --endian="$e" -s 82 >in.bin
        decode "$t" "$e" in.bin | LC_ALL=C sort -n >exp.txt
        gs_ok out.txt --type="$t" --endian="$e" --input-format=binary in.bin
        same exp.txt out.txt "binary in, text out, --type=$t --endian=$e"
    done
done

# -b sets both; an explicit side after it overrides that side.
"$GSGEN" -b -n 5000 -t i32 -s 83 >in.bin
decode i32 little in.bin | LC_ALL=C sort -n >exp.txt
gs_ok out.txt -B --output-format=text --type=i32 in.bin
same exp.txt out.txt "-B --output-format=text"
gs_ok out.txt --binary --output-format=text --type=i32 in.bin
same exp.txt out.txt "--binary --output-format=text"

"$GSGEN" -n 5000 -t i32 -s 84 >in.txt
oracle in.txt >exp.txt
gs_ok out.bin -B --input-format=text --type=i32 in.txt
decode i32 little out.bin >got.txt
same exp.txt got.txt "-B --input-format=text"

# ... and -b after an explicit side sets both again.
gs_ok out.bin --output-format=text -B --type=i32 in.bin
decode i32 little out.bin >got.txt
decode i32 little in.bin | LC_ALL=C sort -n >exp.txt
same exp.txt got.txt "--output-format=text -B"

# Explicit text on both sides is the default.
gs_ok out.txt --input-format=text --output-format=text --type=i32 in.txt
oracle in.txt >exp.txt
same exp.txt out.txt "--input-format=text --output-format=text"
