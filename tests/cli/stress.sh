#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# stress.sh: a differential stress run. A seeded generator draws random invocations
# (sort, -m, -c, -C; each key type; text or binary in and out; both byte orders;
# -r, -u; 0 to 300000 keys over several inputs, standard input among them; tiny -S,
# --parallel, --compress-temp; non-canonical text; bad tokens and disorders) and
# compares every result with an independent reference: LC_ALL=C sort -n (-c for the
# checks) over the input as canonical text, binary decoded by od(1).
#
# GS_STRESS_CASES: how many (default 300 at GS_TEST_SCALE: 75 under ASan, 30 under
# ThreadSanitizer, each of which costs many times more there); GS_STRESS_SEED:
# the seed (default 1); GS_STRESS_CASE=K: run case K of the seed alone (to replay a
# failure). A failing case prints its command line and leaves its files in
# stress-failure-SEED-K/ in the directory the test was started from.
orig_dir=$PWD
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
leaks_checked_elsewhere "the modes and formats it draws are each run with it by the tests of that mode"

cases=${GS_STRESS_CASES:-$(scaled 300)}
seed=${GS_STRESS_SEED:-1}
only=${GS_STRESS_CASE:-}
declare -A tally

# The generator: a 64-bit LCG, its high bits; reseeded for each case from (seed,
# case), so a case can be replayed alone.
rand_below() {
    rng=$(( rng * 6364136223846793005 + 1442695040888963407 ))
    R=$(( ((rng >> 33) & 0x7fffffff) % $1 ))
}
# pick WORD...: R is one of the words, uniformly.
pick() {
    rand_below $#
    shift "$R"
    R=$1
}

# Type limits, as gsgen bounds that keep values near them.
declare -A near_max=([i32]=2147483000 [u32]=4294967000 [i64]=9223372036854775000 [u64]=18446744073709551000)
declare -A near_min=([i32]=-2147483000 [u32]=1000 [i64]=-9223372036854775000 [u64]=1000)
declare -A small_min=([i32]=-50 [u32]=0 [i64]=-50 [u64]=0)
declare -A small_max=([i32]=50 [u32]=100 [i64]=50 [u64]=100)
declare -A over=([i32]=2147483648 [u32]=4294967296 [i64]=9223372036854775808 [u64]=18446744073709551616)

# noise FILE SEED MULTI: rewrite text FILE (one canonical number a line) with
# non-canonical but valid forms: leading zeros, '+', '-0', CR LF, and with MULTI=1
# blank lines and several numbers a line (spaces, tabs); the last newline sometimes
# dropped.
noise() {
    awk -v seed="$2" -v multi="$3" 'BEGIN { srand(seed) }
    {
        v = $0
        r = rand()
        if (r < 0.1) { if (v ~ /^-/) v = "-000" substr(v, 2); else v = "00" v }
        else if (r < 0.2 && v !~ /^-/) v = "+" v
        else if (r < 0.25 && v == "0") v = "-0"
        sep = "\n"
        r = rand()
        if (multi && r < 0.3) sep = " "
        else if (multi && r < 0.4) sep = "\t"
        else if (r < 0.5) sep = "\r\n"
        else if (multi && r < 0.55) sep = "  \n\n"
        printf "%s%s", v, sep
    }' "$1" >"$1.n"
    if [ -s "$1.n" ]; then
        rand_below 4
        [ "$R" -ne 0 ] || truncate -s -1 "$1.n"
    fi
    mv "$1.n" "$1"
}

# The case's state, set by draw_case and used by the others.
#   mode: sort merge check quiet    type, w, ifmt, ofmt, endian, rev, uniq
#   files: the inputs (stdin.dat stands for standard input); gs: gpusort's args
case_fail() {
    local k=$1
    shift
    local keep="$orig_dir/stress-failure-$seed-$k"
    rm -rf "$keep"
    mkdir -p "$keep"
    cp -- *.dat *.txt "$keep"/ 2>/dev/null || true
    printf '%q ' "$GPUSORT" "${gs[@]}" >"$keep/command"
    echo >>"$keep/command"
    fail "case $k (GS_STRESS_SEED=$seed GS_STRESS_CASE=$k): $*
  gpusort ${gs[*]}$([ "$use_stdin" = 1 ] && echo " <stdin.dat")
  files kept in $keep"
}

