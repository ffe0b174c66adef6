/* textnum.c: fast text <-> integer conversion (see textnum.h).
 *
 * Parsing reads digits eight at a time where eight bytes remain (a SWAR test finds
 * the first non-digit, a SWAR multiply turns up to eight digits into a number) and
 * one at a time near the end of a block; the block scan takes unsigned tokens of up
 * to 15 digits in one step from two words. Formatting turns eight digits at a time
 * into one word of ASCII (SWAR divisions by 10^4, 100 and 10 in every lane at once),
 * after counting the digits so it can write forwards.
 */
#include <config.h>

#include <string.h>

#include "textnum.h"

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

/* ---- the token parser --------------------------------------------------------- */

static const uint64_t tn_pow10[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
    100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
    10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

/* High bit set in each byte of x that is not an ASCII digit. Exact for every byte
 * up to and including the first non-digit (carries only run upwards from bytes that
 * are not digits), which is all the caller uses. */
static inline uint64_t tn_nondigit_mask(uint64_t x)
{
    const uint64_t hi = 0xF0F0F0F0F0F0F0F0ull, k30 = 0x3030303030303030ull;
    uint64_t c = ((x & hi) ^ k30) | (((x + 0x0606060606060606ull) & hi) ^ k30);
    return (((c & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | c) & 0x8080808080808080ull;
}

/* The value of the len (1..8) digits at the low bytes of x (first digit lowest). */
static inline uint64_t tn_swar_value(uint64_t x, unsigned len)
{
    x = (x & 0x0F0F0F0F0F0F0F0Full) << (8 * (8 - len));
    x = (x * 2561) >> 8;
    x = ((x & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
    return ((x & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
}

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

/* ---- block scanning ------------------------------------------------------------ */

/* The scan loop for one key width; inlined twice so the store is a plain one. */
static inline void tn_scan_width(const char *buf, size_t len, const keymap_t *km,
                                 void *out, tn_scan_t *res, int width)
{
    const unsigned char *p = (const unsigned char *)buf, *end = p + len;
    const tn_limits_t lim = tn_limits(km->type);
    const uint64_t mask = km->mask;
    size_t nk = 0, nl = 0;
    res->status = TN_OK;
    for (;;) {
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
    }
    res->nkeys = nk;
    res->nlines = nl;
}

void tn_scan(const char *buf, size_t len, const keymap_t *km, void *out, tn_scan_t *res)
{
    if (km->width == 4)
        tn_scan_width(buf, len, km, out, res, 4);
    else
        tn_scan_width(buf, len, km, out, res, 8);
}

size_t tn_count_lines(const char *buf, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += (buf[i] == '\n');
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

/* ---- formatting ------------------------------------------------------------------ */

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

/* One loop per type, so that the conversion is inlined and nothing is decided per
 * key but the number's length. */
size_t tn_format_keys(const void *keys, size_t n, const keymap_t *km, char *dst)
{
    char *p = dst;
    const uint64_t mask = km->mask;
    const uint32_t *k4 = keys;
    const uint64_t *k8 = keys;
    switch (km->type) {
    case KEY_U32:
        for (size_t i = 0; i < n; i++) {
            p = tn_put_u32(p, k4[i] ^ (uint32_t)mask);
            *p++ = '\n';
        }
        break;
    case KEY_I32:
        for (size_t i = 0; i < n; i++) {
            p = tn_put(p, k4[i] ^ (uint32_t)mask, KEY_I32);
            *p++ = '\n';
        }
        break;
    case KEY_I64:
        for (size_t i = 0; i < n; i++) {
            p = tn_put(p, k8[i] ^ mask, KEY_I64);
            *p++ = '\n';
        }
        break;
    default:
        for (size_t i = 0; i < n; i++) {
            p = tn_put_u64(p, k8[i] ^ mask);
            *p++ = '\n';
        }
        break;
    }
    return (size_t)(p - dst);
}
