/* SPDX-License-Identifier: MIT */
/* merge.c: the parts a rank received, merged into its range (see merge.h). */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/local.h"
#include "cluster/merge.h"
#include "cluster/scratch.h"
#include "cluster/split.h"
#include "core/error.h"
#include "core/pool.h"
#include "core/tuning.h"
#include "io/output.h"
#include "io/textnum.h"
#include "merge/ltree.h"
#include "merge/splitters.h"
#include "records/field.h"
#include "records/order.h"

struct merge {
    const settings_t *set;
    int n;                 /* parts */
    sorted_t *part;        /* each mapped (base NULL where empty) */
    int *fd;               /* their descriptors, the caller's */
    int ties;              /* 1: records of equal order keys compared further: their
                              keys in full, or sort's last resort (rkey_order) */
    int resort;            /* 1: sorted again by the engine instead (merge.h) */
    pool_t *pool;
    int npieces;
    uint64_t *cut;         /* (npieces + 1) * n: piece p's slice of part j is
                              [cut[p * n + j], cut[(p + 1) * n + j]) */
    uint64_t *bytes;       /* npieces + 1: each piece's bytes, then their offsets */
    /* while writing */
    output_t *out;
    char *map;             /* the output mapped at the range's first byte */
    int wfd;               /* else: written at offsets of wfd from wpos */
    uint64_t wpos;
    int *rc;               /* npieces: each piece's outcome */
};

/* ---- one piece --------------------------------------------------------------------- */

/* A part's cursor: its next record [pos, next) and that record's order key. */
typedef struct {
    uint64_t pos, next, end, key;
} cursor_t;

#define MERGE_QUICK 64   /* the longest line read at once, terminator included */

/* The terminator's offset in the MERGE_QUICK bytes at p (all readable), or -1: a
 * word at a time, a byte equal to t found by the carry trick. */
static inline int merge_find_term(const char *p, char t)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    for (int w = 0; w < MERGE_QUICK / 8; w++) {
        uint64_t x;
        memcpy(&x, p + 8 * w, 8);
        x ^= ones * (unsigned char)t;
        uint64_t z = (x - ones) & ~x & highs;   /* the first zero byte's high bit */
        if (z)
            return 8 * w + (__builtin_ctzll(z) >> 3);
    }
    return -1;
}

/* The record of part s at pos: where the next starts, *key its order key (as
 * sorted_record()). The common records read at once: a line shorter than
 * MERGE_QUICK bytes whose key (the line, or its field) is 1 to 16 digits after an
 * optional '-'; anything else, and a part's last MERGE_QUICK bytes, by
 * sorted_record(). */
static inline uint64_t merge_next(const sorted_t *s, uint64_t pos, uint64_t *key)
{
    const settings_t *set = s->set;
    if (s->item || pos + MERGE_QUICK > s->size)
        return sorted_record(s, pos, key);
    const char *rec = s->base + pos;
    int len = merge_find_term(rec, s->term);
    if (len < 0)
        return sorted_record(s, pos, key);
    uint64_t v, raw;
    size_t b = 0, e = (size_t)len;
    const keymap_t *km = &s->km;
    if (settings_records(set)) {   /* one integer key, a whole field: read here */
        if (!s->rk.quick ||
            !field_find(rec, (size_t)len, set->keys[0].sfield, set->field_sep, &b, &e))
            return sorted_record(s, pos, key);
        km = &s->rk.km;
    }
    int neg = b < e && rec[b] == '-';
    if (pos + b + (size_t)neg + 16 > s->size ||   /* tn_digits16 reads 16 bytes */
        !tn_digits16(rec + b + neg, e - b - (size_t)neg, &v))
        return sorted_record(s, pos, key);
    raw = neg ? 0 - v : v;   /* two's complement; a 32-bit key's high bits cut below */
    uint64_t k = key_map(km, raw);
    *key = km->width == 4 ? k & 0xFFFFFFFFu : k;
    return pos + (uint64_t)len + 1;
}

/* A cursor's record's length as rkey.h takes it: a line without its terminator. */
static inline size_t merge_keylen(const sorted_t *s, const cursor_t *c)
{
    return (size_t)(c->next - c->pos) - (s->item ? 0 : 1);
}

/* The loser tree's tie rule (merge/ltree.h): part a's next record before part b's,
 * their order keys equal. A part whose slice is done has the greatest key, and
 * goes after a record of that key. */
typedef struct {
    const merge_t *m;
    const cursor_t *c;
} tie_t;

