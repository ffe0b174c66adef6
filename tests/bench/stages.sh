#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stages.sh: one big sort's `--stats` breakdown by stage, and the ceilings to hold it
# against (host memory bandwidth; PCIe where there is a GPU), into CSVs for
# tests/bench/plot.sh (a benchmark, never a test).
#
# Measures the ceilings first: tests/bench/membw (copy, read + write, on every CPU;
# first touch of new memory on 1 and every CPU) and, where gpusort sees a GPU,
# tests/bench/pcie (pinned host->device, device->host, both at once). Then N random
# binary keys of TYPE (tests/bench/genkeys, seed 7, kept in BENCH_DIR), read into the
# page cache, sorted R times by `gpusort -b -t TYPE $GS_ARGS --stats FILE -o
# /dev/null`, each run timed (wall clock) and its stats kept; then one more run,
# piped into tests/tools/gscheck, must give the generator's count and sum. Writes to OUT:
#   stages.csv    round,kind,name,seconds,bytes,gb_per_s: for each round 1..R, kind
#                 "stage" (the eight rows of --stats: read parse transfer sort spill
#                 merge format write), "phase" (the wall-clock phases of --stats,
#                 bytes empty), "total" (--stats's total) and "wall" (the run timed
#                 here; bytes: the input); then the median round's rows again as
#                 round "median". gb_per_s: 1e9 bytes a second, empty where no time
#                 or no bytes.
#   ceilings.csv  ceiling,gb_per_s,source: one row a ceiling measured (or given by
#                 PCIE_GBS), source the command that measured it
#   stages.txt    the machine, gpusort's device line, the commands, each round's
#                 stats as printed
# The environment:
#   N          keys (default 4294967296: 16 GiB of u32, as tests/bench/gpu.sh)
#   TYPE       u32 or u64 (default u32)       R        rounds (default 3)
#   GS_ARGS    more gpusort options (default --gpu-memory=2G)
#   OUT        results directory (default a new one from mktemp -d, printed)
#   BENCH_DIR  data directory (./bench-data)  MACHINE  a name (default host name)
#   MEMBW_GIB  GiB membw copies (default 4)   PCIE_MIB MiB pcie copies (1024)
#   PCIE_GBS   where pcie cannot run (not built): a PCIe figure to record, GB/s
#              each way, its source "given"; unset: no PCIe ceiling
#   BUILD      built tree (default .); GPUSORT, GENKEYS, GSCHECK, MEMBW, PCIE
#              override $BUILD/src/gpusort, tests/bench/genkeys, tests/tools/gscheck,
#              tests/bench/membw, tests/bench/pcie

# `make` may run us with a plain sh: this script needs bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi

set -eu
export LC_ALL=C
# shellcheck disable=SC2034 # lib.sh uses name
name=stages.sh
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"

N=${N:-4294967296}
TYPE=${TYPE:-u32}
R=${R:-3}
GS_ARGS=${GS_ARGS-"--gpu-memory=2G"}
BENCH_DIR=${BENCH_DIR:-./bench-data}
MACHINE=${MACHINE:-$(hostname)}
MEMBW_GIB=${MEMBW_GIB:-4}
PCIE_MIB=${PCIE_MIB:-1024}
PCIE_GBS=${PCIE_GBS:-}
BUILD=${BUILD:-.}
GPUSORT=${GPUSORT:-$BUILD/src/gpusort}
GENKEYS=${GENKEYS:-$BUILD/tests/bench/genkeys}
GSCHECK=${GSCHECK:-$BUILD/tests/tools/gscheck}
MEMBW=${MEMBW:-$BUILD/tests/bench/membw}
PCIE=${PCIE:-$BUILD/tests/bench/pcie}

for tool in "$GPUSORT" "$GENKEYS" "$GSCHECK" "$MEMBW"; do
    [ -x "$tool" ] || die "no $(basename "$tool") at $tool (set BUILD; make ${tool#"$BUILD"/})"
