/* SPDX-License-Identifier: MIT */
/* spill.c: sorted runs of records on disk, and their merge (see spill.h).
 *
 * A block is a header of SPILL_HEAD bytes (little-endian: the records' bytes, the
 * bytes stored, their checksum) and the bytes stored: the records as they are where
 * the stored length equals theirs, else their LZ4 block. A run is its blocks, one
 * after another; the file, the runs. The pool's threads each pack a share of a
 * run's records into blocks of their own, the calling thread writes them in order.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/error.h"
#include "core/fdio.h"
#include "core/keys.h"
#include "core/stats.h"
#include "core/tempfile.h"
#include "records/field.h"
#include "records/order.h"
#include "records/spill.h"
#include "store/codec.h"

#define SPILL_BLOCK ((size_t)256 << 10)   /* a block's records: about this many bytes */
#define SPILL_HEAD 16                     /* a block's header */
#define SPILL_SHARE ((size_t)4 << 20)     /* a thread's records between two writes */
#define SPILL_OUT ((size_t)1 << 20)       /* the merge's output buffer */

typedef struct {
    uint64_t off, end;     /* its blocks in the file */
} srun_t;

typedef struct {
    char *buf;             /* blocks, ready to write */
    size_t len, cap;
    char *raw;             /* a block's records, before they are compressed */
    size_t raw_cap;
    int failed;
} spack_t;

struct rspill {
    const settings_t *set;
    pool_t *pool;
    int fd, slot;
    char *path;
    uint64_t bytes;        /* the file's length */
    srun_t *runs;
    size_t nruns, cap;
    spack_t *packs;        /* one a thread */
    int lz4;               /* 1: blocks compressed */
};

static void put32(char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (char)(v >> (8 * i));
}

static void put64(char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (char)(v >> (8 * i));
}

static uint64_t get(const char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | (unsigned char)p[i];
    return v;
}

/* ---- writing ----------------------------------------------------------------------- */

int rspill_open(rspill_t **out, const settings_t *set, pool_t *pool)
{
    rspill_t *s = calloc(1, sizeof *s);
    if (!s)
        return err_set(GS_ENOMEM, "out of memory");
    *out = s;
    s->fd = -1;
    s->set = set;
    s->pool = pool;
    s->slot = -1;
    s->lz4 = set->compress != COMPRESS_NONE;
    s->packs = calloc((size_t)pool_size(pool), sizeof *s->packs);
    if (!s->packs)
        return err_set(GS_ENOMEM, "out of memory");
    s->fd = tempfile_make(AT_FDCWD, set->tmpdir, "gpusort-records-", &s->path, &s->slot);
    if (s->fd < 0)
        return err_sys(GS_EIO, errno, "cannot create a temporary file in '%s'", set->tmpdir);
    return GS_OK;
}

/* Room for n more bytes in p->buf. */
static int spill_room(spack_t *p, size_t n)
{
    if (p->cap - p->len >= n)
        return 1;
    size_t cap = p->cap ? p->cap : SPILL_SHARE;
    while (cap - p->len < n)
        cap *= 2;
    char *b = realloc(p->buf, cap);
    if (!b)
        return 0;
    p->buf = b;
    p->cap = cap;
    return 1;
}

/* The block of raw[0..len) appended to p->buf. */
static int spill_block(spack_t *p, const char *raw, size_t len, int lz4)
{
    int bound = LZ4_compressBound((int)len);
    if (!spill_room(p, SPILL_HEAD + (size_t)bound + len))
        return 0;
    char *h = p->buf + p->len, *d = h + SPILL_HEAD;
    int stored = lz4 ? LZ4_compress_default(raw, d, (int)len, bound) : 0;
    if (stored <= 0 || (size_t)stored >= len) {   /* not smaller: stored as it is */
        memcpy(d, raw, len);
        stored = (int)len;
    }
    put32(h, (uint32_t)len);
    put32(h + 4, (uint32_t)stored);
    put64(h + 8, codec_checksum(d, (size_t)stored));
    p->len += SPILL_HEAD + (size_t)stored;
    return 1;
}

typedef struct {
    rspill_t *s;
    const rtable_t *t;
    const uint64_t *order;
    size_t lo, hi;         /* this round's records */
} spack_job_t;

/* Thread i's share of the round, packed into blocks in its buffer. */
static void spill_pack(void *arg, int i, int nt)
{
    spack_job_t *j = arg;
    spack_t *p = &j->s->packs[i];
    size_t lo, hi, len, fill = 0;
    pool_share(j->hi - j->lo, i, nt, &lo, &hi);
    p->len = 0;
    for (size_t r = j->lo + lo; r < j->lo + hi && !p->failed; r++) {
        const char *rec = rtable_line(j->t, (size_t)j->order[r], &len);
        if (fill > 0 && fill + len > SPILL_BLOCK) {
            p->failed = !spill_block(p, p->raw, fill, j->s->lz4);
            fill = 0;
        }
        if (fill + len > p->raw_cap) {
            size_t cap = fill + len > SPILL_BLOCK ? fill + len : SPILL_BLOCK;
            char *raw = realloc(p->raw, cap);
            if (!raw) {
                p->failed = 1;
                break;
            }
            p->raw = raw;
            p->raw_cap = cap;
        }
        memcpy(p->raw + fill, rec, len);
        fill += len;
    }
    if (fill > 0 && !p->failed)
        p->failed = !spill_block(p, p->raw, fill, j->s->lz4);
}

