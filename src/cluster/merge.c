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
#include "merge/splitters.h"
#include "records/field.h"
#include "records/order.h"
#include "records/rmerge.h"

struct merge {
    const settings_t *set;
    settings_t scratch;    /* the parts' format (local_scratch()) */
    int n;                 /* parts */
    sorted_t *part;        /* each mapped (map.data NULL where empty) */
    int *fd;               /* their files, the caller's */
    uint64_t *off;         /* where each part starts in its file */
    uint64_t *size;        /* their bytes */
    int resort;            /* 1: sorted again by the engine instead (merge.h) */
    int as_written;        /* 1: the parts hold the output's own bytes (their format
                              is the output's) */
    pool_t *pool;
    rmerge_t *rm;          /* else merged (records/rmerge.h) */
    uint64_t bytes;        /* what the merge writes */
};

/* ---- a part's cursor (a source of records/rmerge.h) ------------------------------ */

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
    const char *rec = s->map.data + pos;
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

typedef struct {
    rcur_t c;
    uint64_t pos;          /* where its record starts in its part, */
    size_t j;              /* which part */
} pcur_t;

/* Cursor c's record: the one at c->pos (none at the part's end). */
static int part_read(const sorted_t *s, pcur_t *c)
{
    if (c->pos >= s->size) {
        c->c.rec = NULL;
        c->c.key = UINT64_MAX;
        return GS_OK;
    }
    uint64_t next = merge_next(s, c->pos, &c->c.key);
    if (next <= c->pos)
        return err_set(GS_EIO, "internal error: a record of a part received does not read");
    c->c.rec = s->map.data + c->pos;
    c->c.len = (size_t)(next - c->pos);
    c->c.end = s->map.data + s->size;
    return GS_OK;
}

static int part_seek(void *ctx, void *own, rcur_t *cur, size_t j, uint64_t lo, int has_lo,
                     uint64_t *at)
{
    (void)own;
    const merge_t *m = ctx;
    const sorted_t *s = &m->part[j];
    pcur_t *c = (pcur_t *)cur;
    c->j = j;
    c->pos = has_lo && lo > 0 ? sorted_after(s, lo - 1) : 0;   /* the first of lo or above */
    if (at)
        *at = c->pos;
    return part_read(s, c);
}

static int part_advance(void *ctx, void *own, rcur_t *cur)
{
    (void)own;
    const merge_t *m = ctx;
    pcur_t *c = (pcur_t *)cur;
    c->pos += c->c.len;
    return part_read(&m->part[c->j], c);
}

static const rmerge_src_t part_source = {
    .cur_size = sizeof(pcur_t),
    .seek = part_seek,
    .advance = part_advance,
};

/* ---- the plan ---------------------------------------------------------------------- */

/* The bytes of text the engine writes for part s, sorted binary keys: each step of
 * the lines' lengths (textnum.h) times the keys that fall in it, found by binary
 * search; no pass over the keys. */
static uint64_t merge_text_bytes(const sorted_t *s)
{
    uint64_t start[TN_MAX_STEPS];
    unsigned char len[TN_MAX_STEPS];
    size_t ns = tn_line_steps(&s->km, start, len);
    uint64_t bytes = 0, lo = 0;
    for (size_t i = 0; i < ns && lo < s->size; i++) {
        uint64_t hi = i + 1 < ns ? sorted_after(s, start[i + 1] - 1) : s->size;
        bytes += (hi - lo) / s->item * len[i];
        lo = hi;
    }
    return bytes;
}

/* The pieces' splitters, np - 1 at most: regular samples of every part, weighted by
 * the bytes each stands for, sorted; the words at even steps of the bytes cut the
 * range (splitters.h). *ns of them into *split. GS_OK or GS_ENOMEM. */
static int merge_cut(const merge_t *m, int np, uint64_t **split, size_t *ns)
{
    int n = m->n;
    size_t each = (size_t)MERGE_SAMPLES * (size_t)np, count = 0;
    *ns = 0;
    if (np < 2)
        return GS_OK;
    sample_t *smp = malloc((size_t)n * each * sizeof *smp);
    uint64_t *keys = *split = malloc(each * sizeof *keys);
    if (!smp || !keys) {
        free(smp);
        return err_set(GS_ENOMEM, "out of memory");
    }
    for (int j = 0; j < n; j++) {
        size_t got;
        sorted_sample(&m->part[j], each, keys, &got);
        for (size_t k = 0; k < got; k++)
            smp[count++] = (sample_t){ keys[k], (double)m->part[j].size / (double)got };
    }
    *ns = splitters_choose(smp, count, (size_t)np, 0, keys);
    free(smp);
    return GS_OK;
}

