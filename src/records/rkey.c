/* SPDX-License-Identifier: MIT */
/* rkey.c: a record's normalized key (see rkey.h).
 *
 * Where a key lies in a line is sort's begfield and limfield: the start skips
 * sfield - 1 fields (a field: up to and past the next -t byte; without -t, a run of
 * blanks then of non-blanks), then its blanks where the key has b, then schar - 1
 * bytes; the end likewise, a whole field where echar is 0; an end before the start
 * is an empty key. A number (n, g) is read from the key's first field alone, after
 * its blanks, and must fill it but for blanks.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/textnum.h"
#include "records/field.h"
#include "records/gfloat.h"
#include "records/rkey.h"

/* sort's blanks: space, tab, and LF (which a line holds only under -z). */
static inline int rk_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* ---- where a key lies ----------------------------------------------------------------- */

/* Where separator i (from 0) of the line is; len where it has fewer. */
static size_t rk_sep(const rkey_t *k, rkey_line_t *l, int i)
{
    while (l->nsep <= i && l->nsep < RKEY_SEPS && !l->end) {
        size_t from = l->nsep ? l->sep[l->nsep - 1] + 1 : 0;
        const char *s = from < l->len ? memchr(l->p + from, k->sep, l->len - from) : NULL;
        if (!s)
            l->end = 1;
        else
            l->sep[l->nsep++] = (size_t)(s - l->p);
    }
    if (i < l->nsep)
        return l->sep[i];
    if (l->end)
        return l->len;
    /* Past the kept ones: counted on from the last, not kept. */
    size_t p = l->sep[RKEY_SEPS - 1];
    for (int j = RKEY_SEPS; j <= i; j++) {
        const char *s = p + 1 < l->len ? memchr(l->p + p + 1, k->sep, l->len - p - 1) : NULL;
        if (!s)
            return l->len;
        p = (size_t)(s - l->p);
    }
    return p;
}

/* Past n fields from the line's start: to just past the n-th separator, or past n
 * runs of blanks and non-blanks; the line's end at most. stop_on_last: with a
 * separator, stop on the last one instead of past it (limfield's end of a whole
 * field). */
static size_t rk_skip_fields(const rkey_t *k, rkey_line_t *l, int n, int stop_on_last)
{
    const char *line = l->p;
    size_t len = l->len, p = 0;
    if (k->sep >= 0) {
        if (n <= 0)
            return 0;
        size_t s = rk_sep(k, l, n - 1);
        return s == len ? len : s + (stop_on_last ? 0 : 1);
    }
    while (p < len && n > 0) {
        n--;
        while (p < len && rk_blank((unsigned char)line[p]))
            p++;
        while (p < len && !rk_blank((unsigned char)line[p]))
            p++;
    }
    return p;
}

static size_t rk_skip_blanks(const char *line, size_t len, size_t p)
{
    while (p < len && rk_blank((unsigned char)line[p]))
        p++;
    return p;
}

/* Key i's bytes where it is a whole field (rkey_t.whole) and the separators around
 * it are known already (the table found them): 1 and [*b, *e); else 0. */
static inline int rk_whole_field(const rkey_t *k, int i, const rkey_line_t *l, size_t *b,
                                 size_t *e)
{
    int f = k->keys[i].sfield - 1;   /* the separators before and after: f - 1, f */
    if (!k->whole[i])
        return 0;
    if (f < l->nsep)
        *e = l->sep[f];
    else if (l->end && f == l->nsep)
        *e = l->len;   /* the last field */
    else
        return 0;      /* past the known ones, or a missing field */
    *b = f ? l->sep[f - 1] + 1 : 0;
    return 1;
}

