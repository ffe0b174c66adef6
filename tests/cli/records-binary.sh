#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records-binary.sh: fixed-size binary records (-B --record-size=N --key-offset=O) of
# every type and byte order, against an independent stable sort in Python: records
# written back whole, equal keys in input order (with -r too), -u keeping the first
# of each run in input order; several inputs, -o, spilled runs.

# GSREC (make check sets it) names tests/tools/gsrec; made absolute before lib.sh
# moves into the test's directory.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"

need_gsrec
command -v python3 >/dev/null 2>&1 || skip "python3 (the oracle) is missing"

# rec_oracle SIZE OFFSET TYPE ENDIAN FILE...: the four expected outputs (recsort.py:
# exp.bin, exp-r.bin, exp-u.bin, exp-ru.bin).
rec_oracle() {
    python3 "$srcdir/recsort.py" "$@" || fail "the oracle failed"
}

# bin_same WHAT SIZE OFFSET TYPE ENDIAN EXPECTED 'GS-OPTIONS' FILE...: gpusort -B with
# the record options and GS-OPTIONS writes the file EXPECTED.
bin_same() {
    local what=$1 size=$2 off=$3 type=$4 endian=$5 exp=$6 gs=$7
    shift 7
    # shellcheck disable=SC2086 # the options are words on purpose
    gs_ok got.bin -B --record-size="$size" --key-offset="$off" --type="$type" \
        --endian="$endian" $gs -- "$@"
    same "$exp" got.bin "$what (gpusort -B --record-size=$size --key-offset=$off --type=$type --endian=$endian $gs)"
}

# tags FILE: the first byte of each 6-byte record of FILE, as one word.
tags() {
    od -An -c -w6 "$1" | sed -n 's/^ *\([A-D]\).*/\1/p' | tr -d '\n'
}

# The oracle itself, on records built by hand: keys 2, 1, 2, 0 (u32 at offset 1 of
# 6-byte records, little-endian), each record tagged by its first byte.
{
    printf 'A\002\000\000\000a'
    printf 'B\001\000\000\000b'
    printf 'C\002\000\000\000c'
    printf 'D\000\000\000\000d'
} >hand.bin
rec_oracle 6 1 u32 little hand.bin
for want in exp.bin:DBAC exp-r.bin:ACBD exp-u.bin:DBA exp-ru.bin:ABD; do
    [ "$(tags "${want%:*}")" = "${want#*:}" ] \
        || fail "the oracle's ${want%:*} of the hand-made records is $(tags "${want%:*}"), not ${want#*:}"
done
bin_same "hand-made records" 6 1 u32 little exp.bin '' hand.bin
bin_same "hand-made records, -r" 6 1 u32 little exp-r.bin '-r' hand.bin
bin_same "hand-made records, -u" 6 1 u32 little exp-u.bin '-u' hand.bin
bin_same "hand-made records, -r -u" 6 1 u32 little exp-ru.bin '-r -u' hand.bin

# Record shapes: SIZE OFFSET TYPE ENDIAN (the key at the start, in the middle,
# unaligned, at the end; records as small as the key and large). -s changes nothing:
# records always keep the input order of equal keys.
seed=500
while read -r size off type endian; do
    for dist in extremes dups; do
        seed=$((seed + 1))
        "$GSREC" -b -s "$seed" -n 3000 --record-size="$size" --key-offset="$off" \
            -t "$type" --endian="$endian" -d "$dist" --range=7 >in.bin
        rec_oracle "$size" "$off" "$type" "$endian" in.bin
        what="$dist $size-byte records, $type at $off, $endian"
        bin_same "$what" "$size" "$off" "$type" "$endian" exp.bin '' in.bin
        bin_same "$what, -s" "$size" "$off" "$type" "$endian" exp.bin '-s' in.bin
        bin_same "$what, -r" "$size" "$off" "$type" "$endian" exp-r.bin '-r' in.bin
        bin_same "$what, -u" "$size" "$off" "$type" "$endian" exp-u.bin '-u' in.bin
        bin_same "$what, -r -u" "$size" "$off" "$type" "$endian" exp-ru.bin '-r -u' in.bin
    done
done <<'SHAPES'
16 0 u64 little
100 50 u32 big
12 8 i32 little
24 3 i64 big
9 1 u64 little
8 0 i64 little
8 4 i32 big
SHAPES

# Several inputs and -o: whole records across files, equal keys in input order.
"$GSREC" -b -s 601 -n 1000 --record-size=20 --key-offset=4 -t u32 -d dups --range=9 >a.bin
"$GSREC" -b -s 602 -n 10 --record-size=20 --key-offset=4 -t u32 -d dups --range=9 >b.bin
: >empty.bin
"$GSREC" -b -s 603 -n 2000 --record-size=20 --key-offset=4 -t u32 -d dups --range=9 >c.bin
rec_oracle 20 4 u32 little a.bin empty.bin b.bin c.bin
bin_same "four inputs" 20 4 u32 little exp.bin '' a.bin empty.bin b.bin c.bin
rec_oracle 20 4 u32 little c.bin b.bin empty.bin a.bin
bin_same "four inputs, -r -u" 20 4 u32 little exp-ru.bin '-r -u' c.bin b.bin empty.bin a.bin
rec_oracle 20 4 u32 little a.bin c.bin
gs_ok got.bin -B --record-size=20 --key-offset=4 --type=u32 -o out.bin a.bin c.bin
empty got.bin "stdout with -o"
same exp.bin out.bin "-o FILE"
gs_ok got.bin --binary --record-size=20 --key-offset=4 --type=u32 - c.bin <a.bin
same exp.bin got.bin "standard input first"

# Spilled runs: 4 MB of 16-byte records against -S 1M; equal keys keep their order
# across runs.
"$GSREC" -b -s 604 -n 250000 --record-size=16 -t u64 -d dups --range=1000 >big.bin
mkdir tdir
rec_oracle 16 0 u64 little big.bin
for opts in '' '-r -u' '--parallel=1' '--parallel=4 -r -u'; do
    exp=exp.bin
    case $opts in *-u*) exp='exp-ru.bin' ;; esac
    # shellcheck disable=SC2086 # the options are words on purpose
    run_cmd "$GPUSORT" -B --record-size=16 --type=u64 -S 1M -T tdir --stats $opts big.bin
    [ "$STATUS" -eq 0 ] || fail "spilled records $opts: gpusort exited $STATUS: $(head -c 2000 "$RUN_ERR")"
    same "$exp" "$RUN_OUT" "spilled records $opts"
    spilled_clean "$RUN_ERR" tdir "spilled records $opts"
done
