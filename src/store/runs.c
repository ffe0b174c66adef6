/* runs.c: the run store (see runs.h).
 *
 * Spilling encodes a run's blocks in parallel: each pool thread encodes its share of
 * a batch of blocks into its own buffer, and a writer thread writes the batch in
 * order while the pool encodes the next. The
 * codec is chosen per run: --compress-temp=auto compresses the first block and keeps
 * LZ4 for the run only if that block shrank by at least a tenth.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/error.h"
#include "core/keys.h"
#include "core/mem.h"
#include "store/runs.h"
#include "core/stats.h"

/* Blocks each thread encodes per batch while spilling. */
#define RUN_SPILL_BLOCKS 32

struct run {
    int width;
    size_t n;                /* keys */
    void *keys;              /* a memory run's keys, or NULL once spilled */
    int borrowed;            /* 1: keys belong to someone else (run_view) */
    /* a spilled run */
    char *path;              /* its file */
    int slot;                /* cleanup slot, or -1 */
    int fd;                  /* open while cursors may read it, else -1 */
    codec_t codec;
    size_t nblocks;
    uint64_t *first;         /* [nblocks] each block's first key */
    uint64_t *offset;        /* [nblocks + 1] each block's file offset, then the end */
};

/* ---- small helpers ------------------------------------------------------------------ */

static size_t run_block_keys(const run_t *r, size_t b)
{
    size_t lo = b * RUN_BLOCK_KEYS;
    return r->n - lo < RUN_BLOCK_KEYS ? r->n - lo : RUN_BLOCK_KEYS;
}

/* The first block of spilled run r whose first key is >= v (nblocks if none). */
static size_t run_block_from(const run_t *r, uint64_t v)
{
    size_t a = 0, b = r->nblocks;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (r->first[m] < v)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

static int run_write_all(int fd, const void *buf, size_t len, const char *path)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return err_sys(GS_EIO, errno, "write error on temporary file '%s'", path);
        }
        p += w;
        len -= (size_t)w;
    }
    return GS_OK;
}

