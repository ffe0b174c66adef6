#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mpi-sort.sh: gpusort-mpi on 1 to 4 ranks (each case on 4 and one other, in
# turn) writes what gpusort writes: bare integers (text and binary, each pairing
# of formats, big-endian, -z) random, all equal, sorted, reversed, skewed (nine in
# ten keys in a narrow range), a share left empty, one part holding every key
# (also past the start of a rank's sorted share);
# records (CSV, TSV, blank-separated, binary)
# with -s, -r, -u, a key's r, -z, --header, several keys (text, then n), 10-byte
# keys (Sort Benchmark records); bare floating-point numbers (-g); several files,
# one ending without its newline; and small -S, so that each rank's sort and merge
# spill.
# shellcheck source=tests/mpi/mpilib.sh
. "$(dirname "$0")/mpilib.sh"
{ [ -n "$GSREC" ] && [ -x "$GSREC" ]; } || skip "gsrec is not built"

"$GSGEN" -n 60000 -t i64 -s 1 >rand.txt
"$GSGEN" -n 20000 -t i64 -s 1 -d equal >equal.txt
"$GSGEN" -n 30000 -t i32 -s 2 -d sorted >sorted.txt
"$GSGEN" -n 30000 -t i32 -s 2 -d reversed >reversed.txt
"$GSGEN" -n 45000 -t u64 -s 3 --min=1000 --max=1999 >narrow.txt
"$GSGEN" -n 5000 -t u64 -s 4 >wide.txt
cat narrow.txt wide.txt >skewed.txt
printf '7\n-3\n' >tiny.txt
"$GSGEN" -n 40000 -t u32 -s 5 -b >keys.bin
"$GSGEN" -n 1000 -t u32 -s 6 -b >more.bin
"$GSREC" -n 30000 -s 7 -d dups --range=40 >a.csv
"$GSREC" -n 20000 -s 8 --no-final-newline >b.csv
"$GSREC" -n 15000 -s 9 -F tab -k 3 -f 4 -t u32 >c.tsv
"$GSREC" -n 15000 -s 10 -F blank --pad -t i32 -d extremes >d.txt
"$GSREC" -n 12000 -s 11 -z >e.txt
"$GSREC" -n 8000 -s 12 --header=id,key,payload >h1.csv
"$GSREC" -n 9000 -s 13 --header=ID,KEY,PAYLOAD >h2.csv
: >empty.csv
awk 'BEGIN { srand(15); for (i = 0; i < 30000; i++)
             printf "%de%d\n", int(rand() * 2000) - 1000, int(rand() * 10) - 5 }' >floats.txt
"$GSGEN" -n 48000 -t u64 -s 14 -b >recs.bin   # 384000 bytes: 24000 16-byte records

mpi_same_as_gpusort random rand.txt
mpi_same_as_gpusort equal equal.txt
mpi_same_as_gpusort sorted --type=i32 sorted.txt
mpi_same_as_gpusort reversed -r --type=i32 reversed.txt
mpi_same_as_gpusort skewed --type=u64 skewed.txt
mpi_same_as_gpusort "empty shares" tiny.txt
mpi_same_as_gpusort "several files" -u rand.txt equal.txt tiny.txt
mpi_same_as_gpusort binary -B --type=u32 keys.bin more.bin
mpi_same_as_gpusort "binary in, text out" --input-format=binary --type=u32 -r keys.bin
# Bare numbers travel between the ranks as binary keys whatever the formats
# (cluster/local.h): each pairing of formats, big-endian, -z.
mpi_same_as_gpusort "text in, binary out" --output-format=binary --type=i64 rand.txt
mpi_same_as_gpusort "big-endian in, text out" --input-format=binary --endian=big \
    --type=i32 keys.bin
