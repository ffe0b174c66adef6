/* SPDX-License-Identifier: MIT */
/* copyout.c: a sorted chunk copied out in the background (see copyout.h). */
#include <config.h>

#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "core/stats.h"
#include "pipeline/copyout.h"

/* Bytes copied a step: each step's end is published to the reader waiting behind. */
#define COPYOUT_STEP ((size_t)64 << 20)

void copyout_init(copyout_t *o)
{
    memset(o, 0, sizeof *o);
    job_init(&o->job);
    pthread_mutex_init(&o->lock, NULL);
    pthread_cond_init(&o->cond, NULL);
}

static void copyout_job(void *arg)
{
    copyout_t *o = arg;
    double t0 = stats_now();
    for (size_t off = 0; off < o->bytes; off += COPYOUT_STEP) {
        size_t len = o->bytes - off < COPYOUT_STEP ? o->bytes - off : COPYOUT_STEP;
        mem_copy(o->pool, o->dst + off, o->src + off, len);
        pthread_mutex_lock(&o->lock);
        o->done = off + len;
        pthread_cond_broadcast(&o->cond);
        pthread_mutex_unlock(&o->lock);
    }
    o->busy_s = stats_now() - t0;
}

void copyout_start(copyout_t *o, const pool_t *like, void *dst, const void *src, size_t bytes)
{
    copyout_finish(o, NULL);
    if (!o->pool && pool_create(&o->pool, pool_size(like)) != GS_OK)
        o->pool = NULL;   /* mem_copy() then copies on the job's thread alone */
    o->dst = dst;
    o->src = src;
    o->bytes = bytes;
    o->done = 0;
    o->busy_s = 0;
    if (!o->pool || !job_try_post(&o->job, copyout_job, o))
        copyout_job(o);   /* no thread: copied now */
}

int copyout_from(const copyout_t *o, const void *p)
{
    return o->dst && (const char *)p >= o->src && (const char *)p < o->src + o->bytes;
}

void copyout_wait_past(copyout_t *o, const void *p, size_t len)
{
    if (!copyout_from(o, p))
        return;
    size_t upto = (size_t)((const char *)p - o->src) + len;
    if (upto > o->bytes)
        upto = o->bytes;
    pthread_mutex_lock(&o->lock);
    while (o->done < upto)
        pthread_cond_wait(&o->cond, &o->lock);
    pthread_mutex_unlock(&o->lock);
}

int copyout_finish(copyout_t *o, double *seconds)
{
    if (!o->dst)
        return 0;
    job_wait(&o->job);
    if (seconds)
        *seconds = o->busy_s;
    o->dst = NULL;
    o->src = NULL;
    o->bytes = o->done = 0;
    return 1;
}

void copyout_end(copyout_t *o)
{
    copyout_finish(o, NULL);
    job_end(&o->job);
    pool_destroy(o->pool);
    o->pool = NULL;
    pthread_mutex_destroy(&o->lock);
    pthread_cond_destroy(&o->cond);
}