/* rkey_span() on a line looked at already for other keys. */
static void rk_span(const rkey_t *k, int i, rkey_line_t *l, size_t *b, size_t *e)
{
    if (rk_whole_field(k, i, l, b, e))
        return;
    const keydef_t *d = &k->keys[i];
    const char *line = l->p;
    size_t len = l->len;
    size_t p = rk_skip_fields(k, l, d->sfield - 1, 0);
    if (d->skip_sblanks)
        p = rk_skip_blanks(line, len, p);
    p = (size_t)(d->schar - 1) < len - p ? p + (size_t)(d->schar - 1) : len;
    size_t q = len;
    if (d->efield > 0) {
        /* echar 0: past the whole end field, stopping on its separator */
        q = rk_skip_fields(k, l, d->echar ? d->efield - 1 : d->efield, d->echar == 0);
        if (d->echar) {
            if (d->skip_eblanks)
                q = rk_skip_blanks(line, len, q);
            q = (size_t)d->echar < len - q ? q + (size_t)d->echar : len;
        }
    }
    *b = p;
    *e = q > p ? q : p;
}

void rkey_span(const rkey_t *k, int i, const char *line, size_t len, size_t *b, size_t *e)
{
    rkey_line_t l;
    rkey_line_init(&l, line, len);
    rk_span(k, i, &l, b, e);
}

/* The key's first field, where a number is read: [b, end of the field b is in, or
 * e), *b and *e narrowed to it. 0 where the line has no field sfield. */
static int rk_number_span(const rkey_t *k, const keydef_t *d, rkey_line_t *l, size_t *b,
                          size_t *e)
{
    size_t fb, fe;
    if (k->sep >= 0) {
        /* field F: after separator F - 1 (there must be one), to separator F */
        size_t before = d->sfield > 1 ? rk_sep(k, l, d->sfield - 2) : 0;
        if (d->sfield > 1 && before == l->len)
            return 0;
        fb = d->sfield > 1 ? before + 1 : 0;
        fe = rk_sep(k, l, d->sfield - 1);
    } else if (!field_find(l->p, l->len, d->sfield, k->sep, &fb, &fe)) {
        return 0;
    }
    (void)fb;
    if (*b > fe)
        *e = *b;   /* the key starts past its field: empty */
    else if (fe < *e)
        *e = fe;
    return 1;
}

/* ---- one key's encoding ------------------------------------------------------------- */

/* A numeric key (n or g) of line: its sort key (not yet reversed) into *key, its
 * width in bytes; RKEY_OK, or RKEY_BAD with bad set. */
static int rk_number(const rkey_t *k, int i, rkey_line_t *l, uint64_t *key, int *width,
                     rkey_bad_t *bad)
{
    const keydef_t *d = &k->keys[i];
    const char *line = l->p;
    size_t b, e;
    int st, whole = rk_whole_field(k, i, l, &b, &e);   /* then its first field too */
    if (!whole)
        rk_span(k, i, l, &b, &e);
    if (!whole && !rk_number_span(k, d, l, &b, &e)) {
        st = FIELD_MISSING;
    } else if (d->kind == KD_INT) {
        uint64_t raw;
        st = l->slack ? field_parse_quick(line, b, e, k->type, k->int_max, &raw)
                      : field_parse(line, b, e, k->type, &raw);
        if (st == FIELD_OK) {
            const keymap_t *km = &k->int_km;
            *width = km->width;
            *key = km->width == 4 ? key_map(km, raw) & 0xFFFFFFFFull : key_map(km, raw);
            return RKEY_OK;
        }
    } else {
        double v;
        if (gfloat_parse(line, b, e, &v)) {
            *width = 8;
            *key = gfloat_key64(v);
            return RKEY_OK;
        }
        size_t s = b;
        while (s < e && (rk_blank((unsigned char)line[s]) || line[s] == '\r'))
            s++;
        st = s == e ? FIELD_EMPTY : FIELD_NOT_FLOAT;
    }
    *bad = (rkey_bad_t){ .key = i + 1, .field = d->sfield, .status = st, .b = b, .e = e };
    return RKEY_BAD;
}

/* ---- compiling ------------------------------------------------------------------------- */

