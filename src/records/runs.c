/* SPDX-License-Identifier: MIT */
/* runs.c: -m: a chunk's parts of the inputs taken as runs, merged or spilled (see
 * runs.h).
 */
#include <config.h>

#include <stdlib.h>

#include "core/error.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "merge/splitters.h"
#include "records/rmerge.h"
#include "records/runs.h"

/* The parts of a chunk: part j is table lines [first[j], end[j]). */
typedef struct {
    const rtable_t *t;
    size_t n;
    size_t *first, *end;
    uint64_t *size;        /* [n] their bytes */
} rparts_t;

/* A part's cursor: its line at hand. */
typedef struct {
    rcur_t c;
    size_t l, end;
} tcur_t;

/* Segment sg's records: table lines [*a, *z), its header left out; 0 where none. */
static int part_lines(const rseg_t *sg, size_t *a, size_t *z)
{
    *a = sg->first + (sg->header && sg->lines ? 1 : 0);
    *z = sg->first + sg->lines;
    return *a < *z;
}

static int parts_init(rparts_t *p, const rtable_t *t)
{
    size_t n = (size_t)t->nseg;
    *p = (rparts_t){ .t = t, .first = malloc((n ? n : 1) * sizeof *p->first),
                     .end = malloc((n ? n : 1) * sizeof *p->end),
                     .size = malloc((n ? n : 1) * sizeof *p->size) };
    if (!p->first || !p->end || !p->size)
        return err_set(GS_ENOMEM, "out of memory");
    for (int i = 0; i < t->nseg; i++) {
        size_t a, z, la, lz;
        if (!part_lines(&t->seg[i], &a, &z))
            continue;
        const char *ra = rtable_line(t, a, &la), *rz = rtable_line(t, z - 1, &lz);
        p->first[p->n] = a;
        p->end[p->n] = z;
        p->size[p->n++] = (uint64_t)(rz + lz - ra);
    }
    return GS_OK;
}

static void parts_free(rparts_t *p)
{
    free(p->first);
    free(p->end);
    free(p->size);
}

/* Cursor c's record: line c->l (none at the part's end). */
static void part_read(const rtable_t *t, tcur_t *c)
{
    if (c->l >= c->end) {
        c->c.rec = NULL;
        c->c.key = UINT64_MAX;
        return;
    }
    c->c.rec = rtable_line(t, c->l, &c->c.len);
    c->c.key = t->key[c->l];
}

static int part_seek(void *ctx, void *own, rcur_t *cur, size_t j, uint64_t lo, int has_lo,
                     uint64_t *at)
{
    (void)own;
    const rparts_t *p = ctx;
    const rtable_t *t = p->t;
    tcur_t *c = (tcur_t *)cur;
    size_t a = p->first[j], z = p->end[j];
    while (has_lo && a < z) {   /* the first line of word lo or above: the part is in order */
        size_t mid = a + (z - a) / 2;
        if (t->key[mid] < lo)
            a = mid + 1;
        else
            z = mid;
    }
    c->l = a;
    c->end = p->end[j];
    c->c.end = t->arena + t->bytes;
    if (at) {
        size_t len;
        const char *r0 = rtable_line(t, p->first[j], &len);
        *at = a < c->end ? (uint64_t)(rtable_line(t, a, &len) - r0) : p->size[j];
    }
    part_read(t, c);
    return GS_OK;
}

static int part_advance(void *ctx, void *own, rcur_t *cur)
{
    (void)own;
    const rparts_t *p = ctx;
    tcur_t *c = (tcur_t *)cur;
    c->l++;
    part_read(p->t, c);
    return GS_OK;
}

static const rmerge_src_t part_source = {
    .cur_size = sizeof(tcur_t),
    .seek = part_seek,
    .advance = part_advance,
};

/* split[] and *npieces, for parts of all bytes: rmerge_pieces() at most, cut at
 * quantiles of the words of regular samples of the parts (MERGE_SAMPLES each for
 * each of MERGE_PIECES a thread: finer pieces, for a merge written in order, need
 * not be even), weighted by the bytes each stands for (splitters.h), a word's
 * records in one piece. */
