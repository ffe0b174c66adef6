# SPDX-License-Identifier: MIT
# mpilib.sh: helpers shared by the gpusort-mpi tests (sourced, never run), on top
# of tests/cli/lib.sh (its temporary directory, TMPDIR that must end empty, verdicts).
#
# The environment (make check sets it): GPUSORT_MPI, the program under test, and
# GPUSORT, the single-process gpusort whose output is the oracle: the contract
# says gpusort-mpi writes what gpusort writes for the same inputs and options (and
# gpusort's own tests hold it to sort(1) and other independent oracles).
# shellcheck shell=bash

mpilib_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/cli/lib.sh
. "$mpilib_here/../cli/lib.sh"

: "${GPUSORT_MPI:=}"
{ [ -n "$GPUSORT_MPI" ] && [ -x "$GPUSORT_MPI" ]; } || skip "gpusort-mpi is not built"
command -v mpirun >/dev/null 2>&1 || skip "no mpirun"
GSREC=${GSREC:-}
# Open MPI refuses root unless told; CI runs as root. One node: shared memory only
# (no network transports probed, and their warnings), its single-copy mechanism
# off (it needs ptrace rights that containers often withhold), and the ob1 layer
# over it, so that no rank first tries UCX at start-up (that took half of
# mpi-sort.sh's time: 34 s against 17 s on the development VM).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_pml=ob1
# mpirun's own session files go here, not into TMPDIR, which gpusort-mpi uses and
# which must be empty at the end.
mkdir "$test_dir/.ompi"

# mpi_run N ARGS...: gpusort-mpi ARGS on N ranks (oversubscribed: more ranks than
# cores is fine here), stdout in $RUN_OUT, stderr in $RUN_ERR, the exit status in
# STATUS.
mpi_run() {
    local n=$1
    shift
    run_cmd env TMPDIR="$test_dir/.ompi" mpirun --oversubscribe -x TMPDIR="$TMPDIR" \
        -n "$n" "$GPUSORT_MPI" "$@"
}

# mpi_msgs: the "gpusort-mpi: " lines of $RUN_ERR (mpirun adds its own lines).
mpi_msgs() {
    grep '^gpusort-mpi: ' "$RUN_ERR" || true
}

# mpi_ranks: the rank counts of the next case: 4 (the most parts), and one of 1, 2
# and 3 in turn from case to case, so that every count runs, a third of the cases
# each: each mpirun costs about a second on a CI host, and four a case took the
# longest test of the cluster build's step.
mpi_case=0
mpi_ranks() {
    echo 4 $((1 + mpi_case % 3))
    mpi_case=$((mpi_case + 1))
}

# mpi_same_as_gpusort NAME ARGS...: gpusort ARGS (to stdout) and gpusort-mpi ARGS
# on the ranks of mpi_ranks, to -o, must write the same bytes, gpusort-mpi no
# message.
mpi_same_as_gpusort() {
    local name=$1 n
    shift
    "$GPUSORT" "$@" >expect.out 2>expect.err || fail "$name: gpusort failed: $(cat expect.err)"
    for n in $(mpi_ranks); do
        rm -f got.out
        mpi_run "$n" "$@" -o got.out
        [ "$STATUS" -eq 0 ] || fail "$name, $n ranks: exit $STATUS: $(head -3 "$RUN_ERR")"
        [ -z "$(mpi_msgs)" ] || fail "$name, $n ranks: $(mpi_msgs)"
        same expect.out got.out "$name, $n ranks"
    done
}
