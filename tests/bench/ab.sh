#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ab.sh: two builds of gpusort side by side on the same inputs, their runs
# alternating (A, B, A, B, ...), the median of R rounds of each and their ratio:
# whether a change moved the speed, and by how much. A round of each, untimed, comes
# first: the first run after an input is made pays for what the machine has not yet
# warmed (the GPU's first start, pages still being written back). Never part of make
# check.
#
# Workloads (WORK, default "text100m bin16g"):
#   text100m  100M random u32 as text (tests/tools/gsgen, seed 1), file to file; the
#             output of each run removed and synced outside the timings (as
#             vs-sort.sh does); A's and B's outputs compared once.
#   text100mp the same into a pipe, read by tests/bench/pipebw; outputs compared once.
#   bin16g    16 GiB of random binary u32 (tests/bench/genkeys, seed 7) from the page
#             cache to /dev/null; B's output checked once for order, count and sum
#             against the generator's (tests/tools/gscheck).
#   bin16gf   the same keys file to file (-o, the page cache); outputs compared once.
#   bin16gp   the same keys into a pipe, read by tests/bench/pipebw (the pages given
#             to the pipe where they can be: vmsplice); outputs compared once, B's
#             checked as bin16g's.
#   csv100m   records: 100M lines `id,key,payload` (tests/tools/gsrec --bench, seed
#             1) by -t, -k2,2n, file to file, as text100m; A's and B's outputs
#             compared once.
#   csvkeys   the same lines by -s -t, -k3,3 -k2,2n (text, then an integer).
#   csvmerge  -m: the same lines dealt into 4 inputs, each sorted by -t, -k2,2n
#             (by B, once), merged by -m -t, -k2,2n, file to file.
#   csvnull, csvmergenull
#             csv100m's and csvmerge's sorts from the page cache to -o /dev/null: the
#             bytes written in order (a device, as a pipe), not laid out in a file;
#             A's and B's outputs compared once through pipes.
#   csvp, csvmergep
#             the same sorts into a pipe, read by tests/bench/pipebw; outputs
#             compared once.
#   prices    100M lines `id,price,payload` (gsrec --prices, seed 1) by -s -t, -k2,2g.
#   sb0, sb40 SB_N Sort Benchmark records (gsrec --sortbench: 100 bytes, a 10-byte
#             key; in sb40, 40% of the keys share their first 8 bytes) by
#             --type=bytes10, file to file.
#   rec16     binary records: REC_MB MiB of 16-byte records with a random u64 key at
#             byte 0 (gsrec --binary), --record-size=16 --type=u64, file to file
#             as csv100m.
#   rec16null, rec100null
#             REC_MB MiB of 16- or 100-byte records (a random u64 key at byte 0),
#             page cache to /dev/null: issue 24's binary records.
#   rec100p   the 100-byte records into a pipe, read by tests/bench/pipebw.
# Environment:
#   A, B       the two gpusort programs (required)
#   R          rounds (default 5)
#   ARGS       extra arguments for both, e.g. "--device=cpu" (default none)
#   GSGEN, GENKEYS, GSCHECK, GSREC, PIPEBW   default ./tests/tools/gsgen,
#              ./tests/bench/genkeys, ./tests/tools/gscheck, ./tests/tools/gsrec,
#              ./tests/bench/pipebw (make tests/bench/pipebw)
#   BENCH_DIR  where the inputs are kept (default ./bench-data)
#   TEXT_N, BIN_KEYS, CSV_N, REC_MB, SB_N   smaller inputs, to try the script
#              (default 100000000, 4 Gi, 100000000, 4096, 100000000)
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -eu
export LC_ALL=C
name=ab.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

: "${A:?A must name the first gpusort}" "${B:?B must name the second gpusort}"
R=${R:-5}
ARGS=${ARGS:-}
WORK=${WORK:-text100m bin16g}
GSGEN=${GSGEN:-./tests/tools/gsgen}
GENKEYS=${GENKEYS:-./tests/bench/genkeys}
GSCHECK=${GSCHECK:-./tests/tools/gscheck}
GSREC=${GSREC:-./tests/tools/gsrec}
PIPEBW=${PIPEBW:-./tests/bench/pipebw}
BENCH_DIR=${BENCH_DIR:-./bench-data}
TEXT_N=${TEXT_N:-100000000}
BIN_KEYS=${BIN_KEYS:-$((4 << 30))}
CSV_N=${CSV_N:-100000000}
REC_MB=${REC_MB:-4096}
SB_N=${SB_N:-100000000}
mkdir -p "$BENCH_DIR"
read -r -a extra <<<"$ARGS"
summary=()

