#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dev-full.sh: a full disk (/dev/full) is exit 2 with one message, never a silent truncation.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
not_under_tsan "its subject is one write error; errors on threads are enospc.sh's"

[ -w /dev/full ] || skip "no /dev/full"
printf '1\n' >one.txt
"$GSGEN" -n 200000 -s 221 >big.txt

# A small output fails only when flushed or closed.
run_cmd_full() {
    STATUS=0
    "$@" >/dev/full 2>"$RUN_ERR" || STATUS=$?
}
for f in one.txt big.txt; do
    run_cmd_full "$GPUSORT" "$f"
    [ "$STATUS" -eq 2 ] || fail "gpusort $f >/dev/full exited $STATUS (2 expected)"
    check_msg "$RUN_ERR" '.' no
    run_cmd_full "$GPUSORT" -B "$f"
    [ "$STATUS" -eq 2 ] || fail "gpusort -B $f >/dev/full exited $STATUS (2 expected)"
    check_msg "$RUN_ERR" '.' no
done
run_cmd_full "$GPUSORT" -m one.txt
[ "$STATUS" -eq 2 ] || fail "gpusort -m >/dev/full exited $STATUS (2 expected)"
check_msg "$RUN_ERR" '.' no

# -o /dev/full: an existing device is written directly, and fails the same way.
expect_error 2 '.' -- "$GPUSORT" -o /dev/full big.txt
expect_error 2 '.' -- "$GPUSORT" -o /dev/full one.txt
