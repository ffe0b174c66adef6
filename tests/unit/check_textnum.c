/* SPDX-License-Identifier: MIT */
/* check_textnum.c: unit tests of io/textnum.h (textscan.c, textfmt.c): tn_parse at every boundary, tn_format
 * and tn_format_keys against snprintf, tn_scan on blocks (white space, counts, the
 * first bad token), tn_count_lines, tn_count_tokens, tn_token_offset, tn_is_space.
 */
#include <config.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "core/keys.h"
#include "io/textnum.h"
#include "check_suites.h"

static const char spaces[6] = { ' ', '\t', '\r', '\n', '\v', '\f' };

/* ------------------------------------------------------------------------------ */
/* tn_parse                                                                        */

struct parse_case {
    const char *s;
    key_type_t type;
    int status;
    uint64_t raw;    /* with TN_OK; compared in the type's width */
};

static const struct parse_case parse_cases[] = {
    /* i32 */
    { "-2147483648", KEY_I32, TN_OK, UINT64_C(0x80000000) },
    { "2147483647", KEY_I32, TN_OK, UINT64_C(0x7fffffff) },
    { "-2147483649", KEY_I32, TN_RANGE, 0 },
    { "2147483648", KEY_I32, TN_RANGE, 0 },
    { "+2147483647", KEY_I32, TN_OK, UINT64_C(0x7fffffff) },
    { "-1", KEY_I32, TN_OK, UINT64_C(0xffffffff) },
    { "4294967295", KEY_I32, TN_RANGE, 0 },
    { "4294967296", KEY_I32, TN_RANGE, 0 },
    { "-4294967296", KEY_I32, TN_RANGE, 0 },
    { "3000000000", KEY_I32, TN_RANGE, 0 },
    /* u32 */
    { "4294967295", KEY_U32, TN_OK, UINT64_C(0xffffffff) },
    { "4294967296", KEY_U32, TN_RANGE, 0 },
    { "2147483648", KEY_U32, TN_OK, UINT64_C(0x80000000) },
    { "-1", KEY_U32, TN_RANGE, 0 },
    { "-2147483648", KEY_U32, TN_RANGE, 0 },
    { "-4294967295", KEY_U32, TN_RANGE, 0 },
    { "18446744073709551616", KEY_U32, TN_RANGE, 0 },
    /* i64 */
    { "-9223372036854775808", KEY_I64, TN_OK, UINT64_C(0x8000000000000000) },
    { "9223372036854775807", KEY_I64, TN_OK, UINT64_C(0x7fffffffffffffff) },
    { "-9223372036854775809", KEY_I64, TN_RANGE, 0 },
    { "9223372036854775808", KEY_I64, TN_RANGE, 0 },
    { "18446744073709551615", KEY_I64, TN_RANGE, 0 },
    { "18446744073709551616", KEY_I64, TN_RANGE, 0 },
    { "-18446744073709551616", KEY_I64, TN_RANGE, 0 },
    { "-1", KEY_I64, TN_OK, UINT64_C(0xffffffffffffffff) },
    { "-2147483649", KEY_I64, TN_OK, UINT64_C(0xffffffff7fffffff) },
    { "4294967296", KEY_I64, TN_OK, UINT64_C(0x100000000) },
    /* u64 */
    { "18446744073709551615", KEY_U64, TN_OK, UINT64_C(0xffffffffffffffff) },
    { "18446744073709551616", KEY_U64, TN_RANGE, 0 },
    { "18446744073709551620", KEY_U64, TN_RANGE, 0 },
    { "27670116110564327424", KEY_U64, TN_RANGE, 0 },   /* 1.5 * 2^64: wraps to 2^63 */
    { "36893488147419103232", KEY_U64, TN_RANGE, 0 },   /* 2^65: wraps to 0 */
    { "99999999999999999999", KEY_U64, TN_RANGE, 0 },
    { "999999999999999999999999999999", KEY_U64, TN_RANGE, 0 },
    { "-1", KEY_U64, TN_RANGE, 0 },
    { "-18446744073709551615", KEY_U64, TN_RANGE, 0 },
    { "9223372036854775808", KEY_U64, TN_OK, UINT64_C(0x8000000000000000) },
    /* signs, zeros */
    { "+5", KEY_I64, TN_OK, 5 },
    { "+5", KEY_U32, TN_OK, 5 },
    { "-5", KEY_I32, TN_OK, UINT64_C(0xfffffffb) },
    { "0", KEY_U32, TN_OK, 0 },
    { "-0", KEY_I32, TN_OK, 0 },
    { "-0", KEY_U32, TN_OK, 0 },
    { "-0", KEY_I64, TN_OK, 0 },
    { "-0", KEY_U64, TN_OK, 0 },
    { "+0", KEY_U64, TN_OK, 0 },
    { "-000", KEY_U32, TN_OK, 0 },
    { "00000000000000000000000000000000000000000000000007", KEY_I32, TN_OK, 7 },
    { "00000000000000000000000000000000000000000000000007", KEY_U64, TN_OK, 7 },
    { "-00000000000000000000000000000000000000000000000007", KEY_I64, TN_OK,
      UINT64_C(0xfffffffffffffff9) },
    { "+00000000000000000000000000000000000000000000000000", KEY_U32, TN_OK, 0 },
    { "0000000000000000000000000004294967295", KEY_U32, TN_OK, UINT64_C(0xffffffff) },
    { "0000000000000000000000000004294967296", KEY_U32, TN_RANGE, 0 },
    { "-000000000000000000009223372036854775808", KEY_I64, TN_OK, UINT64_C(0x8000000000000000) },
    { "000000000000000000018446744073709551615", KEY_U64, TN_OK, UINT64_C(0xffffffffffffffff) },
    { "000000000000000000018446744073709551616", KEY_U64, TN_RANGE, 0 },
    /* not integers */
    { "", KEY_I64, TN_NOT_INT, 0 },
    { "+", KEY_I64, TN_NOT_INT, 0 },
    { "-", KEY_I64, TN_NOT_INT, 0 },
    { "-", KEY_U32, TN_NOT_INT, 0 },
    { "1a", KEY_I64, TN_NOT_INT, 0 },
    { "a1", KEY_I64, TN_NOT_INT, 0 },
    { "12abc", KEY_I32, TN_NOT_INT, 0 },
    { "--1", KEY_I64, TN_NOT_INT, 0 },
    { "++1", KEY_I64, TN_NOT_INT, 0 },
    { "+-1", KEY_I64, TN_NOT_INT, 0 },
    { "-+1", KEY_I64, TN_NOT_INT, 0 },
    { "1-", KEY_I64, TN_NOT_INT, 0 },
    { "1+1", KEY_I64, TN_NOT_INT, 0 },
    { "0x10", KEY_I64, TN_NOT_INT, 0 },
    { "0x10", KEY_U64, TN_NOT_INT, 0 },
    { "1.5", KEY_I64, TN_NOT_INT, 0 },
    { "1.0", KEY_I64, TN_NOT_INT, 0 },
    { "1e3", KEY_I64, TN_NOT_INT, 0 },
    { "1,000", KEY_I64, TN_NOT_INT, 0 },
    { "/", KEY_I64, TN_NOT_INT, 0 },          /* the bytes next to '0'..'9' */
    { ":", KEY_I64, TN_NOT_INT, 0 },
    { "12:", KEY_U32, TN_NOT_INT, 0 },
    { "1/2", KEY_U32, TN_NOT_INT, 0 },
    { "\xd9\xa3", KEY_I64, TN_NOT_INT, 0 },    /* a non-ASCII digit */
};

