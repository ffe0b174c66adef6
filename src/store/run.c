/* SPDX-License-Identifier: MIT */
/* run.c: the run store (see runs.h): runs in memory, and spilling them.
 *
 * Spilling encodes a run's blocks in parallel: each pool thread encodes its share of
 * a batch of blocks into its own buffer, and a job writes the batch in order while
 * the pool encodes the next. The codec is chosen per run: --compress-temp=auto
 * compresses the first block and keeps LZ4 for the run only if that block shrank by
 * at least a tenth.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/error.h"
#include "core/fdio.h"
#include "core/job.h"
#include "core/keys.h"
#include "core/stats.h"
#include "core/tempfile.h"
#include "store/run_impl.h"

/* ---- files ------------------------------------------------------------------------ */

int run_write_all(run_t *r, const void *buf, size_t len)
{
    int e = fdio_write(r->fd, buf, len, -1, NULL);
    return e ? err_sys(GS_EIO, e, "write error on temporary file '%s'", r->path) : GS_OK;
}

int run_create_file(run_t *r, const runcfg_t *cfg)
{
    const char *tmpdir = tempfile_dir(cfg->tmpdirs, cfg->ntmpdirs);
    r->fd = tempfile_make(AT_FDCWD, tmpdir, "gpusort-run-", &r->path, &r->slot);
    if (r->fd < 0)
        return err_sys(GS_EIO, errno, "cannot create a temporary file in '%s'", tmpdir);
    return GS_OK;
}

/* Forget a spilled run's file: remove it and free the index. */
static void run_drop_file(run_t *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    if (r->slot >= 0)
        cleanup_remove(r->slot);
    r->slot = -1;
    free(r->path);
    free(r->first);
    free(r->offset);
    r->path = NULL;
    r->first = r->offset = NULL;
    r->nblocks = 0;
}

static int run_alloc_index(run_t *r)
{
    r->nblocks = (r->n + RUN_BLOCK_KEYS - 1) / RUN_BLOCK_KEYS;
    r->first = malloc(sizeof *r->first * (r->nblocks ? r->nblocks : 1));
    r->offset = malloc(sizeof *r->offset * (r->nblocks + 1));
    if (!r->first || !r->offset)
        return err_set(GS_ENOMEM, "out of memory");
    r->offset[0] = 0;
    return GS_OK;
}

codec_t run_choose_codec(compress_t compress, const void *keys, size_t n, int width)
{
    if (compress == COMPRESS_NONE)
        return CODEC_RAW;
    if (compress == COMPRESS_LZ4 || n == 0)
        return CODEC_LZ4;
    size_t cap = codec_bound(n, width);
    void *dst = malloc(cap), *scratch = malloc(n * (size_t)width);
    size_t got = dst && scratch ? codec_encode(CODEC_LZ4, keys, n, width, dst, cap, scratch) : 0;
    free(dst);
    free(scratch);
    return got && got * 10 <= n * (size_t)width * 9 ? CODEC_LZ4 : CODEC_RAW;
}

/* ---- memory runs ---------------------------------------------------------------------- */

int run_from_memory(run_t **out, void *keys, size_t n, int width)
{
    run_t *r = calloc(1, sizeof *r);
    if (!r)
        return err_set(GS_ENOMEM, "out of memory");
    r->width = width;
    r->n = n;
    r->keys = keys;
    r->fd = -1;
    r->slot = -1;
    *out = r;
    return GS_OK;
}

int run_view(run_t **out, const void *keys, size_t n, int width)
{
    int rc = run_from_memory(out, (void *)keys, n, width);
    if (rc == GS_OK)
        (*out)->borrowed = 1;
    return rc;
}

size_t run_keys(const run_t *r) { return r->n; }
int run_in_memory(const run_t *r) { return r->keys != NULL || r->n == 0; }
const void *run_memory_keys(const run_t *r) { return r->keys; }
uint64_t run_key_bytes(const run_t *r) { return (uint64_t)r->n * (uint64_t)r->width; }
uint64_t run_file_bytes(const run_t *r) { return r->offset ? r->offset[r->nblocks] : 0; }

