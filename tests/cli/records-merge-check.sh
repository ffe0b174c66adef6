#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records-merge-check.sh: -m -u and -c on records as sort does them. -m -u merges
# inputs that hold equal keys (one record of each run of equal keys, the first in
# input order), text (-k) and binary (--record-size); -c reports the first disorder
# (exit 1) even where a bad key comes after it, in its chunk or a later one, and
# reports the bad key (exit 2) where it comes first.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"

need_gsrec
command -v python3 >/dev/null 2>&1 || skip "python3 (the binary oracle) is missing"

# Text: two sorted inputs with heavy duplicates inside each and across them.
"$GSREC" -s 4701 -n 3000 -d dups --range=40 | LC_ALL=C sort -t, -k2,2n >a.csv
"$GSREC" -s 4702 -n 2000 -d dups --range=40 | LC_ALL=C sort -t, -k2,2n >b.csv
for opts in "-u" "-u -s" ""; do
    # shellcheck disable=SC2086 # the options are words on purpose
    LC_ALL=C sort -m $opts -t, -k2,2n a.csv b.csv >exp.csv
    # shellcheck disable=SC2086
    gs_ok got.csv -m $opts -t, -k2,2n a.csv b.csv
    same exp.csv got.csv "-m $opts on text records"
done

# Binary: two sorted inputs of 16-byte records, u32 keys at byte 4 from 10 values.
"$GSREC" -b -s 4703 -n 3000 --record-size=16 --key-offset=4 -t u32 -d dups --range=10 >a0.bin
"$GSREC" -b -s 4704 -n 1000 --record-size=16 --key-offset=4 -t u32 -d dups --range=10 >b0.bin
python3 "$srcdir/recsort.py" 16 4 u32 little a0.bin || fail "the oracle failed"
mv exp.bin a.bin
python3 "$srcdir/recsort.py" 16 4 u32 little b0.bin || fail "the oracle failed"
mv exp.bin b.bin
python3 "$srcdir/recsort.py" 16 4 u32 little a.bin b.bin || fail "the oracle failed"
gs_ok got.bin -m -u -B --record-size=16 --key-offset=4 --type=u32 a.bin b.bin
same exp-u.bin got.bin "-m -u on binary records"
gs_ok got.bin -m -B --record-size=16 --key-offset=4 --type=u32 a.bin b.bin
same exp.bin got.bin "-m on binary records"

# -c: the first disorder, whatever bad key comes after it, as sort.
printf 'a,3\nb,1\nc,x\n' >bad-after.csv
expect_error 1 "^bad-after\.csv:2: disorder: b,1$" -- "$GPUSORT" -c -t, -k2,2n bad-after.csv
printf 'a,3\nb,x\nc,1\n' >bad-first.csv
expect_error 2 "^bad-first\.csv:2: field 2: not an integer: 'x'$" -- \
    "$GPUSORT" -c -t, -k2,2n bad-first.csv
# ... with -u (equal keys are the disorder), and far apart, chunks of -S 1M apart.
printf 'a,1\nb,1\nc,\n' >bad-after-u.csv
expect_error 1 "^bad-after-u\.csv:2: disorder: b,1$" -- "$GPUSORT" -c -u -t, -k2,2n bad-after-u.csv
{ LC_ALL=C sort -t, -k2,2n a.csv; printf 'z,-1\n'; cat a.csv a.csv a.csv a.csv a.csv a.csv; printf 'z,1e3\n'; } >far.csv
line=$(( $(wc -l <a.csv) + 1 ))
expect_error 1 "^far\.csv:$line: disorder: z,-1$" -- "$GPUSORT" -c -S 1M -t, -k2,2n far.csv
run_cmd "$GPUSORT" -C -S 1M -t, -k2,2n far.csv
[ "$STATUS" -eq 1 ] || fail "-C with a bad key after the disorder exited $STATUS (1 expected)"
empty "$RUN_ERR" "stderr of -C"
