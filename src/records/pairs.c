/* SPDX-License-Identifier: MIT */
/* pairs.c: pairs sorted by key, stably (see pairs.h). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "records/pairs.h"

typedef struct {
    uint64_t *k, *v, *kt, *vt;   /* keys and values, and where a pass writes them */
    size_t n;
    int shift;
    size_t (*count)[256];        /* a thread's counts, then its places */
} pairs_job_t;

/* Each thread counts its slice, then scatters it to its own places in every
 * bucket. */
static void pairs_count(void *arg, int i, int nt)
{
    pairs_job_t *j = arg;
    size_t lo, hi;
    pool_share(j->n, i, nt, &lo, &hi);
    size_t *c = j->count[i];
    memset(c, 0, sizeof j->count[i]);
    for (size_t r = lo; r < hi; r++)
        c[(j->k[r] >> j->shift) & 0xFF]++;
}

static void pairs_scatter(void *arg, int i, int nt)
{
    pairs_job_t *j = arg;
    size_t lo, hi;
    pool_share(j->n, i, nt, &lo, &hi);
    size_t *at = j->count[i];
    for (size_t r = lo; r < hi; r++) {
        size_t d = at[(j->k[r] >> j->shift) & 0xFF]++;
        j->kt[d] = j->k[r];
        j->vt[d] = j->v[r];
    }
}

int rpairs_sort(pool_t *pool, uint64_t *k, uint64_t *v, uint64_t *kt, uint64_t *vt,
                size_t n)
{
    int nt = pool ? pool_size(pool) : 1;
    size_t one[1][256];
    pairs_job_t j = { .k = k, .v = v, .kt = kt, .vt = vt, .n = n,
                      .count = nt > 1 ? malloc(sizeof *j.count * (size_t)nt) : one };
    if (!j.count)
        return -1;
    uint64_t any = 0, all = ~0ull;
    for (size_t r = 0; r < n; r++) {
        any |= k[r];
        all &= k[r];
    }
    int swapped = 0;
    for (j.shift = 0; j.shift < 64; j.shift += 8) {
        if ((((any ^ all) >> j.shift) & 0xFF) == 0)
            continue;   /* a byte every key shares */
        if (nt > 1)
            pool_run(pool, pairs_count, &j);
        else
            pairs_count(&j, 0, 1);
        size_t place = 0;
        for (int d = 0; d < 256; d++)
            for (int i = 0; i < nt; i++) {
                size_t c = j.count[i][d];
                j.count[i][d] = place;
                place += c;
            }
        if (nt > 1)
            pool_run(pool, pairs_scatter, &j);
        else
            pairs_scatter(&j, 0, 1);
        uint64_t *x = j.k;
        j.k = j.kt;
        j.kt = x;
        x = j.v;
        j.v = j.vt;
        j.vt = x;
        swapped ^= 1;
    }
    if (j.count != one)
        free(j.count);
    return swapped;
}
