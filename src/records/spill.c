/* SPDX-License-Identifier: MIT */
/* spill.c: sorted runs of records written to temporary files (see spill.h; the
 * files' layout: spill_impl.h). A run goes in rounds: the pool's threads each pack
 * a share of a round's records into blocks in a buffer of their own and write it to
 * their file (thread i's: file i % nfiles), at the end of what it holds; then the
 * blocks are noted in the index, in the threads' order, which is the run's.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/error.h"
#include "core/fdio.h"
#include "core/stats.h"
#include "core/tempfile.h"
#include "core/tuning.h"
#include "records/spill.h"
#include "records/spill_impl.h"
#include "store/codec.h"

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
    /* A merge holds a block of every run it reads: blocks of -S / SPILL_BLOCKS_IN_S
     * let it read tens of them within -S, where a small -S would take two at a
     * time (doc/perf/TUNING.md). */
    size_t b = set->buffer_bytes / SPILL_BLOCKS_IN_S;
    s->block = b < SPILL_BLOCK_MIN ? SPILL_BLOCK_MIN : b > SPILL_BLOCK ? SPILL_BLOCK : b;
    int nf = pool_size(pool) < SPILL_RECORD_FILES ? pool_size(pool) : SPILL_RECORD_FILES;
    if (!(s->files = calloc((size_t)nf, sizeof *s->files)))
        return err_set(GS_ENOMEM, "out of memory");
    if (!(s->packs = calloc((size_t)pool_size(pool), sizeof *s->packs)))
        return err_set(GS_ENOMEM, "out of memory");
    for (; s->nfiles < nf; s->nfiles++) {   /* each counted once it can be closed */
        sfile_t *f = &s->files[s->nfiles];
        const char *dir = tempfile_dir(set->tmpdirs, set->ntmpdirs);
        int slot;
        f->fd = tempfile_make(AT_FDCWD, dir, "gpusort-records-", &f->path, &slot);
        if (f->fd < 0)
            return err_sys(GS_EIO, errno, "cannot create a temporary file in '%s'", dir);
        /* Unlinked at once: its descriptor is all the spill uses (the path only names
         * it in messages), and a file without a name goes with the process however
         * that ends, killed by SIGKILL or ended by an MPI runtime's own exit too. */
        cleanup_remove(slot);
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

/* Room for a block of len bytes of records at the end of p->buf (and, compressed,
 * in p->raw), and for its entry in p's index: where its records are to be gathered
 * (RTABLE_SLACK bytes to spare after them), or NULL when out of memory. Stored as
 * they are, they are gathered where they stay, after the header. */
static char *spill_block_room(spack_t *p, size_t len, int lz4)
{
    size_t bound = codec_block_bound(len);
    if (!bound || !spill_room(p, bound + RTABLE_SLACK))
        return NULL;
    if (p->nblocks == p->bcap) {
        size_t cap = p->bcap ? 2 * p->bcap : 64;
        sblock_t *b = realloc(p->blocks, cap * sizeof *b);
        if (!b)
            return NULL;
        p->blocks = b;
        p->bcap = cap;
    }
    if (!lz4)
        return p->buf + p->len + CODEC_HEAD;
    if (len + RTABLE_SLACK > p->raw_cap) {
        char *raw = realloc(p->raw, len + RTABLE_SLACK);
        if (!raw)
            return NULL;
        p->raw = raw;
        p->raw_cap = len + RTABLE_SLACK;
    }
    return p->raw;
}

/* The block whose len bytes of records were just gathered where spill_block_room()
 * said, the mapped key of its first record key: compressed (where lz4, and where it
 * shrinks; else copied) after its header, which is written, and added to p's
 * index. */
static void spill_block_end(spack_t *p, size_t len, uint64_t key, int lz4)
{
    char *h = p->buf + p->len;
    size_t bytes = codec_block_seal(h, lz4 ? p->raw : h + CODEC_HEAD, len, lz4);
    p->blocks[p->nblocks++] = (sblock_t){ .off = p->len, .key = key, .raw = len,
                                          .stored = (uint32_t)(bytes - CODEC_HEAD) };
    p->len += bytes;
}

typedef struct {
    rspill_t *s;
    const rtable_t *t;
    uint64_t *order;
    int where;             /* 1: text, order[] made where words as it is packed */
    size_t lo, hi;         /* this round's records */
    int lz4;               /* 1: blocks compressed in this round */
} spack_job_t;

/* A block planned to start at record r (key its first record's): 1, or 0 when out of
 * memory. */
static int spill_plan(spack_t *p, size_t r, uint64_t key)
{
    if (p->nplan == p->pcap) {
        size_t cap = p->pcap ? 2 * p->pcap : 16;
        splan_t *b = realloc(p->plan, cap * sizeof *b);
        if (!b)
            return 0;
        p->plan = b;
        p->pcap = cap;
    }
    p->plan[p->nplan++] = (splan_t){ .r = r, .bytes = 0, .key = key };
    return 1;
}

/* Thread i's share of the round, packed into blocks in its buffer, in two passes
 * as emit.c writes records: first its blocks are planned (each about s->block
 * bytes; their first keys taken) and, for text, its table lines made where words;
 * then each block's records are gathered, one random read a record, and stored. */
static void spill_pack(spack_job_t *j, spack_t *p, int i, int nt)
{
    const rtable_t *t = j->t;
    size_t lo, hi, len, fill = 0;
    pool_share(j->hi - j->lo, i, nt, &lo, &hi);
    lo += j->lo;
    hi += j->lo;
    p->len = p->nblocks = p->nplan = 0;
    /* The arrays in locals, here and below: the stores into order[] and the blocks
     * could change the table's fields, so they would be read again after each. */
    uint64_t *order = j->order;
    const uint64_t *start = t->start;   /* NULL for binary records */
    const char *arena = t->arena;
    size_t rsize = t->rsize;
    for (size_t r = lo; r < hi; r++) {
        size_t l = (size_t)order[r];
        uint64_t off;
        if (start) {
            rtable_start_ahead(start, order, r, hi);
            off = start[l];
            len = (size_t)(start[l + 1] - off);
        } else {
            off = (uint64_t)l * rsize;
            len = rsize;
        }
        if (len > CODEC_BLOCK_MAX) {   /* no block takes it (store/codec.h) */
            p->failed = 2;
            p->too_long = len;
            return;
        }
        if (fill == 0 || fill + len > j->s->block) {
            if (!spill_plan(p, r, t->key[l])) {
                p->failed = 1;
                return;
            }
            fill = 0;
        }
        fill += len;
        p->plan[p->nplan - 1].bytes = fill;
        if (j->where)
            order[r] = rtable_where_at(off, len);
    }
    for (size_t b = 0; b < p->nplan && !p->failed; b++) {
        const splan_t *pl = &p->plan[b];
        size_t end = b + 1 < p->nplan ? p->plan[b + 1].r : hi;
        char *d = spill_block_room(p, pl->bytes, j->lz4), *dend = d + pl->bytes + RTABLE_SLACK;
        if (!d) {
            p->failed = 1;
            break;
        }
        if (j->where) {
            for (size_t r = pl->r; r < end; r++) {
                rtable_where_ahead(arena, order, r, hi);
                const char *rec = rtable_record(t, order, 1, r, &len);
                rtable_copy(t, d, dend, rec, len);
                d += len;
            }
        } else {
            for (size_t r = pl->r; r < end; r++) {
                rtable_record_ahead(t, order, 0, r, hi);
                const char *rec = rtable_record(t, order, 0, r, &len);
                rtable_copy(t, d, dend, rec, len);
                d += len;
            }
        }
        spill_block_end(p, pl->bytes, pl->key, j->lz4);
    }
}

/* Thread i's part of a round: its share packed, then written at the end of its
 * file, where it reserves the room (another thread may share the file). */
static void spill_part(void *arg, int i, int nt)
{
    spack_job_t *j = arg;
    rspill_t *s = j->s;
    spack_t *p = &s->packs[i];
    double t0 = stats_now();
    spill_pack(j, p, i, nt);
    double t1 = stats_now();
    p->pack_s = t1 - t0;
    p->write_s = 0;
    p->rc = GS_OK;
    if (p->failed || p->len == 0)
        return;
    p->file = i % s->nfiles;
    sfile_t *f = &s->files[p->file];
    p->at = __atomic_fetch_add(&f->bytes, (uint64_t)p->len, __ATOMIC_RELAXED);
    int e = fdio_write(f->fd, p->buf, p->len, (int64_t)p->at, NULL);
    if (e)
        p->rc = err_sys(GS_EIO, e, "write error on temporary file '%s'", f->path);
    stats_add(ST_SPILL, p->len, 0);
    p->write_s = stats_now() - t1;
}

/* Whether len bytes of records, a run's first block, shrink by a tenth or more
 * under LZ4 (1 where memory is short: the packing says so). */
static int spill_block_pays(const char *raw, size_t len)
{
    char *blk = malloc(codec_block_bound(len));
    if (!blk)
        return 1;
    size_t stored = codec_block_seal(blk, raw, len, 1) - CODEC_HEAD;
    free(blk);
    return stored * 10 <= len * 9;
}

/* Under --compress-temp=auto, whether a run is compressed: where its first block
 * (its first block's bytes of records, in order) shrinks by a tenth or more
 * under LZ4, as bare numbers decide (store/run.c). Lines of random text shrink by
 * less, and compressing them costs more time than the bytes it saves. */
static int spill_pays(const rtable_t *t, const uint64_t *order, size_t n, size_t block)
{
    size_t len, fill = 0, r;
    for (r = 0; r < n && fill < block; r++) {
        rtable_line(t, (size_t)order[r], &len);
        fill += len;
    }
    char *raw = malloc(fill);
    if (!raw)
        return 1;
    char *p = raw;
    for (size_t k = 0; k < r; k++) {
        const char *rec = rtable_line(t, (size_t)order[k], &len);
        memcpy(p, rec, len);
        p += len;
    }
    int pays = spill_block_pays(raw, fill);
    free(raw);
    return pays;
}

/* Pack p's blocks, written to its file, added to s's index (and their records'
 * bytes to run's): GS_OK, or the pack's error. */
static int spill_note(rspill_t *s, srun_t *run, const spack_t *p)
{
    if (p->failed == 2)
        return err_set(GS_EINPUT,
                       "a %s of %zu bytes is too long to be spilled to a temporary file "
                       "(%u bytes at most): a -S large enough for the whole input sorts it "
                       "in memory",
                       s->set->record_size ? "record" : "line", p->too_long,
                       CODEC_BLOCK_MAX);
    if (p->failed)
        return err_set(GS_ENOMEM, "out of memory");
    if (p->rc)
        return p->rc;
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
    for (size_t k = 0; k < p->nblocks; k++) {
        sblock_t b = p->blocks[k];
        s->blocks[s->nblocks++] = (sblock_t){ .off = p->at + b.off, .key = b.key,
                                              .raw = run->raw, .file = (uint32_t)p->file,
                                              .stored = b.stored };
        run->raw += b.raw;
    }
    s->bytes += p->len;
    return GS_OK;
}

int rspill_add(rspill_t *s, const rtable_t *t, uint64_t *order, size_t n)
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
    int nt = pool_size(s->pool), rc = GS_OK;
    size_t round = SPILL_SHARE / 64 * (size_t)nt;   /* records: lines of 64 bytes, say */
    spack_job_t j = { .s = s, .t = t, .order = order, .where = rtable_can_where(t),
                      .lz4 = s->lz4 && (!s->probe || spill_pays(t, order, n, s->block)) };
    double t0 = stats_now(), pack_s = 0, write_s = 0;
    for (size_t lo = 0; lo < n && rc == GS_OK; lo += round) {
        j.lo = lo;
        j.hi = n - lo > round ? lo + round : n;
        if (nt > 1 && j.hi - j.lo > 4096)
            pool_run(s->pool, spill_part, &j);
        else
            for (int i = 0; i < nt; i++)
                spill_part(&j, i, nt);
        for (int i = 0; i < nt && rc == GS_OK; i++) {
            rc = spill_note(s, run, &s->packs[i]);
            pack_s += s->packs[i].pack_s;
            write_s += s->packs[i].write_s;
        }
    }
    stats_add(ST_SPILL, 0, stats_now() - t0);
    stats_note_records_spill(s->nfiles, nt, pack_s, write_s);
    run->nblocks = s->nblocks - run->block0;
    return rc;
}

