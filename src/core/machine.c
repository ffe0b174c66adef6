/* SPDX-License-Identifier: MIT */
/* machine.c: the memory and CPUs this process may use (see machine.h). */
#include <config.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/machine.h"

uint64_t machine_physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return 1ull << 30;
    return (uint64_t)pages * (uint64_t)size;
}

/* ---- cgroups --------------------------------------------------------------------- */

/* Called for each directory of the process's cgroup, from its own group up to the
 * root of the hierarchy; v2: the unified hierarchy, else v1's. */
typedef void (*cgroup_fn)(const char *dir, int v2, void *arg);

/* fn for each group of the process's cgroup in the v2 hierarchy and in the v1
 * hierarchy that holds the controller v1_controller (as /proc/self/cgroup lists
 * them: "0::/path" and "N:cpu,cpuacct:/path"). */
static void machine_cgroup_each(const char *v1_controller, cgroup_fn fn, void *arg)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return;
    char line[4096], dir[4400];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *list = strchr(line, ':'), *group = list ? strchr(list + 1, ':') : NULL;
        if (!group)
            continue;
        *group++ = '\0';
        list++;
        int v2 = *list == '\0';
        size_t root;
        if (v2) {
            snprintf(dir, sizeof dir, "/sys/fs/cgroup");
        } else {
            /* v1: the controller among the hierarchy's, mounted under their names */
            char copy[256];
            snprintf(copy, sizeof copy, "%s", list);
            int found = 0;
            for (char *save, *c = strtok_r(copy, ",", &save); c; c = strtok_r(NULL, ",", &save))
                found |= strcmp(c, v1_controller) == 0;
            if (!found)
                continue;
            snprintf(dir, sizeof dir, "/sys/fs/cgroup/%s", list);
        }
        root = strlen(dir);
        snprintf(dir + root, sizeof dir - root, "%s", strcmp(group, "/") == 0 ? "" : group);
        for (;;) {
            fn(dir, v2, arg);
            char *slash = strrchr(dir, '/');
            if (strlen(dir) <= root || !slash || (size_t)(slash - dir) < root)
                break;
            *slash = '\0';
        }
    }
    fclose(f);
}

/* The first integer of dir/file into *v: 1 if there is one ("max" is none). */
static int machine_read_i64(const char *dir, const char *file, long long *v)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fscanf(f, "%lld", v) == 1;
    fclose(f);
    return ok;
}

static void machine_memory_of(const char *dir, int v2, void *arg)
{
    uint64_t *limit = arg;
    long long v;
    if (machine_read_i64(dir, v2 ? "memory.max" : "memory.limit_in_bytes", &v) && v > 0 &&
        (uint64_t)v < *limit)
        *limit = (uint64_t)v;
}

uint64_t machine_cgroup_memory(void)
{
    uint64_t limit = UINT64_MAX;
    machine_cgroup_each("memory", machine_memory_of, &limit);
    return limit;
}

/* The CPUs a group's quota allows (quota over period, rounded up), the least so far
 * kept in *arg. v2's cpu.max is "QUOTA PERIOD" or "max PERIOD"; v1's quota is -1
 * where there is none. */
static void machine_cpus_of(const char *dir, int v2, void *arg)
{
    int *cpus = arg;
    long long quota = -1, period = 0;
    if (v2) {
        char path[4600];
        snprintf(path, sizeof path, "%s/cpu.max", dir);
        FILE *f = fopen(path, "r");
        if (!f)
            return;
        if (fscanf(f, "%lld %lld", &quota, &period) != 2)
            quota = -1;   /* "max": no quota */
        fclose(f);
    } else if (!machine_read_i64(dir, "cpu.cfs_quota_us", &quota) ||
               !machine_read_i64(dir, "cpu.cfs_period_us", &period)) {
        return;
    }
    if (quota <= 0 || period <= 0)
        return;
    long long n = (quota + period - 1) / period;
    if (n < *cpus)
        *cpus = (int)n;
}

int machine_cpus(void)
{
    int n = 0;
    for (size_t size = 1024; size <= 1 << 20 && n == 0; size *= 2) {
        cpu_set_t *set = CPU_ALLOC(size);
        if (!set)
            break;
        size_t bytes = CPU_ALLOC_SIZE(size);
        if (sched_getaffinity(0, bytes, set) == 0)
            n = CPU_COUNT_S(bytes, set);
        CPU_FREE(set);
        if (n == 0 && errno != EINVAL)
            break;   /* EINVAL: the mask is larger than size CPUs: try a larger one */
    }
    if (n < 1) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        n = online < 1 ? 1 : (online > (1 << 20) ? 1 << 20 : (int)online);
    }
    machine_cgroup_each("cpu", machine_cpus_of, &n);
    return n < 1 ? 1 : n;
}

uint64_t machine_address_space_left(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    unsigned long long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%llu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    long ps = sysconf(_SC_PAGESIZE);
    uint64_t used = (uint64_t)pages * (uint64_t)(ps > 0 ? ps : 4096);
    return (uint64_t)rl.rlim_cur > used ? (uint64_t)rl.rlim_cur - used : 0;
}