static int merge_tie(void *ctx, int a, int b)
{
    const tie_t *x = ctx;
    const cursor_t *c = x->c;
    int da = c[a].pos >= c[a].end, db = c[b].pos >= c[b].end;
    if (da || db)
        return da ? 0 : 1;
    if (x->m->ties) {
        const sorted_t *sa = &x->m->part[a], *sb = &x->m->part[b];
        int t = rkey_order(&sa->rk, sa->base + c[a].pos, merge_keylen(sa, &c[a]),
                           sb->base + c[b].pos, merge_keylen(sb, &c[b]));
        if (t)
            return t < 0;
    }
    return a < b;   /* the earlier part: the earlier stretch of the input */
}

/* Where a thread's merged bytes go: the output's pages, a buffer written at an
 * offset, or nowhere (counted only). */
typedef struct {
    const merge_t *m;
    char *at, *p, *end, *released;   /* mapped */
    char *buf;                       /* else buffered, written at off */
    size_t fill;
    uint64_t off;
    int rc;
} sink_t;

static void sink_flush(sink_t *s)
{
    if (s->buf && s->fill && s->rc == GS_OK)
        s->rc = output_spread_write(s->m->out, s->m->wfd, s->buf, s->fill, s->off);
    s->off += s->fill;
    s->fill = 0;
}

/* Record rec[0..len), of a part that ends at rend, to s. */
static void sink_put(sink_t *s, const char *rec, size_t len, const char *rend)
{
    if (s->at) {
        if (len > (size_t)(s->end - s->p)) {   /* laid out wrong: never into a neighbour */
            if (s->rc == GS_OK)
                s->rc = err_set(GS_EIO, "internal error: a merge's piece overran");
            return;
        }
        if (len <= MERGE_QUICK && (size_t)(s->end - s->p) >= MERGE_QUICK &&
            rec + MERGE_QUICK <= rend)
            memcpy(s->p, rec, MERGE_QUICK);   /* one copy without branches: table.h */
        else
            memcpy(s->p, rec, len);
        s->p += len;
        if ((size_t)(s->p - s->at) >= CLUSTER_MERGE_BUF)
            output_placed(s->m->out, &s->at, s->p, s->end, &s->released);
    } else if (s->buf) {
        if (s->fill + len > CLUSTER_MERGE_BUF)
            sink_flush(s);
        if (len > CLUSTER_MERGE_BUF) {   /* a record longer than the buffer: as it is */
            if (s->rc == GS_OK)
                s->rc = output_spread_write(s->m->out, s->m->wfd, rec, len, s->off);
            s->off += len;
            return;
        }
        memcpy(s->buf + s->fill, rec, len);
        s->fill += len;
    }
}

/* Piece p merged into s (nothing written where s has nowhere to put it): the bytes
 * it comes to. */
static uint64_t merge_piece(const merge_t *m, int p, sink_t *s, cursor_t *c, ltree_t *tree)
{
    int n = m->n;
    for (int j = 0; j < n; j++) {
        c[j].pos = m->cut[(size_t)p * n + j];
        c[j].end = m->cut[(size_t)(p + 1) * n + j];
        c[j].key = UINT64_MAX;
        if (c[j].pos < c[j].end)
            c[j].next = merge_next(&m->part[j], c[j].pos, &c[j].key);
        tree->key[j] = c[j].key;
    }
    tie_t tie = { m, c };
    uint64_t key;
    int j = ltree_build(tree, &key, merge_tie, &tie);
    uint64_t total = 0, last = 0;
    int any = 0, unique = m->set->unique;
    const char *last_rec = NULL;   /* -u of keys compared in full: the last kept */
    size_t last_len = 0;
    while (n > 0 && c[j].pos < c[j].end) {
        cursor_t *x = &c[j];
        const sorted_t *pt = &m->part[j];
        /* -u: the first of a key alone (the parts stay mapped while they merge) */
        int repeat = unique && any && x->key == last &&
                     (!m->ties || rkey_cmp(&pt->rk, last_rec, last_len, pt->base + x->pos,
                                           merge_keylen(pt, x)) == 0);
        if (!repeat) {
            size_t len = (size_t)(x->next - x->pos);
            sink_put(s, pt->base + x->pos, len, pt->base + pt->size);
            total += len;
            last = x->key;
            last_rec = pt->base + x->pos;
            last_len = merge_keylen(pt, x);
            any = 1;
        }
        x->pos = x->next;
        if (x->pos < x->end)
            x->next = merge_next(&m->part[j], x->pos, &x->key);
        else
            x->key = UINT64_MAX;
        key = x->key;
        j = ltree_replay(tree, j, &key, merge_tie, &tie);
    }
    return total;
}

