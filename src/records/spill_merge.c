/* SPDX-License-Identifier: MIT */
/* spill_merge.c: the runs of records merged into the output (see spill.h), by the
 * one merge of records' runs (rmerge.h) over the runs' cursors (spill_cursor.c).
 *
 * The keys are cut into pieces at quantiles of the blocks' first keys: as many as
 * rmerge_pieces() says, each to half a thread's buffer at least. Where the output
 * is a file written from a position and the bytes are known (without -u: the
 * bytes of its records, which the index and one block a run measure at each bound
 * of a thread's stretch of pieces), every thread writes a stretch at its offset,
 * merged as one range; otherwise each piece goes out on its turn, the threads
 * merging the next pieces meanwhile (a piece costs a seek a run: a block decoded).
 * The file's layout: spill_impl.h.
 *
 * Every run the merge reads holds a block and its stored form in memory: where
 * there are more runs than -S holds so (a large input under a small -S), merge
 * passes first merge groups of them, in order, into new runs (merge/passes.h,
 * the one driver of merge passes), by one thread each, written as they come
 * (spill.c's writer), until one merge takes them all.
 */
#include <config.h>

#include <limits.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "merge/splitters.h"
#include "merge/passes.h"
#include "records/field.h"
#include "records/rmerge.h"
#include "records/spill_impl.h"

/* A run's bytes held by a merge that reads it: a block and its stored form (a
 * cursor's and its thread's). */
static size_t run_held(const rspill_t *s)
{
    return 2 * (s->block + s->block / 8);
}

/* The threads the merge may use and their output buffers (*outcap): the pool's, as
 * far as their buffers (a block and its stored form a run, and the output buffer,
 * a quarter of -S shared by the pool at most) fit in -S. */
static int merge_threads(const rspill_t *s, size_t *outcap)
{
    int nt = pool_size(s->pool);
    size_t out = s->set->buffer_bytes / 4 / (size_t)nt;
    *outcap = out < MERGE_OUT_MIN         ? MERGE_OUT_MIN
              : out > SPILL_MERGE_OUT_MAX ? SPILL_MERGE_OUT_MAX
                                          : out;
    if (s->bytes < MERGE_PARALLEL_MIN)
        return 1;
    size_t each = s->nruns * run_held(s) + *outcap;
    size_t fit = s->set->buffer_bytes / each;
    return fit < 1 ? 1 : fit < (size_t)nt ? (int)fit : nt;
}

/* The runs one merge reads at once within -S, beside its output buffer and a
 * pass's new run (a block being filled, one packed): two at least. */
static int merge_fan_in(const rspill_t *s)
{
    size_t beside = MERGE_OUT_MIN + run_held(s);
    size_t room = s->set->buffer_bytes > beside ? s->set->buffer_bytes - beside : 0;
    size_t fan = room / run_held(s);
    return fan < 2 ? 2 : fan > INT_MAX ? INT_MAX : (int)fan;
}

/* A merge pass (passes.h): the k runs at group merged, in order, by the calling
 * thread, into one new run at *merged. */
static int merge_group(void *self, void *group, int k, void *merged)
{
    smerge_t *m = self;
    const srun_t *runs = group;
    uint64_t *size = malloc((size_t)k * sizeof *size);
    if (!size)
        return err_set(GS_ENOMEM, "out of memory");
    for (int r = 0; r < k; r++)
        size[r] = runs[r].raw;
    const srun_t *all = m->runs;
    m->runs = runs;
    rmerge_cfg_t cfg = { .src = &spill_source, .ctx = m, .nsrc = (size_t)k, .size = size,
                         .rk = &m->rk, .unique = m->s->set->unique,
                         .text = !m->s->set->record_size, .npieces = 1, .pool = m->s->pool,
                         .nthreads = 1, .outcap = MERGE_OUT_MIN };
    rmerge_t *rm = NULL;
    uint64_t bytes;
    swriter_t w;
    spill_writer_begin(m->s, &w, &m->rk);
    int rc = rmerge_plan(&cfg, RMERGE_IN_ORDER, &rm, &bytes);
    if (rc == GS_OK)
        rc = rmerge_write_to(rm, spill_writer_put, &w);
    int rc2 = spill_writer_end(&w, rc == GS_OK, merged);
    rmerge_free(rm);
    m->runs = all;
    free(size);
    return rc ? rc : rc2;
}