static int runs_cut(const rparts_t *p, int nt, uint64_t all, size_t outcap,
                    uint64_t **split, size_t *npieces)
{
    size_t want = rmerge_pieces(nt, all, outcap), count = 0;
    size_t each = (size_t)nt * MERGE_PIECES * MERGE_SAMPLES;
    *npieces = 1;
    if (want < 2 || p->n == 0)
        return GS_OK;
    sample_t *smp = malloc(p->n * each * sizeof *smp);
    *split = malloc(want * sizeof **split);
    if (!smp || !*split) {
        free(smp);
        return err_set(GS_ENOMEM, "out of memory");
    }
    for (size_t j = 0; j < p->n; j++) {
        size_t lines = p->end[j] - p->first[j], k = lines < each ? lines : each;
        for (size_t s = 0; s < k; s++)
            smp[count++] = (sample_t){ p->t->key[p->first[j] + (2 * s + 1) * lines / (2 * k)],
                                       (double)p->size[j] / (double)k };
    }
    *npieces = splitters_choose(smp, count, want, 1, *split) + 1;
    free(smp);
    return GS_OK;
}

int rruns_merge(const rtable_t *t, pool_t *pool, const char *header, size_t hlen,
                output_t *out)
{
    rparts_t p;
    int rc = parts_init(&p, t);
    int nt = pool_size(pool);
    size_t outcap = t->set->buffer_bytes / 4 / (size_t)nt;
    rmerge_cfg_t cfg = { .src = &part_source, .ctx = &p, .nsrc = p.n, .size = p.size,
                         .rk = &t->rk, .unique = t->set->unique, .text = !t->rsize,
                         .pool = pool, .nthreads = nt,
                         .outcap = outcap < MERGE_OUT_MIN   ? MERGE_OUT_MIN
                                   : outcap > MERGE_OUT_MAX ? MERGE_OUT_MAX
                                                            : outcap };
    uint64_t *split = NULL, bytes, all = 0;
    for (size_t j = 0; j < p.n; j++)
        all += p.size[j];
    rmerge_t *m = NULL;
    double t0 = stats_now();
    if (rc == GS_OK)
        rc = runs_cut(&p, nt, all, cfg.outcap, &split, &cfg.npieces);
    cfg.split = split;
    /* in order with one piece, or -u: nothing to gain from measuring */
    int how = t->set->unique || cfg.npieces < 2 ? RMERGE_IN_ORDER : RMERGE_MEASURE;
    if (rc == GS_OK)
        rc = rmerge_plan(&cfg, how, &m, &bytes);
    if (rc == GS_OK)
        rc = rmerge_write(m, out, header, header ? hlen : 0);
    stats_add(ST_MERGE, all, stats_now() - t0);
    rmerge_free(m);
    free(split);
    parts_free(&p);
    return rc;
}

size_t rruns_count(const rtable_t *t)
{
    size_t n = 0, a, z;
    for (int i = 0; i < t->nseg; i++)
        n += (size_t)part_lines(&t->seg[i], &a, &z);
    return n;
}

int rruns_spill(rspill_t *s, const rtable_t *t)
{
    rparts_t p;
    int rc = parts_init(&p, t);
    size_t most = 0;
    for (size_t j = 0; rc == GS_OK && j < p.n; j++)
        if (p.end[j] - p.first[j] > most)
            most = p.end[j] - p.first[j];
    uint64_t *order = rc == GS_OK ? malloc((most ? most : 1) * sizeof *order) : NULL;
    if (rc == GS_OK && !order)
        rc = err_set(GS_ENOMEM, "out of memory");
    for (size_t j = 0; rc == GS_OK && j < p.n; j++) {
        size_t n = p.end[j] - p.first[j];
        for (size_t i = 0; i < n; i++)
            order[i] = p.first[j] + i;
        rc = rspill_add(s, t, order, n);
    }
    free(order);
    parts_free(&p);
    return rc;
}
