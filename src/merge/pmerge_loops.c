/* SPDX-License-Identifier: MIT */
/* pmerge_loops.c: one piece of the parallel merge (see pmerge.h): every source's
 * keys in the piece's range, merged into the thread's batch, which pm_flush() hands
 * on as it fills. Few sources go through a tree of two-way merges, many through a
 * loser tree; both are written once for each key width, so the tight loops know it.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/keys.h"
#include "merge/pmerge_impl.h"

/* Append key to the batch, flushing it when full. */
static int pm_emit(pm_thread_t *t, uint64_t key)
{
    if (t->j->width == 4)
        ((uint32_t *)t->batch)[t->nb++] = (uint32_t)key;
    else
        ((uint64_t *)t->batch)[t->nb++] = key;
    return t->nb == PM_BATCH ? pm_flush(t) : GS_OK;
}

/* The winner is a done source, but u64 sources may still hold keys equal to
 * PM_SENT (the largest key), which tie with it: emit them all. */
static int pm_drain_max(pm_thread_t *t, int has_hi, uint64_t hi)
{
    int rc = GS_OK;
    for (int i = 0; i < t->j->nruns && rc == GS_OK; i++) {
        while (!t->done[i] && rc == GS_OK) {
            for (const char *c = t->cur[i]; c < t->end[i] && rc == GS_OK; c += 8)
                rc = pm_emit(t, *(const uint64_t *)c);
            uint64_t k;
            if (rc == GS_OK)
                rc = pm_refill(t, i, has_hi, hi, &k);
        }
    }
    return rc;
}

/* Merge the piece: the tight loop, for keys of width w (a constant where it is
 * called, so each width gets its own code). */
static inline __attribute__((always_inline)) int pm_merge(pm_thread_t *t, int has_hi,
                                                          uint64_t hi, const int w)
{
    pm_job_t *j = t->j;
    const int k = j->nruns;
    for (int i = 0; i < k; i++)
        t->tree.key[i] = t->done[i] ? PM_SENT : (w == 4 ? *(const uint32_t *)t->cur[i]
                                                        : *(const uint64_t *)t->cur[i]);
    uint64_t key;
    int s = ltree_build(&t->tree, &key, NULL, NULL);
    const ltree_t tree = t->tree;   /* its arrays and k in registers, not reloaded after
                                       every store to the batch */
    int rc = GS_OK;
    size_t nb = t->nb;
    for (;;) {
        if (key == PM_SENT && t->done[s]) {
            t->nb = nb;
            if (w == 8)
                rc = pm_drain_max(t, has_hi, hi);
            return rc;
        }
        if (w == 4)
            ((uint32_t *)t->batch)[nb++] = (uint32_t)key;
        else
            ((uint64_t *)t->batch)[nb++] = key;
        if (nb == PM_BATCH) {
            t->nb = nb;
            rc = pm_flush(t);
            nb = t->nb;
            if (rc || pieces_failed(&j->P))
                return rc;
        }
        const char *c = t->cur[s] + w;
        if (c < t->end[s]) {
            t->cur[s] = c;
            key = w == 4 ? *(const uint32_t *)c : *(const uint64_t *)c;
        } else if ((rc = pm_refill(t, s, has_hi, hi, &key)) != GS_OK) {
            t->nb = nb;
            return rc;
        }
        s = ltree_replay(&tree, s, &key, NULL, NULL);
    }
}

/* ---- the tree of two-way merges (up to PM_TREE_MAX runs) --------------------------
 *
 * The loser tree's replay is one chain of dependent loads and compares per key, a
 * level at a time; a two-way merge's step is a compare and two pointer moves. So for
 * few runs, each inner node of a binary tree merges its two children's keys into a
 * buffer of its own, a stretch at a time, and the root merges into the batch: every
 * step of every stretch branch-free and sure of its bounds (no sentinel keys). */

static int pt_more(pm_thread_t *t, int v, int has_hi, uint64_t hi, int w);

/* Merge node v's two children into [o, oe) until it is full or both are finished;
 * *end: the end of the keys merged. */
