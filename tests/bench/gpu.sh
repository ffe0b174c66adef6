#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpu.sh: the GPU benchmarks of the lent H100, in one script (never a test). Run from
# a built tree (BUILD, default .) with the data directory BENCH_DIR (./bench-data):
#  1. host memory bandwidth (membw);
#  2. the GPU sort stage against bare CUB SortKeys on the same keys (gpu-stage);
#  3. 100M random u32 as text, file to file: gpusort (default device) against
#     LC_ALL=C sort -n --parallel=$(nproc) -S 16G, side by side (vs-sort.sh);
#  4. 16 GiB of random binary u32 (tests/bench/genkeys) from the page cache to
#     /dev/null with --gpu-memory=2G: end-to-end GB/s (median of 3), the --stats
#     breakdown, and one more run checked by gscheck against the generator's sum.
# STEPS picks steps (default "1 2 3 4").
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${BUILD:-.}" && pwd)
BENCH_DIR=${BENCH_DIR:-./bench-data}
STEPS=${STEPS:-1 2 3 4}
mkdir -p "$BENCH_DIR"
step() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

step 1 && "$BUILD/tests/bench/membw" 8
step 2 && "$BUILD/tests/bench/gpu-stage" 7
if step 3; then
    N=100000000 R=${R:-3} DEVICE=auto SORT_S=16G BENCH_DIR=$BENCH_DIR \
        GPUSORT=$BUILD/src/gpusort GSGEN=$BUILD/tests/tools/gsgen bash "$here/vs-sort.sh"
    rm -f "$BENCH_DIR"/in-u32-100000000.txt
fi
if step 4; then
    big=$BENCH_DIR/u32-16g.bin
    keys=$((4 << 30))
    [ -s "$big" ] || "$BUILD/tests/bench/genkeys" -t u32 -n $keys -s 7 >"$big"
    sync                    # its pages written back now, not during the first run
    cat "$big" >/dev/null   # into the page cache
    bytes=$(wc -c <"$big")
    times=()
    for _ in 1 2 3; do
        start=$(date +%s.%N)
        "$BUILD/src/gpusort" -B --type=u32 --gpu-memory=2G --stats "$big" -o /dev/null 2>"$BENCH_DIR/stats.txt"
        end=$(date +%s.%N)
        times+=("$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')")
    done
    med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
    echo "16 GiB binary u32, --gpu-memory=2G, page cache -> /dev/null: runs ${times[*]} s;" \
         "median $med s = $(awk -v b="$bytes" -v t="$med" 'BEGIN { printf "%.2f", b / t / 1e9 }') GB/s"
    echo "command: gpusort -B --type=u32 --gpu-memory=2G --stats $big -o /dev/null"
    cat "$BENCH_DIR/stats.txt"
    # Correct as well as fast: order, count and sum against the generator's.
    want=$("$BUILD/tests/bench/genkeys" -t u32 -n $keys -s 7 --sum)
    got=$("$BUILD/src/gpusort" -B --type=u32 --gpu-memory=2G "$big" | "$BUILD/tests/tools/gscheck" -t u32)
    [ "$got" = "$want" ] || { echo "gpu.sh: 16 GiB sort: got '$got', want '$want'" >&2; exit 1; }
    echo "checked: in order; count and sum $got as generated"
fi
