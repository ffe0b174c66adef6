/* SPDX-License-Identifier: MIT */
/* textscan.c: text -> integers: tokens parsed into mapped keys (see textnum.h).
 *
 * Parsing reads digits eight at a time where eight bytes remain (a SWAR test finds
 * the first non-digit, a SWAR multiply turns up to eight digits into a number) and
 * one at a time near the end of a block; the block scan takes unsigned tokens of up
 * to 15 digits in one step from two words. Where the text is one key a line (the
 * common case) and the processor has SSSE3, the scan classifies 32 bytes at once and
 * converts every line that ends in them independently, 16 digits in a few vector
 * multiply-adds; anything else in a window hands it back to the word scan.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "io/textnum.h"

/* The line scan: x86-64 with GCC or clang, taken at run time where the processor
 * has SSSE3. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TN_LINES 1
#include <immintrin.h>
#else
#define TN_LINES 0
#endif

int tn_lines_supported(void)
{
#if TN_LINES
    return __builtin_cpu_supports("ssse3");
#else
    return 0;
#endif
}

/* ---- character classes ---------------------------------------------------- */

static const unsigned char tn_space_tab[256] = {
    [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\v'] = 1, ['\f'] = 1, ['\r'] = 1,
};

int tn_is_space(unsigned char c)
{
    return tn_space_tab[c];
}

static inline int tn_is_digit(unsigned char c)
{
    return (unsigned)(c - '0') < 10;
}

/* ---- range limits per type -------------------------------------------------- */

typedef struct {
    uint64_t pos_max;    /* largest magnitude of a positive value */
    uint64_t neg_max;    /* largest magnitude of a negative value (0: unsigned) */
} tn_limits_t;

static tn_limits_t tn_limits(key_type_t type)
{
    switch (type) {
    case KEY_I32: return (tn_limits_t){ 0x7FFFFFFFull, 0x80000000ull };
    case KEY_U32: return (tn_limits_t){ 0xFFFFFFFFull, 0 };
    case KEY_I64: return (tn_limits_t){ 0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull };
    default:      return (tn_limits_t){ ~0ull, 0 };
    }
}

void tn_range(key_type_t type, uint64_t *pos_max, uint64_t *neg_max)
{
    tn_limits_t lim = tn_limits(type);
    *pos_max = lim.pos_max;
    *neg_max = lim.neg_max;
}

/* ---- the token parser --------------------------------------------------------- */

const uint64_t tn_pow10[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
    100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
    10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

/* The careful path for long tokens: one digit at a time, every step checked. */
static int tn_parse_slow(const unsigned char **pp, const unsigned char *end, uint64_t *mag)
{
    const unsigned char *p = *pp;
    uint64_t v = 0;
    int over = 0;
    while (p < end && tn_is_digit(*p)) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *p - '0', &v))
            over = 1;
        p++;
    }
    *pp = p;
    *mag = v;
    return over ? TN_RANGE : TN_OK;
}

/* Parse the token that starts at p (not white space). On return *pp points just past
 * the digits; the caller checks that the token ends there. Returns TN_OK with *mag
 * and *neg, TN_NOT_INT (no digits), or TN_RANGE (the magnitude passes 2^64; the
 * digits are still consumed). Up to 19 digits cannot overflow, so the fast path
 * checks nothing; longer tokens (leading zeros included) take the careful path. */
static inline int tn_parse_at(const unsigned char **pp, const unsigned char *end,
                              uint64_t *mag, int *neg)
{
    const unsigned char *p = *pp;
    *neg = 0;
    if (*p == '-') {
        *neg = 1;
        p++;
    } else if (*p == '+') {
        p++;
    }
    const unsigned char *digits = p;
    uint64_t v = 0;
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        uint64_t m = tn_nondigit_mask(x);
        unsigned len = m ? (unsigned)__builtin_ctzll(m) >> 3 : 8;
        if (len < 8) {
            if (len)
                v = v * tn_pow10[len] + tn_swar_value(x, len);
            p += len;
            goto done;
        }
        v = v * 100000000u + tn_swar_value(x, 8);
        p += 8;
        if (p - digits >= 16) {
            /* 16 digits so far: more may overflow; finish carefully. */
            p = digits;
            int st = tn_parse_slow(&p, end, &v);
            *pp = p;
            *mag = v;
            return st;
        }
    }
    while (p < end && tn_is_digit(*p)) {
        v = v * 10 + (uint64_t)(*p - '0');
        p++;
        if (p - digits > 19) {
            p = digits;
            int st = tn_parse_slow(&p, end, &v);
            *pp = p;
            *mag = v;
            return st;
        }
    }