int merge_plan(const settings_t *set, const int *files, const uint64_t *offs,
               const uint64_t *sizes, int n, merge_t **mp, uint64_t *bytes)
{
    *bytes = 0;
    merge_t *m = *mp = calloc(1, sizeof *m);
    if (!m)
        return err_set(GS_ENOMEM, "out of memory");
    m->set = set;
    m->n = n;
    local_scratch(set, &m->scratch);
    m->resort = local_resorts(set);
    m->as_written = m->scratch.out_format == set->out_format;
    int threads = set->threads > 0 ? set->threads : 1;
    m->part = calloc((size_t)n, sizeof *m->part);
    m->fd = malloc((size_t)n * sizeof *m->fd);
    m->size = calloc((size_t)n, sizeof *m->size);
    m->off = calloc((size_t)n, sizeof *m->off);
    if (!m->part || !m->fd || !m->size || !m->off)
        return err_set(GS_ENOMEM, "out of memory");
    int rc = GS_OK;
    uint64_t all = 0;
    for (int j = 0; j < n; j++) {
        m->fd[j] = files[j];
        m->off[j] = files[j] >= 0 ? offs[j] : 0;
        m->part[j].set = &m->scratch;   /* what sorted_close() needs, where not opened */
        if (rc == GS_OK)
            rc = sorted_open(&m->part[j], &m->scratch, files[j], m->off[j],
                             files[j] >= 0 ? sizes[j] : 0);
        m->size[j] = m->part[j].size;
        all += m->part[j].size;
    }
    if (rc != GS_OK)
        return rc;
    if (m->resort) {   /* the engine writes what the parts hold, as text or not */
        for (int j = 0; !m->as_written && j < n; j++)
            m->bytes += merge_text_bytes(&m->part[j]);
        *bytes = m->bytes = m->as_written ? all : m->bytes;
        return GS_OK;
    }
    /* a piece a thread, none much smaller than CLUSTER_MERGE_PIECE_MIN */
    uint64_t most = all / CLUSTER_MERGE_PIECE_MIN + 1;
    int np = (uint64_t)threads < most ? threads : (int)most;
    uint64_t *split = NULL;
    rmerge_cfg_t cfg = { .src = &part_source, .ctx = m, .nsrc = (size_t)n, .size = m->size,
                         .rk = settings_records(set) ? &m->part[0].rk : NULL,
                         .unique = set->unique, .text = m->part[0].item == 0,
                         .nthreads = np, .outcap = CLUSTER_MERGE_BUF };
    size_t ns = 0;
    if ((rc = pool_create(&m->pool, np)) == GS_OK && (rc = merge_cut(m, np, &split, &ns)) == GS_OK) {
        cfg.pool = m->pool;
        cfg.split = split;
        cfg.npieces = ns + 1;
        /* under -u merged once to count what it keeps */
        rc = rmerge_plan(&cfg, set->unique ? RMERGE_COUNT : RMERGE_MEASURE, &m->rm, &m->bytes);
    }
    free(split);
    *bytes = m->bytes;
    return rc;
}

/* ---- the writing ------------------------------------------------------------------- */

/* Run the merge into out from its position (name: what messages call it). */
static int merge_into(merge_t *m, int out, const char *name)
{
    output_t *o = NULL;
    output_cfg_t cfg = { .path = NULL, .fd = out, .name = name, .pool = m->pool };
    int rc = output_open(&o, &cfg);
    if (rc == GS_OK)
        rc = rmerge_write(m->rm, o, NULL, 0);
    if (o) {
        if (rc == GS_OK)
            rc = output_commit(o);
        else
            output_abort(o);
    }
    return rc;
}

int merge_write(merge_t *m, int out, int *fd)
{
    const char *name = m->set->output ? m->set->output : "standard output";
    *fd = -1;
    uint64_t total = m->bytes;
    if (out < 0) {
        int one = -1, many = 0;
        for (int j = 0; j < m->n; j++)
            if (m->part[j].size) {
                many += one >= 0;
                one = j;
            }
        /* one part holds all, in the output's bytes: that part as it is (from its
         * file's start: the caller copies the first total bytes) */
        if (one >= 0 && !many && m->as_written && m->part[one].size == total &&
            m->off[one] == 0) {
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
             : m->resort ? local_resort(m->set, m->fd, m->off, m->size, m->n, out, name)
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
    rmerge_free(m->rm);
    pool_destroy(m->pool);
    free(m->part);
    free(m->fd);
    free(m->size);
    free(m->off);
    free(m);
}