/* ---- a run written as it comes (a merge pass) ------------------------------------- */

/* Pack p's blocks written at the end of file 0 (the pass is one thread's) and noted
 * in the index as the run's. */
static int spill_writer_flush(swriter_t *w)
{
    rspill_t *s = w->s;
    spack_t *p = &s->packs[0];
    if (p->len == 0)
        return GS_OK;
    sfile_t *f = &s->files[0];
    p->file = 0;
    p->at = __atomic_fetch_add(&f->bytes, (uint64_t)p->len, __ATOMIC_RELAXED);
    int e = fdio_write(f->fd, p->buf, p->len, (int64_t)p->at, NULL);
    p->rc = e ? err_sys(GS_EIO, e, "write error on temporary file '%s'", f->path) : GS_OK;
    stats_add(ST_SPILL, p->len, 0);
    int rc = spill_note(s, &w->run, p);
    p->len = p->nblocks = 0;
    return rc;
}

/* The block being filled, sealed into thread 0's pack; the pack written where it
 * holds a round's bytes. */
static int spill_writer_block(swriter_t *w)
{
    spack_t *p = &w->s->packs[0];
    if (w->fill == 0)
        return GS_OK;
    if (w->lz4 < 0)   /* --compress-temp=auto: the first block decides, as spill_pays() */
        w->lz4 = spill_block_pays(w->blk, w->fill);
    char *d = spill_block_room(p, w->fill, w->lz4);
    if (!d)
        return err_set(GS_ENOMEM, "out of memory");
    memcpy(d, w->blk, w->fill);
    spill_block_end(p, w->fill, w->key, w->lz4);
    w->fill = 0;
    return p->len >= SPILL_SHARE ? spill_writer_flush(w) : GS_OK;
}

