/* SPDX-License-Identifier: MIT */
/* sort.c: the sort: inputs -> chunks -> runs -> merge -> output.
 *
 * Every input is read into chunks (chunks.h), text scanned straight into the chunk,
 * binary keys of a regular file read straight into it. An input that fits one chunk
 * is sorted and written directly: no run, no merge. Otherwise, merge passes
 * (passes.h) bring the runs down to what one merge takes, and the last merge writes
 * the output: by sorting key ranges on the chunk sorter where that is the faster way
 * (a GPU: smerge.h), else the parallel merge (pmerge.h), placing text in the file
 * where it can. Nothing is written before every input has been read, so an input
 * error leaves no output and -o may name an input; the output of one chunk of text
 * may be opened as the chunk's sort begins, to have zeros written ahead into it while
 * it sorts (output_cfg_t.ahead_keys).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "merge/pmerge.h"
#include "pipeline/smerge.h"
#include "pipeline/chunks.h"
#include "merge/passes.h"

/* Read blocks: an eighth of the budget, at least SORT_BLOCK_MIN, at most
 * SORT_BLOCK_A_THREAD a thread and SORT_BLOCK_MAX: enough for every thread's share of
 * a parse, and no more fresh memory than that on a machine of few cores, where first
 * touches of new pages are a good part of a small sort; each block costs its
 * hand-offs among the threads. */
static size_t sort_read_block(size_t budget, int threads)
{
    size_t cap = (size_t)threads * SORT_BLOCK_A_THREAD;
    if (cap > SORT_BLOCK_MAX)
        cap = SORT_BLOCK_MAX;
    size_t b = budget / 8;
    if (b < SORT_BLOCK_MIN)
        b = SORT_BLOCK_MIN;
    if (b > cap)
        b = cap;
    return b;
}

/* ---- reading --------------------------------------------------------------------- */

/* Read binary keys from a regular file straight into chunks, as many at a time as
 * its size says are left (so that a small file never sets up a GPU, nor a full
 * chunk is sealed before the input is known to go on). */
static int sort_read_direct(chunks_t *s, kreader_t *r)
{
    size_t w = (size_t)s->c->km.width;
    for (;;) {
        uint64_t left = kreader_left(r) / w;
        size_t take, got;
        int rc;
        if (left == 0) {
            /* Done by its size: a key more would show that it grew (a partial one
             * is carried or reported by the reader). */
            uint64_t k;
            if ((rc = kreader_read_keys(r, &k, 1, &got)) != GS_OK || got == 0)
                return rc;
            if ((rc = chunks_add(s, (const char *)&k, 1)) != GS_OK)
                return rc;
            continue;
        }
        rc = chunks_make_room(s, left < SORT_DIRECT_KEYS ? (size_t)left : SORT_DIRECT_KEYS,
                               &take);
        if (rc == GS_OK)
            rc = kreader_read_keys(r, s->keys + s->n * w, take, &got);
        if (rc || got == 0)
            return rc;
        s->n += got;
    }
}

/* Read every input into chunks and runs. */
static int sort_read(chunks_t *s)
{
    ctx_t *c = s->c;
    const source_t *files = c->set->sources;
    int nfiles = c->set->nsources;
    carry_t carry = { .n = 0 };
    kreader_cfg_t cfg = c->rcfg;
    cfg.block_bytes = sort_read_block(s->budget, pool_size(c->pool));
    cfg.carry = &carry;
    int rc = GS_OK;
    for (int f = 0; f < nfiles && rc == GS_OK; f++) {
        kreader_t *r;
        rc = kreader_open(&r, &files[f], &cfg);
        if (rc)
            break;
        if (kreader_direct(r))
            rc = sort_read_direct(s, r);
        for (; rc == GS_OK && !kreader_direct(r);) {
            const void *blk;
            size_t m;
            rc = kreader_next_into(r, chunks_room, s, &blk, &m);
            if (rc == GS_OK)
                rc = s->room_rc;
            if (rc || m == 0)
                break;
            if (blk)
                rc = chunks_add(s, blk, m);
            else
                s->n += m;   /* scanned in place */
            if (rc)
                break;
        }
        if (rc == GS_OK)
            rc = ctx_keep_header(c, r);
        kreader_close(r);
    }
    return kreader_carry_end(&carry, rc);
}

/* ---- the merge's sinks ------------------------------------------------------------ */

/* A merge pass's sink: a new run. */
typedef struct {
    int width;
    run_writer_t *w;
} sort_sink_t;

static int sort_sink_append(void *self, const void *bytes, size_t len)
{
    sort_sink_t *rs = self;
    run_batch_t b = { bytes, len / (size_t)rs->width };
    return run_writer_add(rs->w, &b);
}

/* How many runs one merge takes: the open-file limit, and the cursor buffers that
 * half the budget pays for. */
static int sort_fan_in(const chunks_t *s)
{
    int fan = ctx_fan_in();
    size_t per = (size_t)pool_size(s->c->pool) * run_cursor_bytes(s->c->km.width);
    size_t mem = (s->budget / 2) / per;
    if ((size_t)fan > mem)
        fan = (int)mem;
    return fan < 2 ? 2 : fan;
}

/* What a merge may hold: what the runs in memory leave of the budget, and at least
 * a quarter of it. */
static size_t sort_merge_budget(const chunks_t *s)
{
    size_t budget = s->budget > s->mem_bytes ? s->budget - s->mem_bytes : 0;
    return budget < s->budget / 4 ? s->budget / 4 : budget;
}

