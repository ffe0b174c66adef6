/* SPDX-License-Identifier: MIT */
/* writer.c: keys formatted and written in order (see output.h).
 *
 * Keys are formatted in batches: each pool thread formats its share of a batch into
 * its own buffer (binary keys are encoded into one buffer, by the pool or by the
 * caller alone). A finished batch goes to the writer job, which writes its buffers
 * in order while the pool formats the next batch into the other of two buffer sets.
 * Binary keys that are their own encoding are written as they are (and handed to a
 * pipe as pages: hand.c). Text into a pipe is formatted into fresh pages, which the
 * writer job gives to the pipe (output_splice()): the reader's copy is then the only
 * one, where write(2) would copy each byte on the writer job's one thread first.
 * Every write is checked: a full disk is an error,
 * never a short file. Much text to a file is placed instead (placed.c).
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fdio.h"
#include "core/mem.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "io/output_impl.h"
#include "io/textnum.h"

/* Bytes written between two counts of the write stage: a whole chunk handed over at
 * once (binary keys that are their own encoding) shows --progress its output grow. */
#define WRITE_COUNT_EVERY ((size_t)8 << 20)

int output_write_all(output_t *o, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        size_t part = len < WRITE_COUNT_EVERY ? len : WRITE_COUNT_EVERY;
        double t0 = stats_now();
        int e = fdio_write(o->fd, p, part, -1, NULL);
        if (e == EPIPE)
            return GS_EPIPE;   /* SIGPIPE was ignored: end quietly */
        if (e)
            return err_sys(GS_EIO, e, "write error on '%s'", o->name);
        stats_add(ST_WRITE, part, stats_now() - t0);
        p += part;
        len -= part;
    }
    return GS_OK;
}

/* ---- the writer job -------------------------------------------------------------- */

/* Thread t's buffer in batch b. */
static char *batch_buf(const output_t *o, const out_batch_t *b, int t)
{
    return b->map ? b->map + (size_t)t * o->bufsize : b->bufs[t];
}

/* Write one set's buffers in order (given to the pipe where they are fresh pages,
 * which are unmapped then); after an error, nothing. */
static void output_write_set(void *arg)
{
    out_wjob_t *w = arg;
    output_t *o = w->o;
    out_batch_t *b = &o->sets[w->set];
    int rc = __atomic_load_n(&o->werr, __ATOMIC_RELAXED);
    for (int t = 0; t < o->threads && rc == GS_OK; t++)
        rc = b->map ? output_splice(o, batch_buf(o, b, t), b->lens[t])
                    : output_write_all(o, b->bufs[t], b->lens[t]);
    mem_unmap(b->map, b->map_bytes);
    b->map = NULL;
    if (rc)
        __atomic_store_n(&o->werr, rc, __ATOMIC_RELAXED);
}

/* Hand the current set to the writer job (which first finishes the set before, so
 * the other set is free to fill) and move to the other one. */
static void output_submit(output_t *o)
{
    size_t total = 0;
    for (int t = 0; t < o->threads; t++)
        total += o->sets[o->cur].lens[t];
    o->bytes += total;
    job_post(&o->writer, output_write_set, &o->wjob[o->cur]);
    o->cur ^= 1;
}

int output_drain(output_t *o)
{
    job_wait(&o->writer);
    return __atomic_load_n(&o->werr, __ATOMIC_RELAXED);
}

/* Allocate the batch buffers, at the first batch. */
static int output_start(output_t *o)
{
    size_t binary = WRITE_BINARY_A_THREAD * (size_t)o->threads;
    o->bufsize = o->cfg.binary ? (binary < WRITE_BINARY_MIN ? WRITE_BINARY_MIN : binary)
                               : WRITE_KEYS_A_THREAD * TN_MAX_LINE;
    o->have_sets = 1;
    for (int i = 0; i < 2; i++) {
        out_batch_t *b = &o->sets[i];
        o->wjob[i] = (out_wjob_t){ o, i };
        b->bufs = calloc((size_t)o->threads, sizeof *b->bufs);
        b->lens = calloc((size_t)o->threads, sizeof *b->lens);
        if (!b->bufs || !b->lens)
            return err_set(GS_ENOMEM, "out of memory");
        /* Binary batches use one buffer; text batches one per thread. */
        int nb = o->cfg.binary ? 1 : o->threads;
        for (int t = 0; t < nb; t++) {
            b->bufs[t] = malloc(o->bufsize);
            if (!b->bufs[t])
                return err_set(GS_ENOMEM, "out of memory");
        }
    }
    return GS_OK;
}

void output_writer_free(output_t *o)
{
    job_end(&o->writer);
    for (int i = 0; i < 2; i++) {
        mem_unmap(o->sets[i].map, o->sets[i].map_bytes);
        if (o->sets[i].bufs)
            for (int t = 0; t < o->threads; t++)
                free(o->sets[i].bufs[t]);
        free(o->sets[i].bufs);
        free(o->sets[i].lens);
    }
}

/* ---- text and binary batches ---------------------------------------------------------- */

static void output_format_share(void *arg, int t, int nt)
{
    output_t *o = arg;
    size_t lo, hi;
    pool_share(o->nkeys, t, nt, &lo, &hi);
    const char *k = (const char *)o->keys + lo * (size_t)o->cfg.km->width;
    out_batch_t *b = &o->sets[o->cur];
    b->lens[t] = tn_format_lines(k, hi - lo, o->cfg.km, output_term(o), batch_buf(o, b, t));
}

