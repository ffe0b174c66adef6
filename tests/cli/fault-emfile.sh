#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fault-emfile.sh: opening a file fails with EMFILE (the process is out of
# descriptors) during the merge: a spilled run opened to be merged, a merge pass's
# new temporary, an input or temporary of -m, the output's temporary. Each is an
# error: exit 2, one message naming the file and the cause, nothing on stdout, no
# temporary left, the -o target untouched.
# The faults come from tests/tools/faultfs.so (LD_PRELOAD): the GS_FAULT_OPEN_AT'th open
# of an existing file under GS_FAULT_DIR, or its GS_FAULT_CREATE_AT'th creation of
# one, and every later one, fails with GS_FAULT_OPEN_ERRNO (EMFILE by default).
# GS_FAULT_REPORT counts the opens and creations of a clean run, to aim at the last.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
not_under_tsan "its subject is the open-file limit; the same errors on threads are enospc.sh's"
need_faultfs

mkdir in tdir
# 2M u32 keys against -S 1M (chunks of 128 Ki keys) under ulimit -n 16: about 16
# runs spill, and with --parallel=1 the merge takes few enough at once that a merge
# pass runs first.
"$GSGEN" -t u32 -n 2000000 -s 1501 >in/in.txt
LC_ALL=C sort -n in/in.txt >exp.txt
# 40 sorted inputs for -m under ulimit -n 16: merged in passes through temporaries.
sorted=()
for i in $(seq 1 40); do
    "$GSGEN" -t u32 -n 2000 -s "$((1510 + i))" -d sorted >"in/s$i.txt"
    sorted+=("in/s$i.txt")
done
SORT_ARGS=(--type=u32 -S 1M --parallel=1 -T tdir)

# shimmed OUT VAR... -- GPUSORT-ARG...: gpusort with the shim and the settings
# given, under ulimit -n 16, stdout in OUT; STATUS its exit status. On the CPU
# (--device=cpu overrides the --device=0 of tests/gpu/suite.sh): the CUDA runtime
# alone holds more descriptors than that, and its opens would move the counts.
shimmed() {
    local out=$1 env=()
    shift
    while [ "$1" != "--" ]; do env+=("$1"); shift; done
    shift
    STATUS=0
    (ulimit -n 16 && exec env LD_PRELOAD="$FAULT_PRELOAD" "${env[@]}" \
        "$GPUSORT" --device=cpu "$@" >"$out" 2>"$RUN_ERR") || STATUS=$?
}

# counts VAR... -- GPUSORT-ARG...: a clean run with GS_FAULT_REPORT, which must
# succeed; sets CREATES and OPENS (under GS_FAULT_DIR).
counts() {
    rm -f report.txt
    shimmed out.txt GS_FAULT_REPORT="$test_dir/report.txt" "$@"
    [ "$STATUS" -eq 0 ] || fail "clean run $*: exited $STATUS: $(cat "$RUN_ERR")"
    read -r _ CREATES _ OPENS _ < <(cat report.txt)
    echo "clean run: $CREATES creations, $OPENS opens under ${1#GS_FAULT_DIR=}"
    dir_empty tdir "clean run"
}

# emfile WHAT REGEX VAR... -- GPUSORT-ARG...: with the shim, -o the target: exit 2,
# one message matching REGEX, nothing on stdout or left behind.
emfile() {
    local what=$1 regex=$2
    shift 2
    target_init
    shimmed "$RUN_OUT" "$@" -o "$TARGET"
    [ "$STATUS" -eq 2 ] || fail "$what: exited $STATUS (2 expected); stderr: $(cat "$RUN_ERR")"
    empty "$RUN_OUT" "stdout ($what)"
    check_msg "$RUN_ERR" "$regex" no
    (target_check) || fail "$what: the -o target or its directory is not as before"
    dir_empty tdir "$what"
    rm -rf "$TARGET_DIR"
}
emf='Too many open files$'
run_re="'tdir/gpusort-run-[A-Za-z0-9]+'"

