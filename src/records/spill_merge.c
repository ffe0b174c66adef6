/* SPDX-License-Identifier: MIT */
/* spill_merge.c: the runs of records merged into the output (see spill.h), by the
 * one merge of records' runs (rmerge.h) over the runs' cursors (spill_cursor.c).
 *
 * The keys are cut into pieces at quantiles of the blocks' first keys, several a
 * thread so that the threads end together. Where the output is a file written from
 * a position and each piece's length is known (without -u: the bytes of its
 * records, which the index and one block a run and piece measure), every piece is
 * written at its offset; otherwise on its turn. The file's layout: spill_impl.h.
 */
#include <config.h>

#include <stdlib.h>

#include "core/error.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "merge/splitters.h"
#include "records/field.h"
#include "records/rmerge.h"
#include "records/spill_impl.h"

/* The threads the merge may use and their output buffers (*outcap): the pool's, as
 * far as their buffers (a block and its stored form a run, and the output buffer,
 * a quarter of -S shared by the pool at most) fit in -S. */
static int merge_threads(const rspill_t *s, size_t *outcap)
{
    int nt = pool_size(s->pool);
    size_t out = s->set->buffer_bytes / 4 / (size_t)nt;
    *outcap = out < MERGE_OUT_MIN ? MERGE_OUT_MIN : out > MERGE_OUT_MAX ? MERGE_OUT_MAX : out;
    if (s->bytes < MERGE_PARALLEL_MIN)
        return 1;
    size_t each = s->nruns * 2 * (SPILL_BLOCK + SPILL_BLOCK / 8) + *outcap;
    size_t fit = s->set->buffer_bytes / each;
    return fit < 1 ? 1 : fit < (size_t)nt ? (int)fit : nt;
}

/* split[] and *npieces: for nt threads, up to MERGE_PIECES pieces a thread, cut at
 * quantiles of the blocks' first keys (splitters.h: each block a sample, all of
 * about one size). */
static int merge_cut(const rspill_t *s, int nt, uint64_t **split, size_t *npieces)
{
    *npieces = 1;
    size_t want = (size_t)nt * MERGE_PIECES;
    if (nt < 2 || s->nblocks < 2)
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
    rmerge_cfg_t cfg = { .src = &spill_source, .ctx = &m, .nsrc = s->nruns, .rk = &m.rk,
                         .unique = s->set->unique, .text = !s->set->record_size,
                         .pool = s->pool };
    cfg.nthreads = merge_threads(s, &cfg.outcap);
    uint64_t *split = NULL, *size = malloc((s->nruns ? s->nruns : 1) * sizeof *size);
    rmerge_t *rm = NULL;
    uint64_t bytes;
    int rc = size ? merge_cut(s, cfg.nthreads, &split, &cfg.npieces)
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
