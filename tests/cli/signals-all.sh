#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# signals-all.sh: every signal whose default action ends a process and that can be
# caught ends gpusort as that signal would (128+signal), with its temporary files
# removed and an existing -o target untouched: sent to the process (the kernel gives
# it to any thread), and sent to one thread after another (tgkill), worker threads
# included. A write past `ulimit -f` (SIGXFSZ, raised by the kernel in the thread
# that wrote) ends it so too, leaving nothing behind.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

: "${TGKILL:=}"
[ -x "${SIGDFL:-}" ] || skip "SIGDFL (tests/tools/sigdfl) is not built"
"$GSGEN" -n 300000 -s 2231 >data.txt
mkdir tdir
target_init

# run_and_signal HOW SIG: gpusort reads a FIFO that stays open, spills runs to tdir,
# then waits for more: HOW (process, or thread N) gets SIG. Checks the status and
# that nothing is left.
run_and_signal() {
    local how=$1 sig=$2 num want pid
    num=$(kill -l "$sig")
    want=$((128 + num))
    rm -f in.fifo
    mkfifo in.fifo
    exec 3<>in.fifo
    (ulimit -c 0; exec "$SIGDFL" "$GPUSORT" --device=cpu -S 1 -T tdir -o "$TARGET" in.fifo 2>err.txt) &
    pid=$!
    cat data.txt >&3
    sleep 0.5
    if [ "$how" = process ]; then
        kill -s "$sig" "$pid"
    else
        # The how'th thread (1: the main one), or the last one where there are fewer;
        # threads that block SIG are passed over (a sanitizer runtime's own thread
        # does: there the signal would wait for ever, whatever gpusort did).
        local tids=() t blk tid
        for t in $(ls "/proc/$pid/task" 2>/dev/null | sort -n); do
            blk=$(awk '/^SigBlk:/ { print $2 }' "/proc/$pid/task/$t/status" 2>/dev/null) || continue
            [ -n "$blk" ] && (( (16#$blk >> (num - 1)) & 1 )) && continue
            tids+=("$t")
        done
        [ "${#tids[@]}" -gt 0 ] || fail "SIG$sig: no threads of $pid"
        tid=${tids[$(( how < ${#tids[@]} ? how - 1 : ${#tids[@]} - 1 ))]}
        "$TGKILL" "$pid" "$tid" "$num" || fail "tgkill $pid $tid $num failed"
    fi
    reap "$pid" "SIG$sig to the $how"
    exec 3>&-
    [ "$STATUS" -eq "$want" ] || fail "SIG$sig to the $how: exited $STATUS ($want expected); stderr: $(cat err.txt)"
    dir_left=$(ls -A tdir)
    [ -z "$dir_left" ] || fail "SIG$sig to the $how: temporaries left in tdir: $dir_left"
    (target_check) || fail "SIG$sig to the $how: the -o target or its directory changed"
}

# gpusort keeps a signal ignored that was ignored when it started (as sort does);
# a background job of a shell without job control starts with SIGINT and SIGQUIT
# ignored, and one under nohup with SIGHUP: so gpusort is started through sigdfl,
# every signal at its default action.
for sig in HUP INT QUIT USR1 USR2 PIPE ALRM TERM STKFLT XCPU XFSZ VTALRM PROF IO PWR SYS \
           RTMIN RTMIN+5 RTMAX; do
    kill -l "$sig" >/dev/null 2>&1 || continue   # not on this system
    run_and_signal process "$sig"
done
if [ -x "$TGKILL" ]; then
    for sig in TERM PIPE USR1 RTMIN; do
        for how in 1 2 3 4 5 6; do
            run_and_signal "$how" "$sig"
        done
    done
else
    echo "signals-all.sh: TGKILL not built: signals to single threads not sent" >&2
fi

# A file size limit: the first write past it raises SIGXFSZ, in the thread that wrote,
# and fails with EFBIG; the process must end by the signal, never by the error (the
# two race unless the error path ends by the signal too), so it is tried several times.
"$GSGEN" -n 200000 -s 2232 >big.txt
want=$((128 + $(kill -l XFSZ)))
for try in 1 2 3 4 5 6 7 8; do
    run_cmd bash -c 'ulimit -c 0 && ulimit -f 100 && exec "$0" "$@"' "$SIGDFL" "$GPUSORT" \
        --device=cpu -S 1M -T tdir -o "$TARGET" big.txt
    [ "$STATUS" -eq "$want" ] ||
        fail "ulimit -f (try $try): exited $STATUS ($want expected); stderr: $(cat "$RUN_ERR")"
    [ -z "$(ls -A tdir)" ] || fail "ulimit -f (try $try): temporaries left in tdir: $(ls -A tdir)"
    target_check
done
