#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# signals-midsort.sh: SIGINT, SIGTERM and SIGHUP at any moment of an external sort
# (its input just opened, runs spilled, the output being merged) end gpusort with
# 128+signal, every temporary removed (-T and beside -o) and the -o target untouched.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"

# 20M u32 keys (80 MB) against -S 16M with 2 threads: runs spill within a tenth of
# a second, the final merge starts after about half a second and formats 215 MB of
# text for over a second, so each moment can be caught by polling.
"$GSGEN" -b -t u32 -n 20000000 -s 801 >in.bin
mkdir tdir
target_init

# until_seen PID TEST-CMD...: poll (every 10 ms, at most 60 s) until TEST-CMD
# succeeds; fails if PID exits first (the sort was too quick to catch) or time runs out.
until_seen() {
    local pid=$1 i
    shift
    for ((i = 0; i < 6000; i++)); do
        if "$@"; then
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || { wait "$pid" || true; fail "gpusort ended before: $*"; }
        sleep 0.01
    done
    kill -s KILL "$pid" 2>/dev/null || true
    wait "$pid" || true
    fail "not seen within 60 s: $*"
}

# has_input PID: gpusort's own code runs in PID: it has opened in.bin (its signal
# handlers are set before). Not merely exec'd: a signal before main() is the
# runtime's to take, and a sanitizer's runtime makes files of its own in TMPDIR
# while it starts (ThreadSanitizer's tsan.rodata.PID) that such a signal leaves.
input_path=$(pwd -P)/in.bin   # as the kernel names it: no symbolic links
has_input() {
    [ -d "/proc/$1/fd" ] || return 0    # no /proc: assume it has
    local fd
    for fd in "/proc/$1/fd/"*; do
        [ "$(readlink "$fd" 2>/dev/null)" = "$input_path" ] && return 0
    done
    return 1
}
has_run() { compgen -G "tdir/gpusort-run-*" >/dev/null; }
has_output_temp() { compgen -G "$TARGET_DIR/.gpusort-*" >/dev/null; }

read -r -a sigs < <(signals_to_send)

for moment in start spilled merging; do
    for sig in "${sigs[@]}"; do
        case $sig in
            INT) want=130 ;;
            TERM) want=143 ;;
            HUP) want=129 ;;
        esac
        what="SIG$sig when $moment"
        : >err.txt
        # Background jobs ignore SIGINT unless job control is on.
        set -m
        "$GPUSORT" --type=u32 --input-format=binary --parallel=2 -S 16M -T tdir -o "$TARGET" in.bin \
            2>>err.txt &
        pid=$!
        set +m
        case $moment in
            start) until_seen "$pid" has_input "$pid" ;;
            spilled) until_seen "$pid" has_run ;;
            merging) until_seen "$pid" has_output_temp ;;
        esac
        # Into the phase, past the instant the file was made (signals-at-create.sh
        # tests that instant).
        if [ "$moment" != start ]; then
            sleep 0.05
        fi
        kill -s "$sig" "$pid" 2>/dev/null || true
        if ! wait_gone "$pid" 10; then
            kill -s KILL "$pid" 2>/dev/null || true
            wait "$pid" || true
            fail "$what: gpusort was still running 10 s later"
        fi
        status=0
        wait "$pid" || status=$?
        [ "$status" -eq "$want" ] || fail "$what: gpusort exited $status ($want expected); stderr: $(cat err.txt)"
        empty err.txt "stderr ($what)"
        dir_empty tdir "$what"
        (target_check) || fail "$what: the -o target or its directory is not as before (see above)"
    done
done
