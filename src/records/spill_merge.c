/* SPDX-License-Identifier: MIT */
/* spill_merge.c: the runs of records merged into the output, by the pool's threads
 * (see spill.h; the file's layout: spill_impl.h).
 *
 * The keys are cut into pieces, [split[p-1], split[p]), at quantiles of the blocks'
 * first keys; every record of a key is in one piece, so the ties (order.h) and -u
 * are settled inside it. A piece starts, in each run, at the last block whose first
 * key is below the piece's (the index says which), skips the records below it and
 * stops at the next piece's key. Each thread takes the next piece not yet taken and
 * merges it into a buffer of its own. Where the output is a file written from a
 * position and each piece's length is known (without -u: the bytes of its records,
 * which the index and one block a run and piece measure), every piece is written
 * at its offset. Otherwise a piece's bytes go out only on its turn, a buffer that
 * fills before then waiting for it, so memory stays bounded, and the thread
 * holding the turn, the lowest piece not yet out, never waits.
 */
#include <config.h>

#include <errno.h>
#include <lz4.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fdio.h"
#include "core/keys.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "records/ends.h"
#include "records/field.h"
#include "records/order.h"
#include "records/spill_impl.h"
#include "store/codec.h"

/* A run's cursor inside one piece. */
typedef struct {
    size_t blk, bend;      /* the run's blocks still to read, in the index */
    uint64_t rawoff;       /* the run's records' bytes before the block being read */
    char *raw;             /* the block being read: its records from raw + base */
    size_t raw_len, raw_cap, pos, base;
    ends_t ends;           /* by masks: the block's terminators and separators */
    const char *rec;       /* the record at hand (NULL: the run's part is done), */
    size_t len;            /* its length, terminator included, */
    uint64_t key;          /* its word (rkey.h) */
    int run;
} scur_t;

/* The merge, shared by its threads. */
typedef struct {
    rspill_t *s;
    output_t *out;
    rkey_t rk;             /* the keys (rkey.h) */
    char term;
    int by_masks;          /* the quick key (rkey.h), lines split by one byte (-t)
                              other than term: found by ends.h's masks */
    uint64_t pos_max;      /* field_pos_max() of the quick key's type */
    uint64_t *split;       /* npieces - 1 keys, increasing */
    size_t npieces;
    int nthreads;          /* the pool's threads that take part */
    size_t outcap;         /* a thread's output buffer */
    int fd;                /* written at offsets: the output's descriptor; else -1 */
    uint64_t *at;          /* with fd: piece p's bytes at [at[p], at[p + 1]) */
    char *map;             /* placed: the file mapped from offset map_pos (with fd) */
    uint64_t map_pos, map_len;
    size_t next;           /* the next piece to take (atomic) */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    size_t turn;           /* the piece whose bytes go out now */
    int failed, rc;
} smerge_t;

/* A thread's part of the merge. */
typedef struct {
    smerge_t *m;
    scur_t *cur;           /* a cursor a run */
    int *node;             /* the loser tree over them: node[0] the winner */
    uint64_t *keys;        /* cur[r].key, side by side for the tree's matches */
    char *comp;            /* a block as stored */
    size_t comp_cap;
    char *obuf;
    size_t olen;
    size_t piece;
    uint64_t hi;           /* the piece's keys are below hi, */
    int has_hi;            /* where it has one */
    uint64_t at;           /* with m->fd: where the buffer's bytes go */
    char *released;        /* with m->map: the piece's pages let go of up to here, */
    char *mark;            /* and counted as placed up to here */
    char *last;            /* -u where words are not the whole keys: the last record
                              written, its keys compared with the next one's */
    size_t last_len, last_cap;
} sthread_t;

static int spill_damaged(const rspill_t *s, const sblock_t *b)
{
    return err_set(GS_EIO, "read error on temporary file '%s': its contents are damaged",
                   s->files[b->file].path);
}

/* ---- reading a run ------------------------------------------------------------------ */

/* Bytes a block's buffer holds past its records, zeroed: field_parse_quick() reads
 * 16 bytes from a key's start. */
