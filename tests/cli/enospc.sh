#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# enospc.sh: a full (or failing) disk under -T (spilled runs, merge passes, -m's
# passes) or under the -o directory is an error: exit 2, one message naming the
# cause, no temporary left, the -o target untouched.
# The faults come from tests/tools/faultfs.so (LD_PRELOAD): after GS_FAULT_WRITE_AFTER
# bytes written under GS_FAULT_DIR, writes there fail with GS_FAULT_ERRNO.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_faultfs

# 1M u32 keys (4 MB) against -S 1M: eight runs of 128 Ki keys spill (about 4 MB
# uncompressed), then merge passes write more runs, then the output (10.8 MB of
# text).
"$GSGEN" -t u32 -n 1000000 -s 701 >in.txt
LC_ALL=C sort -n in.txt >exp.txt
# Records (lines by a field): 4.1 MB of CSV against -S 1M spill about as much.
"$GSREC" -s 709 -n 200000 -t u32 -w 8 >rec.csv
# Records in more runs than one merge reads at -S 1M (25): merged in passes, which
# write as much again after the first spill.
"$GSREC" -s 719 -n 600000 -t u32 -w 40 >recbig.csv
recbig=$(wc -c <recbig.csv)
mkdir tdir full
# 40 sorted inputs for -m under ulimit -n 16: merged in passes through temporaries.
sorted=()
for i in $(seq 1 40); do
    "$GSGEN" -t u32 -n 5000 -s "$((710 + i))" -d sorted >"s$i.txt"
    sorted+=("s$i.txt")
done

# faulty DIR AFTER ERRNO GPUSORT-ARG...: run gpusort with the shim.
faulty() {
    local dir=$1 after=$2 err=$3
    shift 3
    run_cmd env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR="$dir" GS_FAULT_WRITE_AFTER="$after" \
        GS_FAULT_ERRNO="$err" "$GPUSORT" "$@"
}

# The shim is loaded and harmless while the limit is not reached, and it touches no
# other directory: both sorts succeed.
faulty full 1000000000000 ENOSPC --type=u32 -S 1M -T full --compress-temp=none -o "$test_dir/ok.txt" in.txt
[ "$STATUS" -eq 0 ] || fail "with the shim and no fault: exited $STATUS: $(cat "$RUN_ERR")"
same exp.txt ok.txt "with the shim and no fault"
faulty full 0 ENOSPC --type=u32 -S 1M -T tdir --compress-temp=none -o "$test_dir/ok.txt" in.txt
[ "$STATUS" -eq 0 ] || fail "a fault outside -T and -o broke the sort: exited $STATUS: $(cat "$RUN_ERR")"
dir_empty tdir "no fault"
dir_empty full "no fault"
rm ok.txt

# refused DIR WHAT: the run just made failed as on a full disk: exit 2, nothing on
# standard output, the message of $text, the -o target untouched, nothing left in
# DIR (the -T directory); then the target's directory goes.
refused() {
    [ "$STATUS" -eq 2 ] || fail "$2: exited $STATUS (2 expected); stderr: $(cat "$RUN_ERR")"
    empty "$RUN_OUT" "stdout ($2)"
    check_msg "$RUN_ERR" "$text\$" no
    target_check
    dir_empty "$1" "$2"
    rm -rf "$TARGET_DIR"
}