START_TEST(test_textnum_parse_cases)
{
    const struct parse_case *c = &parse_cases[_i];
    uint64_t raw = 0x5555555555555555;
    int st = tn_parse(c->s, strlen(c->s), c->type, &raw);
    ck_assert_msg(st == c->status, "'%s' as %s: status %d, expected %d", c->s,
                  ck_type_name(c->type), st, c->status);
    if (c->status == TN_OK)
        ck_assert_msg(ck_raw(c->type, raw) == c->raw, "'%s' as %s: %#" PRIx64 ", expected %#" PRIx64,
                      c->s, ck_type_name(c->type), ck_raw(c->type, raw), c->raw);
}
END_TEST

/* unsigned 128-bit -> decimal, by hand (independent of tn_format) */
static void u128_dec(unsigned __int128 v, char *buf)
{
    char tmp[64];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
}

/* Around every power of ten, both signs, every type: 10^k - 1, 10^k, 10^k + 1 are
 * accepted exactly while they fit, and TN_RANGE from the first that does not on;
 * k runs to 25, past every type. */
START_TEST(test_textnum_parse_powers_of_ten)
{
    key_type_t type = (key_type_t)(_i);
    __int128 lo, hi;
    switch (type) {
    case KEY_I32: lo = INT32_MIN; hi = INT32_MAX; break;
    case KEY_U32: lo = 0; hi = UINT32_MAX; break;
    case KEY_I64: lo = INT64_MIN; hi = INT64_MAX; break;
    default:      lo = 0; hi = (__int128)UINT64_MAX; break;
    }
    unsigned __int128 p = 1;
    int checked_range = 0;
    for (int k = 0; k <= 25; k++, p *= 10) {
        for (int d = -1; d <= 1; d++) {
            unsigned __int128 mag = p + (unsigned __int128)(__int128)d;   /* p-1, p, p+1 */
            for (int neg = 0; neg < 2; neg++) {
                char s[80];
                s[0] = '-';
                u128_dec(mag, s + neg);
                __int128 v = neg ? -(__int128)mag : (__int128)mag;
                int fits = v >= lo && v <= hi;
                uint64_t raw = 0;
                int st = tn_parse(s, strlen(s), type, &raw);
                if (fits) {
                    ck_assert_msg(st == TN_OK, "'%s' as %s: status %d", s, ck_type_name(_i), st);
                    ck_assert_msg(ck_raw(type, raw) == ck_raw(type, (uint64_t)v),
                                  "'%s' as %s: %#" PRIx64, s, ck_type_name(_i), raw);
                } else {
                    ck_assert_msg(st == TN_RANGE, "'%s' as %s: status %d, expected TN_RANGE",
                                  s, ck_type_name(_i), st);
                    checked_range = 1;
                }
            }
        }
    }
    ck_assert(checked_range);
}
END_TEST

/* The digits of 10^k - 1, 10^k and 10^k + 1 for k up to 21, each with 0 to 2 leading
 * zeros, into toks; returns how many (198). */
static int power_tokens(char toks[][40])
{
    int nt = 0;
    unsigned __int128 p = 1;
    for (int k = 0; k <= 21; k++, p *= 10)
        for (int d = -1; d <= 1; d++)
            for (int z = 0; z <= 2; z++) {
                unsigned __int128 mag = p + (unsigned __int128)(__int128)d;
                memset(toks[nt], '0', (size_t)z);
                u128_dec(mag, toks[nt] + z);
                nt++;
            }
    return nt;
}

/* The block scan against tn_parse, token by token, where the scan's fast path runs
 * (16 bytes or more left in the block): 10^k - 1, 10^k, 10^k + 1 for k up to 21 with
 * 0 to 2 leading zeros and either sign, each type's limits and their neighbours, each
 * followed by every kind of white space or by a letter, then 20 more tokens. */
START_TEST(test_textnum_scan_fast_path_boundaries)
{
    key_type_t type = (key_type_t)(_i);
    keymap_t km;
    key_map_init(&km, type, 0);
    static const char *limits[] = { "2147483647", "2147483648", "2147483646", "4294967295",
                                    "4294967296", "4294967294", "9223372036854775807",
                                    "9223372036854775808", "18446744073709551615",
                                    "18446744073709551616", "999999999999999", "1000000000000000",
                                    "9999999999999999", "99999999", "100000000" };
    char toks[256][40];
    int nt = power_tokens(toks);
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        strcpy(toks[nt++], limits[i]);
    for (int t = 0; t < nt; t++) {
        for (int sign = 0; sign < 3; sign++) {
            for (int e = 0; e < 7; e++) {
                char buf[128];
                int len = snprintf(buf, sizeof buf, "%s%s", sign == 0 ? "" : sign == 1 ? "-" : "+",
                                   toks[t]);
                size_t toklen = (size_t)len;
                buf[len++] = e < 6 ? spaces[e] : 'x';
                for (int r = 0; r < 20; r++)
                    buf[len++] = '7', buf[len++] = '\n';
                uint64_t raw = 0;
                int want = e < 6 ? tn_parse(buf, toklen, type, &raw) : TN_NOT_INT;
                uint64_t out[32];
                tn_scan_t res;
                tn_scan(buf, (size_t)len, &km, out, &res);
                ck_assert_msg(res.status == want, "'%s' + %d as %s: status %d, expected %d",
                              toks[t], e, ck_type_name(_i), res.status, want);
                if (want != TN_OK) {
                    ck_assert_uint_eq(res.nkeys, 0);
                    ck_assert_uint_eq(res.err_off, 0);
                    continue;
                }
                ck_assert_uint_eq(res.nkeys, 21);
                ck_assert_uint_eq(res.nlines, 20 + (e == 3));
                uint32_t got4;
                memcpy(&got4, out, 4);
                uint64_t got = ck_type_width(type) == 4 ? got4 : out[0];
                ck_assert_msg(ck_raw(type, got ^ km.mask) == ck_raw(type, raw),
                              "'%s' as %s: %#" PRIx64 ", expected %#" PRIx64, buf, ck_type_name(_i),
                              got ^ km.mask, raw);
            }
        }
    }
}
END_TEST