#define SPILL_SLACK 16

/* *buf, of *cap bytes, grown to at least n + SPILL_SLACK: 1, or 0 when out of
 * memory. */
static int spill_reserve(char **buf, size_t *cap, size_t n)
{
    n += SPILL_SLACK;
    if (n <= *cap)
        return 1;
    char *b = realloc(*buf, n);
    if (!b)
        return 0;
    *buf = b;
    *cap = n;
    return 1;
}

/* The next block of cursor c: its records from c->raw + c->pos up to c->raw_len (0 at
 * the run's end). A block and its header come in one read, at the offset and
 * of the length the index gives; a block stored as it is stays where it was read,
 * after its header, and a compressed one is decompressed into c->raw. */
static int spill_load(sthread_t *t, scur_t *c)
{
    rspill_t *s = t->m->s;
    c->rawoff += c->raw_len - c->base;
    c->raw_len = c->pos = c->base = 0;
    if (c->blk == c->bend)
        return GS_OK;
    const sblock_t *b = &s->blocks[c->blk];
    size_t want = SPILL_HEAD + (size_t)b->stored, got;
    if (!spill_reserve(&t->comp, &t->comp_cap, want))
        return err_set(GS_ENOMEM, "out of memory");
    int e = fdio_read(s->files[b->file].fd, t->comp, want, (int64_t)b->off, &got);
    if (e)
        return err_sys(GS_EIO, e, "read error on temporary file '%s'", s->files[b->file].path);
    const char *h = t->comp;
    uint64_t len = spill_get(h, 4), stored = spill_get(h + 4, 4), sum = spill_get(h + 8, 8);
    if (got < want || len == 0 || stored != b->stored || stored > len ||
        codec_checksum(h + SPILL_HEAD, stored) != sum)
        return spill_damaged(s, b);
    if (stored == len) {   /* the records as they are: read where they lie */
        char *x = c->raw;
        size_t xc = c->raw_cap;
        c->raw = t->comp;
        c->raw_cap = t->comp_cap;
        t->comp = x;
        t->comp_cap = xc;
        c->base = c->pos = SPILL_HEAD;
        c->raw_len = SPILL_HEAD + len;
    } else {
        if (!spill_reserve(&c->raw, &c->raw_cap, len))
            return err_set(GS_ENOMEM, "out of memory");
        if (LZ4_decompress_safe(h + SPILL_HEAD, c->raw, (int)stored, (int)len) != (int)len)
            return spill_damaged(s, b);
        c->raw_len = len;
    }
    memset(c->raw + c->raw_len, 0, SPILL_SLACK);
    if (t->m->by_masks)
        ends_init(&c->ends, c->raw + c->base, c->raw_len - c->base, t->m->term,
                  (char)s->set->field_sep);
    c->blk++;
    return GS_OK;
}

/* Move cursor c to its next record and take its key: GS_OK, c->rec NULL at the
 * run's end or at the piece's (a key at hi or above). */
