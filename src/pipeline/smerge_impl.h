/* SPDX-License-Identifier: MIT */
/* smerge_impl.h: the cut of the merge by sorting (smerge_cut.c), for smerge.c. Not
 * for other modules: their interface is smerge.h.
 */
#ifndef GS_SMERGE_IMPL_H
#define GS_SMERGE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline/smerge.h"

/* The runs as the cut sees them: memory arrays (smerge_cut), or runs, some of
 * them spilled, read through the main thread's block buffers. */
typedef struct {
    run_t **runs;            /* NULL: keys[] below */
    const void *const *keys; /* [nruns] memory arrays, when runs is NULL */
    const size_t *n;         /* [nruns] keys in each */
    const uint64_t *last;    /* [nruns] each run's last key (n > 0) */
    uint64_t *head;          /* [nruns] each run's key at pos, set by the cut */
    int width;
    void *buffers;           /* run_cursor_bytes(width), for spilled runs */
    int rc;                  /* the first read error */
} sm_view_t;

/* smerge_cut() over a view; a read error leaves v->rc set (the cut is then void). */
size_t sm_cut(sm_view_t *v, int nruns, const size_t *pos, size_t cap, size_t *end,
              int *same);

#endif
