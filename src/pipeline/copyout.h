/* SPDX-License-Identifier: MIT */
/* copyout.h: a sorted chunk copied out of its pinned buffer in the background, front
 * to back, while the next chunk is read into the same buffer behind it.
 *
 * A GPU sorts a chunk in one of two pinned buffers while the other is filled; the
 * chunk sorted before must leave its buffer (for a run of its own, in fresh memory)
 * before the next chunk can be read into it. Copied first and read after, the two
 * take the sum of their times; here the copy runs on a job and a pool of its own,
 * a step at a time, and the reader waits only for the bytes it is about to
 * overwrite (copyout_wait_past). Where no thread can be had, the copy is made at
 * once, on the caller's thread: slower, never wrong.
 */
#ifndef GS_COPYOUT_H
#define GS_COPYOUT_H

#include <pthread.h>
#include <stddef.h>

#include "core/job.h"
#include "core/pool.h"

typedef struct {
    job_t job;
    pool_t *pool;            /* the copy's threads, made at the first copy */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    char *dst;               /* the copy under way, or NULL */
    const char *src;
    size_t bytes;
    size_t done;             /* bytes of it copied so far (under lock) */
    double busy_s;           /* the copy's time, from its start to its end */
} copyout_t;

/* Ready o; no thread is made yet. */
void copyout_init(copyout_t *o);

/* Begin copying src[0..bytes) to dst, with threads as many as pool has (a pool of
 * the copy's own). Any copy before is finished first. */
void copyout_start(copyout_t *o, const pool_t *like, void *dst, const void *src, size_t bytes);

/* 1 while p lies in the source of a copy not yet finished. */
int copyout_from(const copyout_t *o, const void *p);

/* Wait until the copy's source is copied up to p + len (p within it), so that those
 * bytes may be overwritten. */
void copyout_wait_past(copyout_t *o, const void *p, size_t len);

/* Wait for the copy, if any, to end; its seconds in *seconds. 1 where there was one. */
int copyout_finish(copyout_t *o, double *seconds);

/* Finish any copy, and free the threads. */
void copyout_end(copyout_t *o);

#endif
