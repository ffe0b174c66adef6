/* SPDX-License-Identifier: MIT */
/* table.c: the indexer of a chunk of records (see table.h).
 *
 * Each segment of the chunk is split into parts of about TABLE_PART bytes that start
 * at a line's start; the pool counts the lines of every part, a prefix sum gives
 * each part its first line, and the pool then writes each line's start and parses
 * its key. A part stops at its first bad key; the earliest of them in input order is
 * the one reported.
 *
 * Lines are found 64 bytes at a time (ends.h): their terminators counted by popcount,
 * then walked bit by bit.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "records/ends.h"
#include "records/field.h"
#include "records/table.h"

/* ---- indexing ---------------------------------------------------------------------- */

typedef struct {
    uint64_t lo, hi;       /* its bytes: whole lines (or records) */
    int seg;               /* its segment */
    size_t first, lines;   /* its first line, its lines */
    /* its first bad key, if any */
    size_t bad_line;       /* SIZE_MAX: none */
    int bad_status;
    int bad_key;           /* which key (from 1) */
    size_t bad_b, bad_e;   /* the field, within the line */
    uint64_t kmin, kmax;
    int any;               /* 1: a record's key is in kmin..kmax */
} tpart_t;

typedef struct {
    rtable_t *t;
    tpart_t *parts;
    size_t nparts;
    size_t next;           /* the next part to take (atomic) */
    int pass;              /* 0: count the lines; 1: index and parse */
    int mapped;            /* 1: the arena is an input's mapping (rtable_mapped) */
} tjob_t;

/* Split every input into parts of about TABLE_PART bytes, each starting at a line:
 * for binary records, a whole number of them, one at least (a part of records larger
 * than TABLE_PART is one record). Every part but each segment's last is at least
 * unit bytes long, which bounds their number. */
static int table_parts(rtable_t *t, tpart_t **out, size_t *nout)
{
    uint64_t per = t->rsize && TABLE_PART / t->rsize ? TABLE_PART / t->rsize : 1;
    uint64_t unit = t->rsize ? per * t->rsize : TABLE_PART;
    size_t cap = (size_t)(t->bytes / unit) + (size_t)t->nseg + 1, n = 0;
    tpart_t *p = calloc(cap, sizeof *p);
    if (!p)
        return err_set(GS_ENOMEM, "out of memory");
    for (int i = 0; i < t->nseg; i++) {
        uint64_t lo = t->seg[i].off, end = t->seg[i].end;
        while (lo < end) {
            uint64_t hi;
            if (t->rsize) {   /* whole records: the input is a whole number of them */
                hi = end - lo > unit ? lo + unit : end;
            } else if ((hi = lo + TABLE_PART) >= end) {
                hi = end;
            } else {
                const char *e = memchr(t->arena + hi - 1, t->term, end - (hi - 1));
                hi = (uint64_t)(e - t->arena) + 1;   /* the input ends with a terminator */
            }
            p[n++] = (tpart_t){ .lo = lo, .hi = hi, .seg = i, .bad_line = SIZE_MAX };
            lo = hi;
        }
    }
    *out = p;
    *nout = n;
    return GS_OK;
}

/* ---- counting lines -------------------------------------------------------------- */

/* The terminators in s[0..len). */
static inline __attribute__((always_inline)) size_t
table_count_lines(const char *s, size_t len, char term)
{
    size_t n = 0, i = 0;
    for (; len - i >= 64; i += 64)
        n += (size_t)__builtin_popcountll(ends_mask64(s + i, term, term));
    return n + (size_t)__builtin_popcountll(ends_mask_tail(s + i, len - i, term, term));
}

/* The same with the processor's popcnt (else a call into the compiler's library
 * for each 64 bytes), chosen at run time as textscan.c does. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TABLE_POPCNT 1
__attribute__((target("popcnt"))) static size_t
table_count_lines_popcnt(const char *s, size_t len, char term)
{
    return table_count_lines(s, len, term);
}
#else
#define TABLE_POPCNT 0
#endif

static size_t table_count(const rtable_t *t, const tpart_t *p)
{
    if (t->rsize)
        return (size_t)((p->hi - p->lo) / t->rsize);
    const char *s = t->arena + p->lo;
    size_t len = (size_t)(p->hi - p->lo);
#if TABLE_POPCNT
    if (__builtin_cpu_supports("popcnt"))
        return table_count_lines_popcnt(s, len, t->term);
#endif
    return table_count_lines(s, len, t->term);
}

/* ---- a part's keys ------------------------------------------------------------------ */

