#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# records.sh: records side by side (a benchmark, never a test).
#
# Text: N lines of `id,key,payload` (tests/tools/gsrec --bench: id a counter, key a
# random u32, payload 10 to 40 letters), sorted by the key, file to file, the input in
# the page cache:
#   gpusort -t, -k2,2n (and -s), and spilled (-S SPILL_S, runs under BENCH_DIR/tmp);
#   LC_ALL=C sort -t, -k2,2n --parallel=P -S SORT_S (and -s);
#   DuckDB (read_csv, ORDER BY key, COPY TO), where DUCKC names its runner.
# Keys (STEPS "keys"): the same lines by several keys, stably: the payload (text) then
# the key (-t, -k3,3 -k2,2n -s), against sort -s and DuckDB `ORDER BY payload, key,
# id`; by the payload alone (-k3,3); by the key read as a floating-point number (-t,
# -k2,2g -s), against sort -g -s and DuckDB `ORDER BY CAST(key AS DOUBLE), id` (the
# key read as text, the rows written back as read); and N lines id,price,payload
# (gsrec --prices: decimals with signs and exponents) by the price, likewise. With the id as the last key (input order), DuckDB's output
# is sort -s's byte for byte, and is checked so.
# Binary: BIN_MB MiB of 16-byte and of 100-byte records (a random u64 key at byte 0,
# the rest random), gpusort -B --record-size to /dev/null, in GB/s.
#
# Each command runs R times, the tools alternating within a round; the table gives
# medians and their ratios, with the command line of each figure, the machine and the
# date. The first round checks the outputs: gpusort's must be byte for byte sort's
# (-s against sort -s); DuckDB's ORDER BY is not stable, so only its key column is
# compared with sort's. A run that fails is reported as FAILED with its message in
# place of a figure (gpusort before records support refuses -k), and the script then
# exits 1 after printing everything.
#
# The environment:
#   N          lines (default 10000000)        R        rounds (default 3)
#   PEER_R     rounds of sort (at most R; default R): sort takes minutes at 100M lines;
#              0: sort not run, gpusort's output then the reference of the others
#   P          threads for every tool (default: nproc)
#   SORT_S     sort's -S (default 50%)         SPILL_S  -S of gpusort's spilled run (64M)
#   BIN_MB     MiB of each binary input (default 1024; 0 skips the binary part)
#   DEVICE     gpusort's --device (default auto)
#   STEPS      "text keys binary" (default "text binary")
#   KEYS       the keys step's ways: k (-k3,3 -k2,2n), t (-k3,3), g (-k2,2g), p (the
#              prices' -k2,2g) (default "k t g p")
#   BENCH_DIR  data directory, inputs kept for later runs (default ./bench-data)
#   MACHINE    a name for the machine (default: the host name)
#   GPUSORT    default ./src/gpusort           GSREC    default ./tests/tools/gsrec
#   DUCKC      DuckDB's runner (shared/peers/README.md says how to build it: duckc.c
#              against libduckdb.so); default `duckc` on PATH; none: DuckDB skipped

# `make` may run us with a plain sh: this script needs bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi

set -eu
export LC_ALL=C
# shellcheck disable=SC2034 # lib.sh uses name
name=records.sh
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"

N=${N:-10000000}
R=${R:-3}
PEER_R=${PEER_R:-$R}
P=${P:-$(nproc)}
SORT_S=${SORT_S:-50%}
SPILL_S=${SPILL_S:-64M}
BIN_MB=${BIN_MB:-1024}
DEVICE=${DEVICE:-auto}
STEPS=${STEPS:-text binary}
KEYS=${KEYS:-k t g p}
BENCH_DIR=${BENCH_DIR:-./bench-data}
MACHINE=${MACHINE:-$(hostname)}
GPUSORT=${GPUSORT:-./src/gpusort}
GSREC=${GSREC:-./tests/tools/gsrec}
DUCKC=${DUCKC:-$(command -v duckc || true)}

[ -x "$GPUSORT" ] || die "no gpusort at $GPUSORT (set GPUSORT)"
[ -x "$GSREC" ] || die "no gsrec at $GSREC (set GSREC; make tests/tools/gsrec)"
for v in N R PEER_R P BIN_MB; do
    case ${!v} in '' | *[!0-9]*) die "$v must be a whole number" ;; esac
done
[ "$R" -gt 0 ] || die "R must be 1 or more"
[ "$P" -gt 0 ] || die "P must be 1 or more"
step() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