/* Only s[0..len) is read: the bytes after the token do not count. */
START_TEST(test_textnum_parse_respects_len)
{
    uint64_t raw = 0;
    ck_assert_int_eq(tn_parse("1234", 2, KEY_I64, &raw), TN_OK);
    ck_assert_uint_eq(raw, 12);
    ck_assert_int_eq(tn_parse("-7x", 2, KEY_I32, &raw), TN_OK);
    ck_assert_uint_eq(ck_raw(KEY_I32, raw), 0xfffffff9u);
    ck_assert_int_eq(tn_parse("42949672950", 10, KEY_U32, &raw), TN_OK);
    ck_assert_uint_eq(ck_raw(KEY_U32, raw), 4294967295u);
    ck_assert_int_eq(tn_parse("5abc", 1, KEY_U64, &raw), TN_OK);
    ck_assert_uint_eq(raw, 5);
    ck_assert_int_eq(tn_parse("-5", 1, KEY_I64, &raw), TN_NOT_INT);
}
END_TEST

/* Random values of every type, formatted by snprintf, parse back exactly. */
START_TEST(test_textnum_parse_random)
{
    uint64_t seed = 0x7061727365 + (uint64_t)_i;
    key_type_t type = (key_type_t)(_i);
    for (int k = 0; k < 200000; k++) {
        uint64_t v = ck_raw(type, ck_rng_varied(&seed));
        char s[32];
        int len = ck_ref_format(v, type, s, sizeof s);
        uint64_t raw = ~v;
        int st = tn_parse(s, (size_t)len, type, &raw);
        if (st != TN_OK || ck_raw(type, raw) != v)
            ck_abort_msg("'%s' as %s: status %d, raw %#" PRIx64, s, ck_type_name(_i), st, raw);
    }
}
END_TEST

/* ------------------------------------------------------------------------------ */
/* tn_format                                                                       */

static void check_format(uint64_t v, key_type_t type)
{
    char want[32], got[64];
    int wlen = ck_ref_format(v, type, want, sizeof want);
    memset(got, '#', sizeof got);
    size_t len = tn_format(v, type, got);
    if (len != (size_t)wlen || memcmp(got, want, len) != 0)
        ck_abort_msg("%s %#" PRIx64 ": got '%.*s', expected '%s'", ck_type_name(type), v,
                     (int)(len < 64 ? len : 64), got, want);
    for (size_t i = TN_MAX_LINE; i < sizeof got; i++)
        if (got[i] != '#')
            ck_abort_msg("%s %#" PRIx64 ": wrote past TN_MAX_LINE bytes", ck_type_name(type), v);
}

START_TEST(test_textnum_format_boundaries)
{
    static const uint64_t v32[] = { 0, 1, 9, 10, 11, 99, 100, 0x7fffffff, 0x80000000,
                                    0x80000001, 0xfffffffe, 0xffffffff, 999999999,
                                    1000000000, 4294967286u };
    static const uint64_t v64[] = { 0, 1, 9, 10, UINT64_C(0x7fffffffffffffff),
                                    UINT64_C(0x8000000000000000), UINT64_C(0x8000000000000001),
                                    UINT64_C(0xffffffffffffffff), UINT64_C(0xfffffffffffffffe),
                                    UINT64_C(9999999999999999999), UINT64_C(10000000000000000000),
                                    UINT64_C(999999999999999999), UINT64_C(1000000000000000000),
                                    0xffffffff, UINT64_C(0x100000000) };
    for (size_t i = 0; i < sizeof v32 / sizeof v32[0]; i++) {
        check_format(v32[i], KEY_I32);
        check_format(v32[i], KEY_U32);
    }
    for (size_t i = 0; i < sizeof v64 / sizeof v64[0]; i++) {
        check_format(v64[i], KEY_I64);
        check_format(v64[i], KEY_U64);
    }
    /* every power of ten and its neighbours */
    uint64_t p = 1;
    for (int k = 0; k < 20; k++, p *= 10) {
        for (int d = -1; d <= 1; d++) {
            uint64_t v = p + (uint64_t)(int64_t)d;
            check_format(v, KEY_U64);
            check_format(v, KEY_I64);
            check_format((uint64_t)0 - v, KEY_I64);
            check_format(ck_raw(KEY_U32, v), KEY_U32);
            check_format(ck_raw(KEY_I32, v), KEY_I32);
            check_format(ck_raw(KEY_I32, (uint64_t)0 - v), KEY_I32);
        }
    }
}
END_TEST

START_TEST(test_textnum_format_random)
{
    uint64_t seed = 0x666f726d6174 + (uint64_t)_i;
    key_type_t type = (key_type_t)(_i);
    for (int k = 0; k < 200000; k++)
        check_format(ck_raw(type, ck_rng_varied(&seed)), type);
}
END_TEST

/* ------------------------------------------------------------------------------ */
/* tn_format_keys                                                                  */

/* Keys in order, as the output formats them, where neighbours share all but their
 * last digits: walks from a start by steps of 0 to 3, or up to 30000, across
 * multiples of 10^4, across zero (signed types) and up to each type's largest and
 * from its smallest, against snprintf. _i: type. */
START_TEST(test_textnum_format_keys_sorted)
{
    key_type_t type = (key_type_t)(_i);
    int width = ck_type_width(type);
    uint64_t seed = 0x736f72746564 + (uint64_t)_i;
    keymap_t km;
    key_map_init(&km, type, 0);
    uint64_t lo, hi;   /* the type's least and greatest values, as raw bits */
    switch (type) {
    case KEY_I32: lo = UINT64_C(0x80000000); hi = UINT64_C(0x7fffffff); break;
    case KEY_U32: lo = 0; hi = UINT32_MAX; break;
    case KEY_I64: lo = UINT64_C(1) << 63; hi = INT64_MAX; break;
    default:      lo = 0; hi = UINT64_MAX; break;
    }
    for (int rep = 0; rep < 40; rep++) {
        size_t n = 1 + (size_t)ck_rng_below(&seed, 4000);
        uint64_t step = rep % 3 == 0 ? 30000 : 4;
        /* The walk's mapped keys (ascending): from a random start, or ending at the
         * greatest value, or starting at the least, or, signed, around zero. */
        uint64_t span = n * step, start;
        uint64_t klo = ck_ref_key(type, 0, lo), khi = ck_ref_key(type, 0, hi);
        switch (rep % 4) {
        case 0: start = klo + ck_rng_below(&seed, khi - klo - span); break;
        case 1: start = khi - span; break;
        case 2: start = klo; break;
        default: start = ck_ref_key(type, 0, ck_raw(type, 0 - (uint64_t)(span / 2))); break;
        }
        if (rep % 4 == 3 && (type == KEY_U32 || type == KEY_U64))
            start = klo;
        void *keys = malloc(n * 8);
        char *want = malloc(n * TN_MAX_LINE + 1);
        char *got = malloc(n * TN_MAX_LINE + 64);
        ck_assert(keys && want && got);
        size_t wlen = 0;
        uint64_t k = start;
        for (size_t i = 0; i < n; i++) {
            if (width == 4)
                ((uint32_t *)keys)[i] = (uint32_t)k;
            else
                ((uint64_t *)keys)[i] = k;
            wlen += (size_t)ck_ref_format(ck_raw(type, k ^ km.mask), type, want + wlen, 32);
            want[wlen++] = '\n';
            uint64_t d = ck_rng_below(&seed, step);
            k = khi - k < d ? khi : k + d;
        }
        memset(got, '#', n * TN_MAX_LINE + 64);
        size_t glen = tn_format_keys(keys, n, &km, got);
        ck_assert_uint_eq(glen, wlen);
        if (memcmp(got, want, wlen) != 0) {
            size_t d = 0;
            while (got[d] == want[d])
                d++;
            ck_abort_msg("%s walk %d: text differs at byte %zu: '%.24s', expected '%.24s'",
                         ck_type_name(_i), rep, d, got + (d > 8 ? d - 8 : 0),
                         want + (d > 8 ? d - 8 : 0));
        }
        ck_assert_msg(got[n * TN_MAX_LINE] == '#', "wrote past n * TN_MAX_LINE bytes");
        free(keys);
        free(want);
        free(got);
    }
}
END_TEST