mpi_same_as_gpusort "big-endian, -r" -B --endian=big --type=u32 -r keys.bin more.bin
tr '\n' '\0' <rand.txt >rand0.txt
mpi_same_as_gpusort "bare numbers, -z" -z -r rand0.txt
mpi_same_as_gpusort csv -t, -k2,2n a.csv b.csv
mpi_same_as_gpusort "csv -s" -s -t, -k2,2n a.csv b.csv
mpi_same_as_gpusort "csv -u" -u -t, -k2,2n a.csv b.csv
mpi_same_as_gpusort "csv -s -u -r" -s -u -r -t, -k2,2n a.csv b.csv
mpi_same_as_gpusort "csv key r" -t, -k2,2nr a.csv
mpi_same_as_gpusort tsv -t "$(printf '\t')" -k3,3n --type=u32 c.tsv
mpi_same_as_gpusort blanks -k2n --type=i32 d.txt
mpi_same_as_gpusort "-z" -z -t, -k2,2n e.txt
mpi_same_as_gpusort header --header -t, -k2,2n h1.csv h2.csv
mpi_same_as_gpusort "header, empty first" --header -t, -k2,2n empty.csv h2.csv h1.csv
mpi_same_as_gpusort "binary records" -B --record-size=16 --key-offset=8 --type=i64 recs.bin
# Several keys: text, then a number descending, then the whole payload; prefixes of
# eight bytes that tie (the words), resolved by the full keys on every rank.
mpi_same_as_gpusort "several keys" -t, -k3,3 -k2,2nr a.csv b.csv
mpi_same_as_gpusort "floats, bare (-g)" -g floats.txt
# Sort Benchmark records by their 10-byte keys, two in five sharing their first 8
# bytes (one word): the ranks' splitters fall among equal words.
if command -v python3 >/dev/null 2>&1; then
    python3 -c '
import random, struct, sys
r = random.Random(9)
out = sys.stdout.buffer
for i in range(20000):
    pre = b"SAMEPREF" if r.random() < 0.4 else bytes(r.randrange(256) for _ in range(8))
    out.write(pre + bytes(r.randrange(256) for _ in range(2)) + struct.pack("<Q", i) + bytes(82))
' >sb.bin
    mpi_same_as_gpusort "bytes10 records" -B --record-size=100 --type=bytes10 sb.bin
fi
mpi_same_as_gpusort "binary records, big-endian, -r" -r -B --record-size=16 --key-offset=4 \
    --type=u32 --endian=big recs.bin
# Each rank's merge cut into a piece a thread (5 here), by keys: equal keys never
# split between two pieces, whatever ties they have.
mpi_same_as_gpusort "merge pieces" --parallel=5 rand.txt rand.txt
mpi_same_as_gpusort "merge pieces, csv" --parallel=5 -t, -k2,2n a.csv b.csv a.csv
mpi_same_as_gpusort "merge pieces, csv -u" --parallel=5 -u -t, -k2,2n a.csv b.csv a.csv
mpi_same_as_gpusort "merge pieces, csv -s -r" --parallel=5 -s -r -t, -k2,2n a.csv b.csv a.csv
mpi_same_as_gpusort "merge pieces, binary records" --parallel=5 -B --record-size=16 \
    --key-offset=8 --type=i64 recs.bin recs.bin recs.bin
mpi_same_as_gpusort "merge pieces, skewed" --parallel=5 --type=u64 skewed.txt skewed.txt
mpi_same_as_gpusort "spilled keys" -S 1M rand.txt equal.txt rand.txt
mpi_same_as_gpusort "spilled records" -S 1M -t, -k2,2n a.csv b.csv a.csv
# Parts that take several rounds (-S 1M: rounds of 1 MiB, two buffers in turn): two
# keys, so that each rank sends about half its share to each of two ranks.
"$GSREC" -n 1000000 -s 16 -d dups --range=2 >two.csv
mpi_same_as_gpusort "exchange in rounds" -S 1M -t, -k2,2n two.csv

# gpusort itself against sort(1), on one of them: the oracle's oracle.
LC_ALL=C sort -t, -k2,2n a.csv b.csv >sort.out
"$GPUSORT" -t, -k2,2n a.csv b.csv >gs.out
same sort.out gs.out "gpusort against sort -t, -k2,2n"

