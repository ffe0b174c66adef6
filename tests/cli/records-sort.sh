#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records-sort.sh: text records (-k, -t, -z, -s, --header) against `LC_ALL=C sort -t SEP
# -k F,F -n` on seeded inputs from tests/tools/gsrec: separators, key positions, types,
# duplicates, every ordering option, several inputs, -o, spilled runs.
#
# The contract promises sort's bytes for every input whose key fields are integers of
# the type written as sort reads them, so sort is the oracle throughout; the few cases
# where the two differ on purpose (a '+' sign, -0 of an unsigned type) are written out
# by hand.

# GSREC (make check sets it) names tests/tools/gsrec; made absolute before lib.sh
# moves into the test's directory.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
not_under_tsan "records' threads (the index, the order, the copy, the spill) are records-mapped.sh's, records-binary.sh's and records-merge-check.sh's"

need_gsrec
leaks_checked_elsewhere "records' sorts, spills, merges and checks are records-mapped.sh's, records-merge-check.sh's and output-over-input.sh's"

TAB=$(printf '\t')

# sep_args SEP: SEP_ARGS, the -t option for gsrec's separator SEP (none for blank).
sep_args() {
    case $1 in
        blank) SEP_ARGS=() ;;
        tab) SEP_ARGS=(-t "$TAB") ;;
        space) SEP_ARGS=(-t ' ') ;;
        *) SEP_ARGS=(-t "$1") ;;
    esac
}

# rec_same WHAT SEP 'GS-OPTIONS' 'SORT-OPTIONS' FILE...: gpusort, with the -t of SEP
# and GS-OPTIONS (words), writes what `LC_ALL=C sort` with the same -t and
# SORT-OPTIONS writes for the FILEs.
rec_same() {
    local what=$1 sep=$2 gs=$3 so=$4
    shift 4
    sep_args "$sep"
    # shellcheck disable=SC2086 # the options are words on purpose
    LC_ALL=C sort "${SEP_ARGS[@]}" $so -- "$@" >exp.out || fail "the oracle failed: sort $so"
    # shellcheck disable=SC2086
    gs_ok got.out "${SEP_ARGS[@]}" -n $gs -- "$@"
    same exp.out got.out "$what (gpusort ${SEP_ARGS[*]} $gs; sort ${SEP_ARGS[*]} $so)"
}

seed=100
# gen FILE GSREC-OPTION...: FILE from gsrec with a fresh seed.
gen() {
    local f=$1
    shift
    seed=$((seed + 1))
    "$GSREC" -s "$seed" "$@" >"$f" || fail "gsrec $* failed"
}

# --------------------------------------------------------------------------------
# Hand-made: the letters of -k, and the cases where gpusort is not sort
# --------------------------------------------------------------------------------

printf 'b,10,x\na,-3,y\nc,10,a\nd,007,q\ne,-0,z\nf,0,m\ng, 5 ,k\nh,\t4\t,k\n' >hand.csv
for k in -k2,2 -k2 -k2n -k2,2n -k2,2bn '-k 2,2' --key=2,2n; do
    # shellcheck disable=SC2086 # '-k 2,2' is two words on purpose
    rec_same "the key spelled $k" , "$k" '-k2,2 -n' hand.csv
done
rec_same "-n and -b beside -k" , '-n -b -k2,2' '-k2,2 -n' hand.csv
rec_same "--field-separator" blank '--field-separator=, -k2,2' '-t , -k2,2 -n' hand.csv

# '+5' is 5 to gpusort (sort would read no number); -0 is valid for unsigned types.
printf 'a,+5\nb,4\nc,6\nd,+05\n' >plus.csv
printf 'b,4\na,+5\nd,+05\nc,6\n' >exp.out
gs_ok got.out -t, -k2,2n plus.csv
same exp.out got.out "a key with a '+'"
printf 'a,1\nb,-0\nc,0\nd,-00\n' >mzero.csv
printf 'b,-0\nc,0\nd,-00\na,1\n' >exp.out
for t in u32 u64 i32 i64; do
    gs_ok got.out --type="$t" -t, -k2,2n mzero.csv
    same exp.out got.out "-0 as a key of type $t"
done

# CRLF with the key last, the CR right after its digits; and blanks after it.
printf 'a,3\r\nb,1\r\nc,2 \r\nd,1\t\r\n' >crlf.csv
rec_same "CRLF, key last" , '-k2,2' '-k2,2 -n' crlf.csv