void rkey_init(rkey_t *k, const settings_t *set)
{
    memset(k, 0, sizeof *k);
    k->keys = set->keys;
    k->nkeys = set->nkeys;
    k->sep = set->field_sep;
    k->type = set->type;
    k->rsize = set->record_size;
    k->koff = set->key_offset;
    k->big_endian = set->big_endian;
    k->last_resort = !set->record_size && !set->stable && !set->unique;
    k->last_reverse = set->reverse;
    if (k->rsize) {
        /* One binary key, descending with -r: exact where its encoding is 8 bytes or
         * fewer. */
        k->kbytes = key_type_width(set->type, set->key_bytes);
        k->exact = k->kbytes <= 8;
        k->wide = k->kbytes >= 8;
        k->reverse = set->reverse;
        if (key_type_is_int(set->type))
            key_map_init(&k->km, set->type, set->reverse);
        return;
    }
    int width = 0;
    k->exact = 1;
    key_map_init(&k->int_km, set->type, 0);
    k->int_max = field_pos_max(set->type);
    for (int i = 0; i < k->nkeys; i++) {
        const keydef_t *d = &k->keys[i];
        k->whole[i] = k->sep >= 0 && d->schar == 1 && !d->skip_sblanks &&
                      d->efield == d->sfield && d->echar == 0;
        if (d->kind == KD_TEXT)
            k->exact = 0;
        else
            width += d->kind == KD_FLOAT ? 8 : (set->type == KEY_I32 || set->type == KEY_U32) ? 4 : 8;
    }
    if (width > 8)
        k->exact = 0;
    k->wide = !k->exact || width == 8;
    const keydef_t *d = &k->keys[0];
    k->quick = k->nkeys == 1 && d->kind == KD_INT && d->schar == 1 && d->echar == 0 &&
               (d->efield == 0 || d->efield >= d->sfield);
    if (k->quick)
        key_map_init(&k->km, set->type, d->reverse);
}

/* ---- words ------------------------------------------------------------------------------ */

/* Eight bytes of a normalized key from its byte skip on (the first eight where skip
 * is 0), gathered into one big-endian word; more: the key goes on past them. */
typedef struct {
    uint64_t word;
    int have;                /* bytes in word (8 at most) */
    int more;                /* a byte came once the word was full */
    size_t skip;             /* bytes still to pass over before the word's */
} rk_acc_t;

static inline void rk_put(rk_acc_t *a, unsigned char byte)
{
    if (a->skip)
        a->skip--;
    else if (a->have < 8)
        a->word |= (uint64_t)byte << (8 * (7 - a->have++));
    else
        a->more = 1;
}

