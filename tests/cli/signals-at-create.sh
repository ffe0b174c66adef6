#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# signals-at-create.sh: a signal that comes the instant a temporary file exists (a
# spilled run, the output's temporary), before gpusort has noted its name, still
# ends gpusort with 128+signal and leaves no file behind, whichever thread created
# the file and whichever the kernel gives the signal to.
# The signal comes from tests/tools/faultfs.so (LD_PRELOAD): GS_FAULT_SIGNAL is sent to
# the process right after its GS_FAULT_SIGNAL_AT'th file is created under
# GS_FAULT_DIR, inside the mkostemp (or open) call that created it; with
# GS_FAULT_SIGNAL_WAIT, that call then waits, so that a handler on another thread
# has all the time it needs to run before the file is registered.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_faultfs

# 1M u32 keys against -S 1M: eight runs spill to -T, then the output is written.
"$GSGEN" -t u32 -n 1000000 -s 1201 >in.txt
mkdir tdir
# 40 sorted inputs for -m under ulimit -n 16: merged in passes through temporaries.
sorted=()
for i in $(seq 1 40); do
    "$GSGEN" -t u32 -n 2000 -s "$((1210 + i))" -d sorted >"s$i.txt"
    sorted+=("s$i.txt")
done

read -r -a sigs < <(signals_to_send)
# SIGPIPE too: sent to the process, the kernel may give it to any thread, also one
# that is not creating the file.
sigs+=(PIPE)

for sig in "${sigs[@]}"; do
    case $sig in
        INT) want=130 ;;
        TERM) want=143 ;;
        HUP) want=129 ;;
        PIPE) want=141 ;;
    esac
    # The first spilled run, a later one, the output's temporary beside -o, and the
    # first temporary of a -m pass. merge:2:unlink: the signal as the first pass's
    # output gets its own temporary (the second file), and each removal slowed: the
    # pass renames that temporary over the first file while the cleanup removes
    # them one by one, and must not bring back a name the cleanup has removed.
    for where in run:1 run:5 output:1 merge:1 run:1:slow run:5:slow output:1:slow merge:1:slow \
                 merge:2:unlink; do
        at=${where#*:}
        at=${at%%:*}
        wait_ms=0 unlink_ms=0
        case $where in
            *:slow) wait_ms=300 ;;
            *:unlink) wait_ms=300 unlink_ms=300 ;;
        esac
        what="SIG$sig at the creation of temporary $where"
        target_init
        args=(--type=u32 -S 1M -T tdir -o "$TARGET" in.txt)
        case $where in
            run:*) dir=tdir ;;
            output:*) dir=$TARGET_DIR ;;
            merge:*) dir=tdir args=(-m --type=u32 -T tdir -o "$TARGET" "${sorted[@]}") ;;
        esac
        STATUS=0
        # On the CPU (--device=cpu overrides the --device=0 of tests/gpu/suite.sh):
        # the CUDA runtime alone holds more descriptors than ulimit -n 16 leaves.
        (ulimit -n 16 && exec env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR="$dir" GS_FAULT_SIGNAL="$sig" \
            GS_FAULT_SIGNAL_AT="$at" GS_FAULT_SIGNAL_WAIT="$wait_ms" GS_FAULT_UNLINK_WAIT="$unlink_ms" \
            "$GPUSORT" --device=cpu "${args[@]}" >"$RUN_OUT" 2>"$RUN_ERR") || STATUS=$?
        [ "$STATUS" -eq "$want" ] || fail "$what: gpusort exited $STATUS ($want expected); stderr: $(cat "$RUN_ERR")"
        dir_empty tdir "$what"
        (target_check) || fail "$what: the -o target or its directory is not as before (see above)"
        rm -rf "$TARGET_DIR"
    done
done