/* _i: type * 2 + reverse */
START_TEST(test_textnum_format_keys_random)
{
    key_type_t type = (key_type_t)(_i / 2);
    int rev = _i % 2;
    int width = ck_type_width(type);
    uint64_t seed = 0x6b6579732d66 + (uint64_t)_i;
    keymap_t km;
    key_map_init(&km, type, rev);

    for (int rep = 0; rep < 20; rep++) {
        size_t n = rep == 0 ? 0 : rep == 1 ? 1 : (size_t)ck_rng_below(&seed, 3000);
        void *keys = malloc((n + 1) * 8);
        char *want = malloc((n + 1) * TN_MAX_LINE + 1);
        char *got = malloc((n + 1) * TN_MAX_LINE + 64);
        ck_assert(keys && want && got);
        size_t wlen = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t raw = ck_raw(type, ck_rng_varied(&seed));
            uint64_t key = ck_ref_key(type, rev, raw);
            if (width == 4)
                ((uint32_t *)keys)[i] = (uint32_t)key;
            else
                ((uint64_t *)keys)[i] = key;
            wlen += (size_t)ck_ref_format(raw, type, want + wlen, 32);
            want[wlen++] = '\n';
        }
        memset(got, '#', (n + 1) * TN_MAX_LINE + 64);
        size_t glen = tn_format_keys(keys, n, &km, got);
        ck_assert_uint_eq(glen, wlen);
        ck_assert_msg(memcmp(got, want, wlen) == 0, "%s rev %d n %zu: text differs",
                      ck_type_name(_i / 2), rev, n);
        ck_assert_uint_eq(tn_format_bytes(keys, n, &km), wlen);   /* counted alike */
        ck_assert_msg(got[n * TN_MAX_LINE] == '#', "wrote past n * TN_MAX_LINE bytes");
        free(keys);
        free(want);
        free(got);
    }
}
END_TEST

/* The raw value of a sort key: ck_ref_key undone. */
static uint64_t ref_raw_of_key(key_type_t type, int reverse, uint64_t key)
{
    uint64_t max = ck_type_width(type) == 4 ? UINT32_MAX : UINT64_MAX;
    uint64_t rank = reverse ? max - key : key;
    switch (type) {
    case KEY_I32: return (uint32_t)(rank + UINT32_C(0x80000000));
    case KEY_I64: return rank + UINT64_C(0x8000000000000000);
    default:      return rank;
    }
}

/* Line lengths as steps over the keys (tn_line_steps) against snprintf, at keys
 * chosen without the steps: the values around every power of ten, of both signs,
 * and around 0 (where the length changes), the extremes and random keys; and at
 * the steps' own starts and their neighbours. _i: type * 2 + reverse */
START_TEST(test_textnum_line_steps)
{
    key_type_t type = (key_type_t)(_i / 2);
    int rev = _i % 2;
    uint64_t top = ck_type_width(type) == 4 ? UINT32_MAX : UINT64_MAX;
    uint64_t seed = 0x73746570 + (uint64_t)_i;
    keymap_t km;
    key_map_init(&km, type, rev);
    uint64_t start[TN_MAX_STEPS];
    unsigned char len[TN_MAX_STEPS];
    size_t m = tn_line_steps(&km, start, len);
    ck_assert(m >= 2 && m <= TN_MAX_STEPS);
    ck_assert_uint_eq(start[0], 0);
    for (size_t i = 1; i < m; i++) {
        ck_assert(start[i] > start[i - 1] && start[i] <= top);
        ck_assert(len[i] != len[i - 1]);
    }

    enum { NPROBE = 20000 };
    uint64_t *probe = malloc(sizeof *probe * NPROBE);
    ck_assert(probe);
    size_t np = 0;
    uint64_t p = 1;
    for (int d = 0; d <= 19; d++, p *= 10) {
        const uint64_t around[6] = { p - 1, p, p + 1, 0 - p - 1, 0 - p, 0 - p + 1 };
        for (int a = 0; a < 6; a++)
            probe[np++] = ck_ref_key(type, rev, ck_raw(type, around[a]));
        if (d == 19)
            break;
    }
    probe[np++] = 0;
    probe[np++] = top;
    for (size_t i = 0; i < m; i++) {
        probe[np++] = start[i];
        probe[np++] = start[i] - (start[i] > 0);
        probe[np++] = start[i] + (start[i] < top);
    }
    while (np < NPROBE)
        probe[np++] = ck_ref_key(type, rev, ck_raw(type, ck_rng_varied(&seed)));
    for (size_t i = 0; i < np; i++) {
        uint64_t k = probe[i] & top;
        char buf[32];
        size_t want = (size_t)ck_ref_format(ref_raw_of_key(type, rev, k), type, buf, sizeof buf) + 1;
        size_t s = m - 1;
        while (start[s] > k)
            s--;
        ck_assert_msg(len[s] == want, "%s rev %d key %" PRIu64 " (%s): step %zu says %u bytes",
                      ck_type_name(_i / 2), rev, k, buf, s, (unsigned)len[s]);
    }
    free(probe);
}
END_TEST

/* ------------------------------------------------------------------------------ */
/* tn_scan                                                                         */

/* A generated block: the text, the expected raw values, each token's offset and the
 * line (0-based count of LF before it). */
typedef struct {
    char *buf;
    size_t len;
    uint64_t *raw;
    size_t *off;
    size_t *line;
    size_t ntok;
    size_t nlf;
} block_t;

