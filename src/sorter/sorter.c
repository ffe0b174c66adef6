/* SPDX-License-Identifier: MIT */
/* sorter.c: the chunk-sorter interface over a backend's operations (sorter.h). */
#include <config.h>

#include <stddef.h>

#include "core/error.h"
#include "sorter/backend.h"

const char *sorter_name(const sorter_t *s)
{
    return s->name;
}

const sorter_caps_t *sorter_caps(const sorter_t *s)
{
    return &s->caps;
}

int sorter_grow(sorter_t *s, size_t keys)
{
    return s->ops->grow ? s->ops->grow(s, keys) : GS_OK;
}

int sorter_sort(sorter_t *s, sort_job_t *job)
{
    job->in_scratch = 0;
    if (job->n < 2)
        return GS_OK;
    return s->ops->sort(s, job);
}

int sorter_sort_index(sorter_t *s, const uint64_t *keys, uint32_t *perm, size_t n, int *done)
{
    *done = 0;
    return s->ops->sort_index ? s->ops->sort_index(s, keys, perm, n, done) : GS_OK;
}

int sorter_stream_load(sorter_t *s, size_t n, const sorter_stream_t *st, size_t *loaded,
                       int *done)
{
    *loaded = 0;
    *done = 0;
    return s->ops->stream_load ? s->ops->stream_load(s, n, st, loaded, done) : GS_OK;
}

int sorter_stream_sort(sorter_t *s, const sorter_stream_t *st)
{
    return s->ops->stream_sort(s, st);
}

int sorter_submit(sorter_t *s, sort_job_t *job)
{
    job->in_scratch = 0;
    if (s->ops->submit)
        return s->ops->submit(s, job);
    /* No engine of its own: sorted here, the result kept for sorter_wait(). */
    s->held_rc = sorter_sort(s, job);
    return 0;
}

int sorter_wait(sorter_t *s)
{
    if (s->ops->submit)
        return s->ops->wait(s);
    return s->held_rc;
}

int sorter_pin(sorter_t *s, void *buf, size_t bytes)
{
    return s->ops->pin ? s->ops->pin(s, buf, bytes) : 0;
}

void sorter_unpin(sorter_t *s, void *buf)
{
    if (s->ops->unpin)
        s->ops->unpin(s, buf);
}

void sorter_release(sorter_t *s)
{
    if (s && s->ops->release)
        s->ops->release(s);
}

void sorter_report(sorter_t *s)
{
    if (s->ops->report)
        s->ops->report(s);
}

int sorter_use(sorter_t *s, sorter_use_t *u)
{
    *u = (sorter_use_t){ .gpus_found = -1 };
    return s->ops->use ? s->ops->use(s, u) : 0;
}

void sorter_destroy(sorter_t *s)
{
    if (s)
        s->ops->destroy(s);
}
