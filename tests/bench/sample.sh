#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sample.sh: the README's quick start: sort ten million generated integers.
#
# Generates 10,000,000 random u32 as text with gsgen in a temporary directory, sorts
# them with gpusort -o (timed), checks the result with gpusort -c, prints one line
# and cleans up. GPUSORT and GSGEN name the programs (`make sample` sets them);
# without them the in-tree build next to this script is used. Runs from any
# directory, needs no standard input, exits non-zero on any failure.

# `make` may run us with a plain sh: this script needs bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi

set -eu
export LC_ALL=C
exec </dev/null

here=$(cd "$(dirname "$0")" && pwd)
GPUSORT=${GPUSORT:-$here/../../src/gpusort}
GSGEN=${GSGEN:-$here/../../tests/tools/gsgen}
N=${N:-10000000}

die() {
    echo "sample.sh: $*" >&2
    exit 1
}
[ -x "$GPUSORT" ] || die "no gpusort at $GPUSORT (build it, or set GPUSORT)"
[ -x "$GSGEN" ] || die "no gsgen at $GSGEN (build it, or set GSGEN)"

dir=$(mktemp -d "${TMPDIR:-/tmp}/gpusort-sample.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$GSGEN" -n "$N" -t u32 -s 1 >"$dir/in.txt" || die "gsgen failed"
bytes=$(wc -c <"$dir/in.txt")

start=$(date +%s.%N)
"$GPUSORT" --type=u32 "$dir/in.txt" -o "$dir/out.txt" || die "gpusort failed"
end=$(date +%s.%N)

"$GPUSORT" -c --type=u32 "$dir/out.txt" || die "the output is not sorted"
lines=$(wc -l <"$dir/out.txt")
[ "$lines" -eq "$N" ] || die "the output has $lines lines, $N expected"

awk -v n="$N" -v b="$bytes" -v s="$start" -v e="$end" 'BEGIN {
    printf "gpusort sorted %d integers (%d MB of text) in %.3f s\n", n, b / 1e6 + 0.5, e - s
}'