# The sort: every open of a file in tdir is a spilled run opened to be merged (a
# merge pass or the last merge); every creation after the first spills is a merge
# pass's new run.
counts GS_FAULT_DIR=tdir -- "${SORT_ARGS[@]}" in/in.txt
same exp.txt out.txt "the clean run"
[ "$OPENS" -gt 16 ] || fail "the clean run opened $OPENS runs: no merge pass?"
for at in 1 8 "$OPENS"; do
    emfile "EMFILE at open $at of $OPENS of a spilled run" "^cannot read temporary file $run_re: $emf" \
        GS_FAULT_DIR=tdir GS_FAULT_OPEN_AT="$at" -- "${SORT_ARGS[@]}" in/in.txt
done
emfile "EMFILE at the last creation ($CREATES) in tdir: a merge pass's run" \
    "^cannot create a temporary file in 'tdir': $emf" \
    GS_FAULT_DIR=tdir GS_FAULT_CREATE_AT="$CREATES" -- "${SORT_ARGS[@]}" in/in.txt
emfile "EMFILE at the first spill" "^cannot create a temporary file in 'tdir': $emf" \
    GS_FAULT_DIR=tdir GS_FAULT_CREATE_AT=1 -- "${SORT_ARGS[@]}" in/in.txt
# The output's temporary, created beside -o once the runs are ready to merge.
mkdir -p "$TARGET_DIR"
emfile "EMFILE creating the output's temporary" "^cannot write '.*/target': $emf" \
    GS_FAULT_DIR="$TARGET_DIR" GS_FAULT_CREATE_AT=1 -- "${SORT_ARGS[@]}" in/in.txt

# -m in passes: an input opened by the first pass and one by a later pass; a pass's
# temporary created, and opened to be merged.
counts GS_FAULT_DIR=in -- -m --type=u32 -T tdir "${sorted[@]}"
oracle "${sorted[@]}" >exp-m.txt
same exp-m.txt out.txt "the clean -m run"
[ "$OPENS" -eq 40 ] || fail "the clean -m run opened $OPENS inputs, not 40"
for at in 1 30; do
    emfile "-m: EMFILE at the open of input $at" "^cannot read 'in/s$at\.txt': $emf" \
        GS_FAULT_DIR=in GS_FAULT_OPEN_AT="$at" -- -m --type=u32 -T tdir "${sorted[@]}"
done
counts GS_FAULT_DIR=tdir -- -m --type=u32 -T tdir "${sorted[@]}"
{ [ "$CREATES" -gt 1 ] && [ "$OPENS" -gt 1 ]; } || fail "the clean -m run made $CREATES temporaries and opened $OPENS: no pass?"
# (Each pass's output is a temporary, written as -o is: through a second
# temporary beside it, renamed over it.)
for at in 1 2 "$CREATES"; do
    emfile "-m: EMFILE at creation $at of $CREATES of a pass's temporary" \
        "^(cannot create a temporary file in 'tdir'|cannot write 'tdir/gpusort-[A-Za-z0-9]+'): $emf" \
        GS_FAULT_DIR=tdir GS_FAULT_CREATE_AT="$at" -- -m --type=u32 -T tdir "${sorted[@]}"
done
# (The opens under tdir are of the passes' temporaries, to be merged, and of tdir
# itself, where a pass's output is written as -o is, beside its name: the first is
# tdir's, a write's; the last a temporary's, to be read.)
for at in 1 "$OPENS"; do
    verb=read
    [ "$at" -eq 1 ] && verb=write
    emfile "-m: EMFILE at open $at of $OPENS under tdir" \
        "^cannot $verb 'tdir/gpusort-[A-Za-z0-9]+': $emf" \
        GS_FAULT_DIR=tdir GS_FAULT_OPEN_AT="$at" -- -m --type=u32 -T tdir "${sorted[@]}"
done