/* ---- spilling ------------------------------------------------------------------------- */

/* A spill: batches of blocks, each thread encoding RUN_SPILL_BLOCKS of them into its
 * buffer of the current set; while the pool encodes one set, a job writes the
 * other, so encoding and writing overlap. */
typedef struct {
    run_t *r;
    size_t base;                     /* first block of the batch */
    size_t nb;                       /* blocks in the batch */
    size_t per;                      /* blocks per thread */
    size_t cap;                      /* bytes of each thread's buffer */
    int threads;
    int set;                         /* the set being encoded */
    unsigned char **bufs[2];         /* [set][threads] encoded blocks */
    size_t (*lens[2])[RUN_SPILL_BLOCKS]; /* [set][threads] each block's encoded bytes */
    size_t *len[2];                  /* [set][threads] bytes in each buffer */
    uint64_t at[2];                  /* [set] where the set's bytes go in the file */
    void **scratch;                  /* [threads] codec scratch */
    int failed;
    int werr;                        /* the writer's errno */
    job_t writer;                    /* writes one set while the pool encodes the other */
} spill_job_t;

static void run_encode_share(void *arg, int t, int nt)
{
    (void)nt;
    spill_job_t *j = arg;
    run_t *r = j->r;
    size_t w = (size_t)r->width, off = 0;
    unsigned char *buf = j->bufs[j->set][t];
    for (size_t i = 0; i < j->per; i++) {
        size_t b = j->base + (size_t)t * j->per + i;
        if (b >= j->base + j->nb) {
            j->lens[j->set][t][i] = 0;
            continue;
        }
        size_t k = run_block_keys(r, b);
        const char *src = (const char *)r->keys + b * RUN_BLOCK_KEYS * w;
        size_t got = codec_encode(r->codec, src, k, r->width, buf + off, j->cap - off,
                                  j->scratch[t]);
        if (!got)
            j->failed = 1;
        j->lens[j->set][t][i] = got;
        off += got;
    }
    j->len[j->set][t] = off;
}

/* The writer: the set not being encoded, its buffers one after another at its place
 * in the file. */
typedef struct {
    spill_job_t *j;
    int set;
} spill_write_t;

static void run_write_set(void *arg)
{
    spill_write_t *sw = arg;
    spill_job_t *j = sw->j;
    int64_t at = (int64_t)j->at[sw->set];
    for (int t = 0; t < j->threads && !j->werr; t++) {
        j->werr = fdio_write(j->r->fd, j->bufs[sw->set][t], j->len[sw->set][t], at, NULL);
        at += (int64_t)j->len[sw->set][t];
    }
}

/* Index the batch just encoded (set j->set): its blocks' offsets, and where the set
 * goes in the file. */
static void run_index_batch(spill_job_t *j)
{
    run_t *r = j->r;
    size_t b = j->base;
    j->at[j->set] = r->offset[b];
    for (int t = 0; t < j->threads; t++)
        for (size_t i = 0; i < j->per && b < j->base + j->nb; i++, b++)
            r->offset[b + 1] = r->offset[b] + j->lens[j->set][t][i];
}

