/* SPDX-License-Identifier: MIT */
/* textfmt.c: integers -> text: mapped keys formatted as canonical decimal lines
 * (see textnum.h).
 *
 * Formatting turns eight digits at a time into one word of ASCII (SWAR divisions by
 * 10^4, 100 and 10 in every lane at once), after counting the digits so it can write
 * forwards; keys in order share all but their last four digits with the key before
 * them most of the time, so a line is a prefix kept in a register and four digits.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "io/textnum.h"

static inline unsigned tn_ndigits(uint64_t v)
{
    if (v < 10)
        return 1;
    unsigned t = ((64 - (unsigned)__builtin_clzll(v)) * 1233) >> 12;
    return t + (v >= tn_pow10[t]);
}

/* The eight decimal digits of v (< 10^8), leading zeros included, as ASCII in one
 * word whose lowest byte is the first digit (so a little-endian store writes them
 * in order). Splits by 10^4, then 100, then 10 in every lane at once; each division
 * is a multiply and a shift, exact for the lanes' ranges. */
static inline uint64_t tn_digits8(uint32_t v)
{
    uint64_t x = (v / 10000) | ((uint64_t)(v % 10000) << 32);
    uint64_t d100 = ((x * 10486) >> 20) & 0x0000007F0000007Full;
    x = d100 | ((x - 100 * d100) << 16);
    uint64_t d10 = ((x * 103) >> 10) & 0x000F000F000F000Full;
    x = d10 | ((x - 10 * d10) << 8);
    return x + 0x3030303030303030ull;
}

/* Store the eight bytes of w at dst, first byte lowest. */
static inline void tn_store8(char *dst, uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    memcpy(dst, &w, 8);
}

/* Write v (< 10^8) without leading zeros. Stores eight bytes at dst whatever its
 * length: the caller's room covers that (TN_MAX_LINE per key). */
static inline __attribute__((always_inline)) char *tn_put_short(char *dst, uint32_t v)
{
    unsigned n = tn_ndigits(v);
    tn_store8(dst, tn_digits8(v) >> (8 * (8 - n)));
    return dst + n;
}

/* Write v in decimal at dst; return the end. May store up to 16 bytes past dst. */
static inline __attribute__((always_inline)) char *tn_put_u32(char *dst, uint32_t v)
{
    if (v < 100000000u)
        return tn_put_short(dst, v);
    uint32_t hi = v / 100000000u, lo = v - hi * 100000000u;   /* hi: 1..42 */
    dst[0] = (char)('0' + hi / 10);
    dst[1] = (char)('0' + hi % 10);
    dst += 1 + (hi >= 10);
    if (hi < 10)
        dst[-1] = (char)('0' + hi);
    tn_store8(dst, tn_digits8(lo));
    return dst + 8;
}

/* The same for 64 bits: up to 20 digits in parts of eight. */
static inline __attribute__((always_inline)) char *tn_put_u64(char *dst, uint64_t v)
{
    if (v <= UINT32_MAX)
        return tn_put_u32(dst, (uint32_t)v);
    if (v < 10000000000000000ull) {
        uint64_t hi = v / 100000000u;
        dst = tn_put_short(dst, (uint32_t)hi);
        tn_store8(dst, tn_digits8((uint32_t)(v - hi * 100000000u)));
        return dst + 8;
    }
    uint64_t top = v / 10000000000000000ull, rest = v - top * 10000000000000000ull;
    dst = tn_put_short(dst, (uint32_t)top);   /* top: 1..1844 */
    uint64_t mid = rest / 100000000u;
    tn_store8(dst, tn_digits8((uint32_t)mid));
    tn_store8(dst + 8, tn_digits8((uint32_t)(rest - mid * 100000000u)));
    return dst + 16;
}

/* Write one raw value of type; return the end. */
static inline char *tn_put(char *dst, uint64_t raw, key_type_t type)
{
    switch (type) {
    case KEY_I32: {
        int32_t s = (int32_t)(uint32_t)raw;
        if (s < 0) {
            *dst++ = '-';
            return tn_put_u32(dst, 0u - (uint32_t)s);
        }
        return tn_put_u32(dst, (uint32_t)s);
    }
    case KEY_U32:
        return tn_put_u32(dst, (uint32_t)raw);
    case KEY_I64:
        if ((int64_t)raw < 0) {
            *dst++ = '-';
            return tn_put_u64(dst, 0 - raw);
        }
        return tn_put_u64(dst, raw);
    default:
        return tn_put_u64(dst, raw);
    }
}