static inline __attribute__((always_inline)) int pt_merge2(pm_thread_t *t, int v, char *o,
                                                           char *oe, char **end, int has_hi,
                                                           uint64_t hi, const int w)
{
    const int a = 2 * v, b = 2 * v + 1;
    const char **hd = t->hd, **tl = t->tl;
    int rc = GS_OK;
    while (o < oe) {
        if (hd[a] == tl[a] && !t->fin[a] && (rc = pt_more(t, a, has_hi, hi, w)) != GS_OK)
            break;
        if (hd[b] == tl[b] && !t->fin[b] && (rc = pt_more(t, b, has_hi, hi, w)) != GS_OK)
            break;
        size_t na = (size_t)(tl[a] - hd[a]) / w, nb = (size_t)(tl[b] - hd[b]) / w;
        size_t room = (size_t)(oe - o) / w;
        if (na == 0 || nb == 0) {
            /* A child is finished (pt_more left it so): the other's keys as they are. */
            int c = na ? a : b;
            size_t m = na ? na : nb;
            if (m == 0)
                break;   /* both finished */
            if (m > room)
                m = room;
            memcpy(o, hd[c], m * w);
            hd[c] += m * w;
            o += m * w;
            continue;
        }
        /* m steps take m keys, none of them past either child's end. */
        size_t m = na < nb ? na : nb;
        if (m > room)
            m = room;
        const char *x = hd[a], *y = hd[b];
        for (size_t i = 0; i < m; i++) {
            uint64_t kx = key_get(x, 0, w), ky = key_get(y, 0, w);
            int ty = ky < kx;
            uint64_t key = ty ? ky : kx;
            if (w == 4)
                ((uint32_t *)o)[i] = (uint32_t)key;
            else
                ((uint64_t *)o)[i] = key;
            x += (size_t)!ty * w;
            y += (size_t)ty * w;
        }
        hd[a] = x;
        hd[b] = y;
        o += m * w;
    }
    *end = o;
    return rc;
}

/* Node v has no keys at hand and is not finished: a source takes its next batch,
 * an inner node merges its children into its buffer. Either has keys at hand after,
 * or is finished. */
static int pt_more(pm_thread_t *t, int v, int has_hi, uint64_t hi, int w)
{
    int rc;
    if (v >= t->K) {
        int i = v - t->K;
        uint64_t key;
        if ((rc = pm_refill(t, i, has_hi, hi, &key)) != GS_OK)
            return rc;
        if (t->done[i]) {
            t->hd[v] = t->tl[v] = NULL;
            t->fin[v] = 1;
        } else {
            t->hd[v] = t->cur[i];
            t->tl[v] = t->end[i];
        }
        return GS_OK;
    }
    char *buf = t->nodes + (size_t)v * PM_NODE_KEYS * (size_t)w, *end;
    char *full = buf + PM_NODE_KEYS * (size_t)w;
    rc = w == 4 ? pt_merge2(t, v, buf, full, &end, has_hi, hi, 4)
                : pt_merge2(t, v, buf, full, &end, has_hi, hi, 8);
    t->hd[v] = buf;
    t->tl[v] = end;
    t->fin[v] = end < full;   /* short only where both children are finished */
    return rc;
}

/* Merge the piece through the tree, into the batch, flushing it as it fills. */
static int pm_tree(pm_thread_t *t, int has_hi, uint64_t hi, const int w)
{
    pm_job_t *j = t->j;
    for (int v = 1; v < t->K; v++) {
        t->hd[v] = t->tl[v] = NULL;
        t->fin[v] = 0;
    }
    for (int i = 0; i < t->K; i++) {
        int live = i < j->nruns && !t->done[i];
        t->hd[t->K + i] = live ? t->cur[i] : NULL;
        t->tl[t->K + i] = live ? t->end[i] : NULL;
        t->fin[t->K + i] = !live;
    }
    char *batch = t->batch, *full = batch + PM_BATCH * (size_t)w;
    for (;;) {
        char *end;
        int rc = pt_merge2(t, 1, batch + t->nb * (size_t)w, full, &end, has_hi, hi, w);
        t->nb = (size_t)(end - batch) / (size_t)w;
        if (rc || end < full)
            return rc;   /* finished, or failed */
        if ((rc = pm_flush(t)) != GS_OK || pieces_failed(&j->P))
            return rc;
    }
}

int pm_merge_piece(pm_thread_t *t, int has_hi, uint64_t hi)
{
    if (t->K)
        return t->j->width == 4 ? pm_tree(t, has_hi, hi, 4) : pm_tree(t, has_hi, hi, 8);
    return t->j->width == 4 ? pm_merge(t, has_hi, hi, 4) : pm_merge(t, has_hi, hi, 8);
}
