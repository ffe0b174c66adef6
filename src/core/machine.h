/* SPDX-License-Identifier: MIT */
/* machine.h: what the machine gives this process: memory (physical, a cgroup's
 * limit, the address space left under `ulimit -v`) and CPUs (those it may run on,
 * within a cgroup's CPU quota). Read when the settings are resolved; each call reads
 * the system afresh.
 */
#ifndef GS_MACHINE_H
#define GS_MACHINE_H

#include <stdint.h>

/* Physical memory in bytes (1 GiB where it cannot be read). */
uint64_t machine_physical_memory(void);

/* The memory limit of the cgroup this process runs in (v2: memory.max of its group
 * and of every group above it; v1: memory.limit_in_bytes), or UINT64_MAX where there
 * is none or it cannot be read. */
uint64_t machine_cgroup_memory(void);

/* The address space left under RLIMIT_AS (`ulimit -v`): the limit less what the
 * process maps already; UINT64_MAX where there is no such limit. */
uint64_t machine_address_space_left(void);

/* The CPUs this process may use, at least 1: those of its affinity mask
 * (sched_getaffinity, as nproc counts them), or fewer where its cgroup's CPU quota
 * (v2: cpu.max, v1: cpu.cfs_quota_us over cpu.cfs_period_us, of its group and every
 * group above it) is less, rounded up. */
int machine_cpus(void);

#endif