# report WHAT A-TIMES B-TIMES BYTES: the medians, their ratio, the input's rate.
report() {
    local ma mb
    ma=$(printf '%s\n' $2 | median)
    mb=$(printf '%s\n' $3 | median)
    summary+=("$(awk -v w="$1" -v a="$ma" -v b="$mb" -v n="$4" 'BEGIN {
        printf "%-10s A %8.3f s (%6.2f GB/s)   B %8.3f s (%6.2f GB/s)   B/A %.3f",
               w, a, n / a / 1e9, b, n / b / 1e9, b / a }')")
    echo "$1: A runs: $2"
    echo "$1: B runs: $3"
}

# files IN WHAT ARGS...: A and B alternating, file to file (outputs removed and
# synced outside the timings, compared once); sets ta and tb. IN: one input, or
# several separated by spaces.
files() {
    local w=$2 oa=$BENCH_DIR/ab-a.out ob=$BENCH_DIR/ab-b.out t ins
    read -r -a ins <<<"$1"
    shift 2
    ta="" tb=""
    "$A" "${extra[@]}" "$@" "${ins[@]}" -o "$oa" && "$B" "${extra[@]}" "$@" "${ins[@]}" -o "$ob"
    for ((i = 1; i <= R; i++)); do
        rm -f "$oa" && sync
        t=$(seconds "$A" "${extra[@]}" "$@" "${ins[@]}" -o "$oa")
        ta="$ta $t"
        rm -f "$ob" && sync
        t=$(seconds "$B" "${extra[@]}" "$@" "${ins[@]}" -o "$ob")
        tb="$tb $t"
        if [ "$i" -eq 1 ]; then
            cmp -s "$oa" "$ob" || die "$w: the outputs of A and B differ"
        fi
    done
    rm -f "$oa" "$ob"
}

# nulls IN WHAT ARGS...: A and B alternating, to -o /dev/null (outputs compared once,
# through pipes); sets ta and tb. IN as files().
nulls() {
    local w=$2 t ins
    read -r -a ins <<<"$1"
    shift 2
    ta="" tb=""
    cmp -s <("$A" "${extra[@]}" "$@" "${ins[@]}") <("$B" "${extra[@]}" "$@" "${ins[@]}") ||
        die "$w: the outputs of A and B differ"
    for ((i = 1; i <= R; i++)); do
        t=$(seconds "$A" "${extra[@]}" "$@" "${ins[@]}" -o /dev/null)
        ta="$ta $t"
        t=$(seconds "$B" "${extra[@]}" "$@" "${ins[@]}" -o /dev/null)
        tb="$tb $t"
    done
}

# pipes IN WHAT ARGS...: A and B alternating, into a pipe read to its end by
# pipebw (outputs compared once); sets ta and tb. IN as files().
pipes() {
    local w=$2 t ins
    read -r -a ins <<<"$1"
    shift 2
    ta="" tb=""
    # gpusort ARGS... into the pipe (bash -c: $0 is pipebw)
    local pipe='"$@" | "$0" read 1048576 >/dev/null'
    cmp -s <("$A" "${extra[@]}" "$@" "${ins[@]}") <("$B" "${extra[@]}" "$@" "${ins[@]}") ||
        die "$w: the outputs of A and B differ"
    for ((i = 1; i <= R; i++)); do
        t=$(seconds bash -c "$pipe" "$PIPEBW" "$A" "${extra[@]}" "$@" "${ins[@]}")
        ta="$ta $t"
        t=$(seconds bash -c "$pipe" "$PIPEBW" "$B" "${extra[@]}" "$@" "${ins[@]}")
        tb="$tb $t"
    done
}

text100m() {
    local in=$BENCH_DIR/in-u32-$TEXT_N.txt
    [ -s "$in" ] || "$GSGEN" -n "$TEXT_N" -t u32 -s 1 >"$in"
    files "$in" text100m --type=u32
    report text100m "$ta" "$tb" "$(wc -c <"$in")"
    echo "text100m: command: gpusort $ARGS --type=u32 $in -o OUT"
}

# bin16_input: the file of BIN_KEYS random u32 (genkeys, seed 7), made once, read
# into the page cache; its path.
bin16_input() {
    local in=$BENCH_DIR/u32-$BIN_KEYS.bin
    [ -s "$in" ] || "$GENKEYS" -t u32 -n "$BIN_KEYS" -s 7 >"$in"
    sync
    cat "$in" >/dev/null
    echo "$in"
}

# bin16_check IN WHAT: B's output of IN (the u32 keys of genkeys' seed 7) checked for
# order, count and sum against the generator's.
bin16_check() {
    local want got
    want=$("$GENKEYS" -t u32 -n "$BIN_KEYS" -s 7 --sum)
    got=$("$B" "${extra[@]}" --binary --type=u32 "$1" | "$GSCHECK" -t u32)
    [ "$got" = "$want" ] || die "$2: B's output: got '$got', want '$want'"
}