static int output_write_text(output_t *o, const void *keys, size_t n)
{
    int width = o->cfg.km->width;
    size_t batch = WRITE_KEYS_A_THREAD * (size_t)o->threads;
    int give = output_gives(o);
    for (size_t done = 0; done < n; done += batch) {
        int rc = __atomic_load_n(&o->werr, __ATOMIC_RELAXED);
        if (rc)
            return rc;
        o->keys = (const char *)keys + done * (size_t)width;
        o->nkeys = n - done < batch ? n - done : batch;
        out_batch_t *b = &o->sets[o->cur];
        double t0 = stats_now();
        if (give) {   /* NULL where memory is short: the set's own buffers, written */
            b->map_bytes = o->bufsize * (size_t)o->threads;
            b->map = mem_map(b->map_bytes);
        }
        if (o->nkeys < WRITE_PARALLEL_KEYS) {
            b->lens[0] = tn_format_lines(o->keys, o->nkeys, o->cfg.km, output_term(o), batch_buf(o, b, 0));
            for (int t = 1; t < o->threads; t++)
                b->lens[t] = 0;
        } else {
            pool_run(o->cfg.pool, output_format_share, o);
        }
        size_t total = 0;
        for (int t = 0; t < o->threads; t++)
            total += b->lens[t];
        stats_add(ST_FORMAT, total, stats_now() - t0);
        output_submit(o);
    }
    return GS_OK;
}

/* A binary batch: keys[0..nkeys) encoded into the current set's buffer, shared
 * among the pool's threads. */
static void output_encode_share(void *arg, int t, int nt)
{
    output_t *o = arg;
    size_t w = (size_t)o->cfg.km->width;
    size_t lo, hi;
    pool_share(o->nkeys, t, nt, &lo, &hi);
    key_encode((const char *)o->keys + lo * w, o->sets[o->cur].bufs[0] + lo * w, hi - lo,
               o->cfg.km, o->cfg.big_endian);
}

static int output_write_binary(output_t *o, const void *keys, size_t n)
{
    size_t width = (size_t)o->cfg.km->width;
    size_t batch = o->bufsize / width;
    for (size_t done = 0; done < n; done += batch) {
        int rc = __atomic_load_n(&o->werr, __ATOMIC_RELAXED);
        if (rc)
            return rc;
        size_t m = n - done < batch ? n - done : batch;
        out_batch_t *b = &o->sets[o->cur];
        double t0 = stats_now();
        o->keys = (const char *)keys + done * width;
        o->nkeys = m;
        if (m * width >= 2 * WRITE_BINARY_A_THREAD && o->threads > 1 && !o->solo)
            pool_run(o->cfg.pool, output_encode_share, o);
        else
            output_encode_share(o, 0, 1);
        stats_add(ST_FORMAT, m * width, stats_now() - t0);
        b->lens[0] = m * width;
        for (int t = 1; t < o->threads; t++)
            b->lens[t] = 0;
        output_submit(o);
    }
    return GS_OK;
}

int output_identity(const output_t *o)
{
    return o->cfg.binary && key_identity(o->cfg.km, o->cfg.big_endian);
}

/* ---- the interface --------------------------------------------------------------------- */

int output_write(output_t *o, const void *keys, size_t n, int sorted)
{
    if (n == 0)
        return GS_OK;
    output_ahead_end(o);
    int rc = output_target_fd(o);
    if (rc)
        return rc;
    /* Placed where worth it: text, or a sorted chunk of binary keys. */
    if ((sorted || !o->cfg.binary) && (rc = output_write_placed(o, keys, n, sorted)) != OUTPUT_PLAIN)
        return rc;
    if (output_identity(o)) {
        /* The keys are written as they are: no encoding, no copy of ours. */
        rc = output_drain(o);
        size_t len = n * (size_t)o->cfg.km->width;
        if (rc == GS_OK && output_gives(o))
            return output_give_copy(o, keys, len);   /* into a pipe: copied once */
        if (rc == GS_OK) {
            o->bytes += len;
            rc = output_write_all(o, keys, len);
        }
        return rc;
    }
    if (!o->have_sets && (rc = output_start(o)) != GS_OK)
        return rc;
    return o->cfg.binary ? output_write_binary(o, keys, n) : output_write_text(o, keys, n);
}

size_t output_max_bytes(const output_t *o)
{
    return o->cfg.binary ? (size_t)o->cfg.km->width : TN_MAX_LINE;
}

size_t output_format(const output_t *o, const void *keys, size_t n, void *dst)
{
    double t0 = stats_now();
    size_t len;
    if (o->cfg.binary) {
        key_encode(keys, dst, n, o->cfg.km, o->cfg.big_endian);
        len = n * (size_t)o->cfg.km->width;
    } else {
        len = tn_format_lines(keys, n, o->cfg.km, output_term(o), dst);
    }
    stats_add(ST_FORMAT, len, stats_now() - t0);
    return len;
}

int output_write_bytes(output_t *o, const void *buf, size_t len)
{
    output_ahead_end(o);
    int rc = output_target_fd(o);
    if (rc)
        return rc;
    if (len >= WRITE_GIVE_MIN_BYTES && output_gives(o))
        return output_give_copy(o, buf, len);   /* into a pipe: copied once */
    o->bytes += len;
    return output_write_all(o, buf, len);
}