/* The 8 bytes at p as a big-endian word: the first the most significant. */
static inline uint64_t rk_be64(const void *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* The low n bytes of a word (n from 0 to 8). */
static inline uint64_t rk_low(int n)
{
    return n >= 8 ? ~0ull : (1ull << (8 * n)) - 1;
}

/* width bytes of v (big-endian), inverted where rev: put whole, where no bytes are
 * to be skipped, as far as the word has room. */
static void rk_put_number(rk_acc_t *a, uint64_t v, int width, int rev)
{
    if (rev)
        v = ~v;
    if (a->skip) {
        for (int s = 8 * (width - 1); s >= 0 && !a->more; s -= 8)
            rk_put(a, (unsigned char)(v >> s));
        return;
    }
    if (a->more)
        return;
    int room = 8 - a->have;
    if (width <= room) {
        a->word |= (v & rk_low(width)) << (8 * (room - width));
        a->have += width;
    } else {   /* its first room bytes, then one more that does not fit */
        if (room)
            a->word |= (v >> (8 * (width - room))) & rk_low(room);
        a->have = 8;
        a->more = 1;
    }
}

/* Text line[b..e), escaped and ended (rkey.h), inverted where rev. Where no bytes
 * are to be skipped and the text fills the word's room, its bytes are put at once
 * (one load, a check that none is 0x00 or 0x01); then a byte or the terminator
 * follows that does not fit. */
static void rk_put_text(rk_acc_t *a, const char *line, size_t b, size_t e, int rev)
{
    unsigned char x = rev ? 0xFF : 0;
    if (!a->skip && !a->more && e - b >= 8) {
        int room = 8 - a->have;
        uint64_t be = rk_be64(line + b);
        /* bytes 0 and 1 among the first room: a byte of (be & 0xFE..) is zero; the
         * bytes past room made 0xFF, so that they count for nothing */
        uint64_t y = (be & 0xFEFEFEFEFEFEFEFEull) | rk_low(8 - room);
        if (!((y - 0x0101010101010101ull) & ~y & 0x8080808080808080ull)) {
            if (room)
                a->word |= (be >> (8 * (8 - room))) ^ (x ? rk_low(room) : 0);
            a->have = 8;
            a->more = 1;
            return;
        }
    }
    for (size_t p = b; p < e && !a->more; p++) {
        unsigned char c = (unsigned char)line[p];
        if (c <= 1) {
            rk_put(a, 1 ^ x);
            rk_put(a, (unsigned char)(c + 1) ^ x);
        } else {
            rk_put(a, c ^ x);
        }
    }
    rk_put(a, x);
}

int rkey_word(const rkey_t *k, const char *line, size_t len, uint64_t *word, rkey_bad_t *bad)
{
    rkey_line_t l;
    rkey_line_init(&l, line, len);
    return rkey_word_line(k, &l, word, bad);
}

int rkey_word_line(const rkey_t *k, rkey_line_t *l, uint64_t *word, rkey_bad_t *bad)
{
    rk_acc_t a = { 0 };
    const char *line = l->p;
    int total = 0;
    /* Every numeric key is read, to report the first bad one, even once the word is
     * full. */
    for (int i = 0; i < k->nkeys; i++) {
        const keydef_t *d = &k->keys[i];
        if (d->kind == KD_TEXT) {
            if (a.have < 8) {
                size_t b, e;
                rk_span(k, i, l, &b, &e);
                rk_put_text(&a, line, b, e, d->reverse);
            }
            continue;
        }
        uint64_t v;
        int width;
        if (rk_number(k, i, l, &v, &width, bad) != RKEY_OK)
            return RKEY_BAD;
        rk_put_number(&a, v, width, d->reverse);
        total += width;
    }
    /* An exact key is a number of total bytes, not the first bytes of a longer one. */
    *word = k->exact ? (total == 8 ? a.word : a.word >> (8 * (8 - total))) : a.word;
    return RKEY_OK;
}

int rkey_word_at(const rkey_t *k, const char *line, size_t len, size_t depth, uint64_t *word)
{
    rk_acc_t a = { .skip = k->rsize ? 0 : 8 * depth };
    if (k->rsize) {   /* bytesN: its bytes from 8 * depth, inverted where -r */
        const unsigned char *p = (const unsigned char *)line + k->koff;
        for (size_t i = 8 * depth; i < k->kbytes && !a.more; i++)
            rk_put(&a, k->reverse ? (unsigned char)~p[i] : p[i]);
        *word = a.word;
        return a.more;
    }
    rkey_line_t l;
    rkey_line_init(&l, line, len);
    for (int i = 0; i < k->nkeys && !a.more; i++) {
        const keydef_t *d = &k->keys[i];
        if (d->kind == KD_TEXT) {
            size_t b, e;
            rk_span(k, i, &l, &b, &e);
            rk_put_text(&a, line, b, e, d->reverse);
            continue;
        }
        uint64_t v = 0;
        int width = 8;
        rkey_bad_t bad;
        if (rk_number(k, i, &l, &v, &width, &bad) == RKEY_OK)
            rk_put_number(&a, v, width, d->reverse);
    }
    *word = a.word;
    return a.more;
}

/* A binary float or bytes key's bytes in big-endian order (most significant first). */
static uint64_t rk_load(const unsigned char *p, int width, int big_endian)
{
    if (width == 8 && big_endian)
        return rk_be64(p);
    uint64_t v = 0;
    for (int i = 0; i < width; i++)
        v = v << 8 | p[big_endian ? i : width - 1 - i];
    return v;
}

uint64_t rkey_word_binary(const rkey_t *k, const char *rec)
{
    const unsigned char *p = (const unsigned char *)rec + k->koff;
    uint64_t w;
    size_t width = k->kbytes < 8 ? k->kbytes : 8;
    switch (k->type) {
    case KEY_F32: {
        uint32_t u = (uint32_t)rk_load(p, 4, k->big_endian);
        float f;
        memcpy(&f, &u, 4);
        w = gfloat_key32(f);
        break;
    }
    case KEY_F64: {
        uint64_t u = rk_load(p, 8, k->big_endian);
        double v;
        memcpy(&v, &u, 8);
        w = gfloat_key64(v);
        break;
    }
    case KEY_BYTES:   /* memcmp order: the first byte most significant */
        w = rk_load(p, (int)width, 1);
        break;
    default: {   /* the mapping takes -r in */
        uint64_t raw = 0;
        key_decode(p, &raw, 1, &k->km, k->big_endian);
        return k->km.width == 4 ? raw & 0xFFFFFFFFull : raw;
    }
    }
    if (k->reverse)
        w = width == 8 ? ~w : ~w & ((1ull << (8 * width)) - 1);
    return w;
}

void rkey_format_binary(const rkey_t *k, const char *rec, char *buf, size_t size)
{
    const unsigned char *p = (const unsigned char *)rec + k->koff;
    if (k->type == KEY_F32 || k->type == KEY_F64) {
        int w = k->type == KEY_F32 ? 4 : 8;
        uint64_t u = rk_load(p, w, k->big_endian);
        double v;
        if (w == 4) {
            uint32_t u32 = (uint32_t)u;
            float f;
            memcpy(&f, &u32, 4);
            v = f;
        } else {
            memcpy(&v, &u, 8);
        }
        snprintf(buf, size, w == 4 ? "%.9g" : "%.17g", v);
    } else if (k->type == KEY_BYTES) {
        size_t o = 0;
        for (size_t i = 0; i < k->kbytes && o + 3 <= size; i++)
            o += (size_t)snprintf(buf + o, size - o, "%02x", p[i]);
    } else {
        uint64_t raw = 0;
        keymap_t plain;
        key_map_init(&plain, k->type, 0);
        key_decode(p, &raw, 1, &plain, k->big_endian);
        raw = key_map(&plain, raw);   /* the value's own bits again */
        buf[tn_format(raw, k->type, buf)] = '\0';
    }
}

/* ---- comparisons --------------------------------------------------------------------- */

static int rk_sign(long long c)
{
    return (c > 0) - (c < 0);
}

int rkey_cmp(const rkey_t *k, const char *a, size_t la, const char *b, size_t lb)
{
    if (k->exact)
        return 0;
    if (k->rsize) {   /* bytesN, N > 8: the bytes after the word's */
        int c = memcmp(a + k->koff + 8, b + k->koff + 8, k->kbytes - 8);
        c = rk_sign(c);
        return k->reverse ? -c : c;
    }
    rkey_line_t al, bl;
    rkey_line_init(&al, a, la);
    rkey_line_init(&bl, b, lb);
    for (int i = 0; i < k->nkeys; i++) {
        const keydef_t *d = &k->keys[i];
        int c;
        if (d->kind == KD_TEXT) {
            size_t ab, ae, bb, be;
            rk_span(k, i, &al, &ab, &ae);
            rk_span(k, i, &bl, &bb, &be);
            size_t na = ae - ab, nb = be - bb;
            c = memcmp(a + ab, b + bb, na < nb ? na : nb);
            c = c ? rk_sign(c) : rk_sign((long long)(na > nb) - (long long)(na < nb));
        } else {
            uint64_t va = 0, vb = 0;
            int w;
            rkey_bad_t bad;
            rk_number(k, i, &al, &va, &w, &bad);
            rk_number(k, i, &bl, &vb, &w, &bad);
            c = (va > vb) - (va < vb);
        }
        if (c)
            return d->reverse ? -c : c;
    }
    return 0;
}

int rkey_order(const rkey_t *k, const char *a, size_t la, const char *b, size_t lb)
{
    int c = rkey_cmp(k, a, la, b, lb);
    if (c || !k->last_resort)
        return c;
    c = memcmp(a, b, la < lb ? la : lb);
    c = c ? rk_sign(c) : (la > lb) - (la < lb);
    return k->last_reverse ? -c : c;
}