/* Append a run of 1..4 random white-space bytes (sometimes a blank line). */
static void add_space(block_t *b, uint64_t *seed)
{
    if (ck_rng_below(seed, 10) == 0) {
        b->buf[b->len++] = '\n';
        b->buf[b->len++] = '\n';
        b->nlf += 2;
        return;
    }
    size_t n = 1 + (size_t)ck_rng_below(seed, 4);
    for (size_t i = 0; i < n; i++) {
        char c = spaces[ck_rng_below(seed, 6)];
        b->buf[b->len++] = c;
        if (c == '\n')
            b->nlf++;
    }
}

/* Append one random valid token of type: sometimes '+', leading zeros, or "-0". */
static void add_token(block_t *b, uint64_t *seed, key_type_t type)
{
    uint64_t v = ck_raw(type, ck_rng_varied(seed));
    char s[64];
    int len;
    int style = (int)ck_rng_below(seed, 10);
    if (style == 0) {
        v = 0;
        len = snprintf(s, sizeof s, "-0");
    } else {
        char digits[32];
        ck_ref_format(v, type, digits, sizeof digits);
        const char *sign = "";
        const char *mag = digits;
        if (digits[0] == '-') {
            sign = "-";
            mag++;
        } else if (style == 1) {
            sign = "+";
        }
        int zeros = style == 2 ? (int)ck_rng_below(seed, 25) : 0;
        len = snprintf(s, sizeof s, "%s%.*s%s", sign, zeros, "0000000000000000000000000", mag);
    }
    b->raw[b->ntok] = v;
    b->off[b->ntok] = b->len;
    b->line[b->ntok] = b->nlf;
    b->ntok++;
    memcpy(b->buf + b->len, s, (size_t)len);
    b->len += (size_t)len;
}

/* ntok random tokens separated by random white space; leading white space sometimes;
 * trailing white space unless trail is 0. */
static void make_block(block_t *b, size_t ntok, uint64_t *seed, key_type_t type, int trail)
{
    b->buf = malloc(ntok * 60 + 16);
    b->raw = malloc((ntok + 1) * sizeof *b->raw);
    b->off = malloc((ntok + 1) * sizeof *b->off);
    b->line = malloc((ntok + 1) * sizeof *b->line);
    ck_assert(b->buf && b->raw && b->off && b->line);
    b->len = 0;
    b->ntok = 0;
    b->nlf = 0;
    if (ck_rng_below(seed, 2))
        add_space(b, seed);
    for (size_t i = 0; i < ntok; i++) {
        if (i > 0)
            add_space(b, seed);
        add_token(b, seed, type);
    }
    if (trail)
        add_space(b, seed);
}

static void free_block(block_t *b)
{
    free(b->buf);
    free(b->raw);
    free(b->off);
    free(b->line);
}

/* Compare out[0..n) (mapped keys of km's width) with the expected raw values. */
static void check_keys_out(const void *out, const uint64_t *raw, size_t n, key_type_t type, int rev)
{
    int width = ck_type_width(type);
    for (size_t i = 0; i < n; i++) {
        uint64_t got = width == 4 ? ((const uint32_t *)out)[i] : ((const uint64_t *)out)[i];
        uint64_t want = ck_ref_key(type, rev, raw[i]);
        if (got != want)
            ck_abort_msg("%s rev %d: key %zu is %#" PRIx64 ", expected %#" PRIx64 " (raw %#" PRIx64 ")",
                         ck_type_name(type), rev, i, got, want, raw[i]);
    }
}

/* _i: type * 2 + reverse. Random blocks of every kind of white space. */
START_TEST(test_textnum_scan_mixed_space)
{
    key_type_t type = (key_type_t)(_i / 2);
    int rev = _i % 2;
    uint64_t seed = 0x7363616e + (uint64_t)_i;
    keymap_t km;
    key_map_init(&km, type, rev);
    for (int rep = 0; rep < 40; rep++) {
        size_t ntok = rep < 3 ? (size_t)rep : (size_t)ck_rng_below(&seed, 5000);
        block_t b;
        make_block(&b, ntok, &seed, type, (int)(rep % 2));
        void *out = malloc(tn_max_keys(b.len) * 8);
        ck_assert_ptr_nonnull(out);
        tn_scan_t res;
        memset(&res, 0xa5, sizeof res);
        tn_scan(b.buf, b.len, &km, out, &res);
        ck_assert_int_eq(res.status, TN_OK);
        ck_assert_uint_eq(res.nkeys, b.ntok);
        ck_assert_uint_eq(res.nlines, b.nlf);
        check_keys_out(out, b.raw, b.ntok, type, rev);
        free(out);
        free_block(&b);
    }
}
END_TEST

/* The line scan (one token a line, 32 bytes at a time) at the same boundaries: each
 * token, with either sign and 0 to 2 leading zeros, on a line of its own among lines
 * of "7", at each of the 32 places in a window, against tn_parse; and the scan a
 * word at a time, which must say the same (status, keys, lines, the bad token). */
START_TEST(test_textnum_scan_lines_boundaries)
{
    key_type_t type = (key_type_t)(_i);
    keymap_t km;
    key_map_init(&km, type, 0);
    char toks[256][40];
    int nt = power_tokens(toks);
    strcpy(toks[nt++], "");   /* a blank line */
    for (int t = 0; t < nt; t++) {
        for (int sign = 0; sign < 3; sign++) {
            for (int at = 0; at < 32; at++) {
                char buf[256];
                size_t len = 0;
                /* 16 lines of "7", then `at` bytes of "7\n" (a lone "\n" to even it),
                 * so the token starts at each place in a 32-byte window. */
                for (int r = 0; r < 16 + at / 2; r++)
                    buf[len++] = '7', buf[len++] = '\n';
                if (at % 2)
                    buf[len++] = '\n';
                size_t tok = len;
                len += (size_t)snprintf(buf + len, 64, "%s%s",
                                        sign == 0 ? "" : sign == 1 ? "-" : "+", toks[t]);
                size_t toklen = len - tok;
                buf[len++] = '\n';
                for (int r = 0; r < 24; r++)
                    buf[len++] = '7', buf[len++] = '\n';
                size_t before = 16 + (size_t)at / 2;
                size_t lines_before = before + (size_t)(at % 2);
                uint64_t raw = 0;
                int blank = toklen == 0;
                int want = blank ? TN_OK : tn_parse(buf + tok, toklen, type, &raw);
                for (int lines = 0; lines < 2; lines++) {
                    uint64_t out[128];
                    tn_scan_t res;
                    memset(&res, 0xa5, sizeof res);
                    tn_scan_with(buf, len, &km, out, &res, lines);
                    ck_assert_msg(res.status == want, "'%s' at %d as %s (lines %d): status %d, expected %d",
                                  buf + tok, at, ck_type_name(_i), lines, res.status, want);
                    if (want != TN_OK) {
                        ck_assert_uint_eq(res.nkeys, before);
                        ck_assert_uint_eq(res.nlines, lines_before);
                        ck_assert_uint_eq(res.err_off, tok);
                        ck_assert_uint_eq(res.err_len, toklen);
                        continue;
                    }
                    ck_assert_uint_eq(res.nkeys, before + 24 + !blank);
                    ck_assert_uint_eq(res.nlines, lines_before + 25);
                    for (size_t i = 0; i < res.nkeys; i++) {
                        uint32_t got4;
                        memcpy(&got4, (char *)out + i * (size_t)ck_type_width(type), 4);
                        uint64_t got = ck_type_width(type) == 4 ? got4 : out[i];
                        uint64_t exp = (!blank && i == before) ? raw : 7;
                        ck_expect(ck_raw(type, got ^ km.mask) == ck_raw(type, exp),
                                  "'%s' at %d as %s (lines %d): key %zu is %#" PRIx64
                                  ", expected %#" PRIx64, buf + tok, at, ck_type_name(_i), lines,
                                  i, got ^ km.mask, exp);
                    }
                }
            }
        }
    }
}
END_TEST