/* A part's least and greatest key, kept in registers while it is indexed: the parts
 * lie side by side in one array, and their threads would share its cache lines. */
typedef struct {
    uint64_t kmin, kmax;
} trange_t;

static inline void table_keep(trange_t *r, uint64_t k)
{
    if (k < r->kmin)
        r->kmin = k;
    if (k > r->kmax)
        r->kmax = k;
}

static inline void table_kept(tpart_t *p, const trange_t *r)
{
    p->any = r->kmin <= r->kmax;
    p->kmin = r->kmin;
    p->kmax = r->kmax;
}

/* The binary records of part p: their keys' words. */
static void table_index_binary(rtable_t *t, tpart_t *p)
{
    const char *s = t->arena + p->lo;
    trange_t r = { UINT64_MAX, 0 };
    for (size_t l = p->first; l < p->first + p->lines; l++, s += t->rsize) {
        uint64_t k = rkey_word_binary(&t->rk, s);
        t->key[l] = k;
        table_keep(&r, k);
    }
    table_kept(p, &r);
}

/* Note line l's bad key (key, st, its field [b, fe) within the line) in part p. */
static inline void table_bad(tpart_t *p, size_t l, int key, int st, size_t b, size_t fe)
{
    p->bad_line = l;
    p->bad_key = key;
    p->bad_status = st;
    p->bad_b = b;
    p->bad_e = fe;
}

/* The lines of part p, keys of any kind (rkey_word): their starts and words, up to
 * the first bad key. Where fields are split by one byte (-t), each line's
 * separators are found with its terminator, 64 bytes at a time, and handed to the
 * keys (rkey_line_t), which then search for none. */
static void table_index_keys(rtable_t *t, tpart_t *p)
{
    const rseg_t *sg = &t->seg[p->seg];
    const char *base = t->arena + p->lo;
    int sep = t->set->field_sep, by_masks = sep >= 0 && (char)sep != t->term;
    ends_t ends;
    ends_init(&ends, base, (size_t)(p->hi - p->lo), t->term, by_masks ? (char)sep : t->term);
    trange_t r = { UINT64_MAX, 0 };
    size_t s = 0, end = p->first + p->lines;
    size_t header = sg->header ? sg->first : SIZE_MAX;
    rkey_line_t rl;
    for (size_t l = p->first; l < end; l++) {
        size_t e;
        rkey_line_init(&rl, base + s, 0);
        rl.slack = 1;   /* the arena's RTABLE_SLACK bytes follow its last line */
        if (by_masks) {
            for (rl.end = 1;;) {   /* the part ends with a terminator: one comes */
                e = ends_next(&ends);
                if (base[e] == t->term)
                    break;
                if (rl.nsep < RKEY_SEPS)
                    rl.sep[rl.nsep++] = e - s;
                else
                    rl.end = 0;   /* more than are kept: the keys look further */
            }
        } else {
            e = ends_next(&ends);
        }
        rl.len = e - s;
        t->start[l] = p->lo + s;
        if (l == header) {
            t->key[l] = 0;
        } else {
            rkey_bad_t bad;
            uint64_t w;
            if (rkey_word_line(&t->rk, &rl, &w, &bad) != RKEY_OK) {
                table_bad(p, l, bad.key, bad.status, bad.b, bad.e);
                break;
            }
            t->key[l] = w;
            table_keep(&r, w);
        }
        s = e + 1;
    }
    table_kept(p, &r);
}

/* The lines of part p: their starts and keys, up to the first bad key. Where fields
 * are split by one byte (-t), the terminators and separators are found together, 64
 * bytes at a time, and walked in order: field f lies between the (f-1)th separator
 * of its line and the next one or the line's end (no search a line). Else, or for a
 * line short of fields (its message), field_key(). */
