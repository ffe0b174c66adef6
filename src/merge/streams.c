/* SPDX-License-Identifier: MIT */
/* streams.c: -m and -c/-C over user inputs (see streams.h): one loser tree (ltree.h)
 * over the inputs, streaming block by block.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "merge/streams.h"
#include "merge/ltree.h"
#include "io/textnum.h"

/* ---- -m: streaming inputs ------------------------------------------------------------ */

typedef struct {
    kreader_t *r;
    const void *keys;        /* the current block */
    size_t n, pos;           /* its size, and the next key */
    uint64_t last;           /* the key taken last (0, the least, before the first) */
    unsigned char done;      /* 1: the input is read to its end */
    int width;
    double *io_s;            /* seconds reading blocks, added up (--stats: not the merge's) */
} msrc_t;

static int msrc_disorder(msrc_t *s, size_t i, uint64_t key, const keymap_t *km)
{
    char v[TN_MAX_LINE + 1];
    v[tn_format(key_map(km, key), km->type, v)] = '\0';
    return err_set(GS_EINPUT, "%s:%llu: disorder: %s", kreader_name(s->r),
                   (unsigned long long)kreader_position(s->r, i), v);
}

/* Move source s to its next key, reading a block if needed, and check its order:
 * *head the key, or UINT64_MAX and s->done at the input's end. */
static int msrc_advance(msrc_t *s, uint64_t *head, const keymap_t *km)
{
    if (s->pos == s->n) {
        double t0 = stats_now();
        int rc = kreader_next(s->r, &s->keys, &s->n);
        *s->io_s += stats_now() - t0;
        if (rc)
            return rc;
        s->pos = 0;
        if (s->n == 0) {
            s->done = 1;
            *head = UINT64_MAX;
            return GS_OK;
        }
    }
    uint64_t key = key_get(s->keys, s->pos, s->width);
    if (key < s->last)
        return msrc_disorder(s, s->pos, key, km);
    s->last = *head = key;
    s->pos++;
    return GS_OK;
}

/* The tie rule (ltree.h): an input not yet done before one that is; equal keys of
 * live inputs are the same bytes, in either order. */
static int msrc_tie(void *ctx, int a, int b)
{
    const msrc_t *src = ctx;
    return !src[a].done && src[b].done;
}

int merge_readers(kreader_t **readers, int n, int unique, const keymap_t *km,
                  output_t *out, merge_start_fn start, void *arg)
{
    int width = km->width;
    msrc_t *src = calloc((size_t)n + 1, sizeof *src);
    void *buf = malloc(STREAMS_OUT_KEYS * (size_t)width);
    ltree_t t;
    int rc = GS_OK;
    if (ltree_init(&t, n) || !src || !buf) {
        rc = err_set(GS_ENOMEM, "out of memory");
        goto out;
    }
    double io_s = 0, t0 = stats_now();
    uint64_t merged = 0;
    for (int i = 0; i < n && rc == GS_OK; i++) {
        src[i].r = readers[i];
        src[i].width = width;
        src[i].io_s = &io_s;
        rc = msrc_advance(&src[i], &t.key[i], km);
    }
    if (rc == GS_OK && start)
        rc = start(arg);
    if (rc)
        goto out;
    uint64_t key;
    int w = ltree_build(&t, &key, msrc_tie, src);
    size_t nb = 0;
    int have_last = 0;
    uint64_t last = 0;
    while (n > 0 && !src[w].done) {
        if (!unique || !have_last || key != last) {
            if (width == 4)
                ((uint32_t *)buf)[nb++] = (uint32_t)key;
            else
                ((uint64_t *)buf)[nb++] = key;
            if (nb == STREAMS_OUT_KEYS) {
                double w0 = stats_now();
                rc = output_write(out, buf, nb, 0);
                io_s += stats_now() - w0;
                if (rc)
                    goto out;
                merged += nb;
                nb = 0;
            }
            last = key;
            have_last = 1;
        }
        rc = msrc_advance(&src[w], &key, km);
        if (rc)
            goto out;
        w = ltree_replay(&t, w, &key, msrc_tie, src);
    }
    merged += nb;
    /* --stats: the loser tree's own time, the reading and the writing left out */
    stats_add(ST_MERGE, merged * (uint64_t)width, stats_now() - t0 - io_s);
    rc = output_write(out, buf, nb, 0);
out:
    ltree_free(&t);
    free(src);
    free(buf);
    return rc;
}

int merge_check(kreader_t *r, int width, int strict, uint64_t *pos, uint64_t *key)
{
    int have_last = 0;
    uint64_t last = 0;
    for (;;) {
        const void *keys;
        size_t n;
        int rc = kreader_next(r, &keys, &n);
        if (rc)
            return rc;
        if (n == 0)
            return GS_OK;
        for (size_t i = 0; i < n; i++) {
            uint64_t k = key_get(keys, i, width);
            if (have_last && (k < last || (strict && k == last))) {
                *pos = kreader_position(r, i);
                *key = k;
                return GS_EDISORDER;
            }
            last = k;
            have_last = 1;
        }
    }
}
