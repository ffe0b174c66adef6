#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sweep.sh: gpusort on the GPU, gpusort on the CPU and `LC_ALL=C sort -n` over a list
# of input sizes, side by side, into a CSV for tests/bench/plot.sh (a benchmark,
# never a test).
#
# For each N of SIZES: N random keys of TYPE as text (tests/tools/gsgen, seed 1, kept in
# BENCH_DIR for later runs), then R rounds, the tools alternating within a round,
# each timed file to file (wall clock, the input in the page cache after the first
# read). Every output of every round must equal the reference, or the script stops:
# the reference is sort's first output where sort runs at that N, else gpusort's
# first output checked independently (in order by `sort -c`, count and sum of its
# keys equal to gsgen's). sort runs first in each round. Writes to OUT:
#   sweep.csv    tool,n,bytes,round,seconds,mb_per_s,mkeys_per_s  (round 1..R, then
#                a row "median"; bytes: the text input; MB/s: 1e6 bytes of it)
#   sweep.txt    the machine, the tools' versions and the commands; for each N, where
#                the gpusort-gpu column sorted (--stats of one more run: its device
#                line, its transfer bytes; under 1 Mi keys gpusort sorts on the CPU)
# The environment:
#   SIZES      keys (default "1000000 3000000 10000000 30000000 100000000")
#   R          rounds (default 3)             TYPE       key type (default u32)
#   OUT        results directory (default a new one from mktemp -d, printed)
#   BENCH_DIR  data directory (./bench-data)  SORT_S     sort's -S (default 50%)
#   SORT_MAX_N largest N sort runs at (default: every N)
#   TOOLS      columns (default "gpusort-gpu gpusort-cpu sort"; gpusort-gpu is
#              left out where nvidia-smi lists no GPU)
#   MACHINE    a name for the machine (default the host name)
#   BUILD      built tree (default .); GPUSORT ($BUILD/src/gpusort), GSGEN
#              ($BUILD/tests/tools/gsgen), GSCHECK ($BUILD/tests/tools/gscheck) override it

# `make` may run us with a plain sh: this script needs bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi

set -eu
export LC_ALL=C
# shellcheck disable=SC2034 # lib.sh uses name
name=sweep.sh
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"

SIZES=${SIZES:-1000000 3000000 10000000 30000000 100000000}
R=${R:-3}
TYPE=${TYPE:-u32}
BENCH_DIR=${BENCH_DIR:-./bench-data}
SORT_S=${SORT_S:-50%}
SORT_MAX_N=${SORT_MAX_N:-}
TOOLS=${TOOLS:-gpusort-gpu gpusort-cpu sort}
MACHINE=${MACHINE:-$(hostname)}
BUILD=${BUILD:-.}
GPUSORT=${GPUSORT:-$BUILD/src/gpusort}
GSGEN=${GSGEN:-$BUILD/tests/tools/gsgen}
GSCHECK=${GSCHECK:-$BUILD/tests/tools/gscheck}

[ -x "$GPUSORT" ] || die "no gpusort at $GPUSORT (set BUILD or GPUSORT)"
[ -x "$GSGEN" ] || die "no gsgen at $GSGEN (set BUILD or GSGEN)"
case $R in '' | *[!0-9]* | 0) die "R must be a positive integer" ;; esac
for n in $SIZES; do
    case $n in '' | *[!0-9]* | 0) die "SIZES: '$n' is not a positive count" ;; esac
done
case $SORT_MAX_N in *[!0-9]*) die "SORT_MAX_N must be a count" ;; esac
for t in $TOOLS; do
    case $t in gpusort-gpu | gpusort-cpu | sort) ;; *) die "TOOLS: unknown tool '$t'" ;; esac
done

if [ -z "${OUT:-}" ]; then
    OUT=$(mktemp -d "${TMPDIR:-/tmp}/sweep.XXXXXX")
fi
mkdir -p "$OUT" "$BENCH_DIR"
csv=$OUT/sweep.csv
ref=$BENCH_DIR/sweep-ref.txt
out=$BENCH_DIR/sweep-out.txt
trap 'rm -f "$ref" "$out" "$out.stats"' EXIT

# The GPU column only where there is a GPU (gpu_lines: nvidia-smi's list).
version=$("$GPUSORT" --version) || die "$GPUSORT --version failed"
gpus=$(gpu_lines)
tools=
for t in $TOOLS; do
    if [ "$t" = gpusort-gpu ] && [ -z "$gpus" ]; then
        echo "$name: gpusort sees no GPU: no gpusort-gpu column" >&2
        continue
    fi
    tools="$tools $t"
done
[ -n "$tools" ] || die "no tool left to run"
# sort first in each round: its first output is the reference.
case " $tools " in *" sort "*) tools="sort${tools/ sort/}" ;; esac
threads=$(nproc)

