#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sigpipe.sh: a reader that goes away ends gpusort quietly: SIGPIPE (141), or 2 where ignored.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

"$GSGEN" -n 300000 -s 211 >big.txt
first=$(oracle big.txt | head -n 1)

# Is SIGPIPE (13) ignored already (make may run us so)? Then children inherit it.
pipe_ignored=no
if [ -r /proc/$$/status ]; then
    mask=$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status)
    if (( (16#$mask >> 12) & 1 )); then pipe_ignored=yes; fi
fi

"$GPUSORT" big.txt 2>err.txt | head -n 1 >head.txt
status=${PIPESTATUS[0]}
[ "$(cat head.txt)" = "$first" ] || fail "head got '$(cat head.txt)', expected '$first'"
empty err.txt "stderr after the reader went away"
if [ "$pipe_ignored" = yes ]; then
    [ "$status" -eq 2 ] || fail "gpusort exited $status (2 expected: SIGPIPE ignored)"
else
    [ "$status" -eq 141 ] || fail "gpusort exited $status (141 expected: killed by SIGPIPE)"
fi

# Binary output and -u take the same path.
"$GPUSORT" -u --output-format=binary big.txt 2>err.txt | head -c 8 >/dev/null
status=${PIPESTATUS[0]}
empty err.txt "stderr after the reader went away (binary)"
case $pipe_ignored:$status in
    yes:2|no:141) ;;
    *) fail "gpusort -B exited $status (SIGPIPE ignored: $pipe_ignored)" ;;
esac

# With spilled runs (TMPDIR must end up empty: lib.sh checks it).
"$GPUSORT" -S 1 big.txt 2>err.txt | head -n 1 >head.txt
status=${PIPESTATUS[0]}
empty err.txt "stderr after the reader went away (-S 1)"
[ "$(cat head.txt)" = "$first" ] || fail "head got '$(cat head.txt)' with -S 1"
case $pipe_ignored:$status in
    yes:2|no:141) ;;
    *) fail "gpusort -S 1 exited $status (SIGPIPE ignored: $pipe_ignored)" ;;
esac

# With SIGPIPE ignored by the parent: exit 2, still quietly.
(
    trap '' PIPE
    "$GPUSORT" big.txt 2>err2.txt | head -n 1 >head2.txt
    echo "${PIPESTATUS[0]}" >status2.txt
)
[ "$(cat status2.txt)" -eq 2 ] || fail "with SIGPIPE ignored gpusort exited $(cat status2.txt) (2 expected)"
empty err2.txt "stderr with SIGPIPE ignored"
[ "$(cat head2.txt)" = "$first" ] || fail "head got '$(cat head2.txt)' with SIGPIPE ignored"