done:
    *pp = p;
    *mag = v;
    if (p == digits)
        return TN_NOT_INT;
    return TN_OK;
}

/* Turn a parsed magnitude into raw two's complement bits, or TN_RANGE. */
static inline int tn_to_raw(uint64_t mag, int neg, tn_limits_t lim, uint64_t *raw)
{
    if (neg) {
        if (mag > lim.neg_max)
            return TN_RANGE;
        *raw = 0 - mag;
    } else {
        if (mag > lim.pos_max)
            return TN_RANGE;
        *raw = mag;
    }
    return TN_OK;
}

int tn_parse(const char *s, size_t len, key_type_t type, uint64_t *raw)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    if (len == 0)
        return TN_NOT_INT;
    uint64_t mag;
    int neg;
    int st = tn_parse_at(&p, end, &mag, &neg);
    if (p != end)
        return TN_NOT_INT;
    if (st != TN_OK)
        return st;
    uint64_t r;
    if (tn_to_raw(mag, neg, tn_limits(type), &r) != TN_OK)
        return TN_RANGE;
    *raw = (type == KEY_I32 || type == KEY_U32) ? (r & 0xFFFFFFFFull) : r;
    return TN_OK;
}

/* ---- block scanning: one key a line, 32 bytes at a time (x86 with SSSE3) ------- */

#if TN_LINES
/* Bytes of lenmask + k: 16 - k zeros, then k bytes of 0xFF (0 <= k <= 16). */
static const unsigned char tn_lenmask[32] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};

/* Masks of the bytes in the 16 at q that are digits, LF and '-'. */
#define TN_CLASSES(q, dig, lf, minus)                                                  \
    do {                                                                               \
        __m128i x_ = _mm_loadu_si128((const __m128i *)(q));                            \
        __m128i t_ = _mm_sub_epi8(x_, _mm_set1_epi8('0'));                             \
        dig = (uint32_t)_mm_movemask_epi8(                                             \
            _mm_cmpeq_epi8(_mm_min_epu8(t_, _mm_set1_epi8(9)), t_));                   \
        lf = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x_, _mm_set1_epi8('\n')));     \
        minus = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x_, _mm_set1_epi8('-')));   \
    } while (0)

/* The value of the dl (1..16) digits that end just before q (all digits). */
__attribute__((target("ssse3"))) static inline uint64_t tn_lines_value16(const unsigned char *q,
                                                                        unsigned dl)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(q - 16));
    v = _mm_and_si128(_mm_sub_epi8(v, _mm_set1_epi8('0')),
                      _mm_loadu_si128((const __m128i *)(tn_lenmask + dl)));
    v = _mm_maddubs_epi16(v, _mm_set1_epi16(0x010A));        /* pairs: 10a + b */
    v = _mm_madd_epi16(v, _mm_set1_epi32(0x00010064));       /* fours: 100ab + cd */
    v = _mm_packs_epi32(v, v);                               /* each <= 9999 */
    v = _mm_madd_epi16(v, _mm_set1_epi32(0x00012710));       /* eights: 10^4 abcd + efgh */
    uint64_t x = (uint64_t)_mm_cvtsi128_si64(v);
    return (x & 0xFFFFFFFFu) * 100000000u + (x >> 32);
}

/* Scan from *pp while whole 32-byte windows hold nothing but digits, LF and a '-'
 * opening a token: the tokens that end in a window (at an LF) are converted with no
 * dependence on one another, each from one 16-byte load. Stops, with *pp at the
 * start of a token, at the first window or token it does not take (other white
 * space, a long token, a value out of range, a lone '-'): the caller's careful path
 * decides about it. Keys go to out from index nk; returns the new count; adds the
 * LF bytes passed to *nl. base is the start of the block (loads reach 16 bytes back
 * from a token's end). */