# cmd TOOL IN OUTFILE: set the array c to TOOL's command line.
cmd() {
    case $1 in
    gpusort-gpu) c=("$GPUSORT" --device=auto --type="$TYPE" "$2" -o "$3") ;;
    gpusort-cpu) c=("$GPUSORT" --device=cpu --type="$TYPE" "$2" -o "$3") ;;
    sort) c=(sort -n --parallel="$threads" -S "$SORT_S" "$2" -o "$3") ;;
    esac
}

# runs_sort N: whether sort runs at N.
runs_sort() {
    case " $tools " in *" sort "*) ;; *) return 1 ;; esac
    [ -z "$SORT_MAX_N" ] || [ "$1" -le "$SORT_MAX_N" ]
}

# check_alone FILE N: FILE is N keys of TYPE in order, their sum gsgen's for seed 1.
check_alone() {
    [ -x "$GSCHECK" ] || die "no gscheck at $GSCHECK to check N=$2 without sort (set GSCHECK)"
    sort -n -c "$1" || die "N=$2: $1 is not in order"
    local want got
    want=$("$GSGEN" -n "$2" -t "$TYPE" -s 1 --sum)
    got=$("$GPUSORT" --device=cpu --type="$TYPE" --output-format=binary "$1" | "$GSCHECK" -t "$TYPE")
    [ "$got" = "$want" ] || die "N=$2: count and sum '$got', want '$want'"
}

{
    machine_lines "$MACHINE" "$threads" "$version"
    echo "sort: $(sort --version | head -n 1)"
    echo "sizes: $SIZES; rounds: $R; type: $TYPE; sort -S $SORT_S${SORT_MAX_N:+; sort up to N=$SORT_MAX_N}"
    for t in $tools; do
        cmd "$t" IN OUT
        echo "command $t: ${c[*]}"
    done
} >"$OUT/sweep.txt"

echo "tool,n,bytes,round,seconds,mb_per_s,mkeys_per_s" >"$csv"
# row TOOL N BYTES ROUND SECONDS: one line of the CSV.
row() {
    awk -v t="$1" -v n="$2" -v b="$3" -v r="$4" -v s="$5" 'BEGIN {
        printf "%s,%s,%s,%s,%.3f,%.1f,%.2f\n", t, n, b, r, s,
            (s > 0 ? b / s / 1e6 : 0), (s > 0 ? n / s / 1e6 : 0) }' >>"$csv"
}

for n in $SIZES; do
    in=$BENCH_DIR/in-$TYPE-$n.txt
    if [ ! -s "$in" ]; then
        echo "generating $n random $TYPE into $in ..." >&2
        "$GSGEN" -n "$n" -t "$TYPE" -s 1 >"$in.tmp" || die "gsgen failed"
        mv "$in.tmp" "$in"
    fi
    bytes=$(wc -c <"$in")
    rm -f "$ref"
    declare -A times=()
    for ((i = 1; i <= R; i++)); do
        line="N=$n round $i/$R:"
        for t in $tools; do
            [ "$t" != sort ] || runs_sort "$n" || continue
            cmd "$t" "$in" "$out"
            s=$(seconds "${c[@]}")
            if [ ! -e "$ref" ]; then
                # The first output is the reference: sort's where sort runs at n
                # (it runs first), else gpusort's, checked on its own.
                [ "$t" = sort ] || check_alone "$out" "$n"
                mv "$out" "$ref"
            fi
            [ ! -e "$out" ] || cmp -s "$out" "$ref" || die "N=$n round $i: the output of $t differs from the reference"
            rm -f "$out"
            row "$t" "$n" "$bytes" "$i" "$s"
            times[$t]="${times[$t]:-} $s"
            line="$line $t $s s"
        done
        echo "$line" >&2
    done
    if [ -n "${times[gpusort-gpu]:-}" ]; then
        # Where the GPU column sorted: small inputs stay on the CPU (chunks under
        # 1 Mi keys), and a GPU that fails to start leaves the CPU to it. One more
        # run, untimed, with --stats: its device line and transfer bytes, noted.
        cmd gpusort-gpu "$in" "$out"
        "${c[@]}" --stats 2>"$out.stats" || die "failed: ${c[*]} --stats"
        cmp -s "$out" "$ref" || die "N=$n: the output of gpusort-gpu --stats differs from the reference"
        awk -v n="$n" '$1 == "gpusort:" && $3 == "device" { sub(/^gpusort: stats: device /, ""); d = $0 }
            $1 == "gpusort:" && $3 == "transfer" { x = $4 }
            END { printf "gpusort-gpu at N=%s: device %s; transfer %s bytes\n", n, d, x }' \
            "$out.stats" >>"$OUT/sweep.txt"
        rm -f "$out" "$out.stats"
    fi
    for t in $tools; do
        [ -n "${times[$t]:-}" ] || continue
        # shellcheck disable=SC2086 # one time a line
        row "$t" "$n" "$bytes" median "$(printf '%s\n' ${times[$t]} | median)"
    done
    unset times
done
rm -f "$ref"

echo "wrote $csv and $OUT/sweep.txt" >&2
awk -F, '$4 == "median" { printf "%-12s %11s keys %10.3f s %9.1f MB/s\n", $1, $2, $5, $6 }' "$csv"
