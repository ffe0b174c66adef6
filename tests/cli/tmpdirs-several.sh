#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tmpdirs-several.sh: several -T spread the spilled runs over every directory, as
# sort does (each new run in the next directory), for bare numbers, records and
# -m's passes; the result is the same, and every directory is left empty. The
# creations under each directory are counted by tests/tools/faultfs.so
# (GS_FAULT_REPORT).
case ${GSREC:-} in '' | /*) ;; *) GSREC=$PWD/$GSREC ;; esac
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/cli/extlib.sh
. "$srcdir/extlib.sh"
need_faultfs
need_gsrec

mkdir t1 t2 t3
"$GSGEN" -n 400000 -s 4801 >nums.txt
oracle nums.txt >exp-nums
"$GSREC" -s 4802 -n 100000 >rows.csv
LC_ALL=C sort -t, -k2,2n rows.csv >exp-rows

# spread WHAT EXPECTED N GPUSORT-ARG...: gpusort -T t1 ... -T tN ARGS, once for each
# directory counted: the output is EXPECTED, and each directory took at least one
# file of the run's creations, and is empty again. (Records spill into one file a
# thread, --parallel=2: two directories.)
spread() {
    local what=$1 exp=$2 n=$3 d creates dirs=() i
    shift 3
    for ((i = 1; i <= n; i++)); do dirs+=(-T "t$i"); done
    for ((i = 1; i <= n; i++)); do
        d=t$i
        rm -f report.txt
        STATUS=0
        env LD_PRELOAD="$FAULT_PRELOAD" GS_FAULT_DIR="$test_dir/$d" \
            GS_FAULT_REPORT="$test_dir/report.txt" \
            "$GPUSORT" --device=cpu --parallel=2 "${dirs[@]}" "$@" >got 2>"$RUN_ERR" || STATUS=$?
        [ "$STATUS" -eq 0 ] && [ ! -s "$RUN_ERR" ] || fail "$what: exited $STATUS: $(cat "$RUN_ERR")"
        same "$exp" got "$what"
        read -r _ creates _ < report.txt
        [ "$creates" -ge 1 ] || fail "$what: no temporary file was made in $d"
        dir_empty "$d" "$what"
    done
}
spread "bare numbers spilled" exp-nums 3 -S 1M nums.txt
spread "records spilled" exp-rows 2 -S 1M -t, -k2,2n rows.csv
split -l 1000 exp-nums part.
(ulimit -n 32 && spread "-m of 400 inputs in passes, ulimit -n 32" exp-nums 3 -m part.*) || exit 1

# A later -T does not silently replace an earlier one: a directory that is missing
# is named, whichever place it has.
expect_error 2 "^cannot create a temporary file in 'missing': No such file or directory$" -- \
    "$GPUSORT" --device=cpu -S 1M -T t1 -T missing nums.txt