size_t tn_format(uint64_t raw, key_type_t type, char *dst)
{
    return (size_t)(tn_put(dst, raw, type) - dst);
}

/* Four digits of r (< 10^4), leading zeros included, as ASCII in one word whose
 * lowest byte is the first digit: split by 100, then by 10 in both lanes at once. */
static inline uint32_t tn_digits4(uint32_t r)
{
    uint32_t x = r / 100 | (r % 100) << 16;
    uint32_t d10 = ((x * 103) >> 10) & 0x000F000Fu;
    x = d10 | (x - 10 * d10) << 8;
    return x + 0x30303030u;
}

/* Format n keys of one type as lines, the shared part of neighbours reused: keys in
 * order mostly share all digits but the last four with the key before them, so a
 * line of five digits or more is a prefix (its sign and value / 10^4) followed by
 * four digits, and the prefix is made only when it changes. For 32-bit types it is
 * made in a register from value / 10^4 (a few instructions); for 64-bit types the
 * line is formatted whole and its prefix read back only when the next line shares
 * it (keys far apart, whose prefixes are never shared, cost about what formatting
 * each line whole costs). Any order is right. One loop per type, so that nothing is decided per key that
 * the type decides. */
static inline __attribute__((always_inline)) char *
tn_format_type(const void *keys, size_t n, uint64_t mask, key_type_t type, char term, char *p)
{
    const int wide = type == KEY_I64 || type == KEY_U64;
    const int sgn = type == KEY_I32 || type == KEY_I64;
    uint64_t pq = UINT64_MAX;   /* value / 10^4 of the prefix; none: UINT64_MAX */
    int pneg = 0, have = 0;     /* have: the prefix is in w0 (and w1) */
    const char *pline = p;      /* 64-bit types: the line the prefix is read from */
    size_t plen = 0;            /* the prefix's length */
    uint64_t w0 = 0, w1 = 0;    /* its bytes, as memcpy leaves them */
    for (size_t i = 0; i < n; i++) {
        uint64_t raw = wide ? ((const uint64_t *)keys)[i] ^ mask
                            : (uint64_t)(((const uint32_t *)keys)[i] ^ (uint32_t)mask);
        int neg = 0;
        uint64_t mag = raw;
        if (sgn && wide) {
            neg = (int64_t)raw < 0;
            mag = neg ? 0 - raw : raw;
        } else if (sgn) {
            neg = (int32_t)(uint32_t)raw < 0;
            mag = neg ? (uint64_t)(0u - (uint32_t)raw) : raw;
        }
        if (mag < 10000) {
            *p = '-';
            p = tn_put_short(p + neg, (uint32_t)mag);
            *p++ = term;
            continue;
        }
        uint64_t q = wide ? mag / 10000 : (uint64_t)((uint32_t)mag / 10000u);
        if (q != pq || neg != pneg) {
            pq = q;
            pneg = neg;
            if (wide) {
                /* A whole line; its prefix only if the next line shares it. */
                have = 0;
                pline = p;
                *p = '-';
                p = tn_put_u64(p + neg, mag);
                plen = (size_t)(p - pline) - 4;
                *p++ = term;
                continue;
            }
            /* q < 430000: its digits in one word, the sign below them. */
            unsigned nd = tn_ndigits(q);
            uint64_t w = tn_digits8((uint32_t)q) >> (8 * (8 - nd));
            if (neg)
                w = w << 8 | '-';
            tn_store8((char *)&w0, w);
            plen = nd + (size_t)neg;
        } else if (wide && !have) {
            memcpy(&w0, pline, 8);
            memcpy(&w1, pline + 8, 8);
            have = 1;
        }
        memcpy(p, &w0, 8);
        if (wide)
            memcpy(p + 8, &w1, 8);
        p += plen;
        uint32_t d = tn_digits4((uint32_t)(mag - q * 10000));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        d = __builtin_bswap32(d);
#endif
        memcpy(p, &d, 4);
        p[4] = term;
        p += 5;
    }
    return p;
}

