/* SPDX-License-Identifier: MIT */
/* records.c: the modes for records (-k, or binary --record-size): sort, -m, -c/-C.
 *
 * The inputs are read a chunk at a time into a table (records/table.h). A sort
 * orders each chunk (records/order.h): where the first chunk holds everything it is
 * written out at once (records/emit.h); else every chunk becomes a run on disk and
 * the runs are merged into the output (records/spill.h). -m checks that each input
 * is in order as its chunks go by and takes each input's part of a chunk as a run
 * (records/runs.h): merged into the output where the first chunk holds everything;
 * else a chunk of one input's records spilled as a run as it is, one of several
 * inputs' sorted into one run, and the runs merged; -c and -C only check, and stop
 * at the first record out of order. A sort of binary records that one GPU
 * holds streams them through it instead (stream.c).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "io/textnum.h"
#include "pipeline/ctx.h"
#include "records/emit.h"
#include "records/order.h"
#include "records/runs.h"
#include "records/spill.h"
#include "records/table.h"

/* The last record checked, kept across chunks (its bytes copied). */
typedef struct {
    int valid;
    int input;
    uint64_t key;
    char *rec;
    size_t len, cap;
} rprev_t;

/* 1 where a record (word kb, bytes b, terminator included) may not follow one (word
 * ka, bytes a): it goes before it, or, with -u under -c (strictly ascending, as sort
 * -c -u), they have equal keys. -m -u merges inputs that hold equal keys, as sort -m
 * -u does. */
static int records_disorder(const rtable_t *t, uint64_t ka, const char *a, size_t la,
                            uint64_t kb, const char *b, size_t lb)
{
    if (ka != kb)
        return kb < ka;
    if (!t->rsize) {   /* rkey.h takes lines without their terminators */
        la--;
        lb--;
    }
    int c = rkey_cmp(&t->rk, a, la, b, lb);
    if (c)
        return c > 0;
    if (t->set->unique)
        return t->set->mode != MODE_MERGE;
    return rkey_order(&t->rk, a, la, b, lb) > 0;
}

/* The message of the record at table line l out of order: "FILE:N: disorder: " and
 * the line without its terminator, or a binary record's key. For -c (code
 * GS_EDISORDER) printed unless quiet; for -m (GS_EINPUT) the error's message. */
static int records_say_disorder(const rtable_t *t, size_t l, int code, int quiet)
{
    const rseg_t *sg = rtable_seg(t, l);
    unsigned long long pos = (unsigned long long)rtable_line_number(t, l);
    size_t len;
    const char *s = rtable_line(t, l, &len);
    char v[256];
    if (t->rsize)
        rkey_format_binary(&t->rk, s, v, sizeof v);
    else if (code != GS_EDISORDER)
        err_escape(v, sizeof v, s, len - 1, 80);
    if (code != GS_EDISORDER)
        return err_set(code, "%s:%llu: disorder: %s", sg->name, pos, v);
    if (quiet)
        return code;
    progress_stop(0);   /* the message is the last thing said: no line after it */
    if (t->rsize) {
        progress_print("%s:%llu: disorder: %s", sg->name, pos, v);
    } else {   /* the line as it is, NUL bytes and all, as sort writes it */
        char *head = NULL;
        if (asprintf(&head, "%s:%llu: disorder: ", sg->name, pos) < 0)
            return err_set(GS_ENOMEM, "out of memory");
        progress_print_raw(head, s, len - 1);
        free(head);
    }
    return code;
}

/* Check the chunk's records up to line upto (t->n: all of them), each input's
 * against the one before it (in this chunk or, for the input the last chunk ended
 * in, in prev): GS_OK, or the first disorder reported with code. */
