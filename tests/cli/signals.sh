#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
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
    reap "$pid" "SIG$sig"
    exec 3>&-
    [ "$STATUS" -eq "$want" ] || fail "SIG$sig: gpusort exited $STATUS ($want expected)"
    target_check
done