/* Create a registered temporary file for a run. */
static int run_create_file(run_t *r, const char *tmpdir)
{
    size_t len = strlen(tmpdir) + sizeof "/gpusort-run-XXXXXX";
    r->path = malloc(len);
    if (!r->path)
        return err_set(GS_ENOMEM, "out of memory");
    snprintf(r->path, len, "%s/gpusort-run-XXXXXX", tmpdir);
    r->fd = cleanup_mkstemp(r->path, &r->slot);
    if (r->fd < 0) {
        int e = errno;
        free(r->path);
        r->path = NULL;
        return err_sys(GS_EIO, e, "cannot create a temporary file in '%s'", tmpdir);
    }
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

/* The codec for a run whose first block is keys[0..n): see the file comment. */
static codec_t run_choose_codec(compress_t compress, const void *keys, size_t n, int width)
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
 * buffer of the current set; while the pool encodes one set, a thread writes the
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

static void *run_write_set(void *arg)
{
    spill_write_t *sw = arg;
    spill_job_t *j = sw->j;
    off_t at = (off_t)j->at[sw->set];
    for (int t = 0; t < j->threads; t++) {
        const unsigned char *p = j->bufs[sw->set][t];
        size_t left = j->len[sw->set][t];
        while (left > 0) {
            ssize_t w = pwrite(j->r->fd, p, left, at);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                j->werr = errno;
                return NULL;
            }
            p += w;
            at += w;
            left -= (size_t)w;
        }
    }
    return NULL;
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
        rc = run_create_file(r, cfg->tmpdir);
    if (rc == GS_OK) {
        r->codec = run_choose_codec(cfg->compress, r->keys, run_block_keys(r, 0), r->width);
        for (size_t b = 0; b < r->nblocks; b++)
            r->first[b] = key_get(r->keys, b * RUN_BLOCK_KEYS, r->width);
    }
    size_t per_batch = (size_t)threads * RUN_SPILL_BLOCKS;
    pthread_t writer;
    spill_write_t sw = { &j, 0 };
    int writing = 0;   /* 1: the writer thread runs (on set sw.set) */
    for (size_t base = 0; rc == GS_OK && base < r->nblocks; base += per_batch) {
        j.base = base;
        j.nb = r->nblocks - base < per_batch ? r->nblocks - base : per_batch;
        pool_run(cfg->pool, run_encode_share, &j);
        if (writing) {
            pthread_join(writer, NULL);
            writing = 0;
        }
        if (j.failed)
            rc = err_set(GS_EIO, "cannot encode a run for '%s'", r->path);
        else if (j.werr)
            rc = err_sys(GS_EIO, j.werr, "write error on temporary file '%s'", r->path);
        if (rc)
            break;
        run_index_batch(&j);
        sw.set = j.set;
        if (cleanup_thread_create(&writer, run_write_set, &sw) == 0)
            writing = 1;
        else
            run_write_set(&sw);   /* no thread to be had: write it here */
        j.set ^= 1;
    }
    if (writing)
        pthread_join(writer, NULL);
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

/* ---- the run writer ----------------------------------------------------------------------- */

struct run_writer {
    runcfg_t cfg;
    run_t *r;
    void *block;             /* keys of the block being filled */
    size_t fill;             /* keys in it */
    size_t cap_blocks;       /* room in the index */
    void *enc, *scratch;
    int chose;               /* 1 once the codec is chosen */
};

int run_writer_open(run_writer_t **out, const runcfg_t *cfg)
{
    run_writer_t *w = calloc(1, sizeof *w);
    run_t *r = calloc(1, sizeof *r);
    if (!w || !r) {
        free(w);
        free(r);
        return err_set(GS_ENOMEM, "out of memory");
    }
    w->cfg = *cfg;
    w->r = r;
    r->width = cfg->width;
    r->fd = -1;
    r->slot = -1;
    size_t wb = (size_t)cfg->width;
    w->block = malloc(RUN_BLOCK_KEYS * wb);
    w->enc = malloc(codec_bound(RUN_BLOCK_KEYS, cfg->width));
    w->scratch = malloc(RUN_BLOCK_KEYS * wb);
    w->cap_blocks = 64;
    r->first = malloc(sizeof *r->first * w->cap_blocks);
    r->offset = malloc(sizeof *r->offset * (w->cap_blocks + 1));
    int rc = GS_OK;
    if (!w->block || !w->enc || !w->scratch || !r->first || !r->offset)
        rc = err_set(GS_ENOMEM, "out of memory");
    else
        rc = run_create_file(r, cfg->tmpdir);
    if (rc != GS_OK) {
        run_writer_abort(w);
        return rc;
    }
    r->offset[0] = 0;
    *out = w;
    return GS_OK;
}

/* Encode and write the block being filled. */
static int run_writer_flush(run_writer_t *w)
{
    run_t *r = w->r;
    if (w->fill == 0)
        return GS_OK;
    if (!w->chose) {
        r->codec = run_choose_codec(w->cfg.compress, w->block, w->fill, r->width);
        w->chose = 1;
    }
    if (r->nblocks == w->cap_blocks) {
        size_t nc = w->cap_blocks * 2;
        uint64_t *f = realloc(r->first, sizeof *f * nc);
        if (f)
            r->first = f;
        uint64_t *o = realloc(r->offset, sizeof *o * (nc + 1));
        if (o)
            r->offset = o;
        if (!f || !o)
            return err_set(GS_ENOMEM, "out of memory");
        w->cap_blocks = nc;
    }
    size_t len = codec_encode(r->codec, w->block, w->fill, r->width, w->enc,
                              codec_bound(RUN_BLOCK_KEYS, r->width), w->scratch);
    if (!len)
        return err_set(GS_EIO, "cannot encode a run for '%s'", r->path);
    int rc = run_write_all(r->fd, w->enc, len, r->path);
    if (rc)
        return rc;
    stats_add(ST_SPILL, len, 0);
    r->first[r->nblocks] = key_get(w->block, 0, r->width);
    r->offset[r->nblocks + 1] = r->offset[r->nblocks] + len;
    r->nblocks++;
    r->n += w->fill;
    w->fill = 0;
    return GS_OK;
}

int run_writer_add(run_writer_t *w, const void *keys, size_t n)
{
    size_t wb = (size_t)w->r->width;
    const char *p = keys;
    while (n > 0) {
        size_t take = RUN_BLOCK_KEYS - w->fill < n ? RUN_BLOCK_KEYS - w->fill : n;
        memcpy((char *)w->block + w->fill * wb, p, take * wb);
        w->fill += take;
        p += take * wb;
        n -= take;
        if (w->fill == RUN_BLOCK_KEYS) {
            int rc = run_writer_flush(w);
            if (rc)
                return rc;
        }
    }
    return GS_OK;
}

static void run_writer_free(run_writer_t *w)
{
    free(w->block);
    free(w->enc);
    free(w->scratch);
    free(w);
}

int run_writer_close(run_writer_t *w, run_t **out)
{
    int rc = run_writer_flush(w);
    if (rc) {
        run_writer_abort(w);
        return rc;
    }
    run_t *r = w->r;
    close(r->fd);
    r->fd = -1;
    run_writer_free(w);
    *out = r;
    return GS_OK;
}

void run_writer_abort(run_writer_t *w)
{
    if (!w)
        return;
    run_free(w->r);
    run_writer_free(w);
}

/* ---- cursors ------------------------------------------------------------------------------ */

struct run_cursor {
    run_t *r;
    uint64_t lo;             /* the least key wanted */
    size_t block;            /* disk: the next block to read */
    size_t pos;              /* memory: the next key */
    int started;             /* disk: 1 once the first block was read */
    void *buf, *enc, *scratch;
};

size_t run_cursor_bytes(int width)
{
    return 2 * RUN_BLOCK_KEYS * (size_t)width + codec_bound(RUN_BLOCK_KEYS, width);
}

/* The first index in keys[0..n) whose key is >= lo. */
int run_cursor_open(run_cursor_t **out, run_t *r, uint64_t lo)
{
    run_cursor_t *c = calloc(1, sizeof *c);
    if (!c)
        return err_set(GS_ENOMEM, "out of memory");
    c->r = r;
    c->lo = lo;
    if (r->keys || r->n == 0) {
        c->pos = r->keys ? key_lower_bound(r->keys, r->n, r->width, lo) : 0;
        *out = c;
        return GS_OK;
    }
    size_t w = (size_t)r->width;
    c->buf = malloc(RUN_BLOCK_KEYS * w);
    c->scratch = malloc(RUN_BLOCK_KEYS * w);
    c->enc = malloc(codec_bound(RUN_BLOCK_KEYS, r->width));
    if (!c->buf || !c->scratch || !c->enc) {
        run_cursor_close(c);
        return err_set(GS_ENOMEM, "out of memory");
    }
    /* The last block that starts below lo holds the first key >= lo, or the block
     * after it does. */
    size_t a = run_block_from(r, lo);
    c->block = a > 0 ? a - 1 : 0;
    *out = c;
    return GS_OK;
}

/* Read block b of spilled run r and decode it into dst (room for its keys), through
 * enc (codec_bound bytes) and scratch (a block's keys). Thread-safe (pread). */
static int run_load_block(run_t *r, size_t b, void *enc, void *dst, void *scratch)
{
    size_t len = (size_t)(r->offset[b + 1] - r->offset[b]);
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(r->fd, (char *)enc + got, len - got, (off_t)(r->offset[b] + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return err_sys(GS_EIO, errno, "read error on temporary file '%s'", r->path);
        if (n == 0)
            return err_set(GS_EIO, "temporary file '%s' is truncated", r->path);
        got += (size_t)n;
    }
    if (codec_decode(r->codec, enc, len, dst, run_block_keys(r, b), r->width, scratch))
        return err_set(GS_EIO, "temporary file '%s' is corrupt", r->path);
    return GS_OK;
}

static int run_read_block(run_cursor_t *c, size_t b)
{
    return run_load_block(c->r, b, c->enc, c->buf, c->scratch);
}

/* ---- reading by rank ------------------------------------------------------------------- */

/* The three block buffers of run_cursor_bytes(), carved from one allocation. */
static void run_split_buffers(const run_t *r, void *buffers, void **blk, void **scratch,
                              void **enc)
{
    size_t bytes = RUN_BLOCK_KEYS * (size_t)r->width;
    *blk = buffers;
    *scratch = (char *)buffers + bytes;
    *enc = (char *)buffers + 2 * bytes;
}

int run_copy_keys(run_t *r, size_t from, size_t n, void *dst, void *buffers)
{
    size_t w = (size_t)r->width;
    if (n == 0)
        return GS_OK;
    if (r->keys) {
        memcpy(dst, (const char *)r->keys + from * w, n * w);
        return GS_OK;
    }
    void *blk, *scratch, *enc;
    run_split_buffers(r, buffers, &blk, &scratch, &enc);
    char *d = dst;
    for (size_t b = from / RUN_BLOCK_KEYS; n > 0; b++) {
        size_t first = b * RUN_BLOCK_KEYS, k = run_block_keys(r, b);
        size_t skip = from - first, take = k - skip < n ? k - skip : n;
        int whole = skip == 0 && take == k;
        /* A whole block is decoded where it goes; a part, aside and copied. */
        int rc = run_load_block(r, b, enc, whole ? (void *)d : blk, scratch);
        if (rc)
            return rc;
        if (!whole)
            memcpy(d, (const char *)blk + skip * w, take * w);
        d += take * w;
        from += take;
        n -= take;
    }
    return GS_OK;
}

int run_ranks(run_t *r, const uint64_t *v, size_t m, size_t *idx, void *buffers)
{
    if (r->keys || r->n == 0) {
        for (size_t i = 0; i < m; i++)
            idx[i] = r->keys ? key_lower_bound(r->keys, r->n, r->width, v[i]) : 0;
        return GS_OK;
    }
    void *blk, *scratch, *enc;
    run_split_buffers(r, buffers, &blk, &scratch, &enc);
    size_t loaded = SIZE_MAX;   /* the block in blk */
    for (size_t i = 0; i < m; i++) {
        /* The rank lies in the block before the first that starts at v or above. */
        size_t a = run_block_from(r, v[i]);
        if (a == 0) {
            idx[i] = 0;
            continue;
        }
        if (loaded != a - 1) {
            int rc = run_load_block(r, a - 1, enc, blk, scratch);
            if (rc)
                return rc;
            loaded = a - 1;
        }
        idx[i] = (a - 1) * RUN_BLOCK_KEYS +
                 key_lower_bound(blk, run_block_keys(r, a - 1), r->width, v[i]);
    }
    return GS_OK;
}

int run_rank(run_t *r, uint64_t v, size_t *idx, void *buffers)
{
    return run_ranks(r, &v, 1, idx, buffers);
}

int run_cursor_next(run_cursor_t *c, const void **keys, size_t *n)
{
    run_t *r = c->r;
    *n = 0;
    if (r->keys || r->n == 0) {
        if (c->pos < r->n) {
            *keys = (const char *)r->keys + c->pos * (size_t)r->width;
            *n = r->n - c->pos;
            c->pos = r->n;
        }
        return GS_OK;
    }
    while (c->block < r->nblocks) {
        size_t b = c->block++;
        int rc = run_read_block(c, b);
        if (rc)
            return rc;
        size_t k = run_block_keys(r, b), skip = 0;
        if (!c->started) {
            c->started = 1;
            skip = key_lower_bound(c->buf, k, r->width, c->lo);
        }
        if (skip < k) {
            *keys = (const char *)c->buf + skip * (size_t)r->width;
            *n = k - skip;
            return GS_OK;
        }
    }
    return GS_OK;
}

void run_cursor_close(run_cursor_t *c)
{
    if (!c)
        return;
    free(c->buf);
    free(c->enc);
    free(c->scratch);
    free(c);
}
