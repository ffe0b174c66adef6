/* SPDX-License-Identifier: MIT */
/* cpu.c: the CPU chunk sorter: the radix sort (radix.c) over the pool's threads. */
#include <config.h>

#include <stdlib.h>

#include "core/error.h"
#include "core/stats.h"
#include "sorter/backend.h"

typedef struct {
    sorter_t base;
    pool_t *pool;
} sorter_cpu_t;

static int sorter_cpu_sort(sorter_t *s, sort_job_t *job)
{
    sorter_cpu_t *c = (sorter_cpu_t *)s;
    double t0 = stats_now();
    void *res = radix_sort_cpu(c->pool, job->keys, job->scratch, job->n, job->width);
    if (!res)
        return err_set(GS_ENOMEM, "out of memory");
    job->in_scratch = res == job->scratch && res != job->keys;
    stats_add(ST_SORT, (uint64_t)job->n * (uint64_t)job->width, stats_now() - t0);
    return GS_OK;
}

static void sorter_cpu_destroy(sorter_t *s)
{
    free(s);
}

static const sorter_ops_t sorter_cpu_ops = {
    .sort = sorter_cpu_sort,
    .destroy = sorter_cpu_destroy,
};

int sorter_cpu_create(sorter_t **out, pool_t *pool)
{
    sorter_cpu_t *c = calloc(1, sizeof *c);
    if (!c)
        return err_set(GS_ENOMEM, "out of memory");
    c->base.ops = &sorter_cpu_ops;
    c->base.name = "cpu radix";
    c->pool = pool;
    *out = &c->base;
    return GS_OK;
}