static int records_check(const rtable_t *t, rprev_t *prev, int code, int quiet, size_t upto)
{
    for (int i = 0; i < t->nseg; i++) {
        const rseg_t *sg = &t->seg[i];
        if (prev->valid && prev->input != sg->input)
            prev->valid = 0;
        size_t l = sg->first + (size_t)sg->header, end = sg->first + sg->lines, len, plen;
        if (end > upto)
            end = upto;
        for (; l < end; l++) {
            const char *s = rtable_line(t, l, &len);
            if (l > sg->first + (size_t)sg->header) {
                const char *ps = rtable_line(t, l - 1, &plen);
                if (records_disorder(t, t->key[l - 1], ps, plen, t->key[l], s, len))
                    return records_say_disorder(t, l, code, quiet);
            } else if (prev->valid &&
                       records_disorder(t, prev->key, prev->rec, prev->len, t->key[l], s, len)) {
                return records_say_disorder(t, l, code, quiet);
            }
        }
        if (sg->lines > (size_t)sg->header) {   /* its last record, for the next chunk */
            const char *s = rtable_line(t, end - 1, &len);
            if (len > prev->cap) {
                char *r = realloc(prev->rec, len);
                if (!r)
                    return err_set(GS_ENOMEM, "out of memory");
                prev->rec = r;
                prev->cap = len;
            }
            memcpy(prev->rec, s, len);
            prev->len = len;
            prev->key = t->key[end - 1];
            prev->input = sg->input;
            prev->valid = 1;
        }
    }
    return GS_OK;
}

/* The output, opened for records: bytes written as they are. */
static int records_output(ctx_t *c, output_t **out)
{
    output_cfg_t cfg = c->ocfg;
    cfg.binary = 0;   /* records are bytes written as they are: placed as text is */
    return output_open(out, &cfg);
}

/* Everything fitted in the first chunk: ordered, written out at once. */
static int records_in_memory(ctx_t *c, const rtable_t *t, uint64_t *order, size_t n,
                             const rorder_shares_t *sh)
{
    output_t *out;
    int rc = records_output(c, &out);
    if (rc)
        return rc;
    rc = remit_write(t, c->pool, order, n, sh, out);
    return ctx_finish(rc ? rc : rtable_intact(t), out);
}

/* -m: everything in the first chunk, its inputs' parts merged into the output. */
static int records_merge_in_memory(ctx_t *c, const rtable_t *t)
{
    output_t *out;
    progress_phase("merging");
    int rc = records_output(c, &out);
    if (rc)
        return rc;
    size_t hlen;
    const char *header = rtable_header(t, &hlen);
    rc = rruns_merge(t, c->pool, header, hlen, out);
    return ctx_finish(rc ? rc : rtable_intact(t), out);
}

/* The runs merged into the output, the header first. */
static int records_merge(ctx_t *c, rspill_t *sp, const char *header, size_t hlen)
{
    output_t *out;
    progress_phase("merging");
    int rc = records_output(c, &out);
    return rc ? rc : ctx_finish(rspill_merge(sp, header, hlen, out), out);
}

/* A chunk's bytes: half of -S, the other half for the index beside them (32 bytes a
 * line), the spilled runs' merge buffers and the threads. */
static size_t records_chunk_bytes(const settings_t *set)
{
    return set->buffer_bytes / 2;
}

/* A chunk sorter that gets ready when a chunk grows past caps->grow_at (a GPU's,
 * set up on a job of its own) begins now, while the inputs are read, where their
 * sizes are known and the GPU will be asked to sort: where GPUs were asked for by
 * number and the sizes say that so many records are coming (16 bytes a record at
 * most, a guess); under --device=auto, whose GPU sorter is there only where the
 * engine's estimate of the records passed RECORDS_GPU_KEYS_A_THREAD a thread
 * (engine.c), where the keys are wide (rkey.h): the GPU sorts their pairs
 * (order.h), and would otherwise be waited for at the sort, its whole set-up then
 * on the sort's path (doc/perf/RESULTS.md). Packed words it does not sort under
 * --device=auto: there its set-up slowed the reading about as much as it saved;
 * so not for one integer key of lines either (rkey_t.quick), wide only by its
 * type's 8 bytes: its values' range, known once read, mostly leaves room for the
 * line numbers, and a set-up for nothing slowed the whole run (doc/perf/RESULTS.md,
 * 2026-12-02).
 * Of a pipe the size is not known: a small input never waits for a set-up it does
 * not need. */
static int records_warm_sorter(ctx_t *c, const rtable_t *t)
{
    const sorter_caps_t *caps = c->sorter ? sorter_caps(c->sorter) : NULL;
    if (!caps || !caps->grow_at || !c->in_sized)
        return GS_OK;
    if (c->set->gpus == GS_GPUS_AUTO)
        return t->rk.wide && !t->rk.quick ? sorter_grow(c->sorter, caps->grow_at + 1)
                                          : GS_OK;
    uint64_t per = c->set->record_size ? c->set->record_size : 16;
    return c->in_bytes / per > caps->grow_at ? sorter_grow(c->sorter, caps->grow_at + 1) : GS_OK;
}