mkdir -p "$BENCH_DIR" "$BENCH_DIR/tmp"
BENCH_DIR=$(cd "$BENCH_DIR" && pwd)
tmp=$BENCH_DIR/tmp
errf=$BENCH_DIR/records-stderr.txt
version=$("$GPUSORT" --version) || die "$GPUSORT --version failed"
failed=0

# --------------------------------------------------------------------------------
# Running and timing
# --------------------------------------------------------------------------------

# timed CMD: run the shell command line CMD (as quote writes it) with its
# stdout thrown away and its stderr in $errf; T is its wall-clock seconds, or empty
# where it failed, and then WHY says how.
timed() {
    local start end st=0
    start=$(date +%s.%N)
    eval "$1" >/dev/null 2>"$errf" || st=$?
    end=$(date +%s.%N)
    if [ "$st" -ne 0 ]; then
        T=
        WHY="FAILED (exit $st): $(head -n 1 "$errf")"
        return 0
    fi
    T=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')
}

# quote WORD...: the words as one shell command line, each quoted only where it needs
# it (to be read and pasted).
quote() {
    local w line=
    for w in "$@"; do
        case $w in
            *\'*)
                case $w in
                    *[\"\$\`\\!]*) w="'${w//\'/\'\\\'\'}'" ;;
                    *) w="\"$w\"" ;;
                esac ;;
            '' | *[!A-Za-z0-9_./=,:%+@-]*) w="'$w'" ;;
        esac
        line="$line${line:+ }$w"
    done
    printf '%s\n' "$line"
}

# Per tool, by key: its label, command line, output file (kept after its runs where
# it is a reference the others are checked against), times, and its verdict (a
# failure, or what the check found).
declare -A label cmd out keep times verdict
keys=()

# tool KEY LABEL OUTPUT CMD...: a tool to run each round.
tool() {
    local key=$1
    keys+=("$key")
    label[$key]=$2
    out[$key]=$3
    shift 3
    cmd[$key]=$(quote "$@")
    keep[$key]=
    times[$key]=
    verdict[$key]=
}

# ratio A B: A / B with two decimals, or n/a where either is missing.
ratio() {
    if [ -z "$1" ] || [ -z "$2" ]; then
        echo n/a
        return
    fi
    awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx\n", a / b; else print "n/a" }'
}

# med KEY: the median of the tool's times, empty if it has none.
med() {
    [ -n "${times[$1]}" ] || return 0
    # shellcheck disable=SC2086 # the times are words on purpose
    printf '%s\n' ${times[$1]} | median
}

# rounds: every tool R times, alternating; the first round also checks the outputs
# (check_round, set by the caller). A tool that failed once is not run again. Outputs
# are removed once checked, outside the timings, so that the disk holds the input,
# the references and one more output at a time.
rounds() {
    local i key
    for ((i = 1; i <= R; i++)); do
        for key in "${keys[@]}"; do
            case ${verdict[$key]} in FAILED*) continue ;; esac
            case $key in sort | sort_*) [ "$i" -le "$PEER_R" ] || continue ;; esac
            [ "${out[$key]}" = /dev/null ] || rm -f "${out[$key]}"
            sync
            timed "${cmd[$key]}"
            if [ -z "$T" ]; then
                verdict[$key]=$WHY
                failed=1
                echo "round $i/$R: ${label[$key]}: $WHY" >&2
                continue
            fi
            times[$key]="${times[$key]} $T"
            echo "round $i/$R: ${label[$key]}: $T s" >&2
            if [ "$i" -eq 1 ]; then
                check_round "$key"
            fi
            [ -n "${keep[$key]}" ] || [ "${out[$key]}" = /dev/null ] || rm -f "${out[$key]}"
        done
    done
}

# --------------------------------------------------------------------------------
# Text: id,key,payload, file to file
# --------------------------------------------------------------------------------

# same_as KEY REF: KEY's output is REF's, byte for byte (its verdict says so).
same_as() {
    if cmp -s "${out[$1]}" "${out[$2]}"; then
        verdict[$1]="identical to ${label[$2]}"
    else
        verdict[$1]="DIFFERS from ${label[$2]}"
        failed=1
    fi
}

# keys_as KEY REF: KEY's output has REF's lines count and key column, in order.
keys_as() {
    if [ "$(wc -l <"${out[$1]}")" = "$(wc -l <"${out[$2]}")" ] &&
        cmp -s <(cut -d, -f2 "${out[$1]}") <(cut -d, -f2 "${out[$2]}"); then
        verdict[$1]="keys as ${label[$2]} (ties in its own order)"
    else
        verdict[$1]="DIFFERS from ${label[$2]} in its keys"
        failed=1
    fi
}