/* Thread i's piece: counted (no output yet) or written. */
static void merge_thread(void *arg, int i, int nt)
{
    (void)nt;
    merge_t *m = arg;
    cursor_t *c = malloc((size_t)m->n * sizeof *c);
    ltree_t tree;
    int tree_rc = ltree_init(&tree, m->n);
    sink_t s = { .m = m, .rc = GS_OK };
    if (!c || tree_rc) {
        m->rc[i] = err_set(GS_ENOMEM, "out of memory");
        goto out;
    }
    if (m->out && m->map) {
        s.at = s.p = s.released = m->map + m->bytes[i];
        s.end = m->map + m->bytes[i + 1];
    } else if (m->out) {
        s.off = m->wpos + m->bytes[i];
        if (!(s.buf = malloc(CLUSTER_MERGE_BUF))) {
            m->rc[i] = err_set(GS_ENOMEM, "out of memory");
            goto out;
        }
    }
    uint64_t got = merge_piece(m, i, &s, c, &tree);
    if (!m->out) {
        m->bytes[i] = got;
    } else if (s.at) {
        output_placed(m->out, &s.at, s.p, s.end, &s.released);
        m->rc[i] = s.rc;
    } else {
        sink_flush(&s);
        m->rc[i] = s.rc;
    }
out:
    free(c);
    ltree_free(&tree);
    free(s.buf);
}

/* ---- the plan ---------------------------------------------------------------------- */

/* The pieces' cuts: regular samples of every part, weighted by the bytes each stands
 * for, sorted; the keys at even steps of the bytes cut the range. GS_OK or
 * GS_ENOMEM. */
static int merge_cut(merge_t *m)
{
    int n = m->n, np = m->npieces;
    size_t each = (size_t)CLUSTER_MERGE_SAMPLES * (size_t)np, count = 0;
    sample_t *smp = np > 1 ? malloc((size_t)n * each * sizeof *smp) : NULL;
    uint64_t *keys = np > 1 ? malloc(each * sizeof *keys) : NULL;
    if (np > 1 && (!smp || !keys)) {
        free(smp);
        free(keys);
        return err_set(GS_ENOMEM, "out of memory");
    }
    for (int j = 0; np > 1 && j < n; j++) {
        size_t got;
        sorted_sample(&m->part[j], each, keys, &got);
        for (size_t k = 0; k < got; k++)
            smp[count++] = (sample_t){ keys[k], (double)m->part[j].size / (double)got };
    }
    uint64_t *split = keys;   /* np - 1 of them, at most each */
    size_t ns = np > 1 ? splitters_choose(smp, count, (size_t)np, 0, split) : 0;
    for (int j = 0; j < n; j++) {
        m->cut[j] = 0;
        m->cut[(size_t)np * n + j] = m->part[j].size;
    }
    for (int p = 1; p < np; p++)   /* pieces before a splitter end with its records */
        for (int j = 0; j < n; j++)
            m->cut[(size_t)p * n + j] = ns ? sorted_after(&m->part[j], split[p - 1]) : 0;
    free(smp);
    free(keys);
    return GS_OK;
}

int merge_plan(const settings_t *set, const int *files, const uint64_t *sizes, int n,
               merge_t **mp, uint64_t *bytes)
{
    *bytes = 0;
    merge_t *m = *mp = calloc(1, sizeof *m);
    if (!m)
        return err_set(GS_ENOMEM, "out of memory");
    m->set = set;
    m->n = n;
    m->wfd = -1;
    if (settings_records(set)) {
        rkey_t rk;
        rkey_init(&rk, set);
        m->ties = !rk.exact || rk.last_resort;
    }
    m->resort = !settings_records(set) && !set->unique;
    int threads = set->threads > 0 ? set->threads : 1;
    m->part = calloc((size_t)n, sizeof *m->part);
    m->fd = malloc((size_t)n * sizeof *m->fd);
    if (!m->part || !m->fd)
        return err_set(GS_ENOMEM, "out of memory");
    int rc = GS_OK;
    uint64_t all = 0;
    for (int j = 0; j < n; j++) {
        m->fd[j] = files[j];
        m->part[j].set = set;   /* what sorted_close() needs, where it was not opened */
        if (rc == GS_OK)
            rc = sorted_open(&m->part[j], set, files[j], files[j] >= 0 ? sizes[j] : 0);
        all += m->part[j].size;
    }
    if (rc != GS_OK)
        return rc;
    /* a piece a thread, none much smaller than CLUSTER_MERGE_PIECE_MIN */
    uint64_t most = all / CLUSTER_MERGE_PIECE_MIN + 1;
    m->npieces = (uint64_t)threads < most ? threads : (int)most;
    m->cut = malloc(((size_t)m->npieces + 1) * (size_t)n * sizeof *m->cut);
    m->bytes = calloc((size_t)m->npieces + 1, sizeof *m->bytes);
    m->rc = calloc((size_t)m->npieces, sizeof *m->rc);
    if (!m->cut || !m->bytes || !m->rc)
        return err_set(GS_ENOMEM, "out of memory");
    if (!m->resort &&
        ((rc = pool_create(&m->pool, m->npieces)) != GS_OK || (rc = merge_cut(m)) != GS_OK))
        return rc;
    if (set->unique) {   /* merged once to count what -u keeps */
        pool_run(m->pool, merge_thread, m);
        for (int p = 0; p < m->npieces; p++)
            if (m->rc[p])
                return m->rc[p];
    } else if (m->resort) {   /* the engine writes what the parts hold */
        m->bytes[0] = all;
    } else {
        for (int p = 0; p < m->npieces; p++)
            for (int j = 0; j < n; j++)
                m->bytes[p] += m->cut[(size_t)(p + 1) * n + j] - m->cut[(size_t)p * n + j];
    }
    uint64_t off = 0;   /* each piece's bytes into its offset */
    for (int p = 0; p <= m->npieces; p++) {
        uint64_t b = m->bytes[p];
        m->bytes[p] = off;
        off += b;
    }
    *bytes = off;
    return GS_OK;
}

