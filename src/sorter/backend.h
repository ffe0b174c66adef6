/* SPDX-License-Identifier: MIT */
/* backend.h: what a chunk-sorter backend fills in (cpu.c, cuda.c); sorter.c wraps
 * it in sorter.h's interface. Not for the pipeline: its interface is sorter.h.
 */
#ifndef GS_SORTER_BACKEND_H
#define GS_SORTER_BACKEND_H

#include "sorter/sorter.h"

typedef struct {
    int (*sort)(sorter_t *s, sort_job_t *job);
    /* NULL, or: begin job aside (1), or sort it here (0); wait() settles it. NULL:
     * sorter_submit() sorts here with sort(). */
    int (*submit)(sorter_t *s, sort_job_t *job);
    int (*wait)(sorter_t *s);
    int (*grow)(sorter_t *s, size_t keys);             /* NULL: nothing to get ready */
    /* NULL, or sorter.h's sorter_sort_index (which declines where this is NULL) */
    int (*sort_index)(sorter_t *s, const uint64_t *keys, uint32_t *perm, size_t n,
                      int *done);
    /* NULL (sorter_stream_load declines), or sorter.h's stream_load and stream_sort */
    int (*stream_load)(sorter_t *s, size_t n, const sorter_stream_t *st, size_t *loaded,
                       int *done);
    int (*stream_sort)(sorter_t *s, const sorter_stream_t *st);
    int (*pin)(sorter_t *s, void *buf, size_t bytes);  /* NULL: no pinning */
    void (*unpin)(sorter_t *s, void *buf);
    void (*release)(sorter_t *s);                      /* NULL: nothing to let go */
    void (*report)(sorter_t *s);                       /* NULL: nothing to say */
    int (*use)(sorter_t *s, sorter_use_t *u);          /* NULL: no GPU (sorter_use) */
    void (*destroy)(sorter_t *s);                      /* frees s */
} sorter_ops_t;

/* The head of every backend's object (its first member). */
struct sorter {
    const sorter_ops_t *ops;
    const char *name;
    sorter_caps_t caps;      /* kept up to date by the backend */
    int held_rc;             /* sorter.c: a job submitted and sorted here: its result */
};

#endif