bin16g() {
    local in
    in=$(bin16_input)
    local ta="" tb="" t
    "$A" "${extra[@]}" --binary --type=u32 "$in" -o /dev/null
    "$B" "${extra[@]}" --binary --type=u32 "$in" -o /dev/null
    for ((i = 1; i <= R; i++)); do
        t=$(seconds "$A" "${extra[@]}" --binary --type=u32 "$in" -o /dev/null)
        ta="$ta $t"
        t=$(seconds "$B" "${extra[@]}" --binary --type=u32 "$in" -o /dev/null)
        tb="$tb $t"
    done
    bin16_check "$in" bin16g
    report bin16g "$ta" "$tb" "$(wc -c <"$in")"
    echo "bin16g: command: gpusort $ARGS --binary --type=u32 $in -o /dev/null"
}

bin16gp() {
    local in
    in=$(bin16_input)
    pipes "$in" bin16gp --binary --type=u32
    bin16_check "$in" bin16gp
    report bin16gp "$ta" "$tb" "$(wc -c <"$in")"
    echo "bin16gp: command: gpusort $ARGS --binary --type=u32 $in | pipebw read 1048576"
}

text100mp() {
    local in=$BENCH_DIR/in-u32-$TEXT_N.txt
    [ -s "$in" ] || "$GSGEN" -n "$TEXT_N" -t u32 -s 1 >"$in"
    pipes "$in" text100mp --type=u32
    report text100mp "$ta" "$tb" "$(wc -c <"$in")"
    echo "text100mp: command: gpusort $ARGS --type=u32 $in | pipebw read 1048576"
}

bin16gf() {
    local in
    in=$(bin16_input)
    files "$in" bin16gf --binary --type=u32
    report bin16gf "$ta" "$tb" "$(wc -c <"$in")"
    echo "bin16gf: command: gpusort $ARGS --binary --type=u32 $in -o OUT"
}

csv100m() {
    local in=$BENCH_DIR/rec-$CSV_N.csv
    [ -s "$in" ] || "$GSREC" --bench -n "$CSV_N" -s 1 >"$in"
    files "$in" csv100m -t, -k2,2n
    report csv100m "$ta" "$tb" "$(wc -c <"$in")"
    echo "csv100m: command: gpusort $ARGS -t, -k2,2n $in -o OUT"
}

csvkeys() {
    local in=$BENCH_DIR/rec-$CSV_N.csv
    [ -s "$in" ] || "$GSREC" --bench -n "$CSV_N" -s 1 >"$in"
    files "$in" csvkeys -s -t, -k3,3 -k2,2n
    report csvkeys "$ta" "$tb" "$(wc -c <"$in")"
    echo "csvkeys: command: gpusort $ARGS -s -t, -k3,3 -k2,2n $in -o OUT"
}

# csv_parts: the CSV lines dealt into 4 inputs, each sorted by -t, -k2,2n (by B,
# once); sets in and parts (their names, separated by spaces).
csv_parts() {
    local p
    in=$BENCH_DIR/rec-$CSV_N.csv parts=""
    [ -s "$in" ] || "$GSREC" --bench -n "$CSV_N" -s 1 >"$in"
    [ -s "$BENCH_DIR/rec-$CSV_N-sorted-3.csv" ] ||
        awk -v d="$BENCH_DIR/rec-$CSV_N-dealt" '{ print > (d "-" NR % 4) }' "$in"
    for p in 0 1 2 3; do
        local part=$BENCH_DIR/rec-$CSV_N-sorted-$p.csv
        if ! [ -s "$part" ]; then
            "$B" -t, -k2,2n "$BENCH_DIR/rec-$CSV_N-dealt-$p" -o "$part"
            rm -f "$BENCH_DIR/rec-$CSV_N-dealt-$p"
        fi
        parts="$parts $part"
    done
}

csvmerge() {
    local in parts
    csv_parts
    files "$parts" csvmerge -m -t, -k2,2n
    # shellcheck disable=SC2086 # the inputs' names are words on purpose
    report csvmerge "$ta" "$tb" "$(cat $parts | wc -c)"
    echo "csvmerge: command: gpusort $ARGS -m -t, -k2,2n$parts -o OUT"
}