# gen NAME N SORTED: an input of N keys in the case's type and input format; SORTED:
# 0 in any order, 1 sorted for the case's order (-r: descending).
gen() {
    local name=$1 n=$2 sorted=$3 dist range=() d
    pick random random random few equal; dist=$R
    pick full full small near-max near-min
    case $R in
        small) range=(--min="${small_min[$type]}" --max="${small_max[$type]}") ;;
        near-max) range=(--min="${near_max[$type]}") ;;
        near-min) range=(--max="${near_min[$type]}") ;;
    esac
    rand_below 1000000000; d=$R
    if [ "$sorted" = 1 ]; then
        # gsgen's sorted order is ascending by value: -r wants it reversed.
        if [ "$rev" = 1 ]; then dist=reversed; else dist=sorted; fi
        [ "$R" -lt 100000000 ] && dist=equal
    fi
    if [ "$ifmt" = binary ]; then
        "$GSGEN" -b -t "$type" --endian="$endian" -n "$n" -s "$d" -d "$dist" "${range[@]}" >"$name"
    else
        "$GSGEN" -t "$type" -n "$n" -s "$d" -d "$dist" "${range[@]}" >"$name"
    fi
}

# as_text FILE: the keys of an input as canonical text, one a line.
as_text() {
    if [ "$ifmt" = binary ]; then decode "$type" "$endian" "$1"; else canon "$1"; fi
}