for err in ENOSPC EIO; do
    case $err in
        ENOSPC) text='No space left on device' ;;
        EIO) text='Input/output error' ;;
    esac

    # -T is full: at the first spill (0), during the first spills (100000), during
    # the merge passes (6000000, past the ~4 MB of first spills).
    for after in 0 100000 6000000; do
        for c in none lz4; do
            what="$err after $after bytes in -T (--compress-temp=$c)"
            target_init
            faulty full "$after" "$err" --type=u32 -S 1M -T full --compress-temp="$c" -o "$TARGET" in.txt
            refused full "$what"
        done
    done

    # The -o directory is full (-T elsewhere): at its first byte, and midway. With
    # two threads the merge places its output (pmerge.h), the space asked for
    # whole by fallocate, refused at any limit below it; with one thread the
    # output goes out by write, which fails midway.
    for case in "2 0" "2 1000000" "1 1000000"; do
        read -r par after <<<"$case"
        what="$err after $after bytes in the -o directory, --parallel=$par"
        target_init
        faulty "$TARGET_DIR" "$after" "$err" --type=u32 -S 1M -T tdir --parallel="$par" -o "$TARGET" in.txt
        refused tdir "$what"
    done

    # The -o directory is full and the sort is in memory (one chunk). With two
    # threads the 10.8 MB of text go out mapped, their space asked for whole by
    # fallocate, which the shim refuses as a full disk would, at any limit below
    # it; with one thread they go out by write, which fails midway.
    for case in "2 0" "2 9000000" "1 1000000"; do
        read -r par after <<<"$case"
        what="$err after $after bytes in the -o directory, in memory, --parallel=$par"
        target_init
        faulty "$TARGET_DIR" "$after" "$err" --type=u32 --parallel="$par" -T tdir -o "$TARGET" in.txt
        refused tdir "$what"
    done

    # Records: -T is full while their runs spill (each round written in order by
    # the spill's writer): at once, and midway; the -o directory is full, for the merge of the spilled
    # runs and for records sorted in memory (placed, the space asked for whole).
    for case in "T 0 1M" "T 2000000 1M" "o 0 1M" "o 0 1G" "o 2000000 1G"; do
        read -r where after mem <<<"$case"
        what="$err after $after bytes in the -$where directory, records, -S $mem"
        target_init
        if [ "$where" = T ]; then
            faulty full "$after" "$err" -t, -k2,2 --parallel=2 -S "$mem" -T full -o "$TARGET" rec.csv
            refused full "$what"
        else
            faulty "$TARGET_DIR" "$after" "$err" -t, -k2,2 --parallel=2 -S "$mem" -T tdir \
                -o "$TARGET" rec.csv
            refused tdir "$what"
        fi
    done

    # Records' merge passes write to a full -T: past the first spill's bytes (the
    # input's and the blocks' heads, uncompressed).
    what="$err in -T during records' merge passes"
    target_init
    faulty full "$((recbig + 1000000))" "$err" --stats -t, -k2,2 --parallel=2 -S 1M -T full \
        --compress-temp=none -o "$TARGET" recbig.csv
    grep -v '^gpusort: stats: ' "$RUN_ERR" >err.only || true
    [ "$STATUS" -eq 2 ] || fail "$what: exited $STATUS (2 expected); stderr: $(cat "$RUN_ERR")"
    empty "$RUN_OUT" "stdout ($what)"
    check_msg err.only "$text\$" no
    target_check
    dir_empty full "$what"
    rm -rf "$TARGET_DIR"

    # -m's passes write their temporaries to a full -T: at once, and midway.
    for after in 0 200000; do
        what="$err after $after bytes in -T during -m's passes"
        target_init
        STATUS=0
        (ulimit -n 16 && exec env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR=full \
            GS_FAULT_WRITE_AFTER="$after" GS_FAULT_ERRNO="$err" \
            "$GPUSORT" -m --type=u32 -T full -o "$TARGET" "${sorted[@]}" >"$RUN_OUT" 2>"$RUN_ERR") \
            || STATUS=$?
        refused full "$what"
    done

    # Standard output on a full disk: an error too (what was written stays: the
    # shell, not gpusort, made the file).
    STATUS=0
    env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR=full GS_FAULT_WRITE_AFTER=1000000 GS_FAULT_ERRNO="$err" \
        "$GPUSORT" --type=u32 -S 1M -T tdir in.txt >full/stdout.txt 2>"$RUN_ERR" || STATUS=$?
    [ "$STATUS" -eq 2 ] || fail "$err on standard output: exited $STATUS (2 expected); stderr: $(cat "$RUN_ERR")"
    check_msg "$RUN_ERR" "$text\$" no
    dir_empty tdir "$err on standard output"
    rm -f full/stdout.txt
done