static int sort_merge_into(chunks_t *s, run_t **runs, int n, const pmerge_sink_t *sink)
{
    int rc = GS_OK, opened = 0;
    for (; opened < n && rc == GS_OK; opened++)
        rc = run_open(runs[opened]);
    if (rc == GS_OK)
        rc = pmerge_runs(runs, n, s->c->km.width, s->c->set->unique, s->c->pool,
                         sort_merge_budget(s), sink);
    for (int i = 0; i < opened; i++)
        run_close(runs[i]);
    return rc;
}

/* A merge pass's group (passes.h): runs[0..k) merged into one new run on disk, and
 * freed. */
static int sort_merge_group(void *self, void *group, int k, void *merged)
{
    chunks_t *s = self;
    run_t **runs = group;
    sort_sink_t rs = { .width = s->c->km.width };
    int rc = run_writer_open(&rs.w, &s->rcfg);
    if (rc)
        return rc;
    pmerge_sink_t sink = { NULL, sort_sink_append, &rs };
    rc = sort_merge_into(s, runs, k, &sink);
    if (rc) {
        run_writer_abort(rs.w);
        return rc;
    }
    if ((rc = run_writer_close(rs.w, (run_t **)merged)) != GS_OK)
        return rc;
    for (int i = 0; i < k; i++) {
        if (run_in_memory(runs[i]))
            s->mem_bytes -= run_key_bytes(runs[i]);
        run_free(runs[i]);
    }
    return GS_OK;
}

/* The output of one chunk, opened before it sorts. Where the keys are text from
 * regular files and every key is kept (no -u), the output is told what is coming
 * (output_cfg_t.ahead_keys), to write zeros ahead while the chunk sorts where that
 * pays: as many bytes as the inputs hold plus one a file at most, since a key's
 * canonical line is no longer than its token and the white space after it, which
 * only a file's last token may lack (and no header comes first, which would move
 * the text off the pages' starts). Started before reading, the same zeros slowed
 * the reading more than they saved (doc/perf/TUNING.md, "writing ahead"). */
static int sort_open_output(const chunks_t *s, output_t **out)
{
    const ctx_t *c = s->c;
    const settings_t *set = c->set;
    output_cfg_t ocfg = c->ocfg;
    if (!set->unique && !set->header && set->in_format != FMT_BINARY && c->in_sized) {
        ocfg.ahead_keys = s->n;
        ocfg.ahead_bytes = c->in_bytes + (uint64_t)set->nsources;
    }
    return output_open(out, &ocfg);
}

/* ---- the end: one chunk, or the runs merged ------------------------------------------- */

/* One chunk in total: sort it and write it; no run store, no merge. */
static int sort_one_chunk(chunks_t *s)
{
    ctx_t *c = s->c;
    output_t *out = NULL;
    progress_phase("sorting");
    int rc = sort_open_output(s, &out);
    void *sorted;
    if (rc == GS_OK)
        rc = chunks_sort_last(s, &sorted);
    sorter_release(c->sorter);   /* the last sort: the GPUs go while the keys are written */
    progress_phase("writing");
    if (rc == GS_OK)
        rc = ctx_write_header(c, out);
    if (rc == GS_OK)
        rc = output_write(out, s->keys, s->n, 1);
    return ctx_finish(rc, out);
}

/* The runs merged into the output: passes first, then the last merge, by sorting
 * where the sorter is the faster way, else in parallel on the CPU. */
static int sort_merge_runs(chunks_t *s)
{
    ctx_t *c = s->c;
    int rc = GS_OK;
    if (s->n > 0)
        rc = chunks_seal(s);
    if (rc == GS_OK)
        rc = chunks_settle(s);
    int by_sort = sorter_caps(c->sorter)->merge_by_sort;
    chunks_release(s, rc == GS_OK && by_sort);   /* the merge has the budget to itself */
    if (!by_sort)   /* the merge is the CPU's: the GPUs go while it runs */
        sorter_release(c->sorter);
    progress_phase("merging");
    if (rc == GS_OK)
        rc = passes_reduce(s->runs, sizeof *s->runs, &s->nruns, sort_fan_in(s),
                           sort_merge_group, s);
    output_t *out = NULL;
    if (rc == GS_OK) {
        output_cfg_t ocfg = c->ocfg;
        rc = output_open(&out, &ocfg);
    }
    if (rc == GS_OK && (rc = ctx_write_header(c, out)) != GS_OK)
        output_abort(out);
    if (rc != GS_OK)
        return rc;
    if (by_sort) {
        int nlent = s->pinned[0] && s->pinned[1] ? 2 : 0;
        smerge_lent_t lent = { { s->pinned[0], s->pinned[1] }, nlent,
                               s->pin_cap * (size_t)c->km.width };
        rc = smerge_runs(s->runs, s->nruns, c->km.width, c->set->unique, c->sorter, c->pool,
                         sort_merge_budget(s), &lent, out);
        sorter_release(c->sorter);   /* its last piece sorted: the GPUs go while it ends */
    } else {
        /* The output lays the keys out where it can (pmerge.h). */
        pmerge_sink_t sink = { out, NULL, NULL };
        rc = sort_merge_into(s, s->runs, s->nruns, &sink);
    }
    return ctx_finish(rc, out);
}

int sort_run(ctx_t *c)
{
    chunks_t s;
    chunks_init(&s, c);
    progress_phase("reading");
    int rc = sort_read(&s);
    if (rc == GS_OK)
        rc = chunks_settle(&s);
    if (rc == GS_OK)
        rc = s.nruns == 0 ? sort_one_chunk(&s) : sort_merge_runs(&s);
    chunks_free(&s);
    return rc;
}