# --------------------------------------------------------------------------------
# Separators and key positions, every type, extremes mixed in
# --------------------------------------------------------------------------------

# SEP FIELDS KEY GSREC-OPTIONS: each shape is run for every type.
while read -r sep nf key opts; do
    for t in i32 u32 i64 u64; do
        # shellcheck disable=SC2086 # opts are words on purpose
        gen in.txt -n 1500 -F "$sep" -f "$nf" -k "$key" -t "$t" -d extremes $opts
        rec_same "$t, -F $sep, $nf fields, key $key, $opts" "$sep" \
            "--type=$t -k$key,${key}n" "-k$key,$key -n" in.txt
    done
done <<'SHAPES'
, 3 1 --zeros
, 4 2 --zeros --pad
, 3 3 --zeros --pad --crlf
tab 3 1 --zeros
tab 5 3 --pad
tab 2 2 --crlf --zeros
; 6 5 --zeros --pad -w 0
| 2 1 --crlf
space 4 2 --pad --zeros
blank 3 1 --zeros
blank 4 2 --zeros --pad
blank 3 3 --zeros --pad --crlf
blank 1 1 --zeros
SHAPES

# Uniform keys of every type (light duplicates: almost every key differs).
for t in i32 u32 i64 u64; do
    gen in.csv -n 3000 -t "$t" -d uniform
    rec_same "uniform $t" , "--type=$t -k2,2n" '-k2,2 -n' in.csv
done

# --------------------------------------------------------------------------------
# Duplicates, and every ordering option alone and together
# --------------------------------------------------------------------------------

# Heavy duplicates: 5 keys, short fields, so whole lines repeat too (the last-resort
# comparison and -u both meet equal lines).
gen heavy.csv -n 4000 -f 3 -k 2 -t i64 -d dups --range=5 -w 1
gen heavy.txt -n 4000 -F blank -f 3 -k 3 -t u32 -d dups --range=5 -w 2
# Light duplicates: a thousand keys among the lines.
gen light.csv -n 4000 -f 4 -k 3 -t i32 -d dups --range=1000 --pad

for opts in '' -s -r -u '-s -r' '-r -u' '-s -u' '-s -r -u'; do
    rec_same "heavy duplicates, CSV, $opts" , "-k2,2n $opts" "-k2,2n $opts" heavy.csv
    rec_same "heavy duplicates, blanks, $opts" blank "--type=u32 -k3,3 $opts" \
        "-k3,3 -n $opts" heavy.txt
    rec_same "light duplicates, CSV, $opts" , "--type=i32 -k3 $opts" "-k3,3 -n $opts" light.csv
done
# The long options.
rec_same "--stable --reverse --unique" , '--stable --reverse --unique --key=2,2' \
    '-k2,2 -n -s -r -u' heavy.csv

# r on the key reverses the key alone: the last-resort comparison stays ascending.
for opts in '' -s -u; do
    rec_same "-k2,2nr $opts" , "-k2,2nr $opts" "-k2,2nr $opts" heavy.csv
    rec_same "-k3,3nr $opts, blanks" blank "--type=u32 -k3,3nr $opts" "-k3,3nr $opts" heavy.txt
done
# A global -r, as sort: inherited by a key without letters (-r -n -k2,2: the key
# descending), not by one with letters of its own (-r -k2,2n: the key ascending);
# the last resort descending either way.
rec_same "-r -n -k2,2" , '-r -k2,2' '-r -n -k2,2' heavy.csv
rec_same "-r -k2,2n" , '-r -k2,2n' '-r -k2,2n' heavy.csv
rec_same "-r -k2,2bn" , '-r -k2,2bn' '-r -k2,2bn' heavy.csv
rec_same "-r -k2,2nr" , '-r -k2,2nr' '-r -k2,2nr' heavy.csv

# --------------------------------------------------------------------------------
# -z, a missing final newline, several inputs, -o
# --------------------------------------------------------------------------------

gen z.csv -n 3000 -z -t i32 -d dups --range=50 --pad
gen z.txt -n 3000 -z -F blank -k 1 -d extremes --zeros
for opts in -z '-z -s' '-z -r -u' '-z -u'; do
    rec_same "NUL-terminated CSV, $opts" , "--type=i32 -k2,2 $opts" "-k2,2 -n $opts" z.csv
    rec_same "NUL-terminated, blanks, $opts" blank "-k1,1 $opts" "-k1,1 -n $opts" z.txt