int rspill_add(rspill_t *s, const rtable_t *t, const uint64_t *order, size_t n)
{
    if (n == 0)
        return GS_OK;
    if (s->nruns == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        srun_t *r = realloc(s->runs, cap * sizeof *r);
        if (!r)
            return err_set(GS_ENOMEM, "out of memory");
        s->runs = r;
        s->cap = cap;
    }
    srun_t *run = &s->runs[s->nruns++];
    run->off = s->bytes;
    int nt = pool_size(s->pool);
    spack_job_t j = { .s = s, .t = t, .order = order };
    int rc = GS_OK;
    for (size_t lo = 0; lo < n && rc == GS_OK; lo += SPILL_SHARE / 64 * (size_t)nt) {
        j.lo = lo;
        j.hi = n - lo > SPILL_SHARE / 64 * (size_t)nt ? lo + SPILL_SHARE / 64 * (size_t)nt : n;
        double t0 = stats_now();
        if (nt > 1 && j.hi - j.lo > 4096)
            pool_run(s->pool, spill_pack, &j);
        else
            for (int i = 0; i < nt; i++)
                spill_pack(&j, i, nt);
        for (int i = 0; i < nt && rc == GS_OK; i++) {
            spack_t *p = &s->packs[i];
            if (p->failed) {
                rc = err_set(GS_ENOMEM, "out of memory");
                break;
            }
            int e = p->len ? fdio_write(s->fd, p->buf, p->len, (int64_t)s->bytes, NULL) : 0;
            if (e)
                rc = err_sys(GS_EIO, e, "write error on temporary file '%s'", s->path);
            s->bytes += p->len;
            stats_add(ST_SPILL, p->len, 0);
        }
        stats_add(ST_SPILL, 0, stats_now() - t0);
    }
    run->end = s->bytes;
    return rc;
}

uint64_t rspill_bytes(const rspill_t *s)
{
    return s->bytes;
}

/* ---- the merge --------------------------------------------------------------------- */

typedef struct {
    uint64_t off, end;     /* the run's blocks still to read */
    char *raw;             /* the block being read */
    size_t raw_len, raw_cap, pos;
    const char *rec;       /* the record at hand, */
    size_t len;            /* its length, terminator included, */
    uint64_t key;          /* its mapped key */
    int run;
} scur_t;

typedef struct {
    rspill_t *s;
    keymap_t km;
    char term;
    char *comp;            /* a block as stored */
    size_t comp_cap;
} smerge_t;

static int spill_damaged(const rspill_t *s)
{
    return err_set(GS_EIO, "read error on temporary file '%s': its contents are damaged",
                   s->path);
}

/* The next block of cursor c into c->raw: GS_OK (c->raw_len 0 at the run's end). */
static int spill_load(smerge_t *m, scur_t *c)
{
    rspill_t *s = m->s;
    c->raw_len = c->pos = 0;
    if (c->off == c->end)
        return GS_OK;
    char h[SPILL_HEAD];
    size_t got;
    int e = fdio_read(s->fd, h, SPILL_HEAD, (int64_t)c->off, &got);
    if (e)
        return err_sys(GS_EIO, e, "read error on temporary file '%s'", s->path);
    uint64_t len = get(h, 4), stored = get(h + 4, 4), sum = get(h + 8, 8);
    if (got < SPILL_HEAD || len == 0 || stored > len ||
        c->off + SPILL_HEAD + stored > c->end)
        return spill_damaged(s);
    if (len > c->raw_cap) {
        char *r = realloc(c->raw, len);
        if (!r)
            return err_set(GS_ENOMEM, "out of memory");
        c->raw = r;
        c->raw_cap = len;
    }
    char *dst = stored == len ? c->raw : NULL;
    if (!dst) {
        if (stored > m->comp_cap) {
            char *b = realloc(m->comp, stored);
            if (!b)
                return err_set(GS_ENOMEM, "out of memory");
            m->comp = b;
            m->comp_cap = stored;
        }
        dst = m->comp;
    }
    e = fdio_read(s->fd, dst, stored, (int64_t)(c->off + SPILL_HEAD), &got);
    if (e)
        return err_sys(GS_EIO, e, "read error on temporary file '%s'", s->path);
    if (got < stored || codec_checksum(dst, stored) != sum)
        return spill_damaged(s);
    if (stored < len &&
        LZ4_decompress_safe(m->comp, c->raw, (int)stored, (int)len) != (int)len)
        return spill_damaged(s);
    c->off += SPILL_HEAD + stored;
    c->raw_len = len;
    return GS_OK;
}

