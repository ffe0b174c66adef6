#!/usr/bin/env bash
# plot.sh: draws the CSVs of tests/bench/sweep.sh and tests/bench/stages.sh as PNG
# plots with gnuplot (Debian: gnuplot-nox). Every figure drawn comes from the CSVs.
#
# Usage: plot.sh DIR   (the OUT of those scripts; the PNGs are written there too)
#   DIR/sweep.csv                  -> DIR/throughput.png: MB/s of text input against
#       the number of keys, log-log, one line a tool (the medians), each round a dot
#   DIR/stages.csv, ceilings.csv   -> DIR/stages.png: GB/s of each stage of the
#       median round (and of the whole run, "wall"), log y, the ceilings as
#       horizontal lines
# A missing CSV skips its plot; neither there is an error. The titles name the machine
# from DIR/sweep.txt and DIR/stages.txt.

if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi

set -eu
export LC_ALL=C
# shellcheck disable=SC2034 # lib.sh uses name
name=plot.sh
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: plot.sh DIR (holding sweep.csv, or stages.csv and ceilings.csv)"
dir=$1
[ -d "$dir" ] || die "no directory $dir"
command -v gnuplot >/dev/null || die "no gnuplot (Debian: apt-get install gnuplot-nox)"
[ -s "$dir/sweep.csv" ] || [ -s "$dir/stages.csv" ] ||
    die "neither $dir/sweep.csv nor $dir/stages.csv"

# pngcairo where this gnuplot has it (antialiased), else the libgd png terminal.
if gnuplot -e 'set terminal' 2>&1 | grep -q '^ *pngcairo '; then
    term="pngcairo size 960,640 font 'sans,11'"
else
    term="png size 960,640"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# describe TXT: "MACHINE, CPUS cores" from a sweep.txt or stages.txt, and its GPU.
describe() {
    awk -F': ' '$1 == "machine" { m = $2 }
        $1 == "cpus" { c = $2; sub(/ .*/, "", c) }
        $1 == "gpusort --version" && $2 ~ /^GPU [0-9]/ { g = $3; sub(/,.*/, "", g) }
        END { printf "%s, %s CPUs%s", m, c, (g != "" ? ", " g : ", no GPU") }' "$1"
}

# gp_quote TEXT: TEXT as a gnuplot string ("..." with \ and " escaped).
gp_quote() {
    printf '"%s"' "$(printf '%s' "$1" | sed 's/[\\"]/\\&/g')"
}

# ---- throughput against input size --------------------------------------------------

if [ -s "$dir/sweep.csv" ]; then
    head -n 1 "$dir/sweep.csv" | grep -q '^tool,n,bytes,round,seconds,mb_per_s' ||
        die "$dir/sweep.csv: not sweep.sh's columns"
    # The tools in the CSV, gpusort's first (the legend's order).
    tools=$(awk -F, 'NR > 1 && !seen[$1]++ { print $1 }' "$dir/sweep.csv" |
        awk '{ print ($0 == "gpusort-gpu" ? 1 : $0 == "gpusort-cpu" ? 2 : $0 == "sort" ? 3 : 4), $0 }' |
        sort -n -k1,1 -s | cut -d' ' -f2-)
    [ -n "$tools" ] || die "$dir/sweep.csv: no rows"
    what=$( [ -s "$dir/sweep.txt" ] && describe "$dir/sweep.txt" || echo "$dir")
    type=$(sed -n 's/^sizes: .*type: \([a-z0-9]*\).*/\1/p' "$dir/sweep.txt" 2>/dev/null || true)
    {
        echo "set terminal $term"
        echo "set output $(gp_quote "$dir/throughput.png")"
        echo "set title $(gp_quote "Sorting random ${type:-u32} keys as text, file to file ($what)")"
        echo "set logscale xy"
        echo "set format x '10^{%T}'"
        echo "set xlabel 'keys'"
        echo "set ylabel 'MB/s of text input'"
        echo "set grid xtics ytics mytics"
        echo "set key top left"
        plots=()
        i=0
        for t in $tools; do
            i=$((i + 1))
            # A tool's colour is the same on every machine's plot.
            case $t in gpusort-gpu) lc=1 ;; gpusort-cpu) lc=2 ;; sort) lc=3 ;; *) lc=$((i + 3)) ;; esac
            awk -F, -v t="$t" 'NR > 1 && $1 == t && $4 == "median" { print $2, $6 }' \
                "$dir/sweep.csv" | sort -n >"$tmp/$i.med"
            awk -F, -v t="$t" 'NR > 1 && $1 == t && $4 != "median" { print $2, $6 }' \
                "$dir/sweep.csv" >"$tmp/$i.rounds"
            case $t in
            gpusort-gpu) title="gpusort --device=auto (GPU)" ;;
            gpusort-cpu) title="gpusort --device=cpu" ;;
            sort) title="LC_ALL=C sort -n" ;;
            *) title=$t ;;
            esac
            plots+=("'$tmp/$i.med' using 1:2 with linespoints lw 2 pt 7 lc $lc title $(gp_quote "$title (median)") noenhanced")
            plots+=("'$tmp/$i.rounds' using 1:2 with points pt 1 ps 1.2 lc $lc notitle")
        done
        printf 'plot %s' "${plots[0]}"
        printf ', \\\n     %s' "${plots[@]:1}"
        echo
    } >"$tmp/throughput.gp"
    gnuplot "$tmp/throughput.gp" || die "gnuplot failed on $tmp/throughput.gp"
    echo "wrote $dir/throughput.png" >&2
