#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mpi.sh: gpusort against gpusort-mpi on 2 and 4 ranks of this one machine, on the
# same input, file to file, runs alternating (1 process, 2 ranks, 4 ranks, 1, ...):
# the medians of R rounds and each against the single process: what the exchange
# and the ranks' extra passes cost where no network is crossed (issue 26). Each
# rank is given its share of the threads (--parallel=THREADS/N) and --device=cpu,
# so that all three use the same cores and no GPU. One untimed round first; every
# output compared with the single process's once. Never part of make check.
#
# Workloads (WORK, default "csv text"):
#   csv   CSV_N lines `id,key,payload` (tests/tools/gsrec --bench, seed 1) by
#         -t, -k2,2n, as ab.sh's csv100m
#   text  TEXT_N random u32 as text (tests/tools/gsgen, seed 1), --type=u32
# Environment:
#   GPUSORT, GPUSORT_MPI   the programs (default ./src/gpusort, ./src/gpusort-mpi)
#   MPIRUN      the launcher (default mpirun), run with --oversubscribe --bind-to none
#   THREADS     cores to use in all (default: nproc)
#   R           rounds (default 5)
#   GSGEN, GSREC, BENCH_DIR, CSV_N (default 100000000), TEXT_N (default 100000000)
#   MPINULL     tests/bench/mpinull (make tests/bench/mpinull), where built: each
#               round also times N ranks of it, MPI started and ended and nothing
#               else, the launch floor under every gpusort-mpi run ("floor" below)
# The last round of the 4 ranks is repeated with --stats: where their time goes.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -eu
export LC_ALL=C
# shellcheck disable=SC2034  # lib.sh's die() names the script so
name=mpi.sh
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh"

GPUSORT=${GPUSORT:-./src/gpusort}
GPUSORT_MPI=${GPUSORT_MPI:-./src/gpusort-mpi}
MPIRUN=${MPIRUN:-mpirun}
THREADS=${THREADS:-$(nproc)}
R=${R:-5}
WORK=${WORK:-csv text}
GSGEN=${GSGEN:-./tests/tools/gsgen}
GSREC=${GSREC:-./tests/tools/gsrec}
BENCH_DIR=${BENCH_DIR:-./bench-data}
MPINULL=${MPINULL:-./tests/bench/mpinull}
CSV_N=${CSV_N:-100000000}
TEXT_N=${TEXT_N:-100000000}
mkdir -p "$BENCH_DIR/tmp"
summary=()

# share N: each of N ranks' threads (THREADS / N, at least 1).
share() {
    local t=$((THREADS / $1))
    echo $((t > 0 ? t : 1))
}

# one N IN OUT ARGS...: the single process (N = 1) or N ranks, file to file.
one() {
    local n=$1 in=$2 out=$3
    shift 3
    if [ "$n" -eq 1 ]; then
        "$GPUSORT" --device=cpu --parallel="$THREADS" -T "$BENCH_DIR/tmp" "$@" "$in" -o "$out"
    else
        "$MPIRUN" --oversubscribe --bind-to none -n "$n" "$GPUSORT_MPI" --device=cpu \
            --parallel="$(share "$n")" -T "$BENCH_DIR/tmp" "$@" "$in" -o "$out"
    fi
}

# work NAME IN ARGS...: the rounds, the medians, the ratios.
work() {
    local w=$1 in=$2 n i t
    shift 2
    local ref=$BENCH_DIR/mpi-1.out
    declare -A times=()
    for n in 1 2 4; do
        rm -f "$BENCH_DIR/mpi-$n.out"
        one "$n" "$in" "$BENCH_DIR/mpi-$n.out" "$@"
        [ "$n" -eq 1 ] || cmp -s "$ref" "$BENCH_DIR/mpi-$n.out" ||
            die "$w: $n ranks wrote other bytes than gpusort"
    done
    rm -f "$BENCH_DIR"/mpi-*.out
    for ((i = 1; i <= R; i++)); do
        for n in 1 2 4; do
            rm -f "$BENCH_DIR/mpi-$n.out" && sync
            t=$(seconds one "$n" "$in" "$BENCH_DIR/mpi-$n.out" "$@")
            times[$n]="${times[$n]:-} $t"
            if [ "$n" -gt 1 ] && [ -x "$MPINULL" ]; then
                t=$(seconds "$MPIRUN" --oversubscribe --bind-to none -n "$n" "$MPINULL")
                times[f$n]="${times[f$n]:-} $t"
            fi
        done
    done
    local m1 m
    # shellcheck disable=SC2086  # the runs' times, one a word
    m1=$(printf '%s\n' ${times[1]} | median)
    for n in 1 2 4; do
        echo "$w: $n: runs:${times[$n]}"
        # shellcheck disable=SC2086
        m=$(printf '%s\n' ${times[$n]} | median)
        summary+=("$(awk -v w="$w" -v n="$n" -v m="$m" -v a="$m1" -v b="$(wc -c <"$in")" \
            'BEGIN { printf "%-5s %d %s  %7.3f s  %6.2f GB/s  x%.3f", w, n,
                     n == 1 ? "process" : "ranks  ", m, b / m / 1e9, m / a }')")
        [ -n "${times[f$n]:-}" ] || continue
        echo "$w: $n: floor runs:${times[f$n]}"
        # shellcheck disable=SC2086
        m=$(printf '%s\n' ${times[f$n]} | median)
        summary+=("$(awk -v w="$w" -v n="$n" -v m="$m" -v a="$m1" \
            'BEGIN { printf "%-5s %d floor    %7.3f s  (MPI started and ended)  x%.3f",
                     w, n, m, m / a }')")
    done
    echo "$w: --stats of 4 ranks:"
    "$MPIRUN" --oversubscribe --bind-to none -n 4 "$GPUSORT_MPI" --device=cpu --stats \
        --parallel="$(share 4)" -T "$BENCH_DIR/tmp" "$@" "$in" -o "$BENCH_DIR/mpi-4.out"
    rm -f "$BENCH_DIR"/mpi-*.out
    echo "$w: command: mpirun -n N gpusort-mpi --device=cpu --parallel=$THREADS/N $* IN -o OUT"
}

for w in $WORK; do
    case $w in
    csv)
        in=$BENCH_DIR/rec-$CSV_N.csv
        [ -s "$in" ] || "$GSREC" --bench -n "$CSV_N" -s 1 >"$in"
        work csv "$in" -t, -k2,2n ;;
    text)
        in=$BENCH_DIR/in-u32-$TEXT_N.txt
        [ -s "$in" ] || "$GSGEN" -n "$TEXT_N" -t u32 -s 1 >"$in"
        work text "$in" --type=u32 ;;
    *) die "unknown workload '$w'" ;;
    esac
done
machine_lines "$(hostname)" "$(nproc)" "$("$GPUSORT" --version | head -n 1); $("$MPIRUN" --version | head -n 1)"
echo "medians of $R, THREADS=$THREADS (work, processes or ranks, median, input rate, against 1):"
printf '%s\n' "${summary[@]}"
