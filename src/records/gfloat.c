/* SPDX-License-Identifier: MIT */
/* gfloat.c: floating-point keys (see gfloat.h): a g key's text read as strtod(3)
 * reads it, a decimal at a time where Clinger's fast path rounds it exactly, and a
 * float's sort key.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "records/gfloat.h"

/* sort's blanks: space, tab, and LF (which a line holds only under -z). */
static inline int gf_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* The sort key of a binary64 value: NaN 0, -0 as 0, the bits of others with all of
 * them flipped where negative and the sign bit where not. */
uint64_t gfloat_key64(double v)
{
    if (v != v)
        return 0;
    if (v == 0)
        v = 0.0;
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u >> 63 ? ~u : u | 1ull << 63;
}

uint32_t gfloat_key32(float v)
{
    if (v != v)
        return 0;
    if (v == 0)
        v = 0.0f;
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u >> 31 ? ~u : u | 1u << 31;
}

/* p[0..n) as a decimal number, [+-]digits[.digits][(e|E)[+-]digits], whose
 * significand (its digits without the point, at most 19 of them but for leading
 * zeros) is at most 2^53 and whose power of ten is within 22 of 0: then both are
 * doubles exactly and one multiplication or division rounds once, as strtod does
 * (Clinger's fast path). 1 and *v, or 0 for every other text (strtod decides). */
static int gfloat_fast(const char *p, size_t n, double *v)
{
    static const double pow10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
                                    1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
                                    1e20, 1e21, 1e22 };
    size_t i = 0;
    int neg = 0;
    if (i < n && (p[i] == '-' || p[i] == '+'))
        neg = p[i++] == '-';
    /* The digits, leading zeros too, into m: more than 19 of them may have wrapped,
     * and take the careful loop below. */
    uint64_t m = 0;
    size_t start = i, frac = 0;
    for (; i < n && (unsigned char)(p[i] - '0') < 10; i++)
        m = m * 10 + (uint64_t)(p[i] - '0');
    size_t ints = i - start;
    if (i < n && p[i] == '.') {
        size_t f = ++i;
        for (; i < n && (unsigned char)(p[i] - '0') < 10; i++)
            m = m * 10 + (uint64_t)(p[i] - '0');
        frac = i - f;
    }
    if (ints + frac == 0)
        return 0;
    if (ints + frac > 19) {   /* leading zeros count for nothing */
        m = 0;
        int digits = 0;
        for (size_t j = start; j < i; j++) {
            if (p[j] == '.' || (m == 0 && p[j] == '0'))
                continue;
            if (++digits > 19)
                return 0;
            m = m * 10 + (uint64_t)(p[j] - '0');
        }
    }
    long e10 = -(long)frac;
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        int eneg = 0;
        long x = 0;
        i++;
        if (i < n && (p[i] == '-' || p[i] == '+'))
            eneg = p[i++] == '-';
        if (i == n)
            return 0;
        for (; i < n && p[i] >= '0' && p[i] <= '9'; i++)
            if ((x = x * 10 + (p[i] - '0')) > 1000)
                return 0;
        e10 += eneg ? -x : x;
    }
    if (i != n || m > (1ull << 53) || e10 < -22 || e10 > 22)
        return 0;
    double d = (double)m;
    d = e10 < 0 ? d / pow10[-e10] : d * pow10[e10];
    *v = neg ? -d : d;
    return 1;
}

int gfloat_parse(const char *line, size_t b, size_t e, double *v)
{
    while (b < e && (gf_blank((unsigned char)line[b]) || line[b] == '\r'))
        b++;
    while (e > b && (gf_blank((unsigned char)line[e - 1]) || line[e - 1] == '\r'))
        e--;
    if (b == e)
        return 0;
    if (gfloat_fast(line + b, e - b, v))
        return 1;
    char small[128], *s = small;
    if (e - b >= sizeof small && !(s = malloc(e - b + 1)))
        return 0;
    memcpy(s, line + b, e - b);
    s[e - b] = '\0';
    char *end;
    *v = strtod(s, &end);
    int ok = end == s + (e - b) && (s[0] != '+' || (s[1] != '-' && s[1] != '+'));
    if (s != small)
        free(s);
    return ok;
}