done

# Under -z a line may hold LFs: blanks, as sort takes them, between blank-run fields
# and around a key.
gen zb.txt -n 3000 -z -F blank -k 2 -d dups --range=40
sed -z 's/ /\n/' zb.txt >zlf.txt
cmp -s zb.txt zlf.txt && fail "no LF put into zlf.txt"
gen zc.csv -n 3000 -z -k 2 -d dups --range=40
sed -z 's/,/,\n/' zc.csv >zlf.csv
for opts in -z '-z -s -r'; do
    rec_same "LFs in NUL-terminated lines, blanks, $opts" blank "-k2,2 $opts" "-k2,2 -n $opts" zlf.txt
    rec_same "LFs in NUL-terminated lines, CSV, $opts" , "-k2,2 $opts" "-k2,2 -n $opts" zlf.csv
done

# The last line without its terminator gets one.
gen nonl.csv -n 2000 -d dups --range=100 --no-final-newline
gen nonl.txt -n 2000 -F blank -k 2 --no-final-newline --crlf
gen nonl.z -n 2000 -z -k 1 --no-final-newline
rec_same "no final newline, CSV" , '-k2,2' '-k2,2 -n' nonl.csv
rec_same "no final newline, blanks, CRLF" blank '-k2,2 -r' '-k2,2 -n -r' nonl.txt
rec_same "no final NUL" , '-z -k1,1' '-z -k1,1 -n' nonl.z
printf 'a,5\nb,1' >last.csv
rec_same "a two-line file without its final newline" , '-k2,2' '-k2,2 -n' last.csv

# Several inputs: an empty one, one without its final newline (never joined to the
# next), standard input.
gen in1.csv -n 1500 -d dups --range=40
gen in2.csv -n 10 -d dups --range=40 --no-final-newline
: >empty.csv
gen in3.csv -n 2500 -d dups --range=40 --crlf
rec_same "four files" , '-k2,2' '-k2,2 -n' in1.csv empty.csv in2.csv in3.csv
rec_same "four files, -s" , '-k2,2 -s' '-k2,2 -n -s' in2.csv in1.csv in3.csv empty.csv
rec_same "four files, -u" , '-k2,2 -u' '-k2,2 -n -u' in3.csv in2.csv in1.csv empty.csv
LC_ALL=C sort -t, -k2,2n in1.csv - in3.csv <in2.csv >exp.out
gs_ok got.out -t, -k2,2n in1.csv - in3.csv <in2.csv
same exp.out got.out "standard input among the files"

# -o to a file, and -o naming one of its inputs.
LC_ALL=C sort -t, -k2,2n -s in1.csv in3.csv >exp.out
gs_ok got.out -t, -k2,2n -s -o sorted.csv in1.csv in3.csv
empty got.out "stdout with -o"
same exp.out sorted.csv "-o FILE"
cp in1.csv self.csv
gs_ok got.out -t, -k2,2n -s -o self.csv self.csv in3.csv
same exp.out self.csv "-o naming an input"

# --------------------------------------------------------------------------------
# -m: inputs each sorted already
# --------------------------------------------------------------------------------

LC_ALL=C sort -t, -k2,2n in1.csv >m1.csv
LC_ALL=C sort -t, -k2,2n in3.csv >m3.csv
rec_same "-m of two sorted files" , '-m -k2,2' '-m -k2,2 -n' m1.csv m3.csv
LC_ALL=C sort -t, -k2,2n -s in1.csv >m1s.csv
LC_ALL=C sort -t, -k2,2n -s in3.csv >m3s.csv
rec_same "-m -s of two sorted files" , '-m -s -k2,2' '-m -s -k2,2 -n' m1s.csv m3s.csv

# --------------------------------------------------------------------------------
# Large, in memory: the sort shared by the threads; the output written by each
# thread at its offset (-o, standard output that is a file) or in order (a pipe)
# --------------------------------------------------------------------------------