# csvout WHERE: csv100m's lines from the page cache to -o /dev/null (WHERE null) or
# into a pipe read by pipebw (WHERE p).
csvout() {
    local w=csv$1 in=$BENCH_DIR/rec-$CSV_N.csv
    [ -s "$in" ] || "$GSREC" --bench -n "$CSV_N" -s 1 >"$in"
    cat "$in" >/dev/null   # into the page cache
    if [ "$1" = null ]; then nulls "$in" "$w" -t, -k2,2n; else pipes "$in" "$w" -t, -k2,2n; fi
    report "$w" "$ta" "$tb" "$(wc -c <"$in")"
    echo "$w: command: gpusort $ARGS -t, -k2,2n $in $(to "$1")"
}

# csvmergeout WHERE: csvmerge's -m likewise.
csvmergeout() {
    local w=csvmerge$1 in parts
    csv_parts
    # shellcheck disable=SC2086 # the inputs' names are words on purpose
    cat $parts >/dev/null   # into the page cache
    if [ "$1" = null ]; then
        nulls "$parts" "$w" -m -t, -k2,2n
    else
        pipes "$parts" "$w" -m -t, -k2,2n
    fi
    # shellcheck disable=SC2086
    report "$w" "$ta" "$tb" "$(cat $parts | wc -c)"
    echo "$w: command: gpusort $ARGS -m -t, -k2,2n$parts $(to "$1")"
}

# to WHERE: where the output went, for the command printed.
to() {
    if [ "$1" = null ]; then echo "-o /dev/null"; else echo "| pipebw read 1048576"; fi
}

prices() {
    local in=$BENCH_DIR/prices-$CSV_N.csv
    [ -s "$in" ] || "$GSREC" --prices -n "$CSV_N" -s 1 >"$in"
    files "$in" prices -s -t, -k2,2g
    report prices "$ta" "$tb" "$(wc -c <"$in")"
    echo "prices: command: gpusort $ARGS -s -t, -k2,2g $in -o OUT"
}

# sortbench SKEW: the Sort Benchmark's records, SB_N of them (100 bytes, 10-byte
# keys; SKEW percent sharing their first 8 bytes), file to file.
sortbench() {
    local w=sb$1 in=$BENCH_DIR/sb$1-$SB_N.bin
    [ -s "$in" ] || "$GSREC" --sortbench --skew="$1" -n "$SB_N" -s 5 >"$in"
    sync
    cat "$in" >/dev/null   # into the page cache
    local args=(--binary --record-size=100 --type=bytes10)
    files "$in" "$w" "${args[@]}"
    report "$w" "$ta" "$tb" "$(wc -c <"$in")"
    echo "$w: command: gpusort $ARGS ${args[*]} $in -o OUT"
}

rec16() {
    local in=$BENCH_DIR/rec16-$REC_MB.bin n=$((REC_MB * 1048576 / 16))
    [ -s "$in" ] || "$GSREC" --binary --record-size=16 --key-offset=0 -t u64 -n "$n" -s 3 >"$in"
    sync
    cat "$in" >/dev/null   # into the page cache
    local args=(--binary --record-size=16 --type=u64)
    files "$in" rec16 "${args[@]}"
    report rec16 "$ta" "$tb" "$(wc -c <"$in")"
    echo "rec16: command: gpusort $ARGS ${args[*]} $in -o OUT"
}

# recout SIZE WHERE: REC_MB MiB of SIZE-byte records (a random u64 key at byte 0),
# from the page cache as csvout's WHERE.
recout() {
    local size=$1 w=rec$1$2 n=$((REC_MB * 1048576 / $1))
    local in=$BENCH_DIR/rec$size-$REC_MB.bin
    [ -s "$in" ] || "$GSREC" --binary --record-size="$size" --key-offset=0 -t u64 -n "$n" \
        -s 3 >"$in"
    sync
    cat "$in" >/dev/null   # into the page cache
    local args=(--binary --record-size="$size" --type=u64)
    if [ "$2" = null ]; then nulls "$in" "$w" "${args[@]}"; else pipes "$in" "$w" "${args[@]}"; fi
    report "$w" "$ta" "$tb" "$(wc -c <"$in")"
    echo "$w: command: gpusort $ARGS ${args[*]} $in $(to "$2")"
}

for w in $WORK; do
    case $w in
    text100m | text100mp | bin16g | bin16gf | bin16gp | csv100m | csvkeys | csvmerge | \
        prices | rec16) "$w" ;;
    sb0) sortbench 0 ;;
    sb40) sortbench 40 ;;
    csvnull) csvout null ;;
    csvp) csvout p ;;
    csvmergenull) csvmergeout null ;;
    csvmergep) csvmergeout p ;;
    rec16null) recout 16 null ;;
    rec100null) recout 100 null ;;
    rec100p) recout 100 p ;;
    *) die "unknown workload '$w'" ;;
    esac
done
echo
echo "A = $A"
echo "B = $B"
echo "medians of $R rounds, alternating A and B, $(nproc) CPUs:"
printf '%s\n' "${summary[@]}"