size_t tn_format_lines(const void *keys, size_t n, const keymap_t *km, char term, char *dst)
{
    char *p;
    switch (km->type) {
    case KEY_U32: p = tn_format_type(keys, n, km->mask, KEY_U32, term, dst); break;
    case KEY_I32: p = tn_format_type(keys, n, km->mask, KEY_I32, term, dst); break;
    case KEY_I64: p = tn_format_type(keys, n, km->mask, KEY_I64, term, dst); break;
    default:      p = tn_format_type(keys, n, km->mask, KEY_U64, term, dst); break;
    }
    return (size_t)(p - dst);
}

size_t tn_format_keys(const void *keys, size_t n, const keymap_t *km, char *dst)
{
    return tn_format_lines(keys, n, km, '\n', dst);
}

/* The bytes tn_format_type writes for n keys of one type, without writing them. */
static inline __attribute__((always_inline)) size_t
tn_bytes_type(const void *keys, size_t n, uint64_t mask, key_type_t type)
{
    const int wide = type == KEY_I64 || type == KEY_U64;
    const int sgn = type == KEY_I32 || type == KEY_I64;
    size_t total = n;   /* the newlines */
    for (size_t i = 0; i < n; i++) {
        uint64_t raw = wide ? ((const uint64_t *)keys)[i] ^ mask
                            : (uint64_t)(((const uint32_t *)keys)[i] ^ (uint32_t)mask);
        uint64_t mag = raw;
        if (sgn && wide && (int64_t)raw < 0) {
            mag = 0 - raw;
            total++;
        } else if (sgn && !wide && (int32_t)(uint32_t)raw < 0) {
            mag = (uint64_t)(0u - (uint32_t)raw);
            total++;
        }
        total += tn_ndigits(mag);
    }
    return total;
}

size_t tn_format_bytes(const void *keys, size_t n, const keymap_t *km)
{
    switch (km->type) {
    case KEY_U32: return tn_bytes_type(keys, n, km->mask, KEY_U32);
    case KEY_I32: return tn_bytes_type(keys, n, km->mask, KEY_I32);
    case KEY_I64: return tn_bytes_type(keys, n, km->mask, KEY_I64);
    default:      return tn_bytes_type(keys, n, km->mask, KEY_U64);
    }
}

static int tn_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A line's length changes, going up through the raw values, only at 10^d (one digit
 * more), at -(10^d) + 1 (one digit fewer) and at 0 (the sign dropped). Mapped, each
 * such value v is a step's start, or (under -r, which reverses the order) the key
 * after map(v) is: both are taken, and where that makes more steps than there
 * are, neighbours of one length are joined. */
size_t tn_line_steps(const keymap_t *km, uint64_t *start, unsigned char *len)
{
    const uint64_t top = km->width == 8 ? UINT64_MAX : UINT32_MAX;
    uint64_t cand[TN_MAX_STEPS];
    size_t m = 0;
    cand[m++] = 0;
    uint64_t raw[1 + 2 * 19];
    size_t nraw = 0;
    raw[nraw++] = 0;
    uint64_t p = 10;
    for (int d = 1; d <= 19 && p <= top; d++, p *= 10) {
        raw[nraw++] = p;
        raw[nraw++] = (0 - p + 1) & top;
        if (d == 19)
            break;   /* 10^20 does not fit */
    }
    for (size_t i = 0; i < nraw; i++) {
        uint64_t k = key_map(km, raw[i]) & top;
        cand[m++] = k;
        if (k < top)
            cand[m++] = k + 1;
    }
    qsort(cand, m, sizeof *cand, tn_cmp_u64);
    size_t n = 0;
    char line[TN_MAX_LINE];
    for (size_t i = 0; i < m; i++) {
        if (n > 0 && cand[i] == start[n - 1])
            continue;
        unsigned char l = (unsigned char)(tn_format(key_map(km, cand[i]) & top, km->type, line) + 1);
        if (n > 0 && len[n - 1] == l)
            continue;
        start[n] = cand[i];
        len[n++] = l;
    }
    return n;
}
