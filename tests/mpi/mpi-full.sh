#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mpi-full.sh: gpusort-mpi on a disk that fills up (tests/tools/faultfs.so in every
# rank): -o's directory full as the ranks merge into the output, and the ranks'
# -T full as they sort their shares. One "gpusort-mpi: " line naming where the
# disk filled (gpusort's own message where gpusort meets the same), exit 2 from
# every rank, an existing -o untouched, nothing left in -o's directory or in -T;
# on 1 to 4 ranks.
# shellcheck source=tests/mpi/mpilib.sh
. "$(dirname "$0")/mpilib.sh"
{ [ -n "$GSREC" ] && [ -x "$GSREC" ]; } || skip "gsrec is not built"
: "${FAULTFS:=}"
{ [ -n "$FAULTFS" ] && [ -f "$FAULTFS" ]; } || skip "faultfs.so is not built"
[ -z "$SAN_NAME" ] || skip "faultfs.so under $SAN_NAME: see tests/RELIABILITY.md"

"$GSREC" -n 40000 -s 1 -d dups --range=50 >a.csv
"$GSGEN" -n 50000 -t u64 -s 2 >n.txt

# full_run N DIR WANT ARGS...: gpusort-mpi ARGS -T tmp -o od/out on N ranks, writes
# to DIR failing with ENOSPC after 1000 bytes in each rank: one message, WANT (a
# pattern, grep -E), exit 2, od/out as it was, od and tmp left empty but for it.
full_run() {
    local n=$1 dir=$2 want=$3
    shift 3
    rm -rf od tmp
    mkdir od tmp
    echo keep >od/out
    run_cmd env TMPDIR="$test_dir/.ompi" mpirun --oversubscribe -x TMPDIR="$TMPDIR" -n "$n" \
        env GS_FAULT_DIR="$PWD/$dir" GS_FAULT_WRITE_AFTER=1000 LD_PRELOAD="$FAULTFS" \
        "$GPUSORT_MPI" -T tmp "$@" -o od/out
    local what="$dir full, $n ranks, $*"
    [ "$STATUS" -eq 2 ] || fail "$what: exit $STATUS: $(cat "$RUN_ERR")"
    [ "$(mpi_msgs | wc -l)" -eq 1 ] || fail "$what: messages: $(cat "$RUN_ERR")"
    mpi_msgs | grep -Eq "^gpusort-mpi: $want\$" || fail "$what: '$(mpi_msgs)', not '$want'"
    [ "$(cat od/out)" = keep ] || fail "$what: -o's file changed"
    [ "$(ls -A od)" = out ] || fail "$what: left in -o's directory: $(ls -A od)"
    [ -z "$(ls -A tmp)" ] || fail "$what: left in -T: $(ls -A tmp)"
    empty "$RUN_OUT" "$what: standard output"
}

# The output's directory: the message is gpusort's for the same disk.
mkdir od
run_cmd env GS_FAULT_DIR="$PWD/od" GS_FAULT_WRITE_AFTER=1000 LD_PRELOAD="$FAULTFS" \
    "$GPUSORT" -t, -k2,2n a.csv -o od/out
[ "$STATUS" -eq 2 ] || fail "gpusort, od full: exit $STATUS"
want=$(sed -n 's/^gpusort: //p' "$RUN_ERR")
[ "$want" = "write error on 'od/out': No space left on device" ] ||
    fail "gpusort, od full: '$want'"
for n in 1 2 3 4; do
    full_run "$n" od "$want" -t, -k2,2n a.csv
    full_run "$n" od "$want" -u --type=u64 n.txt
    full_run "$n" od "$want" --type=u64 n.txt
done

# The ranks' -T: their shares sorted, or the parts they receive, into files there.
for n in 1 2 3 4; do
    full_run "$n" tmp "write error on 'tmp': No space left on device" -t, -k2,2n a.csv
done
exit 0