__attribute__((target("ssse3"))) static size_t
tn_scan_lines(const unsigned char *base, const unsigned char **pp, const unsigned char *end,
              void *out, size_t nk, size_t *nl, tn_limits_t lim, uint64_t mask, int width)
{
    const unsigned char *p = *pp;
    size_t lines = 0;
    if (p - base < 16)
        return nk;
    while (end - p >= 32) {
        uint32_t d0, l0, m0, d1, l1, m1;
        TN_CLASSES(p, d0, l0, m0);
        TN_CLASSES(p + 16, d1, l1, m1);
        uint32_t dig = d0 | d1 << 16, lf = l0 | l1 << 16, minus = m0 | m1 << 16;
        uint32_t starts = lf << 1 | 1;
        if ((dig | lf | minus) != 0xFFFFFFFFu || lf == 0 || (minus & ~starts))
            break;
        unsigned s = 0;
        for (uint32_t rest = lf; rest; rest &= rest - 1) {
            unsigned e = (unsigned)__builtin_ctz(rest);
            unsigned neg = (minus >> s) & 1, dl = e - s - neg;
            if (e == s) {            /* a blank line */
                lines++;
                s = e + 1;
                continue;
            }
            if (dl == 0 || dl > 20)
                goto stop;
            const unsigned char *q = p + e;
            uint64_t mag = tn_lines_value16(q, dl > 16 ? 16 : dl);
            if (dl > 16) {
                /* The 1..4 digits before the last 16, first digit lowest. */
                uint32_t h;
                memcpy(&h, q - 20, 4);
                h = (h & 0x0F0F0F0Fu) & (0xFFFFFFFFu << (8 * (20 - dl)));
                h = (h * 10 + (h >> 8)) & 0x00FF00FFu;
                h = (h * 100 + (h >> 16)) & 0xFFFFu;
                uint64_t hi;
                if (__builtin_mul_overflow((uint64_t)h, 10000000000000000ull, &hi) ||
                    __builtin_add_overflow(hi, mag, &mag))
                    goto stop;
            }
            uint64_t raw;
            if (neg) {
                if (mag > lim.neg_max)
                    goto stop;
                raw = 0 - mag;
            } else {
                if (mag > lim.pos_max)
                    goto stop;
                raw = mag;
            }
            if (width == 4)
                ((uint32_t *)out)[nk++] = (uint32_t)(raw ^ mask);
            else
                ((uint64_t *)out)[nk++] = raw ^ mask;
            lines++;
            s = e + 1;
        }
        p += s;
        continue;
    stop:
        p += s;
        break;
    }
    *pp = p;
    *nl += lines;
    return nk;
}
#endif

/* ---- block scanning ------------------------------------------------------------ */

/* The scan loop for one key width; inlined twice so the store is a plain one. */
static inline void tn_scan_width(const char *buf, size_t len, const keymap_t *km,
                                 void *out, tn_scan_t *res, int width, int lines)
{
    const unsigned char *p = (const unsigned char *)buf, *end = p + len;
    const tn_limits_t lim = tn_limits(km->type);
    const uint64_t mask = km->mask;
    size_t nk = 0, nl = 0;
#if TN_LINES
    /* Where the line scan last gave up: it is tried again only past this. */
    const unsigned char *lines_retry = p;
#else
    (void)lines;
#endif
    res->status = TN_OK;
    for (;;) {
#if TN_LINES
        if (lines && p >= lines_retry) {
            const unsigned char *at = p;
            nk = tn_scan_lines((const unsigned char *)buf, &p, end, out, nk, &nl, lim, mask,
                               width);
            if (p == at)
                lines_retry = p + 32;   /* a window it cannot take: the word path's */
        }
#endif
        /* The fast path: a token of 1 to 15 digits, no sign, with its terminator in
         * the 16 bytes from p. */
        while (end - p >= 16 && tn_is_digit(*p)) {
            uint64_t x0, x1, mag;
            memcpy(&x0, p, 8);
            memcpy(&x1, p + 8, 8);
            uint64_t m0 = tn_nondigit_mask(x0);
            unsigned len;
            if (m0) {
                len = (unsigned)__builtin_ctzll(m0) >> 3;
                mag = tn_swar_value(x0, len);
            } else {
                uint64_t m1 = tn_nondigit_mask(x1);
                if (!m1)
                    break;   /* 16 digits or more: the careful path */
                unsigned l1 = (unsigned)__builtin_ctzll(m1) >> 3;
                /* x1's l1 digits moved to the top bytes (none when l1 is 0). */
                uint64_t top = (x1 << 1) << (8 * (8 - l1) - 1);
                mag = tn_swar_value(x0, 8) * tn_pow10[l1] + tn_swar_value(top, 8);
                len = 8 + l1;
            }
            unsigned char term = p[len];
            if (!tn_space_tab[term] || mag > lim.pos_max)
                break;   /* not a number, or out of range: the careful path says which */
            if (width == 4)
                ((uint32_t *)out)[nk++] = (uint32_t)(mag ^ mask);
            else
                ((uint64_t *)out)[nk++] = mag ^ mask;
            nl += (term == '\n');
            p += len + 1;
#if TN_LINES
            if (lines && p >= lines_retry)
                goto next;   /* past what the line scan refused: it may take over */
#endif
        }
        const unsigned char *sp = p;
        while (p < end && tn_space_tab[*p]) {
            nl += (*p == '\n');
            p++;
        }
        if (p == end)
            break;
        if (p != sp && end - p >= 16 && tn_is_digit(*p))
            continue;   /* back to the fast path (which has not refused this token) */
        const unsigned char *tok = p;
        uint64_t mag, raw = 0;
        int neg;
        int st = tn_parse_at(&p, end, &mag, &neg);
        if (p < end && !tn_space_tab[*p])
            st = TN_NOT_INT;
        else if (st == TN_OK)
            st = tn_to_raw(mag, neg, lim, &raw);
        if (st != TN_OK) {
            while (p < end && !tn_space_tab[*p])
                p++;
            res->status = st;
            res->err_off = (size_t)(tok - (const unsigned char *)buf);
            res->err_len = (size_t)(p - tok);
            break;
        }
        if (width == 4)
            ((uint32_t *)out)[nk++] = (uint32_t)(raw ^ mask);
        else
            ((uint64_t *)out)[nk++] = raw ^ mask;
#if TN_LINES
    next:;
#endif
    }
    res->nkeys = nk;
    res->nlines = nl;
}