# Full-range u64 keys leave no room for the line numbers in the sorted words (keys
# and lines sorted as pairs); u32 keys with duplicates are sorted packed. A file's
# threads place their shares at offsets found from the keys (records/emit.c), or,
# where a share begins among many records of one key (few.csv), measured.
gen wide.csv -n 150000 -t u64 -w 3 -d uniform
gen narrow.csv -n 150000 -t u32 -w 3 -d dups --range=5000
gen few.csv -n 150000 -t u32 -w 3 -d dups --range=3
for f in wide.csv narrow.csv few.csv; do
    t=u32
    [ "$f" = wide.csv ] && t=u64
    for opts in '' '-s' '-r -u'; do
        # shellcheck disable=SC2086 # the options are words on purpose
        LC_ALL=C sort -t, -k2,2n $opts "$f" >exp.out
        gs=(--parallel=4 -t, -k2,2n --type="$t")
        # shellcheck disable=SC2086
        gs_ok got.out "${gs[@]}" $opts "$f"
        same exp.out got.out "$f $opts, standard output a file"
        rm -f got.out
        # shellcheck disable=SC2086
        gs_ok /dev/null "${gs[@]}" $opts "$f" -o got.out
        same exp.out got.out "$f $opts, -o"
        # shellcheck disable=SC2086
        "$GPUSORT" "${gs[@]}" $opts "$f" 2>"$RUN_ERR" | cat >got.out
        [ -s "$RUN_ERR" ] && fail "$f $opts to a pipe: $(head -c 2000 "$RUN_ERR")"
        same exp.out got.out "$f $opts, to a pipe"
    done
done

# A line of 1 MiB or more among many, to a file and to a pipe: the measure notes
# each line's offset and length in one word, but for a line this long its offset
# alone, and the copy finds its end by its terminator.
{
    cat narrow.csv
    printf '7,123,%s\n' "$(head -c 1200000 /dev/zero | tr '\0' x)"
} >longl.csv
LC_ALL=C sort -t, -k2,2n longl.csv >exp.out
gs_ok /dev/null --parallel=4 -t, -k2,2n longl.csv -o got.out
same exp.out got.out "a 1.2 MB line among 150,000, -o"
"$GPUSORT" --parallel=4 -t, -k2,2n longl.csv 2>"$RUN_ERR" | cat >got.out
[ ! -s "$RUN_ERR" ] || fail "a 1.2 MB line among 150,000, to a pipe: $(head -c 2000 "$RUN_ERR")"
same exp.out got.out "a 1.2 MB line among 150,000, to a pipe"
# Spilled: the runs' packing makes its lines where words too (records/spill.c).
mkdir -p tdir
run_cmd "$GPUSORT" --parallel=4 -t, -k2,2n -S 4M -T tdir --stats longl.csv
same exp.out "$RUN_OUT" "a 1.2 MB line among 150,000, spilled"
spilled_clean "$RUN_ERR" tdir "a 1.2 MB line among 150,000, spilled"

# To /dev/null (-o, and standard output), a file that cannot be mapped nor have its
# space reserved: written in order, in memory and spilled.
mkdir -p tdir
for spill in '' '-S 1M -T tdir'; do
    for to in -o stdout; do
        st=0
        # shellcheck disable=SC2086 # the options are words on purpose
        case $to in
            -o) "$GPUSORT" --parallel=4 -t, -k2,2n $spill narrow.csv -o /dev/null 2>"$RUN_ERR" ||
                    st=$? ;;
            stdout) "$GPUSORT" --parallel=4 -t, -k2,2n $spill narrow.csv >/dev/null 2>"$RUN_ERR" ||
                    st=$? ;;
        esac
        [ "$st" -eq 0 ] && [ ! -s "$RUN_ERR" ] ||
            fail "150,000 lines $spill to /dev/null ($to): exit $st: $(head -c 2000 "$RUN_ERR")"
    done
done

# To a file, those records went out mapped (copied by the threads into the file's
# pages at their offsets), where the file system gives space by fallocate; --stats
# counts them all, the header included.
can_falloc=0
command -v fallocate >/dev/null && fallocate -l 4096 probe.bin 2>/dev/null && can_falloc=1
if [ "$can_falloc" = 1 ]; then
    { echo "key,header"; cat narrow.csv; } >hnarrow.csv
    { echo "key,header"; LC_ALL=C sort -t, -k2,2n narrow.csv; } >exp.out
    for to in -o file; do
        rm -f got.out
        case $to in
            -o) "$GPUSORT" --parallel=4 --header -t, -k2,2n --stats hnarrow.csv -o got.out \
                    2>"$RUN_ERR" ;;
            file) "$GPUSORT" --parallel=4 --header -t, -k2,2n --stats hnarrow.csv >got.out \
                    2>"$RUN_ERR" ;;
        esac
        same exp.out got.out "--header, 150,000 lines to $to"
        grep -q "stats: $(wc -c <exp.out) bytes written mapped" "$RUN_ERR" ||
            fail "150,000 lines to $to: not written mapped: $(head -c 2000 "$RUN_ERR")"
    done