void spill_writer_begin(rspill_t *s, swriter_t *w, const rkey_t *rk)
{
    spack_t *p = &s->packs[0];
    p->len = p->nblocks = 0;
    p->failed = 0;
    p->rc = GS_OK;
    *w = (swriter_t){ .s = s, .rk = rk, .term = s->set->zero_terminated ? '\0' : '\n',
                      .lz4 = s->lz4 && s->probe ? -1 : s->lz4,
                      .run = { .block0 = s->nblocks } };
}

int spill_writer_put(void *arg, const void *buf, size_t len)
{
    swriter_t *w = arg;
    const char *bytes = buf;
    size_t rsize = w->s->set->record_size;
    for (size_t at = 0; at < len;) {
        const char *rec = bytes + at, *e = NULL;
        size_t n = rsize;
        if (!rsize) {
            e = memchr(rec, w->term, len - at);
            n = e ? (size_t)(e - rec) + 1 : 0;
        }
        if (n == 0 || n > len - at)
            return err_set(GS_EIO, "internal error: a merge pass handed a record in part");
        if (w->fill > 0 && w->fill + n > w->s->block) {
            int rc = spill_writer_block(w);
            if (rc)
                return rc;
        }
        if (w->fill == 0) {   /* the block's first record: its word, as the table took it */
            rkey_bad_t bad;
            if (rsize)
                w->key = rkey_word_binary(w->rk, rec);
            else if (rkey_word(w->rk, rec, n - 1, &w->key, &bad) != RKEY_OK)
                return err_set(GS_EIO, "internal error: a spilled record's key is not valid");
        }
        if (w->fill + n > w->cap) {
            size_t cap = w->cap ? w->cap : w->s->block;
            while (cap < w->fill + n)
                cap *= 2;
            char *b = realloc(w->blk, cap);
            if (!b)
                return err_set(GS_ENOMEM, "out of memory");
            w->blk = b;
            w->cap = cap;
        }
        memcpy(w->blk + w->fill, rec, n);
        w->fill += n;
        at += n;
    }
    return GS_OK;
}

