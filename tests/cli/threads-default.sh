#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# threads-default.sh: by default gpusort uses the CPUs it may run on: those of its
# affinity mask (taskset, as nproc counts them), and no more than its cgroup's CPU
# quota allows (rounded up). --parallel overrides both. The count is the one
# --stats reports. Parts skip where taskset or a CPU cgroup cannot be had.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

seq 100000 -1 1 >in.txt
oracle in.txt >exp.txt

# threads_of CMD...: the thread count --stats reports for CMD (a gpusort run).
threads_of() {
    "$@" --device=cpu --stats -o out.txt in.txt 2>stats.txt || fail "$* failed: $(cat stats.txt)"
    same exp.txt out.txt "$*"
    sed -n 's/^gpusort: stats: device cpu (cpu radix, \([0-9]*\) threads.*/\1/p' stats.txt
}

cpus=$(nproc)
[ "$(threads_of "$GPUSORT")" = "$cpus" ] || fail "default threads $(threads_of "$GPUSORT"), nproc says $cpus"
[ "$(threads_of "$GPUSORT" --parallel=3)" = 3 ] || fail "--parallel=3 not obeyed"

if command -v taskset >/dev/null 2>&1; then
    [ "$(threads_of taskset -c 0 "$GPUSORT")" = 1 ] || fail "taskset -c 0: $(threads_of taskset -c 0 "$GPUSORT") threads"
    if [ "$cpus" -ge 2 ]; then
        [ "$(threads_of taskset -c 0,1 "$GPUSORT")" = 2 ] ||
            fail "taskset -c 0,1: $(threads_of taskset -c 0,1 "$GPUSORT") threads"
    fi
    [ "$(threads_of taskset -c 0 "$GPUSORT" --parallel=4)" = 4 ] || fail "--parallel=4 under taskset not obeyed"
else
    echo "threads-default.sh: no taskset: the affinity part skipped" >&2
fi

# A CPU quota of half a CPU: 1 thread; of one and a half: 2 (rounded up), where the
# machine has more than 2. v1's cpu hierarchy or v2's, as memory-cgroup.sh.
[ "$cpus" -ge 2 ] || { echo "threads-default.sh: one CPU: the quota part skipped" >&2; exit 0; }
group=
v1=$(sed -n 's/^[0-9]*:\([^:]*\<cpu\>[^:]*\):\(.*\)$/\1:\2/p' /proc/self/cgroup | head -n 1)
v2=$(sed -n 's/^0::\(.*\)$/\1/p' /proc/self/cgroup)
if [ -n "$v1" ] && [ -d "/sys/fs/cgroup/${v1%%:*}" ]; then
    base=/sys/fs/cgroup/${v1%%:*}${v1#*:}
    group=${base%/}/gpusort-test-$$
elif [ -n "$v2" ] && [ -f "/sys/fs/cgroup${v2%/}/cgroup.controllers" ]; then
    group=/sys/fs/cgroup${v2%/}/gpusort-test-$$
fi
if [ -z "$group" ] || ! mkdir "$group" 2>/dev/null; then
    echo "threads-default.sh: cannot make a CPU cgroup: the quota part skipped" >&2
    exit 0
fi
trap 'st=$?; rmdir "$group" 2>/dev/null; (exit "$st"); lib_cleanup' EXIT
set_quota() {   # QUOTA PERIOD (microseconds)
    if [ -f "$group/cpu.max" ]; then
        echo "$1 $2" >"$group/cpu.max"
    else
        echo "$2" >"$group/cpu.cfs_period_us" && echo "$1" >"$group/cpu.cfs_quota_us"
    fi
}
in_group() { bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$group" "$@"; }
set_quota 50000 100000 2>/dev/null || { echo "threads-default.sh: cannot set a CPU quota: skipped" >&2; exit 0; }
[ "$(threads_of in_group "$GPUSORT")" = 1 ] || fail "a quota of 0.5 CPUs: $(threads_of in_group "$GPUSORT") threads"
[ "$(threads_of in_group "$GPUSORT" --parallel=2)" = 2 ] || fail "--parallel=2 under a quota not obeyed"
if [ "$cpus" -ge 3 ]; then
    set_quota 150000 100000
    [ "$(threads_of in_group "$GPUSORT")" = 2 ] || fail "a quota of 1.5 CPUs: $(threads_of in_group "$GPUSORT") threads"
fi
