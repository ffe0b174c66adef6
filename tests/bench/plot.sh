#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# plot.sh: draws the CSVs of tests/bench/sweep.sh and tests/bench/stages.sh as PNG
# plots with gnuplot (Debian: gnuplot-nox). Every figure drawn comes from the CSVs.
#
# Usage: plot.sh DIR   (the OUT of those scripts; the PNGs are written there too)
#   DIR/sweep.csv                  -> DIR/time.png: wall-clock seconds against the
#       number of keys, log-log, one line a tool (the medians, each labelled at the
#       largest size), each round a small mark; with LATER, later runs marked apart
#                                  -> DIR/throughput.png: MB/s of text input against
#       the number of keys, log-log, one line a tool (the medians), each round a dot
#   DIR/stages.csv, ceilings.csv   -> DIR/stages.png: GB/s of each stage of the
#       median round (and of the whole run, "wall"), log y, the ceilings as
#       horizontal lines
# A missing CSV skips its plot; neither there is an error. The titles name the machine
# and the date from DIR/sweep.txt and DIR/stages.txt; where those are missing (or to
# override them):
#   MACHINE   the machine, as the titles should name it
#   DATE      the date the CSVs were measured
#   LATER     a CSV of later side-by-side runs at one or more sizes, "tool,n,round,
#             seconds" ('#' lines are comments; tool gpusort or sort), marked on
#             time.png as open circles with their medians labelled; its date is the
#             YYYY-MM-DD that starts its file name, or LATER_DATE; LATER_WHAT says
#             in the title what made them (default "later runs")

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

# describe TXT: "MACHINE, CPUS cores" from a sweep.txt or stages.txt, and its GPU;
# $MACHINE where it is set, or where TXT is missing.
describe() {
    if [ -n "${MACHINE:-}" ] || [ ! -s "$1" ]; then
        printf '%s' "${MACHINE:-$dir}"
        return
    fi
    # The GPU from the "gpu: GPU 0: NAME, ..." lines (gpu_lines), or from gpusort
    # 0.1's --version lines ("GPU 0: NAME, ..."; "GPUs: none usable"; "CUDA support:
    # not built in"); where neither says, the title says nothing of one.
    awk -F': ' '$1 == "machine" { m = $2 }
        $1 == "cpus" { c = $2; sub(/ .*/, "", c) }
        ($1 == "gpusort --version" || $1 == "gpu") && $2 ~ /^GPU [0-9]/ { g = $3; sub(/,.*/, "", g) }
        $1 == "gpusort --version" && ($2 == "GPUs" || $2 == "CUDA support") && $3 ~ /^(none|not built)/ { none = 1 }
        END { printf "%s, %s CPUs%s", m, c, (g != "" ? ", " g : none ? ", no GPU" : "") }' "$1"
}

# when TXT: the date of a sweep.txt or stages.txt (YYYY-MM-DD), or $DATE; nothing
# where neither is known.
when() {
    if [ -n "${DATE:-}" ]; then
        printf '%s' "$DATE"
    elif [ -s "$1" ]; then
        sed -n 's/^date: \([0-9-]*\).*/\1/p' "$1" | head -n 1
    fi
}

# gp_quote TEXT: TEXT as a gnuplot string ("..." with \ and " escaped).
gp_quote() {
    printf '"%s"' "$(printf '%s' "$1" | sed 's/[\\"]/\\&/g')"
}

# ---- seconds against input size ------------------------------------------------------

# tool_title TOOL: the legend's name of a tool of sweep.csv or of LATER.
tool_title() {
    case $1 in
    gpusort-gpu) echo "gpusort --device=auto (the GPU from 1 Mi keys)" ;;
    gpusort-cpu) echo "gpusort --device=cpu" ;;
    gpusort) echo "gpusort, the default device" ;;
    sort) echo "LC_ALL=C sort -n" ;;
    *) echo "$1" ;;
    esac
}

# tool_colour TOOL: a tool's colour, the same on every plot and machine.
tool_colour() {
    case $1 in gpusort-gpu) echo 1 ;; gpusort-cpu | gpusort) echo 2 ;; sort) echo 3 ;; *) echo 4 ;; esac
}

# sweep_tools: the tools of sweep.csv, gpusort's first (the legend's order).
sweep_tools() {
    awk -F, 'NR > 1 && !seen[$1]++ { print $1 }' "$dir/sweep.csv" |
        awk '{ print ($0 == "gpusort-gpu" ? 1 : $0 == "gpusort-cpu" ? 2 : $0 == "sort" ? 3 : 4), $0 }' |
        sort -n -k1,1 -s | cut -d' ' -f2-
}