static int spill_advance(sthread_t *t, scur_t *c)
{
    smerge_t *m = t->m;
    const settings_t *set = m->s->set;
    if (c->pos == c->raw_len) {
        int rc = spill_load(t, c);
        if (rc)
            return rc;
        if (c->raw_len == 0) {
            c->rec = NULL;
            c->key = UINT64_MAX;   /* done: see spill_replay() */
            return GS_OK;
        }
    }
    const char *p = c->raw + c->pos;
    size_t left = c->raw_len - c->pos;
    uint64_t raw = 0;
    if (set->record_size) {
        if (left < set->record_size)
            return spill_damaged(m->s, &m->s->blocks[c->blk - 1]);
        c->len = set->record_size;
        c->key = rkey_word_binary(&m->rk, p);
    } else if (m->by_masks) {
        /* As the table indexes a line (table.c): field f lies between the line's
         * (f-1)th separator and the next separator or its terminator. */
        const char *base = c->raw + c->base;
        size_t s = c->pos - c->base, e, fb = 0, fe = SIZE_MAX;
        int f = set->keys[0].sfield, field = 1;
        for (;;) {
            e = ends_next(&c->ends);
            if (e == c->ends.len)
                return spill_damaged(m->s, &m->s->blocks[c->blk - 1]);
            if (base[e] == m->term)
                break;
            if (field == f)
                fe = e - s;
            if (++field == f)
                fb = e + 1 - s;
        }
        if (fe == SIZE_MAX)
            fe = e - s;   /* the key is the line's last field */
        if (field < f ||
            field_parse_quick(p, fb, fe, m->rk.km.type, m->pos_max, &raw) != FIELD_OK)
            return spill_damaged(m->s, &m->s->blocks[c->blk - 1]);
        c->len = e - s + 1;
        c->key = key_map(&m->rk.km, raw);
        if (m->rk.km.width == 4)
            c->key &= 0xFFFFFFFFull;
    } else {
        const char *e = memchr(p, m->term, left);
        rkey_bad_t bad;
        if (!e || rkey_word(&m->rk, p, (size_t)(e - p), &c->key, &bad) != RKEY_OK)
            return spill_damaged(m->s, &m->s->blocks[c->blk - 1]);
        c->len = (size_t)(e - p) + 1;
    }
    c->rec = p;
    c->pos += c->len;
    if (t->has_hi && c->key >= t->hi) {
        c->rec = NULL;
        c->key = UINT64_MAX;
    }
    return GS_OK;
}

/* Cursor c at run r's first record of key lo or above (has_lo; else its first), and
 * *at (where not NULL) the run's bytes before that record. */
static int spill_seek(sthread_t *t, scur_t *c, size_t r, uint64_t lo, int has_lo,
                      uint64_t *at)
{
    rspill_t *s = t->m->s;
    const srun_t *run = &s->runs[r];
    const sblock_t *b = s->blocks + run->block0;
    /* The last block whose first key is below lo: the records before it are too. */
    size_t a = 0, z = run->nblocks;
    while (has_lo && z - a > 1) {
        size_t mid = a + (z - a) / 2;
        if (b[mid].key < lo)
            a = mid;
        else
            z = mid;
    }
    c->blk = run->block0 + a;
    c->bend = run->block0 + run->nblocks;
    c->raw_len = c->pos = c->base = 0;
    c->rawoff = run->nblocks ? b[a].raw : 0;
    c->run = (int)r;
    int rc;
    do
        rc = spill_advance(t, c);
    while (rc == GS_OK && c->rec && has_lo && c->key < lo);
    if (at)
        *at = c->rec ? c->rawoff + (c->pos - c->base) - c->len : run->raw;
    return rc;
}

/* ---- the output: a piece's bytes on its turn ---------------------------------------- */

static void merge_fail(smerge_t *m, int rc)
{
    pthread_mutex_lock(&m->lock);
    if (!m->failed) {
        m->rc = rc;
        __atomic_store_n(&m->failed, 1, __ATOMIC_RELEASE);   /* read without the lock */
    }
    pthread_cond_broadcast(&m->cond);
    pthread_mutex_unlock(&m->lock);
}

/* Write buf[0..len) out, not placed: at the thread's offset, or in order (it holds
 * the turn). */
static int merge_write(sthread_t *t, const char *buf, size_t len)
{
    smerge_t *m = t->m;
    if (m->fd < 0)
        return output_write_bytes(m->out, buf, len);
    if (t->at + len > m->at[t->piece + 1])
        return err_set(GS_EIO, "internal error: a merged piece longer than measured");
    int rc = output_spread_write(m->out, m->fd, buf, len, t->at);
    t->at += len;
    return rc;
}

/* Write what the thread holds: at its offset, or on its piece's turn; placed, count
 * what was copied in place. */