done
case $R in '' | *[!0-9]* | 0) die "R must be a positive integer" ;; esac
case $N in '' | *[!0-9]* | 0) die "N must be a positive count" ;; esac
case $TYPE in u32 | u64) ;; *) die "TYPE must be u32 or u64 (genkeys makes those)" ;; esac
case $MEMBW_GIB in '' | *[!0-9]* | 0) die "MEMBW_GIB must be a positive integer" ;; esac
case $PCIE_MIB in '' | *[!0-9]* | 0) die "PCIE_MIB must be a positive integer" ;; esac
case $PCIE_GBS in *[!0-9.]*) die "PCIE_GBS must be a number of GB/s" ;; esac

if [ -z "${OUT:-}" ]; then
    OUT=$(mktemp -d "${TMPDIR:-/tmp}/stages.XXXXXX")
fi
mkdir -p "$OUT" "$BENCH_DIR"
csv=$OUT/stages.csv
ceil=$OUT/ceilings.csv
txt=$OUT/stages.txt
stats=$BENCH_DIR/stages-stats.txt
trap 'rm -f "$stats"' EXIT
threads=$(nproc)
version=$("$GPUSORT" --version) || die "$GPUSORT --version failed"
gpus=$(gpu_lines)

# ---- the ceilings -------------------------------------------------------------------

# gbs_of TEXT PATTERN: the number before "GB/s" on TEXT's line matching PATTERN.
gbs_of() {
    printf '%s\n' "$1" | awk -v p="$2" 'index($0, p) {
        for (i = 2; i <= NF; i++) if ($i == "GB/s") { print $(i - 1); exit } }'
}

echo "ceiling,gb_per_s,source" >"$ceil"
# ceiling NAME VALUE SOURCE: one row, or a warning when VALUE is empty.
ceiling() {
    if [ -z "$2" ]; then
        echo "$name: no figure for '$1' from $3" >&2
        return
    fi
    echo "$1,$2,$3" >>"$ceil"
}

echo "measuring host memory bandwidth: membw $MEMBW_GIB $threads ..." >&2
mem=$("$MEMBW" "$MEMBW_GIB" "$threads") || die "membw failed"
ceiling "memory copy $threads threads" "$(gbs_of "$mem" "host memory:")" "membw $MEMBW_GIB $threads"
ceiling "first touch 1 thread" "$(gbs_of "$mem" "new memory: 1 threads")" "membw $MEMBW_GIB $threads"
if [ "$threads" -gt 1 ]; then
    ceiling "first touch $threads threads" "$(gbs_of "$mem" "new memory: $threads threads")" \
        "membw $MEMBW_GIB $threads"
fi
pcie=
if [ -n "$gpus" ]; then
    if [ -x "$PCIE" ]; then
        echo "measuring PCIe bandwidth: pcie $PCIE_MIB ..." >&2
        pcie=$("$PCIE" "$PCIE_MIB") || die "pcie failed: $pcie"
        ceiling "PCIe host to device" "$(gbs_of "$pcie" "host->device")" "pcie $PCIE_MIB"
        ceiling "PCIe device to host" "$(gbs_of "$pcie" "device->host")" "pcie $PCIE_MIB"
        ceiling "PCIe both ways" "$(gbs_of "$pcie" "both ways")" "pcie $PCIE_MIB"
    elif [ -n "$PCIE_GBS" ]; then
        echo "$name: no pcie at $PCIE: recording PCIE_GBS=$PCIE_GBS as given" >&2
        ceiling "PCIe each way" "$PCIE_GBS" "given (PCIE_GBS)"
    else
        echo "$name: no pcie at $PCIE (make tests/bench/pcie) and no PCIE_GBS: no PCIe ceiling" >&2
    fi
fi

# ---- the runs -----------------------------------------------------------------------

keys=$BENCH_DIR/keys-$TYPE-$N-s7.bin
if [ ! -s "$keys" ]; then
    echo "generating $N random binary $TYPE into $keys ..." >&2
    "$GENKEYS" -t "$TYPE" -n "$N" -s 7 >"$keys.tmp" || die "genkeys failed"
    mv "$keys.tmp" "$keys"