if [ -s "$dir/sweep.csv" ]; then
    head -n 1 "$dir/sweep.csv" | grep -q '^tool,n,bytes,round,seconds,mb_per_s' ||
        die "$dir/sweep.csv: not sweep.sh's columns"
    tools=$(sweep_tools)
    [ -n "$tools" ] || die "$dir/sweep.csv: no rows"
    what=$(describe "$dir/sweep.txt")
    date=$(when "$dir/sweep.txt")
    type=$(sed -n 's/^sizes: .*type: \([a-z0-9]*\).*/\1/p' "$dir/sweep.txt" 2>/dev/null || true)
    # The rounds of a tool at a size (the most, where sizes differ).
    rounds=$(awk -F, 'NR > 1 && $4 != "median" { c[$1 " " $2]++ }
        END { for (k in c) if (c[k] > m) m = c[k]; print m + 0 }' "$dir/sweep.csv")
    sub="tests/bench/sweep.sh${date:+, $date}: lines join the medians of $rounds rounds, + marks each round"
    later_date='' sub2=''
    if [ -n "${LATER:-}" ]; then
        [ -s "$LATER" ] || die "LATER: no file $LATER"
        grep -v '^#' "$LATER" | head -n 1 | grep -q '^tool,n,round,seconds' ||
            die "$LATER: not the columns tool,n,round,seconds"
        later_date=${LATER_DATE:-$(basename "$LATER" | sed -n 's/^\([0-9]\{4\}-[0-9][0-9]-[0-9][0-9]\).*/\1/p')}
        sub2="circles: ${LATER_WHAT:-later runs}${later_date:+, $later_date}, medians labelled"
    fi
    {
        echo "set terminal $term"
        echo "set output $(gp_quote "$dir/time.png")"
        printf 'set title %s . "\\n" . %s%s noenhanced\n' \
            "$(gp_quote "Sorting random ${type:-u32} keys as text, file to file: $what")" \
            "$(gp_quote "$sub")" "${sub2:+ . \"\\n\" . $(gp_quote "$sub2")}"
        echo "set logscale xy"
        echo "set format x '10^{%T}'"
        echo "set format y '%g'"
        awk -F, -v t="${type:-u32}" 'NR > 1 && $2 > n { n = $2; b = $3 }
            END { printf "set xlabel \"keys (random %s as text, %.1f bytes a key)\" noenhanced\n", t, b / n }' \
            "$dir/sweep.csv"
        echo "set ylabel 'seconds, wall clock (median of the rounds)'"
        echo "set grid xtics ytics mxtics mytics"
        echo "set key top left box opaque"
        # Room on the right of the largest size for the labels, on the left of it for
        # the later runs' labels.
        awk -F, 'NR > 1 { if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2 }
            END { printf "set xrange [%g:%g]\n", min / 2, max * 4 }' "$dir/sweep.csv"
        plots=()
        i=0
        for t in $tools; do
            i=$((i + 1))
            lc=$(tool_colour "$t")
            awk -F, -v t="$t" 'NR > 1 && $1 == t && $4 == "median" { print $2, $5 }' \
                "$dir/sweep.csv" | sort -n >"$tmp/t$i.med"
            awk -F, -v t="$t" 'NR > 1 && $1 == t && $4 != "median" { print $2, $5 }' \
                "$dir/sweep.csv" >"$tmp/t$i.rounds"
            tail -n 1 "$tmp/t$i.med" >"$tmp/t$i.last"
            # Each tool its own point and dash, so that lines close together stay apart.
            case $t in gpusort-gpu) pt=9 dt=2 ;; gpusort-cpu) pt=7 dt=1 ;; sort) pt=5 dt=1 ;; *) pt=13 dt=3 ;; esac
            plots+=("'$tmp/t$i.med' using 1:2 with linespoints lw 2 dt $dt pt $pt ps 1.3 lc $lc title $(gp_quote "$(tool_title "$t")${date:+, $date}") noenhanced")
            plots+=("'$tmp/t$i.rounds' using 1:2 with points pt 1 ps 0.8 lc $lc notitle")
            plots+=("'$tmp/t$i.last' using 1:2:(\$2 < 10 ? sprintf(\"%.3g s\", \$2) : sprintf(\"%.1f s\", \$2)) with labels left offset 1.2,0 tc lt $lc notitle")
        done
        if [ -n "${LATER:-}" ]; then
            # A median a tool and size, and the ratio sort / gpusort where both ran.
            grep -v '^#' "$LATER" | awk -F, 'NR > 1 { print $1, $2, $4 }' >"$tmp/later.rows"
            while read -r t; do
                lc=$(tool_colour "$t")
                while read -r n; do
                    m=$(awk -v t="$t" -v n="$n" '$1 == t && $2 == n { print $3 }' "$tmp/later.rows" | median)
                    echo "$n $m" >>"$tmp/later-$t.med"
                    echo "$t $n $m" >>"$tmp/later.med"
                done < <(awk -v t="$t" '$1 == t && !seen[$2]++ { print $2 }' "$tmp/later.rows")
                awk -v t="$t" '$1 == t { print $2, $3 }' "$tmp/later.rows" >"$tmp/later-$t.rounds"
                rounds=$(wc -l <"$tmp/later-$t.rounds")
                plots+=("'$tmp/later-$t.med' using 1:2 with points pt 6 ps 2.6 lw 2 lc $lc title $(gp_quote "$(tool_title "$t")${later_date:+, $later_date} (median of $rounds)") noenhanced")
                plots+=("'$tmp/later-$t.rounds' using 1:2 with points pt 1 ps 0.8 lc $lc notitle")
                plots+=("'$tmp/later-$t.med' using 1:2:(\$2 < 10 ? sprintf(\"%.3g s\", \$2) : sprintf(\"%.1f s\", \$2)) with labels right offset -1.8,0 tc lt $lc notitle")
            done < <(awk '!seen[$1]++ { print $1 }' "$tmp/later.rows")
            # sort / gpusort at each size both ran: written under gpusort's circle.
            awk '$1 == "sort" { s[$2] = $3 } $1 == "gpusort" { g[$2] = $3 }
                END { for (n in g) if (n in s) printf "%s %s %.0fx\n", n, g[n], s[n] / g[n] }' \
                "$tmp/later.med" >"$tmp/later.ratio"
            if [ -s "$tmp/later.ratio" ]; then
                plots+=("'$tmp/later.ratio' using 1:2:(\"sort / gpusort: \" . strcol(3)) with labels right offset -1.8,-1.3 font ',10' notitle")
            fi
        fi
        printf 'plot %s' "${plots[0]}"
        printf ', \\\n     %s' "${plots[@]:1}"
        echo
    } >"$tmp/time.gp"
    gnuplot "$tmp/time.gp" || die "gnuplot failed on $tmp/time.gp"
    echo "wrote $dir/time.png" >&2