# check_text KEY: the first round's check of a text tool (sort's outputs are the
# references, run first).
check_text() {
    local ref=sort
    [ "$PEER_R" -gt 0 ] || ref=gs
    case $1 in
        sort | sort_s) verdict[$1]="the reference" ;;
        gs) if [ $ref = sort ]; then
                [ -n "${times[sort]}" ] && same_as "$1" sort
            else
                verdict[$1]="the reference (sort not run)"
            fi ;;
        gs_spill) [ -n "${times[$ref]}" ] && same_as "$1" $ref ;;
        gs_s) if [ -n "${times[sort_s]}" ]; then
                same_as "$1" sort_s
            else
                verdict[$1]="not checked (sort -s not run)"
            fi ;;
        duck) [ -n "${times[$ref]}" ] && keys_as "$1" $ref ;;
    esac
    return 0
}

# drop_outputs: every tool's output file removed, the references too (after the
# rounds; /dev/null is no file of ours).
drop_outputs() {
    local key
    for key in "${keys[@]}"; do
        [ "${out[$key]}" = /dev/null ] || rm -f "${out[$key]}"
    done
}

# gsrec_input NAME FLAG WHAT: the N lines that `gsrec FLAG` writes (WHAT says what
# they are), made once and kept in BENCH_DIR as NAME-N.csv, read into the page
# cache for every tool alike; prints their path.
gsrec_input() {
    local in=$BENCH_DIR/$1-$N.csv
    if [ ! -s "$in" ]; then
        echo "generating $N lines of $3 into $in ..." >&2
        "$GSREC" "$2" -n "$N" -s 1 >"$in.tmp" || die "gsrec failed"
        mv "$in.tmp" "$in"
    fi
    cat "$in" >/dev/null
    printf '%s\n' "$in"
}

# csv_input, prices_input: the lines id,key,payload (gsrec --bench) and
# id,price,payload (gsrec --prices).
csv_input() { gsrec_input records --bench id,key,payload; }
prices_input() { gsrec_input prices --prices id,price,payload; }

# tool_table WIDTH: each tool's median, runs and check, its label WIDTH wide.
tool_table() {
    local key m
    printf "%-${1}s %10s  %-28s %s\n" "tool" "median s" "runs s" "check"
    for key in "${keys[@]}"; do
        m=$(med "$key")
        if [ -n "$m" ]; then
            printf "%-${1}s %10s  %-28s %s\n" "${label[$key]}" "$m" "${times[$key]# }" "${verdict[$key]}"
        else
            printf "%-${1}s %10s  %s\n" "${label[$key]}" "-" "${verdict[$key]}"
        fi
    done
}

text_bench() {
    local in bytes duck_sql key
    in=$(csv_input)
    bytes=$(wc -c <"$in")

    keys=()
    tool sort "sort" "$BENCH_DIR/out-sort.csv" \
        sort -t, -k2,2n --parallel="$P" -S "$SORT_S" -T "$tmp" "$in" -o "$BENCH_DIR/out-sort.csv"
    tool sort_s "sort -s" "$BENCH_DIR/out-sort-s.csv" \
        sort -s -t, -k2,2n --parallel="$P" -S "$SORT_S" -T "$tmp" "$in" -o "$BENCH_DIR/out-sort-s.csv"
    keep[sort]=1
    keep[sort_s]=1
    tool gs "gpusort" "$BENCH_DIR/out-gs.csv" \
        "$GPUSORT" --device="$DEVICE" --parallel="$P" --type=u32 -t, -k2,2n "$in" \
        -o "$BENCH_DIR/out-gs.csv"
    [ "$PEER_R" -gt 0 ] || keep[gs]=1
    tool gs_s "gpusort -s" "$BENCH_DIR/out-gs-s.csv" \
        "$GPUSORT" --device="$DEVICE" --parallel="$P" --type=u32 -s -t, -k2,2n "$in" \
        -o "$BENCH_DIR/out-gs-s.csv"
    tool gs_spill "gpusort -S $SPILL_S" "$BENCH_DIR/out-gs-spill.csv" \
        "$GPUSORT" --device="$DEVICE" --parallel="$P" --type=u32 -S "$SPILL_S" -T "$tmp" \
        -t, -k2,2n "$in" -o "$BENCH_DIR/out-gs-spill.csv"
    if [ -n "$DUCKC" ] && [ -x "$DUCKC" ]; then
        duck_sql="SET threads=$P; COPY (SELECT * FROM read_csv('$in', header=false, delim=',', quote='', escape='', columns={'id': 'UBIGINT', 'key': 'UINTEGER', 'payload': 'VARCHAR'}) ORDER BY key) TO '$BENCH_DIR/out-duck.csv' (HEADER false, DELIMITER ',', QUOTE '')"
        tool duck "DuckDB" "$BENCH_DIR/out-duck.csv" "$DUCKC" "$duck_sql"
    else
        echo "$name: DuckDB skipped: no runner (set DUCKC; see shared/peers/README.md)" >&2
    fi

    check_round() { check_text "$1"; }
    rounds
    drop_outputs

    echo
    echo "text: $in: $N lines of id,key,payload, $bytes bytes; sorted by the key (u32)," \
         "file to file from the page cache; $R rounds, medians; P=$P threads"
    tool_table 22
    echo "ratios (the other's median over gpusort's):"
    printf '  %-32s %s\n' "sort / gpusort:" "$(ratio "$(med sort)" "$(med gs)")"
    printf '  %-32s %s\n' "sort -s / gpusort -s:" "$(ratio "$(med sort_s)" "$(med gs_s)")"
    printf '  %-32s %s\n' "sort / gpusort -S $SPILL_S:" "$(ratio "$(med sort)" "$(med gs_spill)")"
    if [ -n "${cmd[duck]:-}" ]; then
        printf '  %-32s %s\n' "DuckDB / gpusort:" "$(ratio "$(med duck)" "$(med gs)")"
    fi
    printf '  %-32s %s\n' "gpusort -S $SPILL_S / gpusort:" "$(ratio "$(med gs_spill)" "$(med gs)")"
    if [ -z "${cmd[duck]:-}" ]; then
        echo "DuckDB: skipped (no runner: set DUCKC; shared/peers/README.md says how to build it)"
    fi
    echo "commands:"
    for key in "${keys[@]}"; do
        case $key in sort | sort_s) printf '  %s: LC_ALL=C %s\n' "${label[$key]}" "${cmd[$key]}" ;;
            *) printf '  %s: %s\n' "${label[$key]}" "${cmd[$key]}" ;;
        esac
    done
}

