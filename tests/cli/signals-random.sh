#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# signals-random.sh: SIGINT, SIGTERM or SIGHUP at a random moment of a long sort or
# merge (reading, spilling, merging runs, writing the output), many times over:
# gpusort ends with 128+signal (or 0, if it finished first), never leaves a
# temporary (under -T or beside -o), and the -o target is always either untouched
# (or absent, if it did not exist) or the whole, correct result: never truncated.
#
# GS_SIGNAL_RUNS: how many signals (default 40 at GS_TEST_SCALE, 8 at least);
# GS_SIGNAL_SEED: the seed of the
# draws (default 1). Each draw picks a job, a signal and a delay, uniform over the
# job's clean running time (measured first). The log ends with how
# many signals came in each phase, as gpusort's files showed it when it was sent.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"

runs=${GS_SIGNAL_RUNS:-$(scaled 40 8)}
rng=${GS_SIGNAL_SEED:-1}

# A seeded generator of our own (a 64-bit LCG; its high bits): the same draws with
# any bash.
rand_below() {
    rng=$(( rng * 6364136223846793005 + 1442695040888963407 ))
    R=$(( ((rng >> 33) & 0x7fffffff) % $1 ))
}

read -r -a sigs < <(signals_to_send)

mkdir in tdir
# The jobs. Each takes a second or so here on 2 cores, spills runs to tdir, and
# writes tens of MB through the -o temporary.
"$GSGEN" -t u32 -n 2000000 -s 1601 >in/a.txt
"$GSGEN" -b -t i64 -n 3000000 -s 1602 >in/b.bin
sorted=()
for i in $(seq 1 40); do
    "$GSGEN" -t u32 -n 40000 -s "$((1610 + i))" -d sorted >"in/s$i.txt"
    sorted+=("in/s$i.txt")
done
jobs=(text binary-stdin merge reverse-unique)
declare -A args
args[text]="--type=u32 -S 4M -T tdir in/a.txt"
args[binary-stdin]="-B --type=i64 -S 4M -T tdir --compress-temp=none -"
args[merge]="-m --type=u32 -T tdir ${sorted[*]}"
args[reverse-unique]="--type=u32 -r -u -S 2M --parallel=1 -T tdir in/a.txt"

# start JOB OUT: start gpusort on JOB in the background, -o OUT; sets PID.
start() {
    local job=$1 out=$2
    # shellcheck disable=SC2206  # word splitting wanted: the argument lists above
    local a=(${args[$job]})
    # Background jobs ignore SIGINT unless job control is on.
    set -m
    case $job in
        binary-stdin)
            (exec "$GPUSORT" "${a[@]}" -o "$out" <in/b.bin 2>>err.txt) &
            ;;
        merge)
            (ulimit -n 16 && exec "$GPUSORT" "${a[@]}" -o "$out" 2>>err.txt) &
            ;;
        *)
            (exec "$GPUSORT" "${a[@]}" -o "$out" 2>>err.txt) &
            ;;
    esac
    PID=$!
    set +m
}

# Each job's result, and how long it takes (ms): the faster of two clean runs (the
# first warms the page cache).
declare -A ms
for job in "${jobs[@]}"; do
    for pass in 1 2; do
        : >err.txt
        t0=$(date +%s%N)
        start "$job" "$test_dir/exp-$job"
        wait "$PID" || fail "clean run of $job failed: $(cat err.txt)"
        t=$(( ($(date +%s%N) - t0) / 1000000 ))
        [ "$pass" = 1 ] || [ "$t" -gt "${ms[$job]}" ] || ms[$job]=$t
        [ "$pass" = 2 ] || ms[$job]=$t
        empty err.txt "stderr of the clean run of $job"
        dir_empty tdir "clean run of $job"
    done
    echo "$job: ${ms[$job]} ms clean"
done

# phase PID: what gpusort is doing now, as its files say: reading (an input still
# open short of its end: runs may be spilling meanwhile), merging (runs or -m pass
# temporaries on disk, no output yet), writing (the output's temporary exists: the
# last merge), or sorting (none of these: a chunk being sorted, say).
phase() {
    local fd link pos
    if compgen -G "$TARGET_DIR/.gpusort-*" >/dev/null; then
        echo writing
        return
    fi
    for fd in /proc/"$1"/fd/*; do
        link=$(readlink "$fd" 2>/dev/null) || continue
        case $link in
            */in/a.txt | */in/b.bin)
                pos=$(awk '$1 == "pos:" { print $2 }' "/proc/$1/fdinfo/${fd##*/}" 2>/dev/null)
                if [ -n "$pos" ] && [ "$pos" -lt "$(wc -c <"$link")" ]; then
                    echo reading
                    return
                fi
                ;;
        esac
    done
    if compgen -G "tdir/gpusort-*" >/dev/null; then
        echo merging
    else
        echo sorting
    fi
}

declare -A seen
for ((k = 1; k <= runs; k++)); do
    rand_below "${#jobs[@]}"; job=${jobs[$R]}
    rand_below "${#sigs[@]}"; sig=${sigs[$R]}
    rand_below $(( ms[$job] + 1 )); delay=$R
    rand_below 2; fresh=$R     # 1: the target does not exist beforehand
    case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
    what="#$k: SIG$sig after $delay ms of $job (target $([ "$fresh" = 1 ] && echo absent || echo present))"
    rm -rf "$TARGET_DIR"
    if [ "$fresh" = 1 ]; then mkdir -p "$TARGET_DIR"; else target_init; fi
    : >err.txt
    start "$job" "$TARGET"
    sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
    p=$(phase "$PID")
    kill -s "$sig" "$PID" 2>/dev/null || p=finished
    if ! wait_gone "$PID" 20; then
        kill -s KILL "$PID" 2>/dev/null || true
        wait "$PID" || true
        fail "$what: gpusort was still running 20 s later"
    fi
    status=0
    wait "$PID" || status=$?
    [ "$status" -eq 0 ] && p=finished
    seen[$p]=$(( ${seen[$p]:-0} + 1 ))
    [ "$status" -eq "$want" ] || [ "$status" -eq 0 ] ||
        fail "$what: exited $status ($want or 0 expected); stderr: $(cat err.txt)"
    empty err.txt "stderr ($what)"
    dir_empty tdir "$what"
    left=$(ls -A "$TARGET_DIR")
    if [ -e "$TARGET" ] && cmp -s "$TARGET" "exp-$job"; then
        [ "$left" = target ] || fail "$what: stray files beside -o: $left"
    elif [ "$status" -eq 0 ]; then
        fail "$what: exit 0 but the -o target is not the result"
    elif [ "$fresh" = 1 ]; then
        [ -z "$left" ] || fail "$what: files left beside -o: $left"
    else
        (target_check) || fail "$what: the -o target is neither untouched nor the result"
    fi
done

printf 'signals sent: %d; by phase:' "$runs"
for p in reading sorting merging writing finished; do printf ' %s %d' "$p" "${seen[$p]:-0}"; done
echo
