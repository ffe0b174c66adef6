#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# flagship.sh: the scale run of issue 7: GIB gibibytes of random binary u32 keys made
# by tests/bench/genkeys, piped through `gpusort -b -t u32` into tests/bench/checkkeys,
# which checks order, count and sum against `genkeys --sum`. Nothing touches a file
# but gpusort's spilled runs under TMP. Prints the wall-clock time, GB/s end to end,
# gpusort's --stats (the phases, the stages, peak RSS), the bytes spilled, and a CSV
# line (tool,bytes,seconds,gb_per_s,peak_rss_kib,spilled_bytes,buffer) to CSV if set.
# Env: BUILD (built tree, default .), GIB (100), SEED (11), TMP (temporary directory,
# default ./bench-tmp), S (-S, default gpusort's own: half the RAM), OPTS (more
# gpusort options), CSV (a file to append the line to).
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -euo pipefail
name=flagship.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
BUILD=$(cd "${BUILD:-.}" && pwd)
GIB=${GIB:-100}
SEED=${SEED:-11}
TMP=${TMP:-./bench-tmp}
mkdir -p "$TMP"
keys=$((GIB * (1 << 30) / 4))
bytes=$((keys * 4))
gen=$BUILD/tests/bench/genkeys
chk=$BUILD/tests/bench/checkkeys
cmd=("$BUILD/src/gpusort" -B --type=u32 --stats -T "$TMP")
[ -n "${S:-}" ] && cmd+=(-S "$S")
# shellcheck disable=SC2206
[ -n "${OPTS:-}" ] && cmd+=($OPTS)
stats=$(mktemp)
trap 'rm -f "$stats"' EXIT

want=$("$gen" -t u32 -n $keys -s "$SEED" --sum)
# Watch the temporary directory: the most it held is the bytes spilled.
( peak=0; while sleep 1; do
      b=$(du -sb "$TMP" 2>/dev/null | cut -f1); [ "${b:-0}" -gt "$peak" ] && peak=$b
      echo "$peak" >"$stats.tmp"
  done ) &
watcher=$!
start=$(date +%s.%N)
got=$("$gen" -t u32 -n $keys -s "$SEED" | "${cmd[@]}" 2>"$stats" | "$chk" -t u32) ||
    { cat "$stats" >&2; kill $watcher; die "the pipeline failed"; }
end=$(date +%s.%N)
kill $watcher 2>/dev/null; wait $watcher 2>/dev/null || true
spilled=$(cat "$stats.tmp" 2>/dev/null || echo 0); rm -f "$stats.tmp"
secs=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')
gbps=$(awk -v b="$bytes" -v t="$secs" 'BEGIN { printf "%.3f", b / t / 1e9 }')
rss=$(sed -n 's/.*peak RSS \([0-9]*\) KiB.*/\1/p' "$stats")
echo "$GIB GiB ($bytes bytes) of random u32: genkeys | gpusort ${cmd[*]:1} | checkkeys"
echo "  $secs s, $gbps GB/s end to end; peak RSS ${rss:-?} KiB; at most $spilled bytes under $TMP"
sed 's/^/  /' "$stats"
[ "$got" = "$want" ] || die "checkkeys said '$got', genkeys --sum '$want'"
echo "  checked: in order; count and sum $got as generated"
left=$(find "$TMP" -type f | wc -l)
[ "$left" -eq 0 ] || die "$left temporary files left under $TMP"
[ -n "${CSV:-}" ] && echo "gpusort,$bytes,$secs,$gbps,${rss:-},$spilled,${S:-default}" >>"$CSV"
exit 0