/* Long blocks of one token a line, as files of keys are: every length of token,
 * signs where the type has them, leading zeros, a blank line now and then; the keys
 * and lines counted with the line scan and without it, against the generated values;
 * then with one bad token put in, the same first error both ways. _i: type. */
START_TEST(test_textnum_scan_lines_blocks)
{
    static const char *bad[] = { "12abc", "-", "+", "--3", "1-2", "99999999999999999999999",
                                 "4294967296", "-2147483649", "18446744073709551616",
                                 "000000000000000000000000000000000000000000001x" };
    key_type_t type = (key_type_t)(_i);
    uint64_t seed = 0x6c696e6573 + (uint64_t)_i;
    keymap_t km;
    key_map_init(&km, type, 0);
    for (int rep = 0; rep < 60; rep++) {
        size_t ntok = 1 + (size_t)ck_rng_below(&seed, 3000);
        size_t cap = ntok * 60 + 128;
        char *buf = malloc(cap);
        uint64_t *raw = malloc(ntok * sizeof *raw);
        size_t *off = malloc(ntok * sizeof *off), *line = malloc(ntok * sizeof *line);
        ck_assert(buf && raw && off && line);
        size_t len = (size_t)ck_rng_below(&seed, 3), nlf = 0;   /* a first LF or two */
        memset(buf, '\n', len);
        nlf = len;
        for (size_t i = 0; i < ntok; i++) {
            if (ck_rng_below(&seed, 100) == 0)
                buf[len++] = '\n', nlf++;
            uint64_t v = ck_raw(type, ck_rng_varied(&seed));
            char digits[32];
            ck_ref_format(v, type, digits, sizeof digits);
            int zeros = ck_rng_below(&seed, 20) == 0 ? (int)ck_rng_below(&seed, 8) : 0;
            const char *mag = digits[0] == '-' ? digits + 1 : digits;
            raw[i] = v;
            off[i] = len;
            line[i] = nlf;
            len += (size_t)snprintf(buf + len, 64, "%s%.*s%s", digits[0] == '-' ? "-" : "", zeros,
                                    "00000000", mag);
            buf[len++] = '\n';
            nlf++;
        }
        if (rep % 2)
            len--, nlf--;   /* no LF at the end */
        void *out = malloc(tn_max_keys(len + 64) * 8);
        void *out2 = malloc(tn_max_keys(len + 64) * 8);
        ck_assert(out && out2);
        for (int lines = 0; lines < 2; lines++) {
            tn_scan_t res;
            tn_scan_with(buf, len, &km, out, &res, lines);
            ck_assert_int_eq(res.status, TN_OK);
            ck_assert_uint_eq(res.nkeys, ntok);
            ck_assert_uint_eq(res.nlines, nlf);
            check_keys_out(out, raw, ntok, type, 0);
        }
        /* One bad token in place of token `at`. */
        size_t at = (size_t)ck_rng_below(&seed, ntok);
        const char *t = bad[ck_rng_below(&seed, sizeof bad / sizeof bad[0])];
        size_t tlen = strlen(t), end = off[at];
        while (end < len && buf[end] != '\n')
            end++;
        char *text = malloc(len + 64);
        ck_assert_ptr_nonnull(text);
        memcpy(text, buf, off[at]);
        memcpy(text + off[at], t, tlen);
        memcpy(text + off[at] + tlen, buf + end, len - end);
        size_t tl = off[at] + tlen + (len - end);
        uint64_t tr;
        int want = tn_parse(t, tlen, type, &tr);
        tn_scan_t r0, r1;
        tn_scan_with(text, tl, &km, out, &r0, 0);
        tn_scan_with(text, tl, &km, out2, &r1, 1);
        ck_assert_int_eq(r1.status, r0.status);
        ck_assert_uint_eq(r1.nkeys, r0.nkeys);
        ck_assert_uint_eq(r1.nlines, r0.nlines);
        if (want != TN_OK) {
            ck_assert_int_eq(r1.status, want);
            ck_assert_uint_eq(r1.nkeys, at);
            ck_assert_uint_eq(r1.nlines, line[at]);
            ck_assert_uint_eq(r1.err_off, off[at]);
            ck_assert_uint_eq(r1.err_len, tlen);
            ck_assert_uint_eq(r0.err_off, off[at]);
        } else {
            ck_assert_int_eq(r1.status, TN_OK);
            ck_assert_uint_eq(r1.nkeys, ntok);
        }
        check_keys_out(out2, raw, at, type, 0);
        ck_assert(memcmp(out, out2, r0.nkeys * (size_t)ck_type_width(type)) == 0);
        free(text);
        free(out);
        free(out2);
        free(buf);
        free(raw);
        free(off);
        free(line);
    }
}
END_TEST