fi

# --------------------------------------------------------------------------------
# Spilled runs: far more records than -S holds
# --------------------------------------------------------------------------------

# About 3.5 MB of lines against -S 1M.
gen big.csv -n 200000 -t u32 -w 4 -d uniform
gen bigdup.csv -n 200000 -t i32 -w 3 -d dups --range=20
mkdir -p tdir
# spilled WHAT FILE OPTIONS SORT-OPTIONS: as rec_same with CSV and -S 1M -T tdir
# --stats, merged by one thread and by four (the runs' merge cut into ranges of
# keys); some bytes were spilled, and none are left in tdir.
spilled() {
    local what=$1 file=$2 gs=$3 so=$4 p
    # shellcheck disable=SC2086 # the options are words on purpose
    LC_ALL=C sort -t, $so "$file" >exp.out
    for p in 1 4; do
        # shellcheck disable=SC2086
        run_cmd "$GPUSORT" -t, -n $gs -S 1M -T tdir --parallel=$p --stats "$file"
        [ "$STATUS" -eq 0 ] || fail "$what, --parallel=$p: gpusort exited $STATUS: $(head -c 2000 "$RUN_ERR")"
        same exp.out "$RUN_OUT" "$what, --parallel=$p"
        spilled_clean "$RUN_ERR" tdir "$what, --parallel=$p"
    done
}
spilled "spilled, uniform u32" big.csv '--type=u32 -k2,2' '-k2,2 -n'
spilled "spilled, heavy duplicates" bigdup.csv '--type=i32 -k2,2' '-k2,2 -n'
spilled "spilled, heavy duplicates, -s" bigdup.csv '--type=i32 -k2,2 -s' '-k2,2 -n -s'
spilled "spilled, heavy duplicates, -r -u" bigdup.csv '--type=i32 -k2,2 -r -u' '-k2,2 -n -r -u'

# Spilled in other shapes: the merge takes each spilled line's end and key again,
# as the table did (by the masks of ends.h where -t names a byte, else by
# field_key): the key first, in the middle and last, blanks and leading zeros
# around it, tabs, fields split by blanks, CRLF, lines ending with NUL.
# SEP FIELDS KEY TYPE GSREC-OPTIONS:
while read -r sep nf key t opts; do
    # shellcheck disable=SC2086 # opts are words on purpose
    gen shape.txt -n 100000 -F "$sep" -f "$nf" -k "$key" -t "$t" -w 10 $opts
    sep_args "$sep"
    z=()
    case " $opts " in *' -z '*) z=(-z) ;; esac
    what="spilled, -F $sep, $nf fields, key $key, $t, $opts"
    LC_ALL=C sort "${SEP_ARGS[@]}" "${z[@]}" -k"$key,$key" -n shape.txt >exp.out
    for p in 1 4; do
        run_cmd "$GPUSORT" "${SEP_ARGS[@]}" "${z[@]}" -k"$key,${key}n" --type="$t" -S 1M -T tdir \
            --parallel=$p --stats shape.txt
        [ "$STATUS" -eq 0 ] || fail "$what, --parallel=$p: gpusort exited $STATUS: $(head -c 2000 "$RUN_ERR")"
        same exp.out "$RUN_OUT" "$what, --parallel=$p"
        spilled_clean "$RUN_ERR" tdir "$what, --parallel=$p"
    done
done <<'SHAPES'
, 3 1 u32 -d uniform
tab 4 4 i64 -d extremes --pad
blank 3 2 i32 -d dups --range=500 --zeros
; 5 3 u64 -d extremes --crlf
, 3 3 i64 -d uniform --zeros -z
SHAPES