void tn_scan_with(const char *buf, size_t len, const keymap_t *km, void *out, tn_scan_t *res,
                  int lines)
{
    lines = lines && tn_lines_supported();
    if (km->width == 4)
        tn_scan_width(buf, len, km, out, res, 4, lines);
    else
        tn_scan_width(buf, len, km, out, res, 8, lines);
}

void tn_scan(const char *buf, size_t len, const keymap_t *km, void *out, tn_scan_t *res)
{
    tn_scan_with(buf, len, km, out, res, 1);
}

size_t tn_count_lines(const char *buf, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += (buf[i] == '\n');
    return n;
}

/* The white space among 16 bytes (x86-64 with SSE2): space, and \t..\r (9..13). */
#if TN_LINES
static inline uint32_t tn_space_mask16(const unsigned char *q)
{
    __m128i x = _mm_loadu_si128((const __m128i *)q);
    __m128i t = _mm_sub_epi8(x, _mm_set1_epi8('\t'));
    __m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(4)), t);
    __m128i sp = _mm_cmpeq_epi8(x, _mm_set1_epi8(' '));
    return (uint32_t)_mm_movemask_epi8(_mm_or_si128(ctl, sp));
}
#endif

/* tn_count_tokens over whole 64-byte stretches, as bit masks: a token starts at
 * each byte that is not white space after one that is. *in: 1 where the byte before
 * is inside a token; returns the bytes taken (a multiple of 64). */
#if TN_LINES
static inline __attribute__((always_inline)) size_t
tn_count_tokens64(const unsigned char *p, size_t len, size_t *n, uint64_t *in)
{
    size_t i = 0;
    uint64_t carry = *in;
    for (; len - i >= 64; i += 64) {
        uint64_t sp = (uint64_t)tn_space_mask16(p + i) |
                      (uint64_t)tn_space_mask16(p + i + 16) << 16 |
                      (uint64_t)tn_space_mask16(p + i + 32) << 32 |
                      (uint64_t)tn_space_mask16(p + i + 48) << 48;
        uint64_t tok = ~sp;
        *n += (size_t)__builtin_popcountll(tok & ~(tok << 1 | carry));
        carry = tok >> 63;
    }
    *in = carry;
    return i;
}

/* The same with the processor's popcnt (else a call into the compiler's library). */
__attribute__((target("popcnt"))) static size_t
tn_count_tokens64_popcnt(const unsigned char *p, size_t len, size_t *n, uint64_t *in)
{
    return tn_count_tokens64(p, len, n, in);
}
#endif

size_t tn_count_tokens(const char *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)buf;
    size_t n = 0, i = 0;
    uint64_t in = 0;
#if TN_LINES
    if (__builtin_cpu_supports("popcnt"))
        i = tn_count_tokens64_popcnt(p, len, &n, &in);
    else
        i = tn_count_tokens64(p, len, &n, &in);
#endif
    for (; i < len; i++) {
        uint64_t tok = !tn_space_tab[p[i]];
        n += tok & ~in;
        in = tok;
    }
    return n;
}

size_t tn_token_offset(const char *buf, size_t len, size_t idx)
{
    size_t i = 0;
    for (;;) {
        while (i < len && tn_space_tab[(unsigned char)buf[i]])
            i++;
        if (i == len || idx == 0)
            return i;
        while (i < len && !tn_space_tab[(unsigned char)buf[i]])
            i++;
        idx--;
    }
}