static int merge_deliver(sthread_t *t)
{
    smerge_t *m = t->m;
    if (m->map) {
        output_placed(m->out, &t->mark, m->map + (t->at - m->map_pos), m->map + m->map_len,
                      &t->released);
        return GS_OK;
    }
    if (m->fd >= 0) {
        int rc = t->olen ? merge_write(t, t->obuf, t->olen) : GS_OK;
        t->olen = 0;
        return rc;
    }
    pthread_mutex_lock(&m->lock);
    while (m->turn != t->piece && !m->failed)
        pthread_cond_wait(&m->cond, &m->lock);
    int failed = m->failed;
    pthread_mutex_unlock(&m->lock);
    if (failed)
        return GS_EIO;   /* another thread's error is the one reported */
    int rc = t->olen ? merge_write(t, t->obuf, t->olen) : GS_OK;
    t->olen = 0;
    return rc;
}

/* Append rec[0..len) to the thread's output: placed, straight into the file's
 * pages (counted, and let go of, a buffer's worth at a time); else to its buffer. */
static int merge_put(sthread_t *t, const char *rec, size_t len)
{
    smerge_t *m = t->m;
    if (m->map) {
        if (t->at + len > m->at[t->piece + 1])
            return err_set(GS_EIO, "internal error: a merged piece longer than measured");
        char *p = m->map + (t->at - m->map_pos);
        memcpy(p, rec, len);
        t->at += len;
        return (size_t)(p + len - t->mark) >= m->outcap ? merge_deliver(t) : GS_OK;
    }
    if (t->olen + len > m->outcap && t->olen > 0) {
        int rc = merge_deliver(t);
        if (rc)
            return rc;
    }
    if (len > m->outcap) {   /* a record longer than the buffer: as it is */
        int rc = merge_deliver(t);
        return rc ? rc : merge_write(t, rec, len);
    }
    memcpy(t->obuf + t->olen, rec, len);
    t->olen += len;
    return GS_OK;
}

/* ---- merging a piece ---------------------------------------------------------------- */

/* A cursor's record's length as rkey.h takes it: text without its terminator. */
static inline size_t spill_keylen(const smerge_t *m, size_t len)
{
    return m->s->set->record_size ? len : len - 1;
}

/* 1 where cursor a's record goes before b's. */
static int spill_before(const smerge_t *m, const scur_t *a, const scur_t *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    int c = rkey_order(&m->rk, a->rec, spill_keylen(m, a->len), b->rec,
                       spill_keylen(m, b->len));
    return c ? c < 0 : a->run < b->run;
}

/* -u: 1 where cursor c's record has the keys of the last one written (key: its
 * word). */
static int spill_repeats(sthread_t *t, const scur_t *c, uint64_t last)
{
    if (c->key != last)
        return 0;
    if (t->m->rk.exact)
        return 1;
    return rkey_cmp(&t->m->rk, t->last, t->last_len, c->rec, spill_keylen(t->m, c->len)) == 0;
}

/* -u where words are not whole keys: keep the record written, for spill_repeats(). */
static int spill_keep_last(sthread_t *t, const scur_t *c)
{
    size_t len = spill_keylen(t->m, c->len);
    if (len > t->last_cap) {
        char *x = realloc(t->last, len);
        if (!x)
            return err_set(GS_ENOMEM, "out of memory");
        t->last = x;
        t->last_cap = len;
    }
    memcpy(t->last, c->rec, len);
    t->last_len = len;
    return GS_OK;
}

/* The loser tree over a thread's cursors (t->cur[0..k), k the runs): node[i], for
 * i >= 1, the cursor that lost the match played at node i, node[0] the winner, so
 * that after the winner moves on one path of log2(k) matches, one comparison each,
 * restores the tree (a heap makes two a level). The matches read the keys from
 * t->keys, a few cache lines, and move the cursors without branches (the outcome
 * of a match between random keys cannot be predicted); only equal keys take the
 * branch to the last resort. A cursor whose part is done has the greatest key, and
 * loses the tie with a record of that key. */

/* Cursor x beats cursor y, their keys equal. */
static int spill_tie_beats(const sthread_t *t, int x, int y)
{
    const scur_t *a = &t->cur[x], *b = &t->cur[y];
    if (!a->rec || !b->rec)
        return a->rec ? 1 : b->rec ? 0 : x < y;
    return spill_before(t->m, a, b);
}