# --------------------------------------------------------------------------------
# Several keys, and a floating-point key: id,key,payload, file to file
# --------------------------------------------------------------------------------

# check_keys KEY: the first round's check (sort's outputs the references, run first;
# without sort, gpusort's).
check_keys() {
    local ref=sort_${1#*_}
    [ "$PEER_R" -gt 0 ] || ref=gs_${1#*_}
    case $1 in
        sort_*) verdict[$1]="the reference" ;;
        gs_*) if [ "$ref" = "$1" ]; then
                verdict[$1]="the reference (sort not run)"
            else
                [ -n "${times[$ref]}" ] && same_as "$1" "$ref"
            fi ;;
        duck_*) [ -n "${times[$ref]}" ] && same_as "$1" "$ref" ;;
    esac
    return 0
}

keys_bench() {
    local in pin bytes pbytes key w src
    in=$(csv_input)
    bytes=$(wc -c <"$in")
    pin=
    case " $KEYS " in *" p "*) pin=$(prices_input); pbytes=$(wc -c <"$pin") ;; esac

    keys=()
    local csv="read_csv('$in', header=false, delim=',', quote='', escape='', columns={'id': 'UBIGINT', 'key': 'VARCHAR', 'payload': 'VARCHAR'})"
    local pcsv="read_csv('$pin', header=false, delim=',', quote='', escape='', columns={'id': 'UBIGINT', 'price': 'VARCHAR', 'payload': 'VARCHAR'})"
    local copy="(HEADER false, DELIMITER ',', QUOTE '')"
    for w in $KEYS; do
        local kopts order from=$csv src=$in tag=
        case $w in
            k) kopts=(-k3,3 -k2,2n) order="payload, CAST(key AS UINTEGER), id" ;;
            t) kopts=(-k3,3) order="payload, id" ;;
            g) kopts=(-k2,2g) order="CAST(key AS DOUBLE), id" ;;
            p) kopts=(-k2,2g) order="CAST(price AS DOUBLE), id" from=$pcsv src=$pin tag=" (prices)" ;;
            *) die "KEYS: unknown way '$w' (k, t, g, p)" ;;
        esac
        tool "sort_$w" "sort -s ${kopts[*]}$tag" "$BENCH_DIR/out-sort-$w.csv" \
            sort -s -t, "${kopts[@]}" --parallel="$P" -S "$SORT_S" -T "$tmp" "$src" \
            -o "$BENCH_DIR/out-sort-$w.csv"
        keep[sort_$w]=1
        tool "gs_$w" "gpusort -s ${kopts[*]}$tag" "$BENCH_DIR/out-gs-$w.csv" \
            "$GPUSORT" --device="$DEVICE" --parallel="$P" --type=u32 -s -t, "${kopts[@]}" "$src" \
            -o "$BENCH_DIR/out-gs-$w.csv"
        [ "$PEER_R" -gt 0 ] || keep[gs_$w]=1
        if [ -n "$DUCKC" ] && [ -x "$DUCKC" ]; then
            tool "duck_$w" "DuckDB, ORDER BY $order" "$BENCH_DIR/out-duck-$w.csv" "$DUCKC" \
                "SET threads=$P; COPY (SELECT * FROM $from ORDER BY $order) TO '$BENCH_DIR/out-duck-$w.csv' $copy"
        fi
    done
    [ -n "$DUCKC" ] && [ -x "$DUCKC" ] ||
        echo "$name: DuckDB skipped: no runner (set DUCKC; see shared/peers/README.md)" >&2

    check_round() { check_keys "$1"; }
    rounds
    drop_outputs

    echo
    echo "keys: $in: $N lines of id,key,payload, $bytes bytes${pin:+; $pin: $N lines of id,price,payload, $pbytes bytes};" \
         "stably (ways $KEYS: k the payload then the key, t the payload, g the key as a" \
         "floating-point number, p the price (p)); file to file from the page cache;" \
         "$R rounds, medians; P=$P threads"
    tool_table 54
    echo "ratios (the other's median over gpusort's):"
    for w in $KEYS; do
        printf '  %-40s %s\n' "${label[sort_$w]} / gpusort:" "$(ratio "$(med "sort_$w")" "$(med "gs_$w")")"
        if [ -n "${cmd[duck_$w]:-}" ]; then
            printf '  %-40s %s\n' "DuckDB / ${label[gs_$w]}:" "$(ratio "$(med "duck_$w")" "$(med "gs_$w")")"
        fi
    done
    echo "commands:"
    for key in "${keys[@]}"; do
        case $key in sort_*) printf '  %s: LC_ALL=C %s\n' "${label[$key]}" "${cmd[$key]}" ;;
            *) printf '  %s: %s\n' "${label[$key]}" "${cmd[$key]}" ;;
        esac
    done
}