/* Move cursor c to its next record and take its key: GS_OK, c->rec NULL at the
 * run's end. */
static int spill_advance(smerge_t *m, scur_t *c)
{
    const settings_t *set = m->s->set;
    if (c->pos == c->raw_len) {
        int rc = spill_load(m, c);
        if (rc)
            return rc;
        if (c->raw_len == 0) {
            c->rec = NULL;
            return GS_OK;
        }
    }
    const char *p = c->raw + c->pos;
    size_t left = c->raw_len - c->pos;
    uint64_t raw = 0;
    if (set->record_size) {
        if (left < set->record_size)
            return spill_damaged(m->s);
        c->len = set->record_size;
        key_decode(p + set->key_offset, &raw, 1, &m->km, set->big_endian);
        c->key = m->km.width == 4 ? raw & 0xFFFFFFFFull : raw;
    } else {
        const char *e = memchr(p, m->term, left);
        size_t b, fe;
        if (!e || field_key(p, (size_t)(e - p), set->key_field, set->field_sep, m->km.type,
                            &raw, &b, &fe) != FIELD_OK)
            return spill_damaged(m->s);
        c->len = (size_t)(e - p) + 1;
        c->key = key_map(&m->km, raw);
    }
    c->rec = p;
    c->pos += c->len;
    return GS_OK;
}

/* 1 where cursor a's record goes before b's. */
static int spill_before(const smerge_t *m, const scur_t *a, const scur_t *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    int c = rorder_tie_lines(m->s->set, a->rec, a->len, b->rec, b->len);
    return c ? c < 0 : a->run < b->run;
}

static void spill_sift(const smerge_t *m, scur_t **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, best = i;
        if (l < n && spill_before(m, h[l], h[best]))
            best = l;
        if (l + 1 < n && spill_before(m, h[l + 1], h[best]))
            best = l + 1;
        if (best == i)
            return;
        scur_t *x = h[i];
        h[i] = h[best];
        h[best] = x;
        i = best;
    }
}

int rspill_merge(rspill_t *s, const char *header, size_t hlen, output_t *out)
{
    smerge_t m = { .s = s, .term = s->set->zero_terminated ? '\0' : '\n' };
    key_map_init(&m.km, s->set->type, s->set->reverse || s->set->key_reverse);
    scur_t *cur = calloc(s->nruns ? s->nruns : 1, sizeof *cur);
    scur_t **heap = calloc(s->nruns ? s->nruns : 1, sizeof *heap);
    char *obuf = malloc(SPILL_OUT);
    int rc = cur && heap && obuf ? GS_OK : err_set(GS_ENOMEM, "out of memory");
    size_t n = 0, olen = 0;
    for (size_t i = 0; i < s->nruns && rc == GS_OK; i++) {
        cur[i] = (scur_t){ .off = s->runs[i].off, .end = s->runs[i].end, .run = (int)i };
        rc = spill_advance(&m, &cur[i]);
        if (rc == GS_OK && cur[i].rec)
            heap[n++] = &cur[i];
    }
    for (size_t i = n; i-- > 0;)
        spill_sift(&m, heap, n, i);
    if (rc == GS_OK && header)
        rc = output_write_bytes(out, header, hlen);
    int any = 0;
    uint64_t last = 0;
    double t0 = stats_now();
    while (rc == GS_OK && n > 0) {
        scur_t *c = heap[0];
        if (!(s->set->unique && any && c->key == last)) {
            if (olen + c->len > SPILL_OUT && olen > 0) {
                rc = output_write_bytes(out, obuf, olen);
                olen = 0;
            }
            if (rc == GS_OK && c->len > SPILL_OUT)
                rc = output_write_bytes(out, c->rec, c->len);
            else if (rc == GS_OK) {
                memcpy(obuf + olen, c->rec, c->len);
                olen += c->len;
            }
            any = 1;
            last = c->key;
        }
        if (rc == GS_OK)
            rc = spill_advance(&m, c);
        if (rc == GS_OK && !c->rec)
            heap[0] = heap[--n];
        spill_sift(&m, heap, n, 0);
    }
    if (rc == GS_OK && olen > 0)
        rc = output_write_bytes(out, obuf, olen);
    stats_add(ST_MERGE, s->bytes, stats_now() - t0);
    for (size_t i = 0; cur && i < s->nruns; i++)
        free(cur[i].raw);
    free(cur);
    free(heap);
    free(obuf);
    free(m.comp);
    return rc;
}

void rspill_close(rspill_t *s)
{
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    if (s->slot >= 0)
        cleanup_remove(s->slot);
    for (int i = 0; s->packs && i < pool_size(s->pool); i++) {
        free(s->packs[i].buf);
        free(s->packs[i].raw);
    }
    free(s->packs);
    free(s->runs);
    free(s->path);
    free(s);
}