run_case() {
    local k=$1 n nfiles i f st want got line
    rng=$(( seed * 1000003 + k * 7919 + 12345 ))
    rm -f -- *.dat *.txt
    pick sort sort sort sort sort sort sort merge merge check check quiet; mode=$R
    pick i32 u32 i64 u64; type=$R
    w=$(key_width "$type")
    pick text text binary; ifmt=$R
    pick text text binary; ofmt=$R
    pick little big; endian=$R
    rand_below 4; rev=$(( R == 0 ))
    rand_below 4; uniq=$(( R == 0 ))
    # Sizes: mostly small; one case in eight large enough to make runs under a tiny
    # -S (a chunk of -S 1M holds 64 Ki to 128 Ki keys).
    rand_below 8
    if [ "$R" -eq 0 ]; then
        rand_below 250000; n=$(( R + 50000 ))
    else
        pick 0 1 2 3 10 100 1000 5000 20000; n=$R
        [ "$n" -le 3 ] || { rand_below "$n"; n=$(( R + 1 )); }
    fi
    gs=(--type="$type" --input-format="$ifmt" --output-format="$ofmt" --endian="$endian")
    [ "$rev" = 1 ] && gs+=(-r)
    [ "$uniq" = 1 ] && gs+=(-u)
    pick none none 1 1M 2M 64M; [ "$R" = none ] || gs+=(-S "$R")
    pick 1 2 3; gs+=(--parallel="$R")
    pick auto lz4 none; gs+=(--compress-temp="$R" -T "$TMPDIR")

    files=()
    use_stdin=0
    case $mode in
        sort)
            rand_below 3; nfiles=$(( R + 1 ))
            for ((i = 0; i < nfiles; i++)); do
                gen "in$i.dat" $(( n / nfiles )) 0
                files+=("in$i.dat")
            done
            # Binary: cut the keys of input 0 across the first two inputs at a byte.
            if [ "$ifmt" = binary ] && [ "$nfiles" -ge 2 ] && [ -s in0.dat ]; then
                rand_below "$(wc -c <in0.dat)"
                head -c "$R" in0.dat >cut.dat
                { tail -c +$(( R + 1 )) in0.dat; cat in1.dat; } >in1.dat.new
                mv cut.dat in0.dat
                mv in1.dat.new in1.dat
            fi
            ;;
        merge)
            rand_below 4; nfiles=$(( R + 1 ))
            for ((i = 0; i < nfiles; i++)); do
                gen "in$i.dat" $(( n / nfiles )) 1
                files+=("in$i.dat")
            done
            ;;
        *)
            rand_below 3
            if [ "$R" -eq 0 ]; then gen in0.dat "$n" 0; else gen in0.dat "$n" 1; fi
            files=(in0.dat)
            ;;
    esac

    # Text noise (not for -c/-C or -m, whose messages count lines: there one
    # number a line stays, in other spellings).
    local multi=1
    [ "$mode" = sort ] || multi=0
    if [ "$ifmt" = text ]; then
        for f in "${files[@]}"; do
            rand_below 3
            [ "$R" -ne 0 ] || { rand_below 100000; noise "$f" "$R" "$multi"; }
        done
    fi

    # Faults in the data: a bad token (sort), or a disorder (-m, -c).
    local bad=none bad_file="" bad_line=0 bad_tok=""
    rand_below 12
    if [ "$R" -eq 0 ] && [ "$mode" = sort ] && [ "$ifmt" = text ]; then
        bad_file=${files[$(( ${#files[@]} - 1 ))]}
        bad_line=$(( $(wc -l <"$bad_file") + 1 ))
        pick 12x - + 1.5 0x10 "${over[$type]}"; bad_tok=$R
        printf '\n%s\n' "$bad_tok" >>"$bad_file"
        bad_line=$(( $(wc -l <"$bad_file") ))
        bad=token
    elif [ "$R" -le 3 ] && [ "$mode" != sort ]; then
        bad_file=${files[0]}
        bad=disorder
    fi
    if [ "$bad" = disorder ]; then
        # Move one key to the front unless it is already first in order: then the
        # file is out of order exactly where it was (a duplicate, with -u).
        as_text "$bad_file" >keys.txt
        local cnt
        cnt=$(wc -l <keys.txt)
        if [ "$cnt" -ge 2 ]; then
            rand_below $(( cnt - 1 )); line=$(( R + 2 ))
            if [ "$ifmt" = binary ]; then
                local off=$(( (line - 1) * w ))
                { tail -c +$(( off + 1 )) "$bad_file" | head -c "$w"
                  head -c "$off" "$bad_file"
                  tail -c +$(( off + w + 1 )) "$bad_file"; } >moved.dat
                mv moved.dat "$bad_file"
            else
                { sed -n "${line}p" keys.txt; sed "${line}d" keys.txt; } >"$bad_file"
            fi
        fi
    fi

    # Standard input: one of the inputs, sometimes.
    rand_below 4
    if [ "$R" -eq 0 ]; then
        use_stdin=1
        mv "${files[0]}" stdin.dat
        [ "$bad_file" = "${files[0]}" ] && bad_file=stdin.dat
        files[0]=stdin.dat
    fi

    # The reference: every input as canonical text, in order.
    for f in "${files[@]}"; do as_text "$f"; done >all.txt
    if [ "$ifmt" = binary ] && [ "$mode" = sort ]; then
        # Inputs cut across a key: decode their concatenation instead.
        cat "${files[@]}" >cat.dat
        decode "$type" "$endian" cat.dat >all.txt
    fi
    local sort_opts=(-n)
    [ "$rev" = 1 ] && sort_opts+=(-r)
    [ "$uniq" = 1 ] && sort_opts+=(-u)

    # The operands; -o sometimes, and then sometimes over the first input (sort).
    local ops=() out=stdout.txt
    for f in "${files[@]}"; do
        if [ "$f" = stdin.dat ]; then ops+=(-); else ops+=("$f"); fi
    done
    case $mode in
        merge) gs+=(-m) ;;
        check) gs+=(-c) ;;
        quiet) gs+=(-C) ;;
    esac
    if [ "$mode" = sort ] || [ "$mode" = merge ]; then
        rand_below 5
        if [ "$R" -eq 0 ]; then
            out=o.dat
            if [ "$mode" = sort ] && [ "$use_stdin" = 0 ] && [ "$bad" = none ]; then
                rand_below 4; [ "$R" -ne 0 ] || out=${files[0]}
            fi
            gs+=(-o "$out")
        fi
    fi
    gs+=("${ops[@]}")
    tally[$mode]=$(( ${tally[$mode]:-0} + 1 ))
    tally[$ifmt-in]=$(( ${tally[$ifmt-in]:-0} + 1 ))
    [ "$n" -lt 50000 ] || tally[large]=$(( ${tally[large]:-0} + 1 ))
    [ "$bad" = none ] || tally[$bad]=$(( ${tally[$bad]:-0} + 1 ))
    [ "$use_stdin" = 0 ] || tally[stdin]=$(( ${tally[stdin]:-0} + 1 ))

    st=0
    if [ "$use_stdin" = 1 ]; then
        "$GPUSORT" "${gs[@]}" <stdin.dat >stdout.txt 2>err.txt || st=$?
    else
        "$GPUSORT" "${gs[@]}" >stdout.txt 2>err.txt || st=$?
    fi

    # The name gpusort gives the input with the fault (-c: the one input).
    local name=${bad_file:-${files[0]}}
    [ "$name" != stdin.dat ] || name=-
    case $mode:$bad in
        sort:token)
            # (out of range: the message may name the types that hold the value)
            want="^$name:$bad_line: (not an integer|out of range for $type): '$(printf '%s' "$bad_tok" | sed 's/[.+]/\\&/g')'(; it fits --type=[iu](32|64)( or --type=[iu](32|64))?)?\$"
            [ "$st" -eq 2 ] || case_fail "$k" "exited $st (2 expected for the bad token '$bad_tok')"
            check_msg err.txt "$want" no
            return
            ;;
        sort:* | merge:*)
            if [ "$mode:$bad" = merge:disorder ]; then
                # The first key out of order, and its line (key index), per GNU sort.
                # -m takes equal keys in an input as in order, even with -u.
                local mopts=(-n)
                [ "$rev" = 1 ] && mopts+=(-r)
                got=$(as_text "$bad_file" | LC_ALL=C sort -c "${mopts[@]}" 2>&1 || true)
                if [ -n "$got" ]; then
                    line=$(printf '%s\n' "$got" | sed -E 's/^sort: -:([0-9]+): disorder: .*/\1/')
                    want=$(printf '%s\n' "$got" | sed -E 's/^sort: -:[0-9]+: disorder: //')
                    [ "$st" -eq 2 ] || case_fail "$k" "-m of an unsorted input exited $st (2 expected)"
                    check_msg err.txt "^$name:$line: disorder: $want\$" no
                    [ "$out" = stdout.txt ] || [ ! -e "$out" ] || case_fail "$k" "-o written by a failed -m"
                    return
                fi
                # (a key moved before its equals leaves the file sorted)
            fi
            [ "$st" -eq 0 ] || case_fail "$k" "exited $st: $(head -c 500 err.txt)"
            [ ! -s err.txt ] || case_fail "$k" "stderr: $(head -c 500 err.txt)"
            LC_ALL=C sort "${sort_opts[@]}" all.txt >exp.txt
            [ "$out" = stdout.txt ] || { [ ! -s stdout.txt ] || case_fail "$k" "stdout written with -o"; }
            if [ "$ofmt" = binary ]; then
                decode "$type" "$endian" "$out" >got.txt
                [ $(( $(wc -c <"$out") % w )) -eq 0 ] || case_fail "$k" "binary output not whole keys"
            else
                cp "$out" got.txt
            fi
            cmp -s exp.txt got.txt || case_fail "$k" "output differs from sort -n: $(diff exp.txt got.txt | head -n 5)"
            ;;
        check:* | quiet:*)
            got=$(LC_ALL=C sort -c "${sort_opts[@]}" all.txt 2>&1 || true)
            [ ! -s stdout.txt ] || case_fail "$k" "-c wrote to stdout"
            if [ -z "$got" ]; then
                [ "$st" -eq 0 ] || case_fail "$k" "sorted input: exited $st: $(head -c 500 err.txt)"
                [ ! -s err.txt ] || case_fail "$k" "sorted input: stderr: $(head -c 500 err.txt)"
            else
                [ "$st" -eq 1 ] || case_fail "$k" "unsorted input: exited $st (1 expected): $(head -c 500 err.txt)"
                if [ "$mode" = quiet ]; then
                    [ ! -s err.txt ] || case_fail "$k" "-C: stderr: $(head -c 500 err.txt)"
                else
                    line=$(printf '%s\n' "$got" | sed -E 's/^sort: all\.txt:([0-9]+): disorder: .*/\1/')
                    want=$(printf '%s\n' "$got" | sed -E 's/^sort: all\.txt:[0-9]+: disorder: //')
                    check_msg err.txt "^$name:$line: disorder: $want\$" no
                fi
            fi
            ;;
    esac
}

start=$(date +%s)
if [ -n "$only" ]; then
    run_case "$only"
    echo "case $only of seed $seed: passed"
    exit 0
fi
for ((c = 1; c <= cases; c++)); do
    run_case "$c"
done
echo "stress: $cases cases of seed $seed passed in $(( $(date +%s) - start )) s"
printf 'of which:'
for t in sort merge check quiet text-in binary-in large stdin token disorder; do
    printf ' %s %d' "$t" "${tally[$t]:-0}"
done
printf '\n(large: 50000 keys or more; token: a bad token; disorder: an input of -m or\n'
printf ' -c with a key moved out of order)\n'