/* split[] and *npieces: for nt threads buffering outcap bytes each, the pieces
 * rmerge_pieces() says (written in order, a thread holds its whole piece while it
 * waits for the piece's turn; laid out, a thread merges a stretch of them at a
 * time, as one range), but none under SPILL_SEEK_PIECE times the blocks a piece's
 * seek decodes (a block a run, and its records' keys read up to the piece's first:
 * finer pieces would spend more on seeking than they gain), cut at quantiles of the
 * blocks' first keys (splitters.h: each block a sample, all of about one size). */
static int merge_cut(const rspill_t *s, int nt, size_t outcap, uint64_t **split,
                     size_t *npieces)
{
    *npieces = 1;
    uint64_t seek = (uint64_t)SPILL_SEEK_PIECE * s->nruns * s->block;
    uint64_t most = seek ? s->bytes / seek : UINT64_MAX;   /* by the seeks' cost, */
    if (most < (uint64_t)nt * MERGE_PIECES)                 /* but MERGE_PIECES a thread */
        most = (uint64_t)nt * MERGE_PIECES;
    size_t want = rmerge_pieces(nt, s->bytes, outcap);
    if (want > most)
        want = (size_t)most;
    if (want < 2 || s->nblocks < 2)
        return GS_OK;
    sample_t *smp = malloc(s->nblocks * sizeof *smp);
    *split = malloc(want * sizeof **split);
    if (!smp || !*split) {
        free(smp);
        return err_set(GS_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < s->nblocks; i++)
        smp[i] = (sample_t){ s->blocks[i].key, 1 };
    *npieces = splitters_choose(smp, s->nblocks, want, 1, *split) + 1;
    free(smp);
    return GS_OK;
}

int rspill_merge(rspill_t *s, const char *header, size_t hlen, output_t *out)
{
    smerge_t m = { .s = s, .term = s->set->zero_terminated ? '\0' : '\n' };
    rkey_init(&m.rk, s->set);
    m.by_masks = m.rk.quick && s->set->field_sep >= 0 && (char)s->set->field_sep != m.term;
    m.pos_max = field_pos_max(m.rk.km.type);
    m.runs = s->runs;
    int fan = merge_fan_in(s), n = s->nruns > INT_MAX ? INT_MAX : (int)s->nruns;
    if ((size_t)n > (size_t)fan) {
        double tp = stats_now();
        size_t before = s->nruns;
        int rc = passes_reduce(s->runs, sizeof *s->runs, &n, fan, merge_group, &m);
        s->nruns = (size_t)n;
        stats_add(ST_MERGE, 0, stats_now() - tp);
        stats_note_records_passes(before, s->nruns, fan);
        if (rc)
            return rc;
    }
    rmerge_cfg_t cfg = { .src = &spill_source, .ctx = &m, .nsrc = s->nruns, .rk = &m.rk,
                         .unique = s->set->unique, .text = !s->set->record_size,
                         .pool = s->pool };
    cfg.nthreads = merge_threads(s, &cfg.outcap);
    uint64_t *split = NULL, *size = malloc((s->nruns ? s->nruns : 1) * sizeof *size);
    rmerge_t *rm = NULL;
    uint64_t bytes;
    int rc = size ? merge_cut(s, cfg.nthreads, cfg.outcap, &split, &cfg.npieces)
                  : err_set(GS_ENOMEM, "out of memory");
    for (size_t r = 0; rc == GS_OK && r < s->nruns; r++)
        size[r] = s->runs[r].raw;
    cfg.size = size;
    cfg.split = split;
    /* in order with one piece: nothing to gain from measuring */
    int how = s->set->unique || cfg.npieces < 2 ? RMERGE_IN_ORDER : RMERGE_MEASURE;
    double t0 = stats_now();
    if (rc == GS_OK)
        rc = rmerge_plan(&cfg, how, &rm, &bytes);
    if (rc == GS_OK)
        rc = rmerge_write(rm, out, header, header ? hlen : 0);
    stats_add(ST_MERGE, s->bytes, stats_now() - t0);
    rmerge_free(rm);
    free(split);
    free(size);
    return rc;
}