# Standard output (through rank 0), and one part a rank (--output-parts).
"$GPUSORT" --header -t, -k2,2n h1.csv a.csv >expect.out
mpi_run 3 --header -t, -k2,2n h1.csv a.csv
[ "$STATUS" -eq 0 ] || fail "standard output: exit $STATUS"
same expect.out "$RUN_OUT" "3 ranks to standard output"
mpi_run 3 --output-parts --header -t, -k2,2n h1.csv a.csv -o part
[ "$STATUS" -eq 0 ] || fail "--output-parts: exit $STATUS"
empty "$RUN_OUT" "--output-parts' standard output"
[ "$(echo part.*)" = "part.0 part.1 part.2" ] || fail "--output-parts made: $(echo part.*)"
cat part.0 part.1 part.2 >parts.out
same expect.out parts.out "the parts, in order"
rm -f part.*
"$GPUSORT" -u --header -t, -k2,2n h1.csv a.csv >expect.out   # -u: each part copied in after
mpi_run 2 --output-parts -u --header -t, -k2,2n h1.csv a.csv -o part
[ "$STATUS" -eq 0 ] || fail "--output-parts -u: exit $STATUS"
cat part.0 part.1 >parts.out
same expect.out parts.out "the parts under -u, in order"
rm -f part.*
mpi_run 11 --output-parts tiny.txt -o p
[ "$STATUS" -eq 0 ] || fail "--output-parts on 11 ranks: exit $STATUS"
[ "$(echo p.*)" = "p.00 p.01 p.02 p.03 p.04 p.05 p.06 p.07 p.08 p.09 p.10" ] ||
    fail "--output-parts on 11 ranks made: $(echo p.*)"

# -o naming an input: read whole before it is replaced.
cp rand.txt inout.txt
"$GPUSORT" rand.txt >expect.out
mpi_run 3 inout.txt -o inout.txt
[ "$STATUS" -eq 0 ] || fail "-o an input: exit $STATUS"
same expect.out inout.txt "-o naming an input"

# Bare numbers to standard output where one part holds every key (one rank: its
# own): its text is written, never the binary part, though both take 4 bytes a key
# here. On 2 ranks every key goes to one of them.
awk 'BEGIN { for (i = 0; i < 3000; i++) print 123 }' >same3.txt
"$GPUSORT" --type=u32 same3.txt >expect3.out
for n in 1 2; do
    mpi_run $n --type=u32 same3.txt
    [ "$STATUS" -eq 0 ] || fail "every key in one part, $n ranks: exit $STATUS"
    same expect3.out "$RUN_OUT" "every key in one part, $n ranks, to standard output"
done

# Records where the one part a rank holds lies past other records in its sorted
# share: rank 1's share is a fifth key 1 and four fifths key 2, rank 0's all key 1,
# so key 1 (three fifths) goes to rank 0 and rank 1 keeps its key 2 records, at an
# offset of its share, receiving nothing: they are read from there, not from the
# share's start.
awk 'BEGIN { for (i = 0; i < 2000; i++) printf "1,a%05d\n", i
             for (i = 0; i < 400; i++) printf "1,b%05d\n", i
             for (i = 0; i < 1600; i++) printf "2,c%05d\n", i }' >offset.csv
"$GPUSORT" -t, -k1,1n offset.csv >expect-offset.out
mpi_run 2 -t, -k1,1n offset.csv
[ "$STATUS" -eq 0 ] || fail "one part past the share's start: exit $STATUS"
same expect-offset.out "$RUN_OUT" "one part past the share's start, to standard output"
mpi_run 2 -t, -k1,1n offset.csv -o offset.out
[ "$STATUS" -eq 0 ] || fail "one part past the share's start, -o: exit $STATUS"
same expect-offset.out offset.out "one part past the share's start, -o"

# --stats: a line per rank and the totals, on stderr, the output unchanged.
mpi_run 2 --stats rand.txt -o stats.out
[ "$STATUS" -eq 0 ] || fail "--stats: exit $STATUS"
same expect.out stats.out "--stats' output"
grep -q '^gpusort-mpi: --stats, 2 ranks' "$RUN_ERR" || fail "--stats: no heading: $(cat "$RUN_ERR")"
[ "$(grep -cE '^  (0|1|all) ' "$RUN_ERR")" -eq 3 ] || fail "--stats: rows: $(cat "$RUN_ERR")"
exit 0
