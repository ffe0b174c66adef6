#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# external.sh: gpusort's external sort (-S 256M, runs spilled to disk) against
# `LC_ALL=C sort -n` with the same buffer, and against gpusort with the whole input in
# memory (a benchmark, never a test).
#
# Generates N random u32 keys as text into BENCH_DIR (kept for later runs; 100M keys
# are about 1.07 GB), then runs the three sorts R times, alternating, timing each
# (wall clock). Checks once that the three outputs are identical, prints the medians
# and their ratios, and the bytes gpusort spills (--stats) with --compress-temp=lz4
# and with none (one run each). The environment:
#   N          keys (default 100000000)       R          rounds (default 3)
#   BENCH_DIR  data directory (./bench-data)  S          external buffer (256M)
#   GPUSORT    default ./src/gpusort          GSGEN      default ./tests/tools/gsgen

# `make` may run us with a plain sh: this script needs bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi

set -eu
export LC_ALL=C
# shellcheck disable=SC2034 # lib.sh uses name
name=external.sh
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"

N=${N:-100000000}
R=${R:-3}
S=${S:-256M}
BENCH_DIR=${BENCH_DIR:-./bench-data}
GPUSORT=${GPUSORT:-./src/gpusort}
GSGEN=${GSGEN:-./tests/tools/gsgen}

[ -x "$GPUSORT" ] || die "no gpusort at $GPUSORT (set GPUSORT)"
[ -x "$GSGEN" ] || die "no gsgen at $GSGEN (set GSGEN)"
case $R in '' | *[!0-9]* | 0) die "R must be a positive integer" ;; esac
case $N in '' | *[!0-9]*) die "N must be a count" ;; esac

mkdir -p "$BENCH_DIR/tmp"
tmp=$BENCH_DIR/tmp
in=$BENCH_DIR/in-u32-$N.txt
out1=$BENCH_DIR/out-external.txt
out2=$BENCH_DIR/out-sort.txt
out3=$BENCH_DIR/out-memory.txt
stats=$BENCH_DIR/stats.txt
trap 'rm -f "$out1" "$out2" "$out3" "$stats"' EXIT

if [ ! -s "$in" ]; then
    echo "generating $N random u32 into $in ..." >&2
    "$GSGEN" -n "$N" -t u32 -s 1 >"$in.tmp" || die "gsgen failed"
    mv "$in.tmp" "$in"
fi
in_bytes=$(wc -c <"$in")
threads=$(nproc)

external_cmd=("$GPUSORT" --device=cpu --type=u32 -S "$S" -T "$tmp" "$in" -o "$out1")
sort_cmd=(sort -n --parallel="$threads" -S "$S" -T "$tmp" "$in" -o "$out2")
memory_cmd=("$GPUSORT" --device=cpu --type=u32 -S 8G -T "$tmp" "$in" -o "$out3")



# spilled COMPRESS: the bytes on the spill row of gpusort's --stats.
spilled() {
    "$GPUSORT" --device=cpu --type=u32 -S "$S" -T "$tmp" --compress-temp="$1" --stats \
        "$in" -o "$out1" 2>"$stats" || die "gpusort --compress-temp=$1 failed: $(cat "$stats")"
    awk '$3 == "spill" { print $4; exit }' "$stats"
}

# Before each command, outside the timings: its output of the round before is
# removed and the dirty pages of the command before are written back (`sync`), as in
# vs-sort.sh, so that no command pays for another's 1 GB or for dropping its own.
e_times=()
s_times=()
m_times=()
for ((i = 1; i <= R; i++)); do
    rm -f "$out1"
    sync
    e=$(seconds "${external_cmd[@]}")
    e_times+=("$e")
    rm -f "$out2"
    sync
    s=$(seconds "${sort_cmd[@]}")
    s_times+=("$s")
    rm -f "$out3"
    sync
    m=$(seconds "${memory_cmd[@]}")
    m_times+=("$m")
    echo "round $i/$R: gpusort -S $S $e s, sort -S $S $s s, gpusort -S 8G $m s" >&2
    if [ "$i" -eq 1 ]; then
        cmp -s "$out1" "$out2" || die "the outputs of gpusort -S $S and sort differ"
        cmp -s "$out1" "$out3" || die "the outputs of gpusort -S $S and -S 8G differ"
    fi
done
[ -z "$(ls -A "$tmp")" ] || die "temporary files left in $tmp: $(ls -A "$tmp")"

spill_lz4=$(spilled lz4)
spill_none=$(spilled none)
[ -z "$(ls -A "$tmp")" ] || die "temporary files left in $tmp: $(ls -A "$tmp")"

e_med=$(printf '%s\n' "${e_times[@]}" | median)
s_med=$(printf '%s\n' "${s_times[@]}" | median)
m_med=$(printf '%s\n' "${m_times[@]}" | median)

echo
echo "input: $in ($N u32 keys, $in_bytes bytes of text), $R rounds, $threads CPUs"
awk -v e="$e_med" -v s="$s_med" -v m="$m_med" -v S="$S" -v lz="$spill_lz4" \
    -v none="$spill_none" -v keys="$((N * 4))" 'BEGIN {
    printf "%-34s %12s\n", "", "median s"
    printf "%-34s %12.3f\n", "gpusort -S " S " (external)", e
    printf "%-34s %12.3f\n", "sort -n -S " S, s
    printf "%-34s %12.3f\n", "gpusort -S 8G (in memory)", m
    printf "%-34s %12.2fx\n", "sort / gpusort external", (e > 0 ? s / e : 0)
    printf "%-34s %12.2fx\n", "gpusort external / in memory", (m > 0 ? e / m : 0)
    printf "%-34s %12.1f MB (%.2fx the keys)\n", "spilled, --compress-temp=lz4", lz / 1e6, (keys > 0 ? lz / keys : 0)
    printf "%-34s %12.1f MB (%.2fx the keys)\n", "spilled, --compress-temp=none", none / 1e6, (keys > 0 ? none / keys : 0)
}'
echo
echo "commands:"
echo "  ${external_cmd[*]}"
echo "  LC_ALL=C ${sort_cmd[*]}"
echo "  ${memory_cmd[*]}"
