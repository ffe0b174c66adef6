/* SPDX-License-Identifier: MIT */
/* ends.h: the terminators (and field separators) of a run of lines, found 64 bytes
 * at a time: a bit mask of them (SSE2 where there is, else a byte at a time), walked
 * bit by bit, rather than a memchr(3) call a line (lines are tens of bytes). The
 * table (table.c) indexes a chunk's lines so, the spill's merge (spill_cursor.c)
 * takes each spilled line's end and key field so.
 */
#ifndef GS_ENDS_H
#define GS_ENDS_H

#include <stddef.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Bit i set where p[i] is c or d, for i < 64 (c == d: where it is c). */
static inline uint64_t ends_mask64(const char *p, char c, char d)
{
#ifdef __SSE2__
    __m128i v = _mm_set1_epi8(c), w = _mm_set1_epi8(d);
    uint64_t m = 0;
    for (int i = 0; i < 4; i++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(p + 16 * i));
        __m128i y = _mm_or_si128(_mm_cmpeq_epi8(x, v), _mm_cmpeq_epi8(x, w));
        m |= (uint64_t)(uint32_t)_mm_movemask_epi8(y) << (16 * i);
    }
    return m;
#else
    uint64_t m = 0;
    for (int i = 0; i < 64; i++)
        m |= (uint64_t)(p[i] == c || p[i] == d) << i;
    return m;
#endif
}

/* The same for the n < 64 bytes at p. */
static inline uint64_t ends_mask_tail(const char *p, size_t n, char c, char d)
{
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++)
        m |= (uint64_t)(p[i] == c || p[i] == d) << i;
    return m;
}

/* The terminators of buf[0..len) (and the separators, where sep is not term), in
 * order. */
typedef struct {
    const char *buf;
    size_t len;
    size_t at;             /* the window's start */
    uint64_t mask;         /* its terminators (and separators) not yet taken */
    char term, sep;
} ends_t;

static inline void ends_load(ends_t *e)
{
    size_t left = e->len - e->at;
    e->mask = left >= 64 ? ends_mask64(e->buf + e->at, e->term, e->sep)
                         : ends_mask_tail(e->buf + e->at, left, e->term, e->sep);
}

static inline void ends_init(ends_t *e, const char *buf, size_t len, char term, char sep)
{
    *e = (ends_t){ .buf = buf, .len = len, .term = term, .sep = sep };
    if (len)
        ends_load(e);
}

/* The next terminator's (or separator's) offset, or len where none is left. */
static inline size_t ends_next(ends_t *e)
{
    while (!e->mask) {
        e->at += 64;
        if (e->at >= e->len)
            return e->len;
        ends_load(e);
    }
    size_t off = e->at + (size_t)__builtin_ctzll(e->mask);
    e->mask &= e->mask - 1;
    return off;
}

#endif