# --compress-temp=auto compresses a spilled run where its first round shrinks by a
# tenth or more under LZ4: lines of random letters shrink by less (stored raw: as
# many bytes spilled as with =none), repeated ones by far more; =lz4 compresses
# either. --stats' spill row counts the bytes stored, compared here with =none's
# (the blocks' heads make those more than the bytes read).
gen rand.csv -n 200000 --bench
awk -F, '{ print $1 "," $2 ",aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" }' rand.csv >rep.csv
for f in rand.csv rep.csv; do
    LC_ALL=C sort -t, -k2,2n "$f" >exp.out
    for c in none auto lz4; do
        run_cmd "$GPUSORT" -t, -k2,2n -S 1M -T tdir --parallel=2 --compress-temp=$c --stats "$f"
        [ "$STATUS" -eq 0 ] || fail "$f, $c: gpusort exited $STATUS: $(head -c 2000 "$RUN_ERR")"
        same exp.out "$RUN_OUT" "$f spilled, --compress-temp=$c"
        spilled_clean "$RUN_ERR" tdir "$f, --compress-temp=$c"
        got=$(spill_bytes "$RUN_ERR") || exit 1
        case $f/$c in
            */none) none=$got; ok=1 ;;
            rand.csv/auto) ok=$((got == none)) ;;
            rand.csv/lz4) ok=$((got < none)) ;;
            *) ok=$((got < none / 2)) ;;
        esac
        [ "$ok" = 1 ] || fail "$f, --compress-temp=$c: $got bytes spilled, $none with =none"
    done
done

# Enough runs and memory (-S 8M) for the merge to be shared by threads, by ranges of
# keys: written at their offsets (standard output that is a file, -o) where each
# range's length is known, else (-u, a pipe) in turn.
gen huge.csv -n 300000 -t u64 -w 4 -d uniform
for opts in '' '-s' '-r -u'; do
    # shellcheck disable=SC2086 # the options are words on purpose
    LC_ALL=C sort -t, -k2,2n $opts huge.csv >exp.out
    gs=(-t, -k2,2n --type=u64 -S 8M -T tdir --parallel=4)
    for to in file -o pipe; do
        rm -f got.out
        # shellcheck disable=SC2086
        case $to in
            file) "$GPUSORT" "${gs[@]}" $opts --stats huge.csv >got.out 2>"$RUN_ERR" ;;
            -o) "$GPUSORT" "${gs[@]}" $opts --stats huge.csv -o got.out 2>"$RUN_ERR" ;;
            pipe) "$GPUSORT" "${gs[@]}" $opts --stats huge.csv 2>"$RUN_ERR" | cat >got.out ;;
        esac
        same exp.out got.out "spilled, 300,000 lines, merged by threads, $opts, to $to"
        # To a file, and the pieces' lengths known (no -u): copied into its mapped
        # pages, where the file system gives space by fallocate.
        if [ "$to" != pipe ] && [ "$opts" != '-r -u' ] && [ "$can_falloc" = 1 ] &&
            ! grep -q "stats: $(wc -c <exp.out) bytes written mapped" "$RUN_ERR"; then
            fail "spilled, $opts, to $to: not written mapped: $(head -c 2000 "$RUN_ERR")"
        fi
        stats_only "$RUN_ERR"
        spilled_clean "$RUN_ERR" tdir "300,000 lines, $opts, to $to"
    done
done

# Each chunk's index and order are kept for the next (records/table.c, order.c),
# and grow where a later chunk holds more lines than the first: long lines with
# wide keys first (sorted as pairs: no scratch), then short lines with few keys
# (sorted as packed words, which need a scratch too); and the other way round,
# where the later chunks hold fewer lines.
gen long.csv -n 15000 -t u64 -w 400 -d uniform
gen short.csv -n 800000 -t u32 -w 2 -d dups --range=1000
cat long.csv short.csv >grow.csv
cat short.csv long.csv >shrink.csv
for f in grow.csv shrink.csv; do
    for opts in '' '-s' '-u'; do
        # shellcheck disable=SC2086 # the options are words on purpose
        LC_ALL=C sort -t, -k2,2n $opts "$f" >exp.out
        # shellcheck disable=SC2086
        run_cmd "$GPUSORT" -t, -k2,2n --type=u64 -S 4M -T tdir --parallel=3 --stats $opts "$f"
        [ "$STATUS" = 0 ] || fail "$f $opts: exit $STATUS: $(head -c 2000 "$RUN_ERR")"
        same exp.out "$RUN_OUT" "$f $opts: chunks of more (and fewer) lines than the first"
        spilled_clean "$RUN_ERR" tdir "$f $opts"
    done
