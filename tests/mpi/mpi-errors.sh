#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mpi-errors.sh: an error in gpusort-mpi is one "gpusort-mpi: " line, gpusort's own
# message (the input's name and its line counted from the file's start, whichever
# rank read it), exit status 2 from every rank, an existing -o untouched and no
# temporary left; the same on 1 to 4 ranks (each case on 4 and one other). Usage
# errors, and what gpusort-mpi does not take, the same way.
# shellcheck source=tests/mpi/mpilib.sh
. "$(dirname "$0")/mpilib.sh"
{ [ -n "$GSREC" ] && [ -x "$GSREC" ]; } || skip "gsrec is not built"

"$GSREC" -n 30000 -s 1 >a.csv
"$GSREC" -n 20000 -s 2 >b.csv
{ head -n 25000 b.csv; printf '9,12x,tail\n'; tail -n +25001 b.csv; } >bad.csv
{ cat a.csv; printf '1,99999999999999999999,z\n'; } >range.csv
"$GSGEN" -n 10001 -t u32 -s 3 -b >keys.bin
printf 'abc' >odd.bin
"$GSGEN" -n 30000 -t i64 -s 4 >n.txt
{ cat n.txt; printf '12 13\nseven\n'; } >badn.txt

# mpi_fails WHAT ARGS...: gpusort ARGS fails with exit 2 and one message; gpusort-mpi
# ARGS -o out, on the ranks of mpi_ranks (4, and 1 to 3 in turn), prints that
# message once (with its own prefix), every rank exits 2 (so mpirun does), and out
# keeps what it held.
mpi_fails() {
    local what=$1 n
    shift
    run_cmd "$GPUSORT" "$@"
    [ "$STATUS" -eq 2 ] || fail "$what: gpusort exit $STATUS"
    local want
    want=$(sed -n 's/^gpusort: //p' "$RUN_ERR" | head -n 1)
    [ -n "$want" ] || fail "$what: gpusort printed no message"
    for n in $(mpi_ranks); do
        echo keep >out
        mpi_run "$n" "$@" -o out
        [ "$STATUS" -eq 2 ] || fail "$what, $n ranks: exit $STATUS"
        [ "$(mpi_msgs | wc -l)" -eq 1 ] || fail "$what, $n ranks: messages: $(cat "$RUN_ERR")"
        [ "$(mpi_msgs)" = "gpusort-mpi: $want" ] ||
            fail "$what, $n ranks: '$(mpi_msgs)', not 'gpusort-mpi: $want'"
        [ "$(cat out)" = keep ] || fail "$what, $n ranks: -o's file changed"
        empty "$RUN_OUT" "$what, $n ranks: standard output"
    done
}

mpi_fails "a field not an integer, deep in the second file" -t, -k2,2n a.csv bad.csv
mpi_fails "a key out of range on the last line" -t, -k2,2n range.csv
mpi_fails "a bare integer not one, after a line of two" n.txt badn.txt
mpi_fails "a number not one under -g, deep in the second file" -g n.txt badn.txt
mpi_fails "a missing field" -t, -k5,5n a.csv
mpi_fails "a missing file" -t, -k2,2n a.csv nosuch.csv
mpi_fails "binary keys not whole, in all" -B --type=u32 keys.bin odd.bin
mpi_fails "binary records not whole" -B --record-size=12 --type=u32 keys.bin
mpi_fails "a directory" -t, -k2,2n .
mpi_fails "a bad -k" -k 0 a.csv
mpi_fails "a bad --type" --type=i16 a.csv

# What gpusort-mpi does not take: one line (and the --help hint), exit 2.
for args in "-m a.csv" "-c a.csv" "--output-parts a.csv" "-"; do
    # shellcheck disable=SC2086
    mpi_run 2 $args </dev/null
    [ "$STATUS" -eq 2 ] || fail "'$args': exit $STATUS"
    [ "$(mpi_msgs | wc -l)" -eq 1 ] || fail "'$args': messages: $(cat "$RUN_ERR")"
done
mpi_run 2 n.txt </dev/null
[ "$STATUS" -eq 0 ] || fail "n.txt without -o: exit $STATUS"
mkfifo fifo
mpi_run 2 fifo
[ "$STATUS" -eq 2 ] || fail "a FIFO: exit $STATUS"
mpi_msgs | grep -q "not a regular file" || fail "a FIFO: $(cat "$RUN_ERR")"

# --help and --version: once, from rank 0, exit 0.
mpi_run 3 --help
[ "$STATUS" -eq 0 ] || fail "--help: exit $STATUS"
[ "$(grep -c '^Usage: mpirun -n N gpusort-mpi' "$RUN_OUT")" -eq 1 ] || fail "--help: $(cat "$RUN_OUT")"
mpi_run 3 --version
[ "$STATUS" -eq 0 ] || fail "--version: exit $STATUS"
[ "$(grep -c '^gpusort-mpi ' "$RUN_OUT")" -eq 1 ] || fail "--version: $(cat "$RUN_OUT")"
exit 0
