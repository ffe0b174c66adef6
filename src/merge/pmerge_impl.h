/* SPDX-License-Identifier: MIT */
/* pmerge_impl.h: the parallel merge's state, shared by its parts: pmerge.c (pieces,
 * the sink), pmerge_loops.c (merging one piece) and pmerge_layout.c (the
 * layout of a placed merge). Not for other modules: their interface is pmerge.h.
 */
#ifndef GS_PMERGE_IMPL_H
#define GS_PMERGE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/tuning.h"
#include "io/pieces.h"
#include "merge/ltree.h"
#include "merge/pmerge.h"

typedef struct {
    run_t **runs;
    int nruns, width, unique;
    const pmerge_sink_t *sink;
    uint64_t *split;         /* [npieces - 1] splitter keys, ascending, distinct */
    size_t npieces;
    size_t hold;             /* bytes a thread may hold before its turn */
    size_t next;             /* the next piece to take (atomic) */
    pieces_t P;              /* where the merged bytes go; the first error */
    uint64_t *off;           /* laid out: [npieces + 1] where each piece's bytes start */
} pm_job_t;

/* A source whose runs are done holds this key; a u64 key of this value is told
 * apart by done[]. */
#define PM_SENT UINT64_MAX

/* One thread's state. Each source (run) is read through its cursor, one batch at a
 * time, the batch cut at the piece's upper bound; cur[i] points at its head key.
 * The loser tree (ltree.h) keeps keys in its nodes, so a replay reads no source's
 * memory. */
typedef struct {
    pm_job_t *j;
    run_cursor_t **cur_run;  /* [nruns] */
    const char **cur, **end; /* [nruns] head key, and the end of its batch */
    unsigned char *last;     /* [nruns] 1: the batch is the source's last */
    unsigned char *done;     /* [nruns] 1: the source is exhausted (key PM_SENT) */
    ltree_t tree;            /* many sources: the loser tree over them */
    void *batch;             /* PM_BATCH keys */
    size_t nb;
    piece_t w;               /* the thread's window on the pieces */
    int have_last;           /* -u: a key was kept in this piece */
    uint64_t last_key;
    /* the tree of two-way merges (pm_tree): nodes 1..K-1 inner, K..2K-1 the sources
     * (K: nruns rounded up to a power of two, at least 2) */
    int K;
    const char **hd, **tl;   /* [2K] each node's keys at hand: [hd, tl) */
    unsigned char *fin;      /* [2K] 1: the node has no keys beyond those at hand */
    char *nodes;             /* [K][PM_NODE_KEYS] inner nodes' buffers */
} pm_thread_t;

/* pmerge.c: the thread's batch of merged keys into its window (see there). */
int pm_flush(pm_thread_t *t);

/* pmerge.c: source i's next batch, cut at hi when has_hi: *key its first key, or
 * PM_SENT and done[i] when the source has no more keys below hi. */
int pm_refill(pm_thread_t *t, int i, int has_hi, uint64_t hi, uint64_t *key);

/* pmerge_loops.c: merge the piece (keys below hi, where has_hi) of every source
 * into the thread's batches, through the tree of two-way merges where t->K is set,
 * else the loser tree. */
int pm_merge_piece(pm_thread_t *t, int has_hi, uint64_t hi);

/* pmerge_layout.c: lay the keys out: j->off, each piece's bytes in the sink's
 * output. GS_OK or an error. */
int pm_layout(pm_job_t *j, pool_t *pool);

#endif
