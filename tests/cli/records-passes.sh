#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records-passes.sh: records spilled in more runs than one merge may read within
# -S are merged in passes first (groups of runs, in order, into new runs), as
# --stats says, and the output is sort's byte for byte: an integer key with sort's
# last resort, several keys with -s, -u over heavy duplicates, -r, -z with blank
# fields, --header; binary records as gpusort sorts them in memory; no temporary
# left in -T. Without passes (a -S that holds every run's block) the same.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"

need_gsrec
not_under_tsan "its long merges take minutes there, and a pass runs on one thread"
# Not scaled: at -S 1M (chunks of half a MiB, a merge reading 25 runs), inputs of
# 20 MiB and more (each line given 40 bytes more, in no key) make the runs that
# passes need.
n=500000
pad=",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"
mkdir tmp

# passes FILE WHAT: the --stats table in FILE says the runs were merged in passes.
passes() {
    grep -q "^gpusort: stats: records' runs merged in passes, [0-9]* runs to [0-9]*, [0-9]* at a time" "$1" ||
        fail "$2: no merge passes in --stats: $(grep -E 'passes|ordered in' "$1")"
}

# check NAME GSREC-OPTIONS -- OPTIONS: sort's output against gpusort's with -S 1M
# (runs of half a MiB, two a merge: passes) and -S 64M (one merge).
check() {
    local name=$1 gen=() opts=()
    shift
    while [ "$1" != -- ]; do gen+=("$1"); shift; done
    shift
    opts=("$@")
    case " ${gen[*]} " in
        *" -z "*) "$GSREC" -s 9100 -n "$n" "${gen[@]}" -w 40 >in ;;
        *) "$GSREC" -s 9100 -n "$n" "${gen[@]}" | sed "s/\$/$pad/" >in ;;
    esac
    LC_ALL=C sort "${opts[@]}" in >exp
    "$GPUSORT" --stats -S 1M -T tmp "${opts[@]}" in -o got 2>err ||
        fail "$name: gpusort exited $?: $(grep -v '^gpusort: stats: ' err)"
    stats_only err
    passes err "$name"
    same exp got "$name, merged in passes"
    dir_empty tmp "$name"
    gs_ok got -S 64M -T tmp "${opts[@]}" in
    same exp got "$name, one merge"
}

check "an integer key, the last resort" -d dups --range=500 -- -t, -k2,2n
check "a text key then a number, -s" -d dups --range=40 -w 3 -- -s -t, -k3,3 -k2,2n
check "-u over heavy duplicates" -d dups --range=30 -- -u -t, -k2,2n
check "-u -s over a text key" -w 2 -- -u -s -t, -k3,3
check "-r, a text key" -w 4 -- -r -t, -k3,3
check "-z, blank-separated fields" -z -F blank -d dups --range=99 -- -z -k2,2n

# --header: the first line first, once, whatever the passes.
"$GSREC" -s 9200 -n "$n" -d dups --range=70 | sed "s/\$/$pad/" >body
{ echo "id,key,text"; cat body; } >in
{ echo "id,key,text"; LC_ALL=C sort -s -t, -k2,2n body; } >exp
"$GPUSORT" --stats -S 1M -T tmp --header -s -t, -k2,2n in -o got 2>err || fail "--header: exit $?"
passes err "--header"
same exp got "--header, merged in passes"

# Binary records: as gpusort sorts them in memory (records-binary.sh checks that
# order against a reference), equal keys in input order (binary records are
# stable).
"$GSREC" -b -s 9300 -n "$n" --record-size=40 --key-offset=4 -t u64 -d dups --range=300 >in.bin
gs_ok exp.bin -B --record-size=40 --key-offset=4 --type=u64 in.bin
"$GPUSORT" --stats -S 1M -T tmp -B --record-size=40 --key-offset=4 --type=u64 in.bin \
    -o got.bin 2>err || fail "binary records: exit $?"
passes err "binary records"
same exp.bin got.bin "binary records, merged in passes"
dir_empty tmp "binary records"
