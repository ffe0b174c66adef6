#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mpi-killed.sh: a rank killed mid-run ends the job with an error (mpirun's exit
# status not 0), -o's file untouched and no output or temporary of the other ranks
# left. Each rank gets its own temporary directory (an MPMD command line), so that
# what the killed rank itself leaves can be told apart: SIGKILL gives it no time to
# remove the spill file it was making, which is as gpusort alone behaves.
# The kills come from tests/tools/faultfs.so, at a rank's first file made in a
# directory: deterministic, not timed.
# shellcheck source=tests/mpi/mpilib.sh
. "$(dirname "$0")/mpilib.sh"
{ [ -n "$GSREC" ] && [ -x "$GSREC" ]; } || skip "gsrec is not built"
: "${FAULTFS:=}"
{ [ -n "$FAULTFS" ] && [ -f "$FAULTFS" ]; } || skip "faultfs.so is not built"
[ -z "$SAN_NAME" ] || skip "faultfs.so under $SAN_NAME: see tests/RELIABILITY.md"

"$GSREC" -n 300000 -s 1 >big.csv   # 9 MB: with -S 1M every rank spills

# killed_run WHO SIGNAL DIR: 3 ranks, rank WHO sent SIGNAL at its first file made
# in DIR (t0, t1 or t2: the ranks' -T; od: -o's directory).
killed_run() {
    local who=$1 sig=$2 dir=$3 r cmd=()
    rm -rf t0 t1 t2 od
    mkdir t0 t1 t2 od
    echo keep >od/out
    for r in 0 1 2; do
        [ "$r" -eq 0 ] || cmd+=(:)
        cmd+=(-n 1)
        if [ "$r" -eq "$who" ]; then
            cmd+=(env GS_FAULT_DIR="$PWD/$dir" GS_FAULT_SIGNAL="$sig" LD_PRELOAD="$FAULTFS")
        fi
        # shellcheck disable=SC2054  # the commas are sort's: -t, -k2,2n
        cmd+=("$GPUSORT_MPI" -S 1M -T "t$r" -t, -k2,2n big.csv -o od/out)
    done
    run_cmd env TMPDIR="$test_dir/.ompi" mpirun --oversubscribe "${cmd[@]}"
    [ "$STATUS" -ne 0 ] || fail "rank $who, SIG$sig in $dir: the job exited 0"
    [ "$(cat od/out)" = keep ] || fail "rank $who, SIG$sig in $dir: -o's file changed"
    [ "$(ls -A od)" = out ] || fail "rank $who, SIG$sig in $dir: left in -o's directory: $(ls -A od)"
    for r in 0 1 2; do
        [ "$r" -eq "$who" ] && [ "$sig" = 9 ] && continue
        [ -z "$(ls -A "t$r")" ] || fail "rank $who, SIG$sig in $dir: rank $r left: $(ls -A "t$r")"
    done
}

killed_run 1 9 t1      # SIGKILL, in its local sort's spill
killed_run 2 TERM t2   # SIGTERM (a scheduler's), the same
killed_run 0 TERM od   # rank 0, as it makes -o's temporary
killed_run 0 INT od
exit 0