START_TEST(test_textnum_scan_small_blocks)
{
    keymap_t km;
    tn_scan_t res;
    int64_t out[16];
    key_map_init(&km, KEY_I64, 0);

    tn_scan("", 0, &km, out, &res);                         /* empty */
    ck_assert_int_eq(res.status, TN_OK);
    ck_assert_uint_eq(res.nkeys, 0);
    ck_assert_uint_eq(res.nlines, 0);

    tn_scan("\n\n \t\r\n\v\f", 8, &km, out, &res);          /* white space only */
    ck_assert_int_eq(res.status, TN_OK);
    ck_assert_uint_eq(res.nkeys, 0);
    ck_assert_uint_eq(res.nlines, 3);

    tn_scan("1 2 3", 5, &km, out, &res);                    /* last token at the end */
    ck_assert_int_eq(res.status, TN_OK);
    ck_assert_uint_eq(res.nkeys, 3);
    ck_assert_uint_eq(res.nlines, 0);
    ck_assert_uint_eq((uint64_t)out[2], ck_ref_key(KEY_I64, 0, 3));

    tn_scan("-42", 3, &km, out, &res);                      /* a single token, no LF */
    ck_assert_int_eq(res.status, TN_OK);
    ck_assert_uint_eq(res.nkeys, 1);
    ck_assert_uint_eq((uint64_t)out[0], ck_ref_key(KEY_I64, 0, (uint64_t)-42));

    tn_scan("7\r\n8\r\n", 6, &km, out, &res);               /* CRLF */
    ck_assert_int_eq(res.status, TN_OK);
    ck_assert_uint_eq(res.nkeys, 2);
    ck_assert_uint_eq(res.nlines, 2);
    ck_assert_uint_eq((uint64_t)out[0], ck_ref_key(KEY_I64, 0, 7));
    ck_assert_uint_eq((uint64_t)out[1], ck_ref_key(KEY_I64, 0, 8));

    /* the block ends where len says, even if more digits follow in memory */
    tn_scan("12 34", 4, &km, out, &res);
    ck_assert_int_eq(res.status, TN_OK);
    ck_assert_uint_eq(res.nkeys, 2);
    ck_assert_uint_eq((uint64_t)out[1], ck_ref_key(KEY_I64, 0, 3));
}
END_TEST

struct bad_case {
    const char *text;
    key_type_t type;
    int status;
    size_t nkeys;
    size_t nlines;
    size_t err_off;
    size_t err_len;
    uint64_t first;   /* raw value of the first key, when nkeys > 0 */
};

static const struct bad_case bad_cases[] = {
    { "1 2\n3\n12abc 4\n", KEY_I64, TN_NOT_INT, 3, 2, 6, 5, 1 },
    { "1\n3000000000 2", KEY_I32, TN_RANGE, 1, 1, 2, 10, 1 },
    { "1 2 x9", KEY_I64, TN_NOT_INT, 2, 0, 4, 2, 1 },
    { "-1", KEY_U32, TN_RANGE, 0, 0, 0, 2, 0 },
    { "\n\n 5 +\t6", KEY_I64, TN_NOT_INT, 1, 2, 5, 1, 5 },
    { "7\r\n8\r\n0x10\r\n", KEY_U64, TN_NOT_INT, 2, 2, 6, 4, 7 },
    { "18446744073709551616", KEY_U64, TN_RANGE, 0, 0, 0, 20, 0 },
    { "5 --1\v6", KEY_I32, TN_NOT_INT, 1, 0, 2, 3, 5 },
    { "5\f1.5\n", KEY_I64, TN_NOT_INT, 1, 0, 2, 3, 5 },
    { "9\n\n\n-", KEY_I64, TN_NOT_INT, 1, 3, 4, 1, 9 },
    { "  4294967295 4294967296\n", KEY_U32, TN_RANGE, 1, 0, 13, 10, 4294967295u },
    { "-9223372036854775809", KEY_I64, TN_RANGE, 0, 0, 0, 20, 0 },
    { "1 2 3 abc", KEY_U32, TN_NOT_INT, 3, 0, 6, 3, 1 },
    { "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n1O\n", KEY_I32, TN_NOT_INT, 10, 10, 20, 2, 0 },
    { "99999999999999999999999999 1", KEY_I64, TN_RANGE, 0, 0, 0, 26, 0 },
};

START_TEST(test_textnum_scan_bad_token)
{
    const struct bad_case *c = &bad_cases[_i];
    keymap_t km;
    uint64_t out[64];
    tn_scan_t res;
    key_map_init(&km, c->type, 0);
    memset(&res, 0xa5, sizeof res);
    tn_scan(c->text, strlen(c->text), &km, out, &res);
    ck_assert_int_eq(res.status, c->status);
    ck_assert_uint_eq(res.nkeys, c->nkeys);
    ck_assert_uint_eq(res.nlines, c->nlines);
    ck_assert_uint_eq(res.err_off, c->err_off);
    ck_assert_uint_eq(res.err_len, c->err_len);
    if (c->nkeys > 0) {
        uint32_t k32;
        memcpy(&k32, out, sizeof k32);
        uint64_t got = ck_type_width(c->type) == 4 ? k32 : out[0];
        ck_assert_uint_eq(got, ck_ref_key(c->type, 0, c->first));
    }
}
END_TEST

/* A bad token at a random place in a random block: nkeys is exactly the number of
 * good tokens before it, and those keys are right; offset, length and lines too. */
START_TEST(test_textnum_scan_random_error)
{
    static const char *bad[] = { "12abc", "x", "+", "-", "--3", "0x1f", "1.5", "99999999999999999999999" };
    key_type_t type = (key_type_t)(_i);
    uint64_t seed = 0x6572726f72 + (uint64_t)_i;
    keymap_t km;
    key_map_init(&km, type, 0);
    for (int rep = 0; rep < 100; rep++) {
        size_t ntok = 1 + (size_t)ck_rng_below(&seed, 2000);
        block_t b;
        make_block(&b, ntok, &seed, type, 1);
        size_t at = (size_t)ck_rng_below(&seed, ntok);   /* replace token `at` */
        const char *t = bad[ck_rng_below(&seed, sizeof bad / sizeof bad[0])];
        size_t tlen = strlen(t);
        size_t end = b.off[at];
        while (end < b.len && !strchr(" \t\r\n\v\f", b.buf[end]))
            end++;
        char *text = malloc(b.len + 64);
        ck_assert_ptr_nonnull(text);
        memcpy(text, b.buf, b.off[at]);
        memcpy(text + b.off[at], t, tlen);
        memcpy(text + b.off[at] + tlen, b.buf + end, b.len - end);
        size_t len = b.off[at] + tlen + (b.len - end);

        void *out = malloc(tn_max_keys(len) * 8);
        ck_assert_ptr_nonnull(out);
        tn_scan_t res;
        tn_scan(text, len, &km, out, &res);
        int want_status = t[0] == '9' ? TN_RANGE : TN_NOT_INT;
        ck_assert_msg(res.status == want_status, "token '%s': status %d", t, res.status);
        ck_assert_uint_eq(res.nkeys, at);
        ck_assert_uint_eq(res.nlines, b.line[at]);
        ck_assert_uint_eq(res.err_off, b.off[at]);
        ck_assert_uint_eq(res.err_len, tlen);
        check_keys_out(out, b.raw, at, type, 0);
        free(out);
        free(text);
        free_block(&b);
    }
}
END_TEST

/* ------------------------------------------------------------------------------ */
/* tn_count_lines, tn_token_offset, tn_is_space                                   */