int run_spill(run_t *r, const runcfg_t *cfg)
{
    if (!r->keys || r->borrowed)
        return GS_OK;
    double t0 = stats_now();
    int threads = pool_size(cfg->pool);
    size_t w = (size_t)r->width;
    spill_job_t j = { .r = r, .per = RUN_SPILL_BLOCKS, .threads = threads };
    j.cap = codec_bound(RUN_BLOCK_KEYS, r->width) * RUN_SPILL_BLOCKS;
    j.scratch = calloc((size_t)threads, sizeof *j.scratch);
    int rc = j.scratch ? GS_OK : err_set(GS_ENOMEM, "out of memory");
    for (int set = 0; set < 2 && rc == GS_OK; set++) {
        j.bufs[set] = calloc((size_t)threads, sizeof *j.bufs[set]);
        j.lens[set] = calloc((size_t)threads, sizeof *j.lens[set]);
        j.len[set] = calloc((size_t)threads, sizeof *j.len[set]);
        if (!j.bufs[set] || !j.lens[set] || !j.len[set])
            rc = err_set(GS_ENOMEM, "out of memory");
        for (int t = 0; t < threads && rc == GS_OK; t++)
            if (!(j.bufs[set][t] = malloc(j.cap)))
                rc = err_set(GS_ENOMEM, "out of memory");
    }
    for (int t = 0; t < threads && rc == GS_OK; t++)
        if (!(j.scratch[t] = malloc(RUN_BLOCK_KEYS * w)))
            rc = err_set(GS_ENOMEM, "out of memory");
    if (rc == GS_OK)
        rc = run_alloc_index(r);
    if (rc == GS_OK)
        rc = run_create_file(r, cfg);
    if (rc == GS_OK) {
        r->codec = run_choose_codec(cfg->compress, r->keys, run_block_keys(r, 0), r->width);
        for (size_t b = 0; b < r->nblocks; b++)
            r->first[b] = key_get(r->keys, b * RUN_BLOCK_KEYS, r->width);
    }
    size_t per_batch = (size_t)threads * RUN_SPILL_BLOCKS;
    spill_write_t sw[2] = { { &j, 0 }, { &j, 1 } };
    job_init(&j.writer);
    for (size_t base = 0; rc == GS_OK && base < r->nblocks; base += per_batch) {
        j.base = base;
        j.nb = r->nblocks - base < per_batch ? r->nblocks - base : per_batch;
        pool_run(cfg->pool, run_encode_share, &j);
        job_wait(&j.writer);   /* the set before is written: its error, if any */
        if (j.failed)
            rc = err_set(GS_EIO, "cannot encode a run for '%s'", r->path);
        else if (j.werr)
            rc = err_sys(GS_EIO, j.werr, "write error on temporary file '%s'", r->path);
        if (rc)
            break;
        run_index_batch(&j);
        job_post(&j.writer, run_write_set, &sw[j.set]);
        j.set ^= 1;
    }
    job_end(&j.writer);
    if (rc == GS_OK && j.werr)
        rc = err_sys(GS_EIO, j.werr, "write error on temporary file '%s'", r->path);
    for (int set = 0; set < 2; set++) {
        for (int t = 0; j.bufs[set] && t < threads; t++)
            free(j.bufs[set][t]);
        free(j.bufs[set]);
        free(j.lens[set]);
        free(j.len[set]);
    }
    for (int t = 0; j.scratch && t < threads; t++)
        free(j.scratch[t]);
    free(j.scratch);
    if (rc != GS_OK) {
        run_drop_file(r);
        return rc;
    }
    close(r->fd);
    r->fd = -1;
    free(r->keys);
    r->keys = NULL;
    stats_add(ST_SPILL, run_file_bytes(r), stats_now() - t0);
    return GS_OK;
}

void run_free(run_t *r)
{
    if (!r)
        return;
    run_drop_file(r);
    if (!r->borrowed)
        free(r->keys);
    free(r);
}

/* ---- opening spilled runs ------------------------------------------------------------- */

int run_open(run_t *r)
{
    if (r->keys || !r->path || r->fd >= 0)
        return GS_OK;
    r->fd = open(r->path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0)
        return err_sys(GS_EIO, errno, "cannot read temporary file '%s'", r->path);
    return GS_OK;
}

void run_close(run_t *r)
{
    if (!r->keys && r->fd >= 0) {
        close(r->fd);
        r->fd = -1;
    }
}

size_t run_sample(const run_t *r, uint64_t *out, size_t max, size_t *weight)
{
    if (r->n == 0 || max == 0) {
        *weight = 0;
        return 0;
    }
    if (r->keys) {
        size_t m = r->n < max ? r->n : max;
        for (size_t i = 0; i < m; i++)
            out[i] = key_get(r->keys, i * r->n / m, r->width);
        *weight = r->n / m;
        return m;
    }
    size_t stride = (r->nblocks + max - 1) / max, m = 0;
    for (size_t b = 0; b < r->nblocks; b += stride)
        out[m++] = r->first[b];
    *weight = RUN_BLOCK_KEYS * stride;
    return m;
}