fi
cat "$keys" >/dev/null   # into the page cache
bytes=$(wc -c <"$keys")
# shellcheck disable=SC2206 # GS_ARGS is words
gs_args=($GS_ARGS)
run_cmd=("$GPUSORT" -B --type="$TYPE" "${gs_args[@]}" --stats "$keys" -o /dev/null)

{
    machine_lines "$MACHINE" "$threads" "$version"
    echo "input: $N random binary $TYPE keys ($bytes bytes, genkeys -s 7), page cache; rounds: $R"
    echo "command: ${run_cmd[*]}"
    printf '%s\n' "$mem" | sed 's/^/membw: /'
    [ -z "$pcie" ] || printf '%s\n' "$pcie" | sed 's/^/pcie: /'
} >"$txt"

echo "round,kind,name,seconds,bytes,gb_per_s" >"$csv"
walls=()
for ((i = 1; i <= R; i++)); do
    start=$(date +%s.%N)
    "${run_cmd[@]}" 2>"$stats" || die "failed: ${run_cmd[*]}: $(cat "$stats")"
    end=$(date +%s.%N)
    wall=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')
    walls+=("$wall")
    echo "round $i/$R: $wall s" >&2
    { echo "round $i: $wall s"; cat "$stats"; } >>"$txt"
    # The stats lines into rows: "gpusort: stats: STAGE BYTES SECONDS MB/s [NOTE]"
    # (SECONDS "-" where the stage took none of its own), "...
    # total SECONDS", "... phases (wall clock): NAME S s, NAME S s".
    awk -v r="$i" -v wall="$wall" -v b="$bytes" '
        function row(kind, name, s, by) {
            printf "%s,%s,%s,%s,%s,%s\n", r, kind, name, s, by,
                (s > 0 && by != "" && by > 0 ? sprintf("%.3f", by / s / 1e9) : "")
        }
        BEGIN { split("read parse transfer sort spill merge format write", st, " ")
                for (k in st) stage[st[k]] = 1 }
        $1 == "gpusort:" && $2 == "stats:" && NF >= 6 && ($3 in stage) {
            row("stage", $3, $5 == "-" ? "" : $5, $4) }
        $1 == "gpusort:" && $2 == "stats:" && NF == 4 && $3 == "total" { row("total", "total", $4, b) }
        /^gpusort: stats: phases \(wall clock\):/ {
            sub(/^gpusort: stats: phases \(wall clock\): */, "")
            n = split($0, ph, /, */)
            for (k = 1; k <= n; k++) { split(ph[k], w, " "); row("phase", w[1], w[2], "") }
        }
        END { row("wall", "wall", wall, b) }' "$stats" >>"$csv"
    grep -q "^$i,stage,write," "$csv" || die "round $i: no stage rows in gpusort's --stats"
done

# The median round by wall time (the lower of the middle two when R is even).
med=$(for ((i = 1; i <= R; i++)); do echo "${walls[i - 1]} $i"; done | sort -g |
    awk -v m="$(((R + 1) / 2))" 'NR == m { print $2 }')
awk -F, -v m="$med" 'BEGIN { OFS = "," } $1 == m { $1 = "median"; print }' "$csv" >"$csv.med"
cat "$csv.med" >>"$csv"
rm -f "$csv.med"
echo "median: round $med" >>"$txt"

# Correct as well as fast: order, count and sum against the generator's.
want=$("$GENKEYS" -t "$TYPE" -n "$N" -s 7 --sum)
got=$("$GPUSORT" -B --type="$TYPE" "${gs_args[@]}" "$keys" | "$GSCHECK" -t "$TYPE") ||
    die "the checked run failed (or its output is out of order)"
[ "$got" = "$want" ] || die "count and sum '$got', want '$want'"
echo "checked: in order; count and sum $got as generated" >>"$txt"

echo "wrote $csv, $ceil and $txt (median: round $med)" >&2
awk -F, '$1 == "median" && ($2 == "stage" || $2 == "wall") && $4 > 0 {
    printf "%-10s %9.3f s %10s GB/s\n", $3, $4, $6 }' "$csv"
awk -F, 'NR > 1 { printf "ceiling: %-28s %8s GB/s  (%s)\n", $1, $2, $3 }' "$ceil"
