#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# crossover.sh: where the GPU starts to pay: `gpusort --device=cpu` against
# `--device=GPU` on the same file, by size (a benchmark, never a test). The measure
# behind --device=auto's choice of the CPU for inputs of known size under 32 Mi keys
# a thread (src/pipeline/engine.c).
#
# For each size, N random u32 keys (text by tests/tools/gsgen, binary by
# tests/bench/genkeys, seed 3) into BENCH_DIR, read into the page cache, then R
# rounds, the two devices alternating, each run `gpusort --device=D [-b] -t u32 FILE
# -o OUT` timed (wall clock) with OUT removed and `sync` before it; prints the
# medians and cpu / GPU (above 1: the GPU is the faster). The outputs of the two
# are compared once a size. The environment:
#   TEXT      text sizes (default "100000000 200000000 400000000")
#   BINARY    binary sizes (default "100000000 400000000 1000000000")
#   GPU       the --device of the GPU side (default 0: forced, whatever auto chooses)
#   R         rounds (default 3)        BENCH_DIR  data directory (./bench-data)
#   BUILD     built tree (default .); GPUSORT, GSGEN, GENKEYS override its programs

# `make` may run us with a plain sh: this script needs bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi

set -eu
export LC_ALL=C
# shellcheck disable=SC2034 # lib.sh uses name
name=crossover.sh
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"

TEXT=${TEXT-"100000000 200000000 400000000"}
BINARY=${BINARY-"100000000 400000000 1000000000"}
GPU=${GPU:-0}
R=${R:-3}
BENCH_DIR=${BENCH_DIR:-./bench-data}
BUILD=${BUILD:-.}
GPUSORT=${GPUSORT:-$BUILD/src/gpusort}
GSGEN=${GSGEN:-$BUILD/tests/tools/gsgen}
GENKEYS=${GENKEYS:-$BUILD/tests/bench/genkeys}

for tool in "$GPUSORT" "$GSGEN" "$GENKEYS"; do
    [ -x "$tool" ] || die "no $(basename "$tool") at $tool (set BUILD; make ${tool#"$BUILD"/})"
done
case $R in '' | *[!0-9]* | 0) die "R must be a positive integer" ;; esac

mkdir -p "$BENCH_DIR"
in=$BENCH_DIR/crossover-in
out=$BENCH_DIR/crossover-out
trap 'rm -f "$in" "$out" "$out.cpu"' EXIT

# size KIND N FORMAT-ARGS...: the rounds for one input; prints its row.
size() {
    local kind=$1 n=$2 c g cpu=() gpu=()
    shift 2
    if [ "$kind" = text ]; then
        "$GSGEN" -t u32 -n "$n" -s 3 >"$in" || die "gsgen failed"
    else
        "$GENKEYS" -t u32 -n "$n" -s 3 >"$in" || die "genkeys failed"
    fi
    cat "$in" >/dev/null   # into the page cache
    for ((i = 1; i <= R; i++)); do
        rm -f "$out"
        sync
        cpu+=("$(seconds "$GPUSORT" --device=cpu "$@" --type=u32 "$in" -o "$out")")
        [ "$i" -gt 1 ] || mv "$out" "$out.cpu"
        rm -f "$out"
        sync
        gpu+=("$(seconds "$GPUSORT" --device="$GPU" "$@" --type=u32 "$in" -o "$out")")
        if [ "$i" -eq 1 ]; then
            cmp -s "$out.cpu" "$out" || die "$kind $n: the CPU's and the GPU's outputs differ"
            rm -f "$out.cpu"
        fi
    done
    c=$(printf '%s\n' "${cpu[@]}" | median)
    g=$(printf '%s\n' "${gpu[@]}" | median)
    awk -v k="$kind" -v n="$n" -v c="$c" -v g="$g" -v cr="${cpu[*]}" -v gr="${gpu[*]}" \
        'BEGIN { printf "%-7s %12s %9.3f %9.3f %9.2f   cpu: %s; gpu: %s\n", k, n, c, g, (g > 0 ? c / g : 0), cr, gr }'
}

echo "gpusort --device=cpu against --device=$GPU, u32 keys, medians of $R, $(nproc) CPUs"
printf '%-7s %12s %9s %9s %9s\n' input keys "cpu s" "gpu s" "cpu/gpu"
for n in $TEXT; do size text "$n"; done
for n in $BINARY; do size binary "$n" -b; done
