/* SPDX-License-Identifier: MIT */
/* run_read.c: runs read back (see runs.h): cursors over the keys from a bound on,
 * and reading by rank (the keys at given indexes, the index of a key), a spilled
 * run one decoded block at a time with pread(2), so that threads may read one run at
 * once.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fdio.h"
#include "core/keys.h"
#include "core/mem.h"
#include "store/run_impl.h"

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
    size_t len = (size_t)(r->offset[b + 1] - r->offset[b]), got;
    int e = fdio_read(r->fd, enc, len, (int64_t)r->offset[b], &got);
    if (e)
        return err_sys(GS_EIO, e, "read error on temporary file '%s'", r->path);
    if (got < len)
        return err_set(GS_EIO, "temporary file '%s' is truncated", r->path);
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
    if (r->keys) {   /* gathered into a buffer that crosses PCIe next, or a key */
        mem_copy_stream(dst, (const char *)r->keys + from * w, n * w);
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

int run_cursor_next(run_cursor_t *c, run_batch_t *b)
{
    run_t *r = c->r;
    b->n = 0;
    if (r->keys || r->n == 0) {
        if (c->pos < r->n) {
            b->keys = (const char *)r->keys + c->pos * (size_t)r->width;
            b->n = r->n - c->pos;
            c->pos = r->n;
        }
        return GS_OK;
    }
    while (c->block < r->nblocks) {
        size_t blk = c->block++;
        int rc = run_read_block(c, blk);
        if (rc)
            return rc;
        size_t k = run_block_keys(r, blk), skip = 0;
        if (!c->started) {
            c->started = 1;
            skip = key_lower_bound(c->buf, k, r->width, c->lo);
        }
        if (skip < k) {
            b->keys = (const char *)c->buf + skip * (size_t)r->width;
            b->n = k - skip;
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