/* ---- the writing ------------------------------------------------------------------- */

/* Run the merge with standard output out (the engine's output writes there; name
 * what its messages call it), put back after. */
static int merge_into(merge_t *m, int out, const char *name)
{
    int save, rc = local_stdout(out, &save);
    if (rc)
        return rc;
    uint64_t total = m->bytes[m->npieces];
    output_cfg_t cfg = { .path = NULL, .name = name, .pool = m->pool };
    rc = output_open(&m->out, &cfg);
    if (rc == GS_OK)
        rc = output_place_begin(m->out, total, &m->map);
    if (rc == GS_OK && m->map) {
        pool_run(m->pool, merge_thread, m);
        rc = output_place_end(m->out, m->map, total, 1);
    } else if (rc == GS_OK) {   /* no mapping there: written at offsets */
        rc = output_spread_begin(m->out, total, &m->wfd, &m->wpos);
        if (rc == GS_OK && m->wfd < 0)
            rc = err_set(GS_EIO, "internal error: the merge's output cannot be placed");
        if (rc == GS_OK) {
            pool_run(m->pool, merge_thread, m);
            for (int p = 0; p < m->npieces && rc == GS_OK; p++)
                rc = m->rc[p];
            int rc2 = output_spread_end(m->out, m->wpos, total, rc == GS_OK);
            rc = rc ? rc : rc2;
        }
    }
    for (int p = 0; p < m->npieces && rc == GS_OK; p++)
        rc = m->rc[p];
    if (m->out) {
        if (rc == GS_OK)
            rc = output_commit(m->out);
        else
            output_abort(m->out);
        m->out = NULL;
    }
    local_stdout_back(save);
    return rc;
}

int merge_write(merge_t *m, int out, int *fd)
{
    const char *name = m->set->output ? m->set->output : "standard output";
    *fd = -1;
    uint64_t total = m->bytes[m->npieces];
    if (out < 0) {
        int one = -1, many = 0;
        for (int j = 0; j < m->n; j++)
            if (m->part[j].size) {
                many += one >= 0;
                one = j;
            }
        if (one >= 0 && !many && m->part[one].size == total) {   /* one part: as it is */
            if ((*fd = fcntl(m->fd[one], F_DUPFD_CLOEXEC, 3)) < 0)
                return err_sys(GS_EIO, errno, "cannot read a temporary file");
            return GS_OK;
        }
        if ((*fd = scratch_open(m->set->tmpdir)) < 0)
            return GS_EIO;
        out = *fd;
        name = m->set->tmpdir;
    }
    if (total == 0)
        return GS_OK;
    off_t start = lseek(out, 0, SEEK_CUR);
    int rc = start < 0    ? err_sys(GS_EIO, errno, "cannot write the output")
             : m->resort ? local_resort(m->set, m->fd, m->n, out, name)
                          : merge_into(m, out, name);
    off_t end = rc == GS_OK ? lseek(out, 0, SEEK_CUR) : 0;
    if (rc == GS_OK && (end < 0 || (uint64_t)(end - start) != total))
        rc = err_set(GS_EIO, "internal error: the merge wrote %lld bytes of %llu",
                     (long long)(end - start), (unsigned long long)total);
    return rc;
}

void merge_free(merge_t *m)
{
    if (!m)
        return;
    for (int j = 0; m->part && j < m->n; j++)
        sorted_close(&m->part[j]);
    pool_destroy(m->pool);
    free(m->part);
    free(m->fd);
    free(m->cut);
    free(m->bytes);
    free(m->rc);
    free(m);
}
