#!/usr/bin/env bash
# signals.sh: SIGTERM, SIGHUP and SIGINT end gpusort with 128+signal, temporary files removed.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

target_init
mkfifo in.fifo
"$GSGEN" -n 300000 -s 231 >data.txt

read -r -a sigs < <(signals_to_send)
for sig in "${sigs[@]}"; do
    case $sig in
        TERM) want=143 ;;
        HUP) want=129 ;;
        INT) want=130 ;;
    esac
    # Hold the FIFO open for writing, so gpusort blocks reading it after some keys.
    exec 3<>in.fifo
    if [ "$sig" = INT ]; then
        # Background jobs ignore SIGINT unless job control is on.
        set -m
    fi
    "$GPUSORT" -o "$TARGET" -S 1 in.fifo 2>err.txt &
    pid=$!
    set +m
    # Enough keys that runs may spill (to TMPDIR, which must end up empty), then
    # gpusort waits for more.
    cat data.txt >&3
    sleep 0.5
    kill -s "$sig" "$pid"
    # Give it 10 s to go; never hang the suite.
    for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -s KILL "$pid"
        wait "$pid" || true
        exec 3>&-
        fail "SIG$sig: gpusort was still running 10 s later"
    fi
    status=0
    wait "$pid" || status=$?
    exec 3>&-
    [ "$status" -eq "$want" ] || fail "SIG$sig: gpusort exited $status ($want expected)"
    target_check
done