/* Play cursor w's new record from its leaf up to the root. */
static inline void spill_replay(sthread_t *t, size_t k, int w)
{
    uint64_t wk = t->keys[w];
    for (size_t n = (w + k) / 2; n > 0; n /= 2) {
        int o = t->node[n];
        uint64_t ok = t->keys[o];
        int beats = ok < wk;
        if (__builtin_expect(ok == wk, 0))
            beats = spill_tie_beats(t, o, w);
        int m = -beats;                          /* all ones where o wins: */
        uint64_t mk = (uint64_t)(int64_t)m;      /* masks, not branches */
        t->node[n] = (w & m) | (o & ~m);
        w = (o & m) | (w & ~m);
        wk = (ok & mk) | (wk & ~mk);
    }
    t->node[0] = w;
}

/* Build the tree: each node's match played between the winners of its subtrees,
 * the loser kept. Returns the winner of node n's subtree. */
static int spill_build(sthread_t *t, size_t k, size_t n)
{
    if (n >= k)
        return (int)(n - k);   /* a leaf: cursor n - k */
    int a = spill_build(t, k, 2 * n), b = spill_build(t, k, 2 * n + 1);
    uint64_t ka = t->keys[a], kb = t->keys[b];
    int w = ka != kb ? (ka < kb ? a : b) : spill_tie_beats(t, a, b) ? a : b;
    t->node[n] = w == a ? b : a;
    return w;
}

/* Merge piece p of every run into the output, on its turn; then pass the turn. */
static int merge_piece(sthread_t *t, size_t p)
{
    smerge_t *m = t->m;
    rspill_t *s = m->s;
    uint64_t lo = p > 0 ? m->split[p - 1] : 0;
    t->piece = p;
    t->has_hi = p + 1 < m->npieces;
    t->hi = t->has_hi ? m->split[p] : 0;
    t->at = m->fd >= 0 ? m->at[p] : 0;
    t->released = t->mark = m->map ? m->map + (t->at - m->map_pos) : NULL;
    size_t k = s->nruns;
    int rc = GS_OK;
    for (size_t r = 0; r < k && rc == GS_OK; r++) {
        rc = spill_seek(t, &t->cur[r], r, lo, p > 0, NULL);
        t->keys[r] = t->cur[r].key;
    }
    if (rc == GS_OK && k > 1)
        t->node[0] = spill_build(t, k, 1);
    else if (k == 1)
        t->node[0] = 0;
    int any = 0;
    uint64_t last = 0;
    while (rc == GS_OK && k > 0 && t->cur[t->node[0]].rec) {
        int w = t->node[0];
        scur_t *c = &t->cur[w];
        if (!(s->set->unique && any && spill_repeats(t, c, last))) {
            if (s->set->unique && !m->rk.exact)
                rc = spill_keep_last(t, c);
            if (rc == GS_OK)
                rc = merge_put(t, c->rec, c->len);
            any = 1;
            last = c->key;
        }
        if (rc == GS_OK)
            rc = spill_advance(t, c);
        t->keys[w] = c->key;
        if (rc == GS_OK)
            spill_replay(t, k, w);
    }
    if (rc == GS_OK)
        rc = merge_deliver(t);
    if (rc == GS_OK && m->fd >= 0 && t->at != m->at[p + 1])
        rc = err_set(GS_EIO, "internal error: a merged piece shorter than measured");
    if (rc == GS_OK) {
        pthread_mutex_lock(&m->lock);
        m->turn = p + 1;
        pthread_cond_broadcast(&m->cond);
        pthread_mutex_unlock(&m->lock);
    }
    return rc;
}