int spill_writer_end(swriter_t *w, int ok, srun_t *run)
{
    int rc = ok ? spill_writer_block(w) : GS_OK;
    if (ok && rc == GS_OK)
        rc = spill_writer_flush(w);
    w->run.nblocks = w->s->nblocks - w->run.block0;
    *run = w->run;
    free(w->blk);
    w->blk = NULL;
    return rc;
}

uint64_t rspill_bytes(const rspill_t *s)
{
    return s->bytes;
}

/* Thread i's files closed (unlinked since they were made), which lets their pages
 * go (every byte spilled, still in the page cache): the files side by side, where
 * one thread closing them all held the run's end (doc/perf/RESULTS.md). */
static void spill_remove_files(void *arg, int i, int nt)
{
    rspill_t *s = arg;
    for (int k = i; k < s->nfiles; k += nt) {
        close(s->files[k].fd);
    }
}

void rspill_close(rspill_t *s)
{
    if (!s)
        return;
    if (s->nfiles > 1 && pool_size(s->pool) > 1)
        pool_run(s->pool, spill_remove_files, s);
    else if (s->files)
        spill_remove_files(s, 0, 1);
    for (int k = 0; s->files && k < s->nfiles; k++)
        free(s->files[k].path);
    for (int i = 0; s->packs && i < pool_size(s->pool); i++) {
        free(s->packs[i].buf);
        free(s->packs[i].raw);
        free(s->packs[i].blocks);
        free(s->packs[i].plan);
    }
    free(s->packs);
    free(s->files);
    free(s->blocks);
    free(s->runs);
    free(s);
}
