#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# closed-fds.sh: gpusort started with standard input, output or error closed gives
# the right output or one clear error, never one descriptor taken for another (a
# file opened while 2 was closed took 2, and the --progress line went into the
# output; with 0 closed, "-" read another input again).
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

"$GSGEN" -n 200000 -s 2211 >in.txt
oracle in.txt >exp.txt
printf '1\n3\n' >two.txt

without_in() { "$@" <&-; }
without_out() { "$@" >&-; }
without_err() { "$@" 2>&-; }

# While gpusort runs, a standard descriptor it started without is /dev/null, not
# the first file it opened (here a FIFO, kept open so that gpusort waits on it).
mkfifo in.fifo
for fd in 0 1 2; do
    exec 3<>in.fifo
    case $fd in
        0) "$GPUSORT" -o out.txt in.fifo <&- 2>/dev/null 3>&- & ;;
        1) "$GPUSORT" -o out.txt in.fifo >&- 2>/dev/null 3>&- & ;;
        2) "$GPUSORT" -o out.txt in.fifo 2>&- 3>&- & ;;
    esac
    pid=$!
    printf '2\n1\n' >&3
    # Once gpusort has the FIFO open, its descriptors are settled (main() opens
    # /dev/null in their place first), and it waits there until the FIFO closes.
    fifo=$(pwd -P)/in.fifo
    for ((i = 0; i < 6000; i++)); do
        for f in "/proc/$pid/fd/"*; do
            [ "$(readlink "$f" 2>/dev/null)" != "$fifo" ] || break 2
        done
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.01
    done
    link=$(readlink "/proc/$pid/fd/$fd" 2>/dev/null) || true
    exec 3>&-
    status=0
    wait "$pid" || status=$?
    [ "$status" -eq 0 ] || fail "descriptor $fd closed: gpusort exited $status"
    [ "$link" = /dev/null ] || fail "descriptor $fd, closed at start, was '$link', not /dev/null"
done

# Standard error closed: what would go to it goes nowhere, the output is the sort's.
status=0
without_err "$GPUSORT" --progress --stats -S 1M -o out.txt in.txt || status=$?
[ "$status" -eq 0 ] || fail "stderr closed, -o: exited $status"
same exp.txt out.txt "-o with stderr closed"
status=0
without_err "$GPUSORT" --progress --stats in.txt >out.txt || status=$?
[ "$status" -eq 0 ] || fail "stderr closed, stdout: exited $status"
same exp.txt out.txt "standard output with stderr closed"

# Standard input closed: "-" is a read error, whatever else is read.
expect_error 2 "^read error on '-': Bad file descriptor$" -- without_in "$GPUSORT" -m two.txt -
expect_error 2 "^read error on '-': Bad file descriptor$" -- without_in "$GPUSORT" two.txt -
expect_error 2 "^read error on '-': Bad file descriptor$" -- without_in "$GPUSORT" -c
without_in "$GPUSORT" -m two.txt two.txt >out.txt || fail "stdin closed, no '-': exited $?"
printf '1\n1\n3\n3\n' >exp2.txt
same exp2.txt out.txt "-m with stdin closed and no '-'"

# Standard output closed: writing to it is an error; -o FILE is not confused with it.
expect_error 2 "^write error on 'standard output': Bad file descriptor$" -- \
    without_out "$GPUSORT" two.txt
expect_error 2 "^write error on 'standard output': Bad file descriptor$" -- \
    without_out "$GPUSORT" --version
status=0
without_out "$GPUSORT" -S 1M -o out.txt in.txt || status=$?
[ "$status" -eq 0 ] || fail "stdout closed, -o: exited $status"
same exp.txt out.txt "-o with stdout closed"

# All three closed: -o still gets the sort, nothing else.
status=0
"$GPUSORT" --progress -S 1M -o out.txt in.txt <&- >&- 2>&- || status=$?
[ "$status" -eq 0 ] || fail "0, 1 and 2 closed: exited $status"
same exp.txt out.txt "-o with 0, 1 and 2 closed"
