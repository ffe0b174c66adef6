/* SPDX-License-Identifier: MIT */
/* reader_binary.c: binary keys and records (see reader.h): each block's whole keys
 * decoded in place by the pool's threads, or read straight into the caller's memory
 * from a regular file (kreader_read_keys); a partial key at the end carried to the
 * next input or reported after the whole keys before it.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "io/reader_impl.h"

/* Decoding binary keys in place, a share per pool thread. */
typedef struct {
    kreader_t *r;
    char *keys;
    size_t n;
} decode_job_t;

static void kreader_decode_share(void *arg, int t, int nt)
{
    decode_job_t *j = arg;
    size_t w = (size_t)j->r->width;
    size_t lo, hi;
    pool_share(j->n, t, nt, &lo, &hi);
    char *p = j->keys + lo * w;
    key_decode(p, p, hi - lo, j->r->cfg.km, j->r->cfg.big_endian);
}

/* Decode keys[0..n) in place, on the pool where there are many; counted as parsing.
 * Unsigned keys in the host's order are their own mapping: nothing to do. */
static void kreader_decode(kreader_t *r, char *keys, size_t n)
{
    if (r->cfg.record_size || key_identity(r->cfg.km, r->cfg.big_endian))
        return;
    double t0 = stats_now();
    if (n * (size_t)r->width < READ_PARALLEL_MIN) {
        key_decode(keys, keys, n, r->cfg.km, r->cfg.big_endian);
    } else {
        decode_job_t j = { r, keys, n };
        pool_run(r->cfg.pool, kreader_decode_share, &j);
    }
    stats_add(ST_PARSE, n * (size_t)r->width, stats_now() - t0);
}

/* A partial key of part bytes at p ends the input: carried to the next input, or an
 * error reported after the whole keys before it (r->pending). */
static void kreader_partial(kreader_t *r, const char *p, size_t part)
{
    if (r->cfg.record_size) {
        r->pending = err_set(GS_EINPUT, "%s: %llu bytes: not a whole number of %d-byte records",
                             r->file.name, (unsigned long long)r->bytes, r->width);
    } else if (r->cfg.carry) {
        r->cfg.carry->n = (int)part;
        memcpy(r->cfg.carry->bytes, p, part);
    } else {
        r->pending = err_set(GS_EINPUT, "%s: %llu bytes: not a whole number of %d-byte keys",
                             r->file.name, (unsigned long long)r->bytes, r->width);
    }
}

void kreader_carry_count(carry_t *c, const char *name, uint64_t bytes, int width)
{
    c->width = width;
    c->inputs++;
    c->total += bytes;
    if (!c->odd && bytes % (uint64_t)width) {
        c->odd = 1;
        c->odd_bytes = bytes;
        c->odd_name = strdup(name);
    }
}

int kreader_carry_end(carry_t *c, int rc)
{
    if (rc == GS_OK && c->width && c->total % (uint64_t)c->width) {
        if (!c->odd_name)
            rc = err_set(GS_ENOMEM, "out of memory");
        else if (c->inputs == 1)
            rc = err_set(GS_EINPUT, "%s: %llu bytes: not a whole number of %d-byte keys",
                         c->odd_name, (unsigned long long)c->odd_bytes, c->width);
        else
            rc = err_set(GS_EINPUT, "%s: %llu bytes: not a whole number of %d-byte keys (the "
                         "%d inputs together: %llu bytes)", c->odd_name,
                         (unsigned long long)c->odd_bytes, c->width, c->inputs,
                         (unsigned long long)c->total);
    }
    free(c->odd_name);
    *c = (carry_t){ .n = 0 };   /* ended: a second call returns rc */
    return rc;
}

int kreader_next_binary(kreader_t *r, const void **keys, size_t *n)
{
    size_t w = (size_t)r->width;
    r->keys_before += r->block_keys;
    r->block_keys = 0;
    int rc = kreader_advance(r);
    if (rc)
        return rc;
    if (r->last && r->have[r->cur] > r->used) {
        kreader_partial(r, r->buf + r->used, r->have[r->cur] - r->used);
        r->have[r->cur ^ 1] = 0;
        if (r->used == 0 && r->pending) {
            int rc = r->pending;
            r->pending = 0;
            return rc;
        }
    }
    size_t whole = r->used / w;
    kreader_decode(r, r->buf, whole);
    r->block_keys = whole;
    *keys = r->buf;
    *n = whole;
    return GS_OK;
}

int kreader_direct(const kreader_t *r)
{
    return r->cfg.binary && r->regular;
}

uint64_t kreader_left(const kreader_t *r)
{
    return (r->size > r->off ? r->size - r->off : 0) + r->have[0];
}

int kreader_read_keys(kreader_t *r, void *dst, size_t max, size_t *n)
{
    size_t w = (size_t)r->width;
    *n = 0;
    if (r->pending) {
        int rc = r->pending;
        r->pending = 0;
        return rc;
    }
    if (max == 0 || r->eof)
        return GS_OK;
    /* Bytes carried from the input before (kreader_open put them in bufs[0]) begin
     * the first key. */
    char *d = dst;
    size_t pre = r->have[0];
    memcpy(d, r->bufs[0], pre);
    r->have[0] = 0;
    double t0 = stats_now();
    size_t got;
    int rc = kreader_pread(r, d + pre, max * w - pre, &got);
    if (rc)
        return rc;
    r->bytes += got;
    stats_add(ST_READ, got, stats_now() - t0);
    size_t total = pre + got, keys = total / w;
    if (total % w)   /* only at the end of the file */
        kreader_partial(r, d + keys * w, total % w);
    kreader_decode(r, d, keys);
    r->keys_before += r->block_keys;
    r->block_keys = keys;
    *n = keys;
    if (keys == 0 && r->pending) {
        rc = r->pending;
        r->pending = 0;
        return rc;
    }
    return GS_OK;
}