done

# --------------------------------------------------------------------------------
# --header: the first header read goes first; the others are dropped
# --------------------------------------------------------------------------------

# terminated FILE Z: FILE, with a terminator (NUL with Z=-z, else LF) added after a
# last line that lacks one.
terminated() {
    local t='\n'
    [ -n "$2" ] && t='\0'
    cat -- "$1"
    if [ -s "$1" ] && [ "$(tail -c 1 -- "$1" | od -An -c | tr -d ' ')" != "$t" ]; then
        printf '%b' "$t"
    fi
}

# header_expect SEP SORT-OPTIONS FILE...: what --header must give, built without it:
# the first line of the first non-empty FILE, then sort (with the -t of SEP and
# SORT-OPTIONS) of every FILE but its first line (-z in SORT-OPTIONS: lines end with
# NUL).
header_expect() {
    local so=$2 z='' f first=''
    sep_args "$1"
    shift 2
    case " $so " in *' -z '*) z=-z ;; esac
    : >body.tmp
    for f in "$@"; do
        [ -s "$f" ] || continue
        if [ -z "$first" ]; then
            first=$f
            # shellcheck disable=SC2086 # z is one word or none
            head $z -n 1 -- "$f" >head.tmp
            terminated head.tmp "$z"
        fi
        # shellcheck disable=SC2086
        tail $z -n +2 -- "$f" >part.tmp
        terminated part.tmp "$z" >>body.tmp
    done
    # shellcheck disable=SC2086
    LC_ALL=C sort "${SEP_ARGS[@]}" $so body.tmp
}

gen h1.csv -n 1200 -d dups --range=30 --header=id,key,payload
gen h2.csv -n 800 -d dups --range=30 --header='second,header,dropped'
gen h3.csv -n 0 --header=third --no-final-newline
gen h4.csv -n 500 -d dups --range=30 --header=fourth --crlf --no-final-newline
for files in 'h1.csv h2.csv' 'empty.csv h2.csv h1.csv' 'h1.csv h3.csv h4.csv h2.csv' \
             'h3.csv h1.csv' 'h4.csv'; do
    for opts in '' '-s' '-r -u'; do
        # shellcheck disable=SC2086 # the file names are words on purpose
        header_expect , "-k2,2n $opts" $files >exp.out
        # shellcheck disable=SC2086
        gs_ok got.out --header -t, -k2,2n $opts $files
        same exp.out got.out "--header $opts on $files"
    done
done
# From standard input.
header_expect , '-k2,2 -n' h2.csv h1.csv >exp.out
gs_ok got.out --header -t, -k2,2n - h1.csv <h2.csv
same exp.out got.out "--header with standard input first"
# Only empty inputs: no header, no output.
gs_ok got.out --header -t, -k2,2n empty.csv empty.csv
empty got.out "--header of empty inputs"
# NUL-terminated.
gen hz1.csv -n 700 -z -d dups --range=30 --header=zhead
gen hz2.csv -n 300 -z -d dups --range=30 --header=zdropped
header_expect , '-k2,2 -n -z' hz1.csv hz2.csv >exp.out
gs_ok got.out --header -z -t, -k2,2n hz1.csv hz2.csv
same exp.out got.out "--header -z"
# Blank-separated fields.
gen hb.txt -n 900 -F blank -k 2 -d dups --range=30 --header='  name   key rest'
header_expect blank '-k2,2 -n' hb.txt >exp.out
sed -n 1p hb.txt >exp2.out
LC_ALL=C sort -k2,2 -n <(tail -n +2 hb.txt) >>exp2.out
same exp2.out exp.out "the --header oracles"
gs_ok got.out --header -k2,2n hb.txt
same exp.out got.out "--header, blank-separated fields"
# Without -k: a header above plain numbers (lines-z-header.sh has more).
printf 'count\n3\n-1\n 20 7\n' >hn1.txt
printf 'other\n5\n' >hn2.txt
printf 'count\n-1\n3\n5\n7\n20\n' >exp.out
gs_ok got.out --header hn1.txt hn2.txt
same exp.out got.out "--header without -k"