# --------------------------------------------------------------------------------
# Binary records to /dev/null
# --------------------------------------------------------------------------------

binary_bench() {
    local size in n key m
    local -A size_bytes
    keys=()
    for size in 16 100; do
        n=$((BIN_MB * 1048576 / size))
        in=$BENCH_DIR/records-$size-$n.bin
        if [ ! -s "$in" ]; then
            echo "generating $n records of $size bytes into $in ..." >&2
            "$GSREC" -b --record-size="$size" --key-offset=0 -t u64 -n "$n" -s 2 >"$in.tmp" \
                || die "gsrec failed"
            mv "$in.tmp" "$in"
        fi
        cat "$in" >/dev/null
        tool "b$size" "$size-byte records" /dev/null \
            "$GPUSORT" --device="$DEVICE" --parallel="$P" -B --record-size="$size" \
            --key-offset=0 --type=u64 "$in" -o /dev/null
        size_bytes[$size]=$(wc -c <"$in")
    done
    check_round() { :; }
    rounds

    echo
    echo "binary: $BIN_MB MiB of records each, a random u64 key at byte 0, to /dev/null" \
         "from the page cache; $R rounds, medians; P=$P threads"
    printf '%-22s %14s %10s %8s  %s\n' "input" "bytes" "median s" "GB/s" "runs s"
    for size in 16 100; do
        key=b$size
        m=$(med "$key")
        if [ -n "$m" ]; then
            printf '%-22s %14s %10s %8s  %s\n' "${label[$key]}" "${size_bytes[$size]}" "$m" \
                "$(awk -v b="${size_bytes[$size]}" -v t="$m" 'BEGIN { printf "%.2f", b / t / 1e9 }')" \
                "${times[$key]# }"
        else
            printf '%-22s %14s %10s %8s  %s\n' "${label[$key]}" "${size_bytes[$size]}" - - "${verdict[$key]}"
        fi
    done
    echo "commands:"
    for size in 16 100; do
        printf '  %s: %s\n' "${label[b$size]}" "${cmd[b$size]}"
    done
}

machine_lines "$MACHINE" "$(nproc)" "$version"
echo "peers: $(sort --version | head -n 1)${DUCKC:+; DuckDB through $DUCKC}"
step text && text_bench
step keys && keys_bench
if step binary && [ "$BIN_MB" -gt 0 ]; then
    binary_bench
fi
rm -f "$errf"
rmdir "$tmp" 2>/dev/null || true
exit "$failed"
