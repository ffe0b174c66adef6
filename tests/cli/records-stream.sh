#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records-stream.sh: binary records from regular files, enough for a GPU (1.1M, where
# there is one).
# Where a GPU sorts them (--stats names it), they must have been streamed through it
# (read into its pinned buffers, their keys sorted there with their indices, the
# records gathered there on the way back: pipeline/stream.c), with --stats giving
# each stage; bound for a file with every record kept, placed in it by two threads.
# Checked against recsort.py, an independent stable sort: record shapes with the key
# at the start, in the middle, unaligned and at the end, every type and byte order,
# -r (equal keys still in input order), -u (runs of equal keys across the slices),
# to a file, a pipe and a file on standard output; three files, -o naming the first;
# standard input that is a regular file (read the plain way); and an input that is
# not whole records while the inputs together are: exit 2, one line, -o untouched.

# GSREC (make check sets it) names tests/tools/gsrec; made absolute before lib.sh
# moves into the test's directory.
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"

need_gsrec
command -v python3 >/dev/null 2>&1 || skip "python3 (the oracle) is missing"

# Enough records for a GPU where there is one; elsewhere the table sorts them (as
# records-binary.sh covers) and fewer do, to keep the sanitizer builds' runs short.
n=1100000 part=600000
if ! has_gpu; then
    n=150000 part=75000   # past the table's 64 Ki records placed by every thread
fi

rec_oracle() {
    python3 "$srcdir/recsort.py" "$@" || fail "the oracle failed"
}

# streamed WHAT COUNT: where a GPU sorted (took a chunk), --stats in RUN_ERR shows
# COUNT records streamed and both stages.
streamed() {
    if grep -Eq 'stats: gpu [0-9]+ \(.*\): [1-9][0-9]* chunks' "$RUN_ERR"; then
        grep -Eq "stats: $2 records streamed through gpu" "$RUN_ERR" ||
            fail "$1: a GPU sorted, but did not stream the records: $(cat "$RUN_ERR")"
        stream_stages "$1"
    fi
}

# sorts WHAT EXPECTED OUT: exit 0, and OUT is EXPECTED.
sorts() {
    [ "$STATUS" -eq 0 ] || fail "$1: exited $STATUS: $(head -c 2000 "$RUN_ERR")"
    same "$2" "$3" "$1"
}

# Shapes: SIZE OFFSET TYPE ENDIAN DIST, and the options of the run to a file (-o):
# the key first, unaligned, last, in the middle of a large record.
seed=700
while read -r size off type endian dist opts; do
    seed=$((seed + 1))
    "$GSREC" -b -s $seed -n $n --record-size="$size" --key-offset="$off" -t "$type" \
        --endian="$endian" -d "$dist" --range=5000 >in.bin
    rec_oracle "$size" "$off" "$type" "$endian" in.bin
    recopts="--record-size=$size --key-offset=$off --type=$type --endian=$endian"
    what="$size-byte records, $type at $off, $endian, $dist"
    exp=exp.bin
    case $opts in -u) exp='exp-u.bin' ;; -r) exp='exp-r.bin' ;; -r-u) exp='exp-ru.bin' opts='-r -u' ;; -) opts= ;; esac
    # shellcheck disable=SC2086 # the options are words on purpose
    run_cmd "$GPUSORT" --stats --parallel=2 -B $recopts $opts -o out.bin in.bin
    sorts "$what $opts, -o" "$exp" out.bin
    streamed "$what $opts, -o" $n
    case $opts in *-u*) ;; *) placed out.bin "$what $opts, -o" ;; esac
    # -r and -r -u to a pipe (the way back written in order).
    # shellcheck disable=SC2086
    run_cmd sh -c '"$0" --stats --parallel=2 -B -r $1 in.bin | cat >out.bin' "$GPUSORT" "$recopts"
    sorts "$what -r, to a pipe" exp-r.bin out.bin
    streamed "$what -r, to a pipe" $n
    # shellcheck disable=SC2086
    run_cmd sh -c '"$0" --stats --parallel=2 -B -r -u $1 in.bin >out.bin' "$GPUSORT" "$recopts"
    sorts "$what -r -u, to a file on standard output" exp-ru.bin out.bin
    streamed "$what -r -u, to a file on standard output" $n
done <<'SHAPES'
16 0 u64 little uniform -
12 8 i32 big dups -u
9 1 i64 little extremes -r
100 50 u32 big dups -r-u
SHAPES

# Three files of 20-byte records, -o naming the first.
"$GSREC" -b -s 711 -n $part --record-size=20 --key-offset=4 -t u32 -d dups --range=900 >a.bin
"$GSREC" -b -s 712 -n 3 --record-size=20 --key-offset=4 -t u32 -d dups --range=900 >b.bin
"$GSREC" -b -s 713 -n $part --record-size=20 --key-offset=4 -t u32 -d dups --range=900 >c.bin
rec_oracle 20 4 u32 little a.bin b.bin c.bin
run_cmd "$GPUSORT" --stats --parallel=2 -B --record-size=20 --key-offset=4 --type=u32 \
    -o a.bin a.bin b.bin c.bin
sorts "three files, -o naming the first" exp.bin a.bin
streamed "three files, -o naming the first" $((2 * part + 3))
placed a.bin "three files, -o naming the first"

# Standard input that is a regular file: read where it stands (not streamed).
"$GSREC" -b -s 714 -n $n --record-size=16 -t u64 >in.bin
rec_oracle 16 0 u64 little in.bin
run_cmd sh -c '"$0" --parallel=2 -B --record-size=16 --type=u64 - <in.bin >out.bin' "$GPUSORT"
sorts "standard input, a regular file" exp.bin out.bin

# The first input not whole records, the two together whole: the first is named,
# exit 2, -o untouched, nothing left behind.
head -c $((16 * part + 5)) in.bin >odd.bin
tail -c $((16 * (n - part) - 5)) in.bin >rest.bin
target_init
expect_error 2 "odd.bin: $((16 * part + 5)) bytes: not a whole number of 16-byte records\$" -- \
    "$GPUSORT" -B --record-size=16 --type=u64 -o "$TARGET" odd.bin rest.bin
target_check