/* A thread: pieces, the next not yet taken, until none is left. */
static void merge_thread(void *arg, int i, int nt)
{
    (void)nt;
    smerge_t *m = arg;
    rspill_t *s = m->s;
    if (i >= m->nthreads)
        return;
    sthread_t t = { .m = m, .cur = calloc(s->nruns ? s->nruns : 1, sizeof *t.cur),
                    .node = calloc(s->nruns ? s->nruns : 1, sizeof *t.node),
                    .keys = calloc(s->nruns ? s->nruns : 1, sizeof *t.keys),
                    .obuf = m->map ? NULL : malloc(m->outcap) };   /* placed: none */
    int rc = t.cur && t.node && t.keys && (t.obuf || m->map) ? GS_OK
                                                             : err_set(GS_ENOMEM, "out of memory");
    for (;;) {
        size_t p = __atomic_fetch_add(&m->next, 1, __ATOMIC_RELAXED);
        if (rc || p >= m->npieces || __atomic_load_n(&m->failed, __ATOMIC_ACQUIRE))
            break;
        rc = merge_piece(&t, p);
    }
    if (rc)
        merge_fail(m, rc);   /* the first failure's is kept */
    for (size_t r = 0; t.cur && r < s->nruns; r++)
        free(t.cur[r].raw);
    free(t.cur);
    free(t.node);
    free(t.keys);
    free(t.obuf);
    free(t.last);
    free(t.comp);
}

/* ---- the pieces --------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The threads the merge may use (m->nthreads) and their output buffers (m->outcap):
 * the pool's, as far as their buffers (a block and its stored form a run, and the
 * output buffer, a quarter of -S shared by the pool at most) fit in -S. */
static void merge_threads(smerge_t *m)
{
    const rspill_t *s = m->s;
    int nt = pool_size(s->pool);
    size_t out = s->set->buffer_bytes / 4 / (size_t)nt;
    m->outcap = out < MERGE_OUT_MIN ? MERGE_OUT_MIN : out > MERGE_OUT_MAX ? MERGE_OUT_MAX : out;
    m->nthreads = 1;
    if (s->bytes < MERGE_PARALLEL_MIN)
        return;
    size_t each = s->nruns * 2 * (SPILL_BLOCK + SPILL_BLOCK / 8) + m->outcap;
    size_t fit = s->set->buffer_bytes / each;
    m->nthreads = fit < 1 ? 1 : fit < (size_t)nt ? (int)fit : nt;
}

/* m->split and m->npieces: for nt threads, up to MERGE_PIECES pieces a thread, cut
 * at quantiles of the blocks' first keys (repeats dropped). */