fi

# ---- throughput against input size --------------------------------------------------

if [ -s "$dir/sweep.csv" ]; then
    head -n 1 "$dir/sweep.csv" | grep -q '^tool,n,bytes,round,seconds,mb_per_s' ||
        die "$dir/sweep.csv: not sweep.sh's columns"
    # The tools in the CSV, gpusort's first (the legend's order).
    tools=$(awk -F, 'NR > 1 && !seen[$1]++ { print $1 }' "$dir/sweep.csv" |
        awk '{ print ($0 == "gpusort-gpu" ? 1 : $0 == "gpusort-cpu" ? 2 : $0 == "sort" ? 3 : 4), $0 }' |
        sort -n -k1,1 -s | cut -d' ' -f2-)
    [ -n "$tools" ] || die "$dir/sweep.csv: no rows"
    what=$(describe "$dir/sweep.txt")
    date=$(when "$dir/sweep.txt")
    what="$what${date:+, $date}"
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
    what=$(describe "$dir/stages.txt")
    date=$(when "$dir/stages.txt")
    what="$what${date:+, $date}"
    input=$(sed -n 's/^input: \([0-9]*\) random binary \([a-z0-9]*\) keys (\([0-9]*\) bytes.*/\1 \2 \3/p' \
        "$dir/stages.txt" 2>/dev/null | awk '{ printf "%s binary %s keys (%.3g GB)", $1, $2, $3 / 1e9 }' || true)
    nbars=$(wc -l <"$tmp/stages.dat")
    {
        echo "set terminal $term"
        echo "set output $(gp_quote "$dir/stages.png")"
        echo "set termoption noenhanced"
        printf 'set title %s . "\\n" . %s\n' \
            "$(gp_quote "gpusort --stats by stage, the median run: ${input:-}")" "$(gp_quote "$what")"
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