/* The sorter of a chunk's packed words (order.h): the chunk sorter where GPUs were
 * asked for by number; else (--device=auto, whose GPU sorts them about as fast as
 * the CPU once its set-up beside the reading is paid for: doc/perf/RESULTS.md,
 * "Records on the GPU"; and --device=cpu) none: the CPU's radix sort on the keys'
 * bits alone, where the CPU's chunk sorter would sort the lines' bits too. */
static sorter_t *records_words_sorter(const ctx_t *c)
{
    return c->set->gpus > 0 ? c->sorter : NULL;
}

int records_run(ctx_t *c)
{
    const settings_t *set = c->set;
    int checking = set->mode == MODE_CHECK || set->mode == MODE_CHECK_QUIET;
    rtable_t t;
    rspill_t *sp = NULL;
    rprev_t prev = { 0 };
    rorder_mem_t mem = { 0 };   /* the chunks' orders, in memory kept for the next */
    char *header = NULL;
    size_t hlen = 0;
    int rc = rtable_open(&t, set, c->pool, records_chunk_bytes(set)), more = 1, first = 1;
    if (rc == GS_OK && set->mode == MODE_SORT)
        rc = records_warm_sorter(c, &t);
    while (rc == GS_OK && more) {
        progress_phase("reading");
        if ((rc = rtable_next(&t, &more)) != GS_OK) {
            /* -c: a disorder before the first bad key is what sort reports */
            if (checking && t.bad != SIZE_MAX &&
                records_check(&t, &prev, GS_EDISORDER, set->mode == MODE_CHECK_QUIET,
                              t.bad) == GS_EDISORDER)
                rc = GS_EDISORDER;
            break;
        }
        if (checking || set->mode == MODE_MERGE) {
            progress_phase("checking");
            rc = records_check(&t, &prev, checking ? GS_EDISORDER : GS_EINPUT,
                               set->mode == MODE_CHECK_QUIET, t.n);
            if (rc || checking)
                continue;
            /* -m: the chunk's parts of the inputs merged where it holds everything;
             * else one input's part spilled as a run as it is, and several sorted
             * into one run (below), so that the runs are no more than the chunks:
             * each holds a block of memory while they merge. */
            if (first && !more) {
                rc = records_merge_in_memory(c, &t);
                first = 0;
                continue;
            }
            if (rruns_count(&t) <= 1) {
                if (!sp)
                    rc = rspill_open(&sp, set, c->pool);
                if (rc == GS_OK) {
                    progress_phase("spilling");
                    rc = rruns_spill(sp, &t);
                }
                first = 0;
                continue;
            }
        }
        uint64_t *order;
        size_t n;
        rorder_shares_t sh;   /* written at once: the order made where words, measured */
        int at_once = first && !more;
        progress_phase("sorting");
        rc = rorder_sort(&t, c->pool, records_words_sorter(c), c->sorter, &mem, &order, &n,
                         at_once ? &sh : NULL);
        if (rc != GS_OK)
            break;
        if (!more) {   /* the last sort: the GPUs go while the records are written */
            sorter_release(c->sorter);
            rorder_mem_keep(&mem, order);
        }
        if (at_once) {
            rc = records_in_memory(c, &t, order, n, &sh);
            rorder_shares_free(&sh);
        } else {
            if (!sp)
                rc = rspill_open(&sp, set, c->pool);
            if (rc == GS_OK) {
                progress_phase("spilling");
                rc = rspill_add(sp, &t, order, n);
            }
        }
        first = 0;
    }
    if (rc == GS_OK && sp) {
        header = t.header;   /* kept past the table, whose memory goes first */
        hlen = t.header_len;
        t.header = NULL;
        rtable_close(&t);
        rorder_mem_free(&mem);
        rc = records_merge(c, sp, header, hlen);
    }
    rtable_close(&t);
    rorder_mem_free(&mem);
    rspill_close(sp);
    free(header);
    free(prev.rec);
    return rc;
}