static int merge_cut(smerge_t *m, int nt)
{
    rspill_t *s = m->s;
    m->npieces = 1;
    size_t want = (size_t)nt * MERGE_PIECES;
    if (nt < 2 || s->nblocks < 2)
        return GS_OK;
    uint64_t *keys = malloc(s->nblocks * sizeof *keys);
    m->split = malloc(want * sizeof *m->split);
    if (!keys || !m->split) {
        free(keys);
        return err_set(GS_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < s->nblocks; i++)
        keys[i] = s->blocks[i].key;
    qsort(keys, s->nblocks, sizeof *keys, cmp_u64);
    size_t ns = 0;
    for (size_t q = 1; q < want; q++) {
        uint64_t k = keys[s->nblocks * q / want];
        if (k > keys[0] && (ns == 0 || k > m->split[ns - 1]))
            m->split[ns++] = k;
    }
    free(keys);
    m->npieces = ns + 1;
    return GS_OK;
}

/* ---- written at offsets: each piece's length ------------------------------------- */

typedef struct {
    smerge_t *m;
    uint64_t *pos;         /* [p * nruns + r]: run r's bytes before piece p */
    int failed;
} smeasure_t;

/* Thread i's boundaries (every m->nthreads'th): where each run's part of the piece
 * starts. */
static void merge_measure_thread(void *arg, int i, int nt)
{
    (void)nt;
    smeasure_t *x = arg;
    smerge_t *m = x->m;
    rspill_t *s = m->s;
    if (i >= m->nthreads)
        return;
    sthread_t t = { .m = m };
    scur_t c = { 0 };
    int rc = GS_OK;
    for (size_t p = 1 + (size_t)i; p < m->npieces && rc == GS_OK; p += (size_t)m->nthreads)
        for (size_t r = 0; r < s->nruns && rc == GS_OK; r++)
            rc = spill_seek(&t, &c, r, m->split[p - 1], 1, &x->pos[p * s->nruns + r]);
    if (rc)
        __atomic_store_n(&x->failed, rc, __ATOMIC_RELAXED);
    free(c.raw);
    free(t.comp);
}

/* Where the output allows it (a file written from a position) and the pieces'
 * lengths are known (no -u): m->fd and m->at, the header written first; the file
 * mapped (m->map) where it can be, as placed text is, else written with pwrite.
 * *done: 1 where so (the header written), else 0 (the merge goes in order). */
static int merge_place(smerge_t *m, const char *header, size_t hlen, uint64_t *base,
                       uint64_t *total, int *done)
{
    rspill_t *s = m->s;
    *done = 0;
    if (s->set->unique || m->npieces < 2)
        return GS_OK;
    size_t np = m->npieces, nr = s->nruns;
    smeasure_t x = { .m = m, .pos = calloc((np + 1) * nr, sizeof *x.pos) };
    m->at = malloc((np + 1) * sizeof *m->at);
    if (!x.pos || !m->at) {
        free(x.pos);
        return err_set(GS_ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < nr; r++)
        x.pos[np * nr + r] = s->runs[r].raw;   /* the last piece ends at each run's end */
    pool_run(s->pool, merge_measure_thread, &x);
    int rc = x.failed;
    *total = hlen;
    for (size_t r = 0; r < nr; r++)
        *total += s->runs[r].raw;
    if (rc == GS_OK)
        rc = output_spread_begin(m->out, *total, &m->fd, base);
    if (rc == GS_OK && m->fd >= 0 && (rc = output_place_begin(m->out, *total, &m->map)) == GS_OK &&
        m->map) {
        m->map_pos = *base;
        m->map_len = *total;
    }
    if (rc == GS_OK && m->fd >= 0) {
        m->at[0] = *base + hlen;
        for (size_t p = 0; p < np; p++) {
            uint64_t len = 0;
            for (size_t r = 0; r < nr; r++)
                len += x.pos[(p + 1) * nr + r] - x.pos[p * nr + r];
            m->at[p + 1] = m->at[p] + len;
        }
        if (hlen && m->map) {
            output_place_copy(m->out, m->map, header, hlen, m->map + *total);
        } else if (hlen) {
            rc = output_spread_write(m->out, m->fd, header, hlen, *base);
        }
        *done = 1;
    }
    free(x.pos);
    return rc;
}

int rspill_merge(rspill_t *s, const char *header, size_t hlen, output_t *out)
{
    smerge_t m = { .s = s, .out = out, .term = s->set->zero_terminated ? '\0' : '\n',
                   .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER,
                   .cond = PTHREAD_COND_INITIALIZER };
    rkey_init(&m.rk, s->set);
    m.by_masks = m.rk.quick && s->set->field_sep >= 0 && (char)s->set->field_sep != m.term;
    m.pos_max = field_pos_max(m.rk.km.type);
    merge_threads(&m);
    int nt = m.nthreads, placed = 0;
    uint64_t base = 0, total = 0;
    int rc = merge_cut(&m, nt);
    if (rc == GS_OK)
        rc = merge_place(&m, header, hlen, &base, &total, &placed);
    if (rc == GS_OK && header && !placed)
        rc = output_write_bytes(out, header, hlen);
    double t0 = stats_now();
    if (rc == GS_OK && nt > 1 && m.npieces > 1)
        pool_run(s->pool, merge_thread, &m);
    else if (rc == GS_OK)
        merge_thread(&m, 0, 1);
    if (rc == GS_OK && m.failed)
        rc = m.rc;
    if (placed) {
        int rc2 = m.map ? output_place_end(out, m.map, total, rc == GS_OK)
                        : output_spread_end(out, base, total, rc == GS_OK);
        rc = rc ? rc : rc2;
    }
    stats_add(ST_MERGE, s->bytes, stats_now() - t0);
    free(m.split);
    free(m.at);
    return rc;
}