fi

# ---- the stages against the ceilings ------------------------------------------------

if [ -s "$dir/stages.csv" ]; then
    head -n 1 "$dir/stages.csv" | grep -q '^round,kind,name,seconds,bytes,gb_per_s' ||
        die "$dir/stages.csv: not stages.sh's columns"
    # The median round's stages that moved bytes in measurable time, then the run:
    # "INDEX NAME SECONDS GB/S" a line.
    awk -F, '$1 == "median" && $2 == "stage" && $6 != "" { print i++, $3, $4, $6 }
        $1 == "median" && $2 == "wall" && $6 != "" { w = $4 " " $6 }
        END { if (w != "") print i, "\"end to end\"", w }' "$dir/stages.csv" >"$tmp/stages.dat"
    [ -s "$tmp/stages.dat" ] || die "$dir/stages.csv: no median stage rows with a rate"
    what=$( [ -s "$dir/stages.txt" ] && describe "$dir/stages.txt" || echo "$dir")
    input=$(sed -n 's/^input: \([0-9]*\) random binary \([a-z0-9]*\) keys (\([0-9]*\) bytes.*/\1 \2 \3/p' \
        "$dir/stages.txt" 2>/dev/null | awk '{ printf "%s binary %s keys (%.3g GB)", $1, $2, $3 / 1e9 }' || true)
    nbars=$(wc -l <"$tmp/stages.dat")
    {
        echo "set terminal $term"
        echo "set output $(gp_quote "$dir/stages.png")"
        echo "set termoption noenhanced"
        echo "set title $(gp_quote "gpusort --stats by stage, the median run: ${input:-}") . \"\\n\" . $(gp_quote "$what")"
        echo "set logscale y"
        echo "set ylabel 'GB/s (stage bytes / stage seconds)'"
        echo "set xrange [-0.6:$nbars - 0.4]"
        echo "set style fill solid 0.5"
        echo "set boxwidth 0.6"
        echo "set offsets 0, 0, graph 0.12, 0"
        echo "set grid ytics"
        echo "set key below left Left reverse"
        plots=("'$tmp/stages.dat' using 1:4:xtic(2) with boxes lc rgb '#4a7ebb' title 'stage: GB/s (and seconds)'")
        plots+=("'$tmp/stages.dat' using 1:4:(sprintf(\"%.3g\\n(%.3f s)\", \$4, \$3)) with labels offset 0,1.6 font ',10' notitle")
        if [ -s "$dir/ceilings.csv" ]; then
            # Memory ceilings dashed, PCIe ones solid, each its own colour.
            colours=('#d95f02' '#1b9e77' '#7570b3' '#e7298a' '#66a61e' '#a6761d' '#666666')
            i=0
            while IFS=, read -r cname cgbs csrc; do
                case $cname in PCIe*) dt=1 ;; *) dt=2 ;; esac
                plots+=("$cgbs with lines lw 2 dt $dt lc rgb '${colours[i % ${#colours[@]}]}' title $(gp_quote "$cname: $cgbs GB/s ($csrc)")")
                i=$((i + 1))
            done < <(tail -n +2 "$dir/ceilings.csv")
        fi
        printf 'plot %s' "${plots[0]}"
        printf ', \\\n     %s' "${plots[@]:1}"
        echo
    } >"$tmp/stages.gp"
    gnuplot "$tmp/stages.gp" || die "gnuplot failed on $tmp/stages.gp"
    echo "wrote $dir/stages.png" >&2
fi