START_TEST(test_textnum_count_lines)
{
    uint64_t seed = 0x6c696e6573;
    static char buf[70000];
    for (int rep = 0; rep < 300; rep++) {
        size_t len = rep < 20 ? (size_t)rep : (size_t)ck_rng_below(&seed, 65536);
        size_t start = (size_t)ck_rng_below(&seed, 16);   /* any alignment */
        int density = 1 + (int)ck_rng_below(&seed, 64);
        size_t want = 0;
        for (size_t i = 0; i < len; i++) {
            char c = (char)ck_rng_next(&seed);
            if (c == '\n')
                c = 'x';
            if (ck_rng_below(&seed, (uint64_t)density) == 0)
                c = '\n';
            buf[start + i] = c;
            want += c == '\n';
        }
        /* LF bytes just outside the range must not count */
        if (start > 0)
            buf[start - 1] = '\n';
        buf[start + len] = '\n';
        ck_assert_uint_eq(tn_count_lines(buf + start, len), want);
    }
}
END_TEST

/* tn_count_tokens against a byte-at-a-time count: random bytes, white space of
 * every kind among them at random densities, any alignment and length (the 64-byte
 * masks and the tail), tokens just outside the range that must not count; and on
 * generated blocks of valid tokens, exactly tn_scan's key count. */
START_TEST(test_textnum_count_tokens)
{
    uint64_t seed = 0x746f6b73;
    static char buf[70000];
    for (int rep = 0; rep < 400; rep++) {
        size_t len = rep < 140 ? (size_t)rep : (size_t)ck_rng_below(&seed, 65536);
        size_t start = (size_t)ck_rng_below(&seed, 64);
        int density = 1 + (int)ck_rng_below(&seed, 24);
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)ck_rng_next(&seed);
            if (ck_rng_below(&seed, (uint64_t)density) == 0)
                c = (unsigned char)spaces[ck_rng_below(&seed, 6)];
            buf[start + i] = (char)c;
        }
        size_t want = 0;
        int in = 0;
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)buf[start + i];
            int tok = !(c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r');
            want += tok && !in;
            in = tok;
        }
        if (start > 0)
            buf[start - 1] = 'x';   /* a token before the range goes on into it */
        buf[start + len] = 'y';
        ck_assert_msg(tn_count_tokens(buf + start, len) == want,
                      "rep %d (len %zu at %zu): %zu tokens, expected %zu", rep, len, start,
                      tn_count_tokens(buf + start, len), want);
    }
    keymap_t km;
    key_map_init(&km, KEY_I64, 0);
    for (int rep = 0; rep < 60; rep++) {
        block_t b;
        make_block(&b, (size_t)ck_rng_below(&seed, 3000), &seed, KEY_I64, (int)(rep % 2));
        void *out = malloc(tn_max_keys(b.len) * 8);
        ck_assert_ptr_nonnull(out);
        tn_scan_t res;
        tn_scan(b.buf, b.len, &km, out, &res);
        ck_assert_int_eq(res.status, TN_OK);
        ck_assert_uint_eq(tn_count_tokens(b.buf, b.len), res.nkeys);
        ck_assert_uint_eq(res.nkeys, b.ntok);
        free(out);
        free_block(&b);
    }
}
END_TEST

START_TEST(test_textnum_token_offset)
{
    const char *s = "  12 \n 3\t\t456 ";
    size_t len = strlen(s);
    ck_assert_uint_eq(tn_token_offset(s, len, 0), 2);
    ck_assert_uint_eq(tn_token_offset(s, len, 1), 7);
    ck_assert_uint_eq(tn_token_offset(s, len, 2), 10);
    ck_assert_uint_eq(tn_token_offset(s, len, 3), len);
    ck_assert_uint_eq(tn_token_offset(s, len, 100), len);
    ck_assert_uint_eq(tn_token_offset("7", 1, 0), 0);
    ck_assert_uint_eq(tn_token_offset("7", 1, 1), 1);
    ck_assert_uint_eq(tn_token_offset("", 0, 0), 0);
    ck_assert_uint_eq(tn_token_offset("\n\n", 2, 0), 2);
    ck_assert_uint_eq(tn_token_offset("ab cd", 5, 1), 3);   /* any token, good or bad */

    uint64_t seed = 0x746f6b656e;
    for (int rep = 0; rep < 50; rep++) {
        block_t b;
        make_block(&b, (size_t)ck_rng_below(&seed, 500), &seed, KEY_I64, (int)(rep % 2));
        for (size_t i = 0; i < b.ntok; i++)
            if (tn_token_offset(b.buf, b.len, i) != b.off[i])
                ck_abort_msg("rep %d token %zu: offset %zu, expected %zu", rep, i,
                             tn_token_offset(b.buf, b.len, i), b.off[i]);
        ck_assert_uint_eq(tn_token_offset(b.buf, b.len, b.ntok), b.len);
        free_block(&b);
    }
}
END_TEST

START_TEST(test_textnum_is_space)
{
    for (int c = 0; c < 256; c++) {
        int want = c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
        ck_assert_msg(!!tn_is_space((unsigned char)c) == want, "byte %#x: %d", c,
                      tn_is_space((unsigned char)c));
    }
}
END_TEST

Suite *make_textnum_suite(void)
{
    Suite *s = suite_create("textnum");
    TCase *tc = ck_tcase("parse");
    tcase_add_loop_test(tc, test_textnum_parse_cases, 0,
                        (int)(sizeof parse_cases / sizeof parse_cases[0]));
    tcase_add_loop_test(tc, test_textnum_parse_powers_of_ten, 0, 4);
    tcase_add_test(tc, test_textnum_parse_respects_len);
    tcase_add_loop_test(tc, test_textnum_parse_random, 0, 4);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = ck_tcase("format");
    tcase_add_test(tc, test_textnum_format_boundaries);
    tcase_add_loop_test(tc, test_textnum_format_random, 0, 4);
    tcase_add_loop_test(tc, test_textnum_format_keys_random, 0, 8);
    tcase_add_loop_test(tc, test_textnum_format_keys_sorted, 0, 4);
    tcase_add_loop_test(tc, test_textnum_line_steps, 0, 8);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = ck_tcase("scan");
    tcase_add_loop_test(tc, test_textnum_scan_mixed_space, 0, 8);
    tcase_add_loop_test(tc, test_textnum_scan_fast_path_boundaries, 0, 4);
    tcase_add_loop_test(tc, test_textnum_scan_lines_boundaries, 0, 4);
    tcase_add_loop_test(tc, test_textnum_scan_lines_blocks, 0, 4);
    tcase_add_test(tc, test_textnum_scan_small_blocks);
    tcase_add_loop_test(tc, test_textnum_scan_bad_token, 0,
                        (int)(sizeof bad_cases / sizeof bad_cases[0]));
    tcase_add_loop_test(tc, test_textnum_scan_random_error, 0, 4);
    tcase_add_test(tc, test_textnum_count_lines);
    tcase_add_test(tc, test_textnum_count_tokens);
    tcase_add_test(tc, test_textnum_token_offset);
    tcase_add_test(tc, test_textnum_is_space);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