static void table_index_text(rtable_t *t, tpart_t *p)
{
    const settings_t *set = t->set;
    const rseg_t *sg = &t->seg[p->seg];
    const char *base = t->arena + p->lo;
    int f = set->keys[0].sfield, sep = set->field_sep;
    int by_masks = sep >= 0 && (char)sep != t->term;
    const keymap_t *km = &t->rk.km;
    uint64_t pos_max = field_pos_max(km->type);
    ends_t ends;
    ends_init(&ends, base, (size_t)(p->hi - p->lo), t->term,
              by_masks ? (char)sep : t->term);
    trange_t r = { UINT64_MAX, 0 };
    size_t s = 0;   /* the line's start in the part */
    /* The table's fields in locals: the stores into start[] and key[] could change
     * those of their type (sizes, offsets), so they would be read again each line. */
    uint64_t *start = t->start, *key = t->key, lo = p->lo;
    size_t end = p->first + p->lines, header = sg->header ? sg->first : SIZE_MAX;
    const char term = t->term;
    for (size_t l = p->first; l < end; l++) {
        size_t e, fb = 0, fe = SIZE_MAX;   /* field f's bounds in the line */
        int field = 1;
        if (by_masks) {
            for (;;) {   /* the part ends with a terminator: one comes */
                e = ends_next(&ends);
                if (base[e] == term)
                    break;
                if (field == f)
                    fe = e - s;
                if (++field == f)
                    fb = e + 1 - s;
            }
        } else {
            e = ends_next(&ends);
        }
        start[l] = lo + s;
        if (l == header) {
            key[l] = 0;
        } else {
            const char *line = base + s;
            uint64_t raw;
            size_t b = fb;
            int st;
            if (by_masks && field >= f) {
                if (fe == SIZE_MAX)
                    fe = e - s;   /* the key is the last field */
                st = field_parse_quick(line, b, fe, km->type, pos_max, &raw);
            } else {
                st = field_key(line, e - s, f, sep, km->type, &raw, &b, &fe);
            }
            if (st != FIELD_OK) {
                table_bad(p, l, 1, st, b, fe);
                break;
            }
            key[l] = km->width == 4 ? key_map(km, raw) & 0xFFFFFFFFull : key_map(km, raw);
            table_keep(&r, key[l]);
        }
        s = e + 1;
    }
    table_kept(p, &r);
}

static void table_job(void *arg, int i, int n)
{
    (void)i;
    (void)n;
    tjob_t *j = arg;
    for (;;) {
        size_t k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (k >= j->nparts)
            return;
        tpart_t *p = &j->parts[k];
        if (j->pass == 0) {   /* the first pass over the part's bytes */
            if (j->mapped)
                mem_prefault(j->t->arena + p->lo, (size_t)(p->hi - p->lo));
            p->lines = table_count(j->t, p);
        } else if (j->t->rsize) {
            table_index_binary(j->t, p);
        } else if (j->t->rk.quick) {
            table_index_text(j->t, p);
        } else {
            table_index_keys(j->t, p);
        }
    }
}

static void table_run(rtable_t *t, tjob_t *j, int pass)
{
    j->pass = pass;
    j->next = 0;
    if (j->nparts > 1)
        pool_run(t->pool, table_job, j);
    else
        table_job(j, 0, 1);
}

/* The message of part p's bad key. */
static int table_bad_key(const rtable_t *t, const tpart_t *p)
{
    const rseg_t *sg = &t->seg[p->seg];
    unsigned long long line = (unsigned long long)rtable_line_number(t, p->bad_line);
    int f = t->set->keys[p->bad_key - 1].sfield;
    /* With several keys, the one at fault is named; its field is named in any case. */
    char which[48] = "";
    if (t->set->nkeys > 1)
        snprintf(which, sizeof which, "key %d, ", p->bad_key);
    if (p->bad_status == FIELD_MISSING)
        return err_set(GS_EINPUT, "%s:%llu: %sno field %d", sg->name, line, which, f);
    if (p->bad_status == FIELD_EMPTY)
        return err_set(GS_EINPUT, "%s:%llu: %sfield %d is empty", sg->name, line, which, f);
    char q[256], hint[64];
    const char *key = t->arena + t->start[p->bad_line] + p->bad_b;
    size_t len = p->bad_e - p->bad_b;
    err_escape(q, sizeof q, key, len, 40);
    if (p->bad_status == FIELD_RANGE)
        return err_set(GS_EINPUT, "%s:%llu: %sfield %d: out of range for %s: '%s'%s", sg->name,
                       line, which, f, key_type_name(t->set->type), q,
                       key_range_hint(hint, sizeof hint, key, len, t->set->type));
    /* A word where line 1's key should be: most likely the names of the columns. */
    size_t b = 0;
    while (b < len && (key[b] == ' ' || key[b] == '\t'))
        b++;
    unsigned char c = b < len ? (unsigned char)key[b] : 0;
    int word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    return err_set(GS_EINPUT, "%s:%llu: %sfield %d: not %s: '%s'%s", sg->name, line, which, f,
                   p->bad_status == FIELD_NOT_FLOAT ? "a number" : "an integer", q,
                   word && line == 1 && !t->set->sources[sg->input].header
                       ? "; is line 1 a header? (--header)"
                                                        : "");
}

