#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# memory-cgroup.sh: the default -S respects the memory limit of the cgroup gpusort
# runs in: 160 MB of text sorts in a group limited to 96 MiB (the runs spill),
# where a -S of half the machine's memory would be killed by the kernel.
# Needs a memory cgroup it may make (root, cgroup v1, or v2 with the memory
# controller delegated); skipped otherwise, and under the sanitizers, whose
# runtimes take memory of their own.
# shellcheck source=tests/cli/lib.sh
. "${srcdir:-$(dirname "$0")}/lib.sh"

[ -z "$SAN_NAME" ] || skip "memory limits are not measured under $SAN_NAME"

# A new group under ours, limited to 96 MiB: v1's memory hierarchy, or v2's.
limit=$((96 << 20))
group= limit_file=
v1=$(sed -n 's/^[0-9]*:memory:\(.*\)$/\1/p' /proc/self/cgroup)
v2=$(sed -n 's/^0::\(.*\)$/\1/p' /proc/self/cgroup)
if [ -n "$v1" ] && [ -d "/sys/fs/cgroup/memory$v1" ]; then
    group=/sys/fs/cgroup/memory${v1%/}/gpusort-test-$$
    limit_file=memory.limit_in_bytes
elif [ -n "$v2" ] && [ -f "/sys/fs/cgroup${v2%/}/cgroup.controllers" ]; then
    group=/sys/fs/cgroup${v2%/}/gpusort-test-$$
    limit_file=memory.max
fi
[ -n "$group" ] || skip "no memory cgroup found"
mkdir "$group" 2>/dev/null || skip "cannot make a cgroup under ${group%/*}"
# (lib.sh's cleanup after ours, given the test's status.)
trap 'st=$?; rmdir "$group" 2>/dev/null; (exit "$st"); lib_cleanup' EXIT
{ echo "$limit" >"$group/$limit_file"; } 2>/dev/null || skip "cannot limit the memory of $group"
[ "$(cat "$group/$limit_file")" = "$limit" ] || skip "the limit of $group did not take"

mkdir tdir
"$GSGEN" -n 16000000 -t u32 -s 2251 >in.txt
oracle in.txt >exp.txt
# in_group CMD...: CMD run inside the group (the shell moves itself, then execs).
in_group() {
    bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$group" "$@"
}
run_cmd in_group "$GPUSORT" --device=cpu --type=u32 -T tdir -o out.txt in.txt
[ "$STATUS" -eq 0 ] || fail "in a group of 96 MiB: exited $STATUS: $(cat "$RUN_ERR")"
same exp.txt out.txt "160 MB sorted in a group of 96 MiB"
[ -z "$(ls -A tdir)" ] || fail "temporaries left in tdir: $(ls -A tdir)"
