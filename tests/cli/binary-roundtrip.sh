#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# binary-roundtrip.sh: binary in and out for every type and byte order, decoded by od.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

for t in i32 u32 i64 u64; do
    for e in little big; do
        "$GSGEN" -b -n 20000 -t "$t" --endian="$e" -s 71 >in.bin
        [ "$(wc -c <in.bin)" -eq $((20000 * $(key_width "$t"))) ] || fail "gsgen -b size"
        decode "$t" "$e" in.bin | LC_ALL=C sort -n >exp.txt

        gs_ok out.bin -B --type="$t" --endian="$e" in.bin
        [ "$(wc -c <out.bin)" -eq "$(wc -c <in.bin)" ] || fail "-B --type=$t --endian=$e: size changed"
        decode "$t" "$e" out.bin >got.txt
        same exp.txt got.txt "-B --type=$t --endian=$e"

        decode "$t" "$e" in.bin | LC_ALL=C sort -rn >exp-r.txt
        gs_ok out.bin --binary -r --type="$t" --endian="$e" <in.bin
        decode "$t" "$e" out.bin >got.txt
        same exp-r.txt got.txt "--binary -r --type=$t --endian=$e (stdin)"
    done
done

# The default byte order is little endian.
"$GSGEN" -b -n 1000 -t i32 -s 72 --endian=little >in.bin
gs_ok out.bin -B --type=i32 in.bin
decode i32 little in.bin | LC_ALL=C sort -n >exp.txt
decode i32 little out.bin >got.txt
same exp.txt got.txt "-B with the default byte order"

# -u in binary, with many duplicates.
"$GSGEN" -b -n 30000 -t i64 -d few -s 73 --endian=big >in.bin
gs_ok out.bin -B -u --type=i64 --endian=big in.bin
decode i64 big in.bin | LC_ALL=C sort -n -u >exp.txt
decode i64 big out.bin >got.txt
same exp.txt got.txt "-B -u"

# Hand-built keys, checked byte for byte.
printf '%s\n' 3 -1 2 | encode i32 big >hand.bin
printf '\377\377\377\377\000\000\000\002\000\000\000\003' >exp.bin
gs_ok out.bin -B --type=i32 --endian=big hand.bin
same exp.bin out.bin "hand-built i32 big endian"

# Inputs are concatenated: a key may straddle two files (3 + 5 bytes = 2 u32 keys).
printf '%s\n' 7 5 | encode u32 little >two.bin
head -c 3 two.bin >part1.bin
tail -c 5 two.bin >part2.bin
gs_ok out.bin -B --type=u32 part1.bin part2.bin
printf '%s\n' 5 7 | encode u32 little >exp.bin
same exp.bin out.bin "a key split across two files"

# Several binary files and stdin.
"$GSGEN" -b -n 5000 -t u64 -s 74 >a.bin
"$GSGEN" -b -n 3000 -t u64 -s 75 >b.bin
"$GSGEN" -b -n 100 -t u64 -s 76 >c.bin
gs_ok out.bin -B --type=u64 a.bin - c.bin <b.bin
decode u64 little a.bin b.bin c.bin | LC_ALL=C sort -n >exp.txt
decode u64 little out.bin >got.txt
same exp.txt got.txt "several binary inputs"
