/* SPDX-License-Identifier: MIT */
/* pool.h: a fixed pool of worker threads that run one data-parallel job at a time.
 *
 * pool_run(p, fn, arg) calls fn(arg, i, n) once for each i in [0, n), n being the
 * pool's size, the caller running i = 0, and returns when all have returned. Jobs
 * do not nest. A pool of size 1 runs everything on the caller.
 */
#ifndef GS_POOL_H
#define GS_POOL_H

#include <stddef.h>

typedef struct pool pool_t;
typedef void (*pool_fn_t)(void *arg, int i, int n);

/* Create a pool of nthreads (>= 1) threads, the caller counting as one. */
int pool_create(pool_t **p, int nthreads);

/* The number of threads, the caller included. */
int pool_size(const pool_t *p);

/* Run fn over every thread of the pool and wait for all of them. */
void pool_run(pool_t *p, pool_fn_t fn, void *arg);

/* Thread t's share of n items when nt threads split them evenly: [*lo, *hi). */
static inline void pool_share(size_t n, int t, int nt, size_t *lo, size_t *hi)
{
    *lo = n * (size_t)t / (size_t)nt;
    *hi = n * (size_t)(t + 1) / (size_t)nt;
}

/* Stop and join the workers; NULL is a no-op. */
void pool_destroy(pool_t *p);

#endif
