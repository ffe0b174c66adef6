/* SPDX-License-Identifier: MIT */
/* spill.c: sorted runs of records written to temporary files (see spill.h; the
 * files' layout: spill_impl.h). A run goes in rounds: the pool's threads each pack
 * a share of a round's records into blocks of their own, in one of two sets of
 * buffers, while the files' jobs write the round before from the other set, thread
 * i's blocks to file i % nfiles. Where each block goes is settled, and noted in the
 * index, before the jobs start.
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
#include "core/tuning.h"
#include "records/field.h"
#include "records/order.h"
#include "records/spill.h"
#include "records/spill_impl.h"
#include "store/codec.h"

#define SPILL_SHARE ((size_t)2 << 20)     /* a thread's records in a round */

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

/* ---- writing ----------------------------------------------------------------------- */

int rspill_open(rspill_t **out, const settings_t *set, pool_t *pool)
{
    rspill_t *s = calloc(1, sizeof *s);
    if (!s)
        return err_set(GS_ENOMEM, "out of memory");
    *out = s;
    s->set = set;
    s->pool = pool;
    s->lz4 = set->compress != COMPRESS_NONE;
    s->probe = set->compress == COMPRESS_AUTO;
    int nf = pool_size(pool) < SPILL_RECORD_FILES ? pool_size(pool) : SPILL_RECORD_FILES;
    if (!(s->files = calloc((size_t)nf, sizeof *s->files)))
        return err_set(GS_ENOMEM, "out of memory");
    for (int k = 0; k < 2; k++)
        if (!(s->packs[k] = calloc((size_t)pool_size(pool), sizeof *s->packs[k])))
            return err_set(GS_ENOMEM, "out of memory");
    for (; s->nfiles < nf; s->nfiles++) {   /* each counted once it can be closed */
        sfile_t *f = &s->files[s->nfiles];
        job_init(&f->writer);
        f->fd = tempfile_make(AT_FDCWD, set->tmpdir, "gpusort-records-", &f->path, &f->slot);
        if (f->fd < 0) {
            int e = errno;
            job_end(&f->writer);
            return err_sys(GS_EIO, e, "cannot create a temporary file in '%s'", set->tmpdir);
        }
    }
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

/* The block of raw[0..len), whose first record's key is key, appended to p->buf and
 * to p's index. */
static int spill_block(spack_t *p, const char *raw, size_t len, uint64_t key, int lz4)
{
    int bound = LZ4_compressBound((int)len);
    if (!spill_room(p, SPILL_HEAD + (size_t)bound + len))
        return 0;
    if (p->nblocks == p->bcap) {
        size_t cap = p->bcap ? 2 * p->bcap : 64;
        sblock_t *b = realloc(p->blocks, cap * sizeof *b);
        if (!b)
            return 0;
        p->blocks = b;
        p->bcap = cap;
    }
    char *h = p->buf + p->len, *d = h + SPILL_HEAD;
    int stored = lz4 ? LZ4_compress_default(raw, d, (int)len, bound) : 0;
    if (stored <= 0 || (size_t)stored >= len) {   /* not smaller: stored as it is */
        memcpy(d, raw, len);
        stored = (int)len;
    }
    p->blocks[p->nblocks++] = (sblock_t){ .off = p->len, .key = key, .raw = len,
                                          .stored = (uint32_t)stored };
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
    spack_t *packs;        /* the set they are packed into */
    int lz4;               /* 1: blocks compressed in this round */
} spack_job_t;

/* Thread i's share of the round, packed into blocks in its buffer. */
static void spill_pack(void *arg, int i, int nt)
{
    spack_job_t *j = arg;
    spack_t *p = &j->packs[i];
    size_t lo, hi, len, fill = 0;
    uint64_t first = 0;    /* the key of the block's first record */
    pool_share(j->hi - j->lo, i, nt, &lo, &hi);
    p->len = 0;
    p->nblocks = 0;
    for (size_t r = j->lo + lo; r < j->lo + hi && !p->failed; r++) {
        rtable_ahead(j->t, j->order, r, j->lo + hi);
        const char *rec = rtable_line(j->t, (size_t)j->order[r], &len);
        if (fill > 0 && fill + len > SPILL_BLOCK) {
            p->failed = !spill_block(p, p->raw, fill, first, j->lz4);
            fill = 0;
        }
        if (fill == 0)
            first = j->t->key[j->order[r]];
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
        rtable_copy(j->t, p->raw + fill, p->raw + p->raw_cap, rec, len);
        fill += len;
    }
    if (fill > 0 && !p->failed)
        p->failed = !spill_block(p, p->raw, fill, first, j->lz4);
}

/* Under --compress-temp=auto, whether a run is compressed: where its first block
 * (its first SPILL_BLOCK bytes of records, in order) shrinks by a tenth or more
 * under LZ4, as bare numbers decide (store/run.c). Lines of random text shrink by
 * less, and compressing them costs more time than the bytes it saves. 1 where
 * memory is short: the packing says so. */
static int spill_pays(const rtable_t *t, const uint64_t *order, size_t n)
{
    size_t len, fill = 0, r;
    for (r = 0; r < n && fill < SPILL_BLOCK; r++) {
        rtable_line(t, (size_t)order[r], &len);
        fill += len;
    }
    int bound = LZ4_compressBound((int)fill);
    char *raw = malloc(fill), *dst = malloc((size_t)bound);
    int pays = 1;
    if (raw && dst) {
        char *p = raw;
        for (size_t k = 0; k < r; k++) {
            const char *rec = rtable_line(t, (size_t)order[k], &len);
            memcpy(p, rec, len);
            p += len;
        }
        int got = LZ4_compress_default(raw, dst, (int)fill, bound);
        pays = got > 0 && (size_t)got * 10 <= fill * 9;
    }
    free(raw);
    free(dst);
    return pays;
}

/* Pack i's blocks placed at the end of their file (p->at), and added to s's index
 * (and their records' bytes to run's). */
static int spill_note(rspill_t *s, srun_t *run, spack_t *p, int i)
{
    if (p->failed)
        return err_set(GS_ENOMEM, "out of memory");
    if (s->bcap - s->nblocks < p->nblocks) {
        size_t cap = s->bcap ? s->bcap : 256;
        while (cap - s->nblocks < p->nblocks)
            cap *= 2;
        sblock_t *b = realloc(s->blocks, cap * sizeof *b);
        if (!b)
            return err_set(GS_ENOMEM, "out of memory");
        s->blocks = b;
        s->bcap = cap;
    }
    sfile_t *f = &s->files[i % s->nfiles];
    p->at = f->bytes;
    for (size_t k = 0; k < p->nblocks; k++) {
        sblock_t b = p->blocks[k];
        s->blocks[s->nblocks++] = (sblock_t){ .off = p->at + b.off, .key = b.key,
                                              .raw = run->raw, .file = (uint32_t)(i % s->nfiles),
                                              .stored = b.stored };
        run->raw += b.raw;
    }
    f->bytes += p->len;
    s->bytes += p->len;
    return GS_OK;
}

/* A file's job for a round: its packs (i % nfiles == file) written where
 * spill_note placed them. */
typedef struct {
    rspill_t *s;
    spack_t *packs;
    int file;
    int rc;
} swrite_job_t;

static void spill_write(void *arg)
{
    swrite_job_t *w = arg;
    rspill_t *s = w->s;
    sfile_t *f = &s->files[w->file];
    for (int i = w->file; i < pool_size(s->pool) && w->rc == GS_OK; i += s->nfiles) {
        spack_t *p = &w->packs[i];
        int e = p->len ? fdio_write(f->fd, p->buf, p->len, (int64_t)p->at, NULL) : 0;
        if (e)
            w->rc = err_sys(GS_EIO, e, "write error on temporary file '%s'", f->path);
        stats_add(ST_SPILL, p->len, 0);
    }
}

/* Wait for the files' jobs: the first error of theirs, or GS_OK. */
static int spill_wait(rspill_t *s, swrite_job_t *w)
{
    int rc = GS_OK;
    for (int k = 0; k < s->nfiles; k++) {
        job_wait(&s->files[k].writer);
        if (rc == GS_OK)
            rc = w[k].rc;
    }
    return rc;
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
    run->block0 = s->nblocks;
    run->raw = 0;
    int nt = pool_size(s->pool), cur = 0, posted = 0, rc = GS_OK;
    size_t round = SPILL_SHARE / 64 * (size_t)nt;   /* records: lines of 64 bytes, say */
    spack_job_t j = { .s = s, .t = t, .order = order,
                      .lz4 = s->lz4 && (!s->probe || spill_pays(t, order, n)) };
    swrite_job_t w[SPILL_RECORD_FILES];
    double t0 = stats_now(), pack_s = 0, wait_s = 0, t1;
    for (size_t lo = 0; lo < n && rc == GS_OK; lo += round, cur ^= 1) {
        j.lo = lo;
        j.hi = n - lo > round ? lo + round : n;
        j.packs = s->packs[cur];
        t1 = stats_now();
        if (nt > 1 && j.hi - j.lo > 4096)
            pool_run(s->pool, spill_pack, &j);
        else
            for (int i = 0; i < nt; i++)
                spill_pack(&j, i, nt);
        pack_s += stats_now() - t1;
        t1 = stats_now();
        if (posted)   /* the round before, written from the other set */
            rc = spill_wait(s, w);
        wait_s += stats_now() - t1;
        for (int i = 0; i < nt && rc == GS_OK; i++)
            rc = spill_note(s, run, &j.packs[i], i);
        for (int k = 0; k < s->nfiles && rc == GS_OK; k++) {
            w[k] = (swrite_job_t){ .s = s, .packs = j.packs, .file = k, .rc = GS_OK };
            job_post(&s->files[k].writer, spill_write, &w[k]);
            posted = 1;
        }
    }
    t1 = stats_now();
    if (posted) {
        int rc2 = spill_wait(s, w);
        rc = rc ? rc : rc2;
    }
    wait_s += stats_now() - t1;
    stats_add(ST_SPILL, 0, stats_now() - t0);
    stats_note_records_spill(s->nfiles, pack_s, wait_s);
    run->nblocks = s->nblocks - run->block0;
    return rc;
}

uint64_t rspill_bytes(const rspill_t *s)
{
    return s->bytes;
}

void rspill_close(rspill_t *s)
{
    if (!s)
        return;
    for (int k = 0; k < s->nfiles; k++) {
        sfile_t *f = &s->files[k];
        job_end(&f->writer);
        close(f->fd);
        cleanup_remove(f->slot);
        free(f->path);
    }
    for (int k = 0; k < 2; k++) {
        for (int i = 0; s->packs[k] && i < pool_size(s->pool); i++) {
            free(s->packs[k][i].buf);
            free(s->packs[k][i].raw);
            free(s->packs[k][i].blocks);
        }
        free(s->packs[k]);
    }
    free(s->files);
    free(s->blocks);
    free(s->runs);
    free(s);
}
