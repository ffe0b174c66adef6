#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# vs-sort.sh: gpusort against `LC_ALL=C sort -n`, side by side (a benchmark, never a test).
#
# Generates N random keys of TYPE as text into BENCH_DIR (kept for later runs), then
# runs both sorts R times, alternating, timing each (wall clock) and recording
# gpusort's peak RSS with /usr/bin/time. Checks once that both outputs are identical,
# and prints a table of medians. The environment:
#   N          keys (default 10000000)        TYPE    key type (default u32)
#   R          rounds (default 5)             BENCH_DIR  data directory (./bench-data)
#   DEVICE     gpusort's --device (default cpu)   SORT_S  sort's -S (default 50%)
#   GPUSORT    default ./src/gpusort          GSGEN   default ./tests/tools/gsgen

# `make` may run us with a plain sh: this script needs bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi

set -eu
export LC_ALL=C
# shellcheck disable=SC2034 # lib.sh uses name
name=vs-sort.sh
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"

N=${N:-10000000}
TYPE=${TYPE:-u32}
R=${R:-5}
BENCH_DIR=${BENCH_DIR:-./bench-data}
DEVICE=${DEVICE:-cpu}
SORT_S=${SORT_S:-50%}
GPUSORT=${GPUSORT:-./src/gpusort}
GSGEN=${GSGEN:-./tests/tools/gsgen}

[ -x "$GPUSORT" ] || die "no gpusort at $GPUSORT (set GPUSORT)"
[ -x "$GSGEN" ] || die "no gsgen at $GSGEN (set GSGEN)"
case $R in '' | *[!0-9]* | 0) die "R must be a positive integer" ;; esac

mkdir -p "$BENCH_DIR"
in=$BENCH_DIR/in-$TYPE-$N.txt
out1=$BENCH_DIR/out-gpusort.txt
out2=$BENCH_DIR/out-sort.txt
rss=$BENCH_DIR/rss.txt
trap 'rm -f "$out1" "$out2" "$rss"' EXIT

if [ ! -s "$in" ]; then
    echo "generating $N random $TYPE into $in ..." >&2
    "$GSGEN" -n "$N" -t "$TYPE" -s 1 >"$in.tmp" || die "gsgen failed"
    mv "$in.tmp" "$in"
fi
in_bytes=$(wc -c <"$in")
threads=$(nproc)

timer=
if [ -x /usr/bin/time ]; then
    timer=/usr/bin/time
else
    echo "vs-sort.sh: /usr/bin/time is missing (install GNU time): peak RSS not measured" >&2
fi

gpusort_cmd=("$GPUSORT" --device="$DEVICE" --type="$TYPE" "$in" -o "$out1")
sort_cmd=(sort -n --parallel="$threads" -S "$SORT_S" "$in" -o "$out2")



g_times=()
s_times=()
peak_kb=0
# Each command starts with no dirty pages left by the other: the output of the one
# before (about 100 MB) is written back by `sync` outside the timings, not while the
# next one runs. Each still writes its own output only into the page cache. Each
# command's output of the round before is removed first, outside the timings, for
# both alike: replacing a file drops its pages from the page cache, which cost 0.25 s
# of a 1 s gpusort run at 100M keys (1 GB) on the H100 machine (sort, opening its -o
# with O_TRUNC, pays the same), a cost of the benchmark's repetition, not of sorting.
for ((i = 1; i <= R; i++)); do
    rm -f "$out1"
    sync
    if [ -n "$timer" ]; then
        t=$(seconds "$timer" -f %M -o "$rss" "${gpusort_cmd[@]}")
        kb=$(tail -n 1 "$rss")
        if [ "$kb" -gt "$peak_kb" ]; then peak_kb=$kb; fi
    else
        t=$(seconds "${gpusort_cmd[@]}")
    fi
    g_times+=("$t")
    rm -f "$out2"
    sync
    s=$(seconds "${sort_cmd[@]}")
    s_times+=("$s")
    echo "round $i/$R: gpusort $t s, sort $s s" >&2
    if [ "$i" -eq 1 ]; then
        cmp -s "$out1" "$out2" || die "the outputs of gpusort and sort differ"
    fi
done

g_med=$(printf '%s\n' "${g_times[@]}" | median)
s_med=$(printf '%s\n' "${s_times[@]}" | median)

echo
echo "input: $in ($N $TYPE keys, $in_bytes bytes of text), $R rounds, $threads CPUs"
awk -v g="$g_med" -v s="$s_med" -v kb="$peak_kb" -v b="$in_bytes" -v timer="$timer" 'BEGIN {
    printf "%-24s %12s\n", "", "median s"
    printf "%-24s %12.3f\n", "gpusort", g
    printf "%-24s %12.3f\n", "sort -n", s
    printf "%-24s %12.2fx\n", "speed-up (sort/gpusort)", (g > 0 ? s / g : 0)
    if (timer != "")
        printf "%-24s %9.1f MB (%.2fx the input)\n", "gpusort peak RSS", kb / 1024, kb * 1024 / b
    else
        printf "%-24s %12s\n", "gpusort peak RSS", "n/a"
}'
echo
echo "commands:"
echo "  ${gpusort_cmd[*]}"
echo "  LC_ALL=C ${sort_cmd[*]}"
