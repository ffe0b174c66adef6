#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records-merge.sh: -m of records merges the inputs, each sorted already, as sort -m
# does: 1 to 5 inputs of text records (-k, several keys, -s, -u, -r, -z, --header)
# and binary records, held in memory (merged by key ranges on every thread) and
# larger than -S (each input's part of a chunk spilled as a run, the runs merged);
# equal keys in input order (-s) across chunks; an input out of order in a later
# chunk is an error naming its line, with nothing written; to a pipe (in order) and
# to a file (laid out), on two and eight threads.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"

need_gsrec
command -v python3 >/dev/null 2>&1 || skip "python3 (the binary oracle) is missing"

n=$(scaled 40000 4000)
# Text: inputs of heavy and light duplicates, each sorted by sort with the options.
check_text() {   # check_text NAME NINPUTS GSREC-OPTIONS -- SORT-OPTIONS
    local name=$1 nin=$2 gen=() opts=() files=() i
    shift 2
    while [ "$1" != -- ]; do gen+=("$1"); shift; done
    shift
    opts=("$@")
    for ((i = 0; i < nin; i++)); do
        "$GSREC" -s $((7100 + i)) -n $((n / nin + 17 * i)) "${gen[@]}" >raw$i
        LC_ALL=C sort "${opts[@]}" raw$i >in$i
        files+=("in$i")
    done
    LC_ALL=C sort -m "${opts[@]}" "${files[@]}" >exp
    for mem in "" "-S 1M"; do
        # shellcheck disable=SC2086 # -S and its size are two words
        gs_ok got -m $mem "${opts[@]}" "${files[@]}"
        same exp got "$name, -m ${mem:-in memory}"
    done
}
check_text "one integer key, two inputs" 2 -d dups --range=300 -- -t, -k2,2n
check_text "-u, five inputs" 5 -d dups --range=50 -- -u -t, -k2,2n
check_text "-s, three inputs" 3 -d dups --range=20 -- -s -t, -k2,2n
check_text "a text key then a number, -r" 3 -d dups --range=40 -w 2 -- -t, -k3,3 -k2,2nr
check_text "a short text key, sort's last resort" 2 -d dups --range=30 -w 1 -- -t, -k1,1
check_text "-z, blank-separated" 2 -z -F blank -d dups --range=99 -- -z -k2,2n
check_text "-u over a text key" 4 -w 1 -- -u -t, -k3,3

# --header: each input's first line; the first input's written first.
{ echo "id,key,text"; cat in0; } >h0
{ echo "other,header"; cat in1; } >h1
{ echo "id,key,text"; LC_ALL=C sort -m -t, -k3,3 -k2,2nr in0 in1; } >exp
for mem in "" "-S 1M"; do
    # shellcheck disable=SC2086
    gs_ok got -m $mem --header -t, -k3,3 -k2,2nr h0 h1
    same exp got "--header, -m ${mem:-in memory}"
done

# Equal keys in input order across chunks (-s): every record of a key's input
# before the next input's, however the chunks cut them.
"$GSREC" -s 7201 -n "$n" -d dups --range=3 | LC_ALL=C sort -s -t, -k2,2n >a
"$GSREC" -s 7202 -n "$n" -d dups --range=3 | LC_ALL=C sort -s -t, -k2,2n >b
LC_ALL=C sort -m -s -t, -k2,2n a b a >exp
gs_ok got -m -s -S 1M -t, -k2,2n a b a
same exp got "-m -s of equal keys over chunks"

# Binary records, in memory and spilled: against a stable reference.
"$GSREC" -b -s 7301 -n "$n" --record-size=24 --key-offset=8 -t u64 -d dups --range=1000 >b0
"$GSREC" -b -s 7302 -n "$n" --record-size=24 --key-offset=8 -t u64 >b1
python3 "$srcdir/recsort.py" 24 8 u64 little b0 || fail "the oracle failed"
mv exp.bin s0
python3 "$srcdir/recsort.py" 24 8 u64 little b1 || fail "the oracle failed"
mv exp.bin s1
python3 "$srcdir/recsort.py" 24 8 u64 little s0 s1 || fail "the oracle failed"
for mem in "" "-S 1M"; do
    # shellcheck disable=SC2086
    gs_ok got.bin -m $mem -B --record-size=24 --key-offset=8 --type=u64 s0 s1
    same exp.bin got.bin "-m of binary records, ${mem:-in memory}"
    # shellcheck disable=SC2086
    gs_ok got.bin -m -u $mem -B --record-size=24 --key-offset=8 --type=u64 s0 s1
    same exp-u.bin got.bin "-m -u of binary records, ${mem:-in memory}"
done

# Written in order (a pipe) and laid out (a file on standard output), on two and
# eight threads, in memory and spilled: the merge in memory is cut into pieces of
# half a thread's buffer at most (records/rmerge.c's rmerge_pieces), taken in turn
# to a pipe and, into a file, a group of them through one window.
big=$(scaled 400000 20000)
for i in 0 1 2; do
    "$GSREC" -s $((7400 + i)) -n "$big" -d dups --range=5000 | LC_ALL=C sort -t, -k2,2n >m$i
done
LC_ALL=C sort -m -t, -k2,2n m0 m1 m2 >exp
for par in 2 8; do
    for mem in 48M 8M; do
        "$GPUSORT" --parallel=$par -S $mem -m -t, -k2,2n m0 m1 m2 2>err | cat >got
        [ ! -s err ] || fail "gpusort -m to a pipe wrote: $(head -c 500 err)"
        same exp got "-m --parallel=$par -S $mem to a pipe"
        gs_ok got --parallel=$par -S $mem -m -t, -k2,2n m0 m1 m2
        same exp got "-m --parallel=$par -S $mem to a file"
    done
done

# An input out of order far in: an error naming its line; -o left as it was.
{ cat a; echo "x,-99999,late"; } >late
line=$(( $(wc -l <a) + 1 ))
echo "kept" >out
expect_error 2 "^late:$line: disorder: x,-99999,late$" -- \
    "$GPUSORT" -m -s -S 1M -t, -k2,2n -o out b late
echo "kept" | same - out "-o after a disorder"