/* Room in key[] and start[] for n lines. The arrays are kept from chunk to chunk:
 * freed and made anew, each chunk's would be fresh pages, faulted in again (and
 * given back again) for every chunk of a run larger than memory. They grow by an
 * eighth more than asked, where a later chunk has more lines than the first. */
static int table_room(rtable_t *t, size_t n)
{
    if (n < t->index_cap)
        return GS_OK;
    size_t cap = t->index_cap ? n + n / 8 + 1 : n + 1;
    free(t->key);
    free(t->start);
    t->key = mem_alloc(sizeof *t->key * cap);
    t->start = t->rsize ? NULL : mem_alloc(sizeof *t->start * cap);
    t->index_cap = cap;
    if (!t->key || (!t->rsize && !t->start)) {
        free(t->key);
        free(t->start);
        t->key = t->start = NULL;
        t->index_cap = 0;
        return err_set(GS_ENOMEM, "out of memory");
    }
    return GS_OK;
}

int rtable_index(rtable_t *t)
{
    t->bad = SIZE_MAX;
    tpart_t *parts = NULL;
    size_t nparts = 0;
    double t0 = stats_now();   /* --stats: the index is the records' parse */
    int rc = table_parts(t, &parts, &nparts);
    if (rc)
        return rc;
    tjob_t j = { .t = t, .parts = parts, .nparts = nparts, .mapped = rtable_mapped(t) };
    table_run(t, &j, 0);
    size_t n = 0;
    for (int i = 0; i < t->nseg; i++)
        t->seg[i].lines = 0;
    for (size_t k = 0; k < nparts; k++) {
        parts[k].first = n;
        if (k == 0 || parts[k].seg != parts[k - 1].seg)
            t->seg[parts[k].seg].first = n;
        n += parts[k].lines;
        t->seg[parts[k].seg].lines += parts[k].lines;
    }
    t->n = n;
    t->nrec = n;
    for (int i = 0; i < t->nseg; i++) {
        if (i > 0 && t->seg[i].lines == 0)
            t->seg[i].first = t->seg[i - 1].first + t->seg[i - 1].lines;
        if (t->seg[i].lines == 0)
            t->seg[i].header = 0;   /* an empty input has none */
        if (t->seg[i].header)
            t->nrec--;
    }
    if ((rc = table_room(t, n)) != GS_OK) {
        free(parts);
        return rc;
    }
    if (t->start)
        t->start[n] = t->bytes;
    table_run(t, &j, 1);
    int any = 0;
    for (size_t k = 0; k < nparts && rc == GS_OK; k++) {
        if (parts[k].bad_line != SIZE_MAX) {
            t->bad = parts[k].bad_line;
            rc = table_bad_key(t, &parts[k]);
            break;
        }
        if (parts[k].any) {
            if (!any || parts[k].kmin < t->kmin)
                t->kmin = parts[k].kmin;
            if (!any || parts[k].kmax > t->kmax)
                t->kmax = parts[k].kmax;
            any = 1;
        }
    }
    free(parts);
    stats_add(ST_PARSE, t->bytes, stats_now() - t0);
    return rc;
}

void rtable_drop_index(rtable_t *t)
{
    t->n = t->nrec = 0;
}

/* ---- lines and segments ------------------------------------------------------------ */

const rseg_t *rtable_seg(const rtable_t *t, size_t l)
{
    int a = 0, b = t->nseg - 1;
    while (a < b) {   /* the last segment whose first line is at most l */
        int m = a + (b - a + 1) / 2;
        if (t->seg[m].first <= l)
            a = m;
        else
            b = m - 1;
    }
    while (a > 0 && t->seg[a].lines == 0)
        a--;
    return &t->seg[a];
}

int rtable_is_header(const rtable_t *t, size_t l)
{
    const rseg_t *sg = rtable_seg(t, l);
    return sg->header && l == sg->first;
}

const char *rtable_header(const rtable_t *t, size_t *len)
{
    *len = t->header_len;
    return t->header;
}
