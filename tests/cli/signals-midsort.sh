#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# signals-midsort.sh: SIGINT, SIGTERM and SIGHUP at three moments of an external
# sort (its input just opened, runs spilled, the output being merged and written)
# end gpusort with 128+signal, every temporary removed (-T and beside -o) and the
# -o target untouched.
#
# Each moment is a state gpusort cannot leave until the test lets it, so no poll
# races a short window: the input is a FIFO the test holds open, fed as far as the
# moment needs (nothing: gpusort waits in its first read; more than -S: runs are
# spilled and it waits for more); the merge writes into a FIFO the test does not
# read past its first byte, so it waits with its runs still in -T.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"

# 6M u32 keys (24 MB) against -S 4M with 2 threads: runs spill, and the merge's
# text (70 MB) is far more than a pipe holds.
"$GSGEN" -b -t u32 -n 6000000 -s 801 >in.bin
mkdir tdir
target_init

# until_seen PID TEST-CMD...: poll (every 10 ms, at most 60 s) until TEST-CMD
# succeeds, a state that holds until the test acts; fails if PID exits first.
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

# has_open PID FILE: gpusort's own code runs in PID: it has opened FILE (its signal
# handlers are set before). Not merely exec'd: a signal before main() is the
# runtime's to take, and a sanitizer's runtime makes files of its own in TMPDIR
# while it starts (ThreadSanitizer's tsan.rodata.PID) that such a signal leaves.
has_open() {
    [ -d "/proc/$1/fd" ] || return 0    # no /proc: assume it has
    local fd want
    want=$(pwd -P)/$2   # as the kernel names it: no symbolic links
    for fd in "/proc/$1/fd/"*; do
        [ "$(readlink "$fd" 2>/dev/null)" = "$want" ] && return 0
    done
    return 1
}
has_run() { compgen -G "tdir/gpusort-run-*" >/dev/null; }

mkfifo in.fifo out.fifo
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
        # Opened for reading and writing, a FIFO's open does not wait for the other
        # side; the test's end stays open until gpusort is gone.
        exec 3<>in.fifo 4<>out.fifo
        input=in.fifo output=$TARGET
        [ "$moment" != merging ] || { input=in.bin; output=out.fifo; }
        # Background jobs ignore SIGINT unless job control is on.
        set -m
        "$GPUSORT" --type=u32 --input-format=binary --parallel=2 -S 4M -T tdir -o "$output" "$input" \
            2>>err.txt &
        pid=$!
        set +m
        case $moment in
            start)
                until_seen "$pid" has_open "$pid" in.fifo ;;
            spilled)
                head -c 16000000 in.bin >&3    # four times -S; then no more
                until_seen "$pid" has_run ;;
            merging)
                # The first byte of the output: the merge has begun writing, and
                # waits on the FIFO for the rest.
                timeout 60 dd bs=1 count=1 of=/dev/null <&4 2>/dev/null ||
                    fail "$what: no output began"
                has_run || fail "$what: no run in -T while merging" ;;
        esac
        kill -s "$sig" "$pid" 2>/dev/null || true
        if ! wait_gone "$pid" 10; then
            kill -s KILL "$pid" 2>/dev/null || true
            wait "$pid" || true
            fail "$what: gpusort was still running 10 s later"
        fi
        status=0
        wait "$pid" || status=$?
        exec 3>&- 4>&-
        [ "$status" -eq "$want" ] || fail "$what: gpusort exited $status ($want expected); stderr: $(cat err.txt)"
        empty err.txt "stderr ($what)"
        dir_empty tdir "$what"
        (target_check) || fail "$what: the -o target or its directory is not as before (see above)"
    done
done
