#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# multigpu.sh: the same input sorted on 1, 2, ... GPUs of one host, side by side:
# N random binary u32 keys (tests/bench/genkeys, seed 13) in a file in the page cache,
# `gpusort -b -t u32 --device=LIST $GS_ARGS --stats FILE -o /dev/null`, R rounds, the
# device lists alternating within a round. For each run: the wall-clock time, the
# GPU stage (the --stats "sorting" phase: staging, PCIe, the sort, and the CPU merge
# of a chunk's parts where several GPUs share it) and each phase. Writes OUT/multigpu.csv
# (devices,round,wall_s,reading_s,sorting_s,merging_s,sorting_gb_per_s,gb_per_s) and
# OUT/multigpu.txt (each run's --stats), and checks one output of each list with
# checkkeys against genkeys --sum.
# Env: BUILD (.), N (8589934592: 32 GiB), R (3), DEVICES ("0 0,1"), GS_ARGS
# (--gpu-memory=8G), BENCH_DIR (./bench-data), OUT (required).
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -euo pipefail
name=multigpu.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
BUILD=$(cd "${BUILD:-.}" && pwd)
N=${N:-8589934592}
R=${R:-3}
DEVICES=${DEVICES:-0 0,1}
GS_ARGS=${GS_ARGS:---gpu-memory=8G}
BENCH_DIR=${BENCH_DIR:-./bench-data}
: "${OUT:?OUT must name a results directory}"
mkdir -p "$BENCH_DIR" "$OUT"
in=$BENCH_DIR/multigpu-u32-$N.bin
[ -s "$in" ] || "$BUILD/tests/bench/genkeys" -t u32 -n "$N" -s 13 >"$in"
sync   # its pages written back now, not during the first run
cat "$in" >/dev/null
bytes=$((N * 4))
csv=$OUT/multigpu.csv
echo "devices,round,wall_s,reading_s,sorting_s,merging_s,sorting_gb_per_s,gb_per_s" >"$csv"
: >"$OUT/multigpu.txt"
stats=$(mktemp)
trap 'rm -f "$stats"' EXIT
# phase NAME: its seconds from the --stats phases line.
phase() { sed -n "s/.*phases (wall clock):.* $1 \([0-9.]*\) s.*/\1/p" "$stats"; }
for round in $(seq 1 "$R"); do
    for d in $DEVICES; do
        # shellcheck disable=SC2086
        t=$(seconds "$BUILD/src/gpusort" -B --type=u32 --device="$d" $GS_ARGS --stats "$in" \
            -o /dev/null 2>"$stats")
        { echo "== --device=$d round $round: $t s"; cat "$stats"; } >>"$OUT/multigpu.txt"
        s=$(phase sorting)
        awk -v d="$d" -v r="$round" -v t="$t" -v rd="$(phase reading)" -v s="${s:-0}" \
            -v m="$(phase merging)" -v b="$bytes" 'BEGIN {
            printf "\"%s\",%d,%s,%s,%s,%s,%.2f,%.2f\n", d, r, t, rd, s, m,
                   (s > 0 ? b / s / 1e9 : 0), b / t / 1e9 }' >>"$csv"
    done
done
want=$("$BUILD/tests/bench/genkeys" -t u32 -n "$N" -s 13 --sum)
for d in $DEVICES; do
    # shellcheck disable=SC2086
    got=$("$BUILD/src/gpusort" -B --type=u32 --device="$d" $GS_ARGS "$in" |
          "$BUILD/tests/bench/checkkeys" -t u32) || die "--device=$d: out of order"
    [ "$got" = "$want" ] || die "--device=$d: count and sum '$got', want '$want'"
done
echo "checked: every device list's output in order, count and sum as generated"
cat "$csv"
