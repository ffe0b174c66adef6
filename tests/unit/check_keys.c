/* SPDX-License-Identifier: MIT */
/* check_keys.c: unit tests of core/keys.[ch]: the order-preserving mapping of every
 * key type to unsigned keys (both directions), type names and range errors' hints,
 * key_unique, and binary keys decoded and encoded (key_decode, key_encode) against
 * hand-built bytes.
 */
#include <config.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "core/keys.h"
#include "check_suites.h"


/* ------------------------------------------------------------------------------ */
/* The mapping                                                                     */

START_TEST(test_keys_map_init_fields)
{
    for (int t = 0; t < 4; t++) {
        for (int rev = 0; rev < 2; rev++) {
            keymap_t km;
            memset(&km, 0xa5, sizeof km);
            key_map_init(&km, (key_type_t)(t), rev);
            ck_assert_int_eq(km.type, (key_type_t)(t));
            ck_assert_int_eq(km.width, ((key_type_t)(t) == KEY_I32 || (key_type_t)(t) == KEY_U32) ? 4 : 8);
            ck_assert_int_eq(km.is_signed, ((key_type_t)(t) == KEY_I32 || (key_type_t)(t) == KEY_I64) ? 1 : 0);
        }
    }
}
END_TEST

/* Hand-written boundaries: raw value (low width bytes) and its ascending sort key. */
struct boundary {
    key_type_t type;
    uint64_t raw;
    uint64_t key;
};

static const struct boundary boundaries[] = {
    { KEY_I32, UINT64_C(0x80000000), 0 },                        /* INT32_MIN */
    { KEY_I32, UINT64_C(0x80000001), 1 },                        /* INT32_MIN + 1 */
    { KEY_I32, UINT64_C(0xfffffffe), UINT64_C(0x7ffffffe) },     /* -2 */
    { KEY_I32, UINT64_C(0xffffffff), UINT64_C(0x7fffffff) },     /* -1 */
    { KEY_I32, 0, UINT64_C(0x80000000) },                        /* 0 */
    { KEY_I32, 1, UINT64_C(0x80000001) },                        /* 1 */
    { KEY_I32, UINT64_C(0x7ffffffe), UINT64_C(0xfffffffe) },     /* INT32_MAX - 1 */
    { KEY_I32, UINT64_C(0x7fffffff), UINT64_C(0xffffffff) },     /* INT32_MAX */
    { KEY_U32, 0, 0 },
    { KEY_U32, 1, 1 },
    { KEY_U32, UINT64_C(0x7fffffff), UINT64_C(0x7fffffff) },
    { KEY_U32, UINT64_C(0x80000000), UINT64_C(0x80000000) },
    { KEY_U32, UINT64_C(0xffffffff), UINT64_C(0xffffffff) },     /* UINT32_MAX */
    { KEY_I64, UINT64_C(0x8000000000000000), 0 },                /* INT64_MIN */
    { KEY_I64, UINT64_C(0x8000000000000001), 1 },
    { KEY_I64, UINT64_C(0xffffffffffffffff), UINT64_C(0x7fffffffffffffff) }, /* -1 */
    { KEY_I64, UINT64_C(0xffffffff80000000), UINT64_C(0x7fffffff80000000) }, /* INT32_MIN */
    { KEY_I64, 0, UINT64_C(0x8000000000000000) },
    { KEY_I64, 1, UINT64_C(0x8000000000000001) },
    { KEY_I64, UINT64_C(0x00000000ffffffff), UINT64_C(0x80000000ffffffff) },
    { KEY_I64, UINT64_C(0x7fffffffffffffff), UINT64_C(0xffffffffffffffff) }, /* INT64_MAX */
    { KEY_U64, 0, 0 },
    { KEY_U64, 1, 1 },
    { KEY_U64, UINT64_C(0xffffffff), UINT64_C(0xffffffff) },
    { KEY_U64, UINT64_C(0x100000000), UINT64_C(0x100000000) },
    { KEY_U64, UINT64_C(0x8000000000000000), UINT64_C(0x8000000000000000) },
    { KEY_U64, UINT64_C(0xffffffffffffffff), UINT64_C(0xffffffffffffffff) }, /* UINT64_MAX */
};

START_TEST(test_keys_map_boundaries)
{
    const struct boundary *b = &boundaries[_i];
    keymap_t km;
    uint64_t max = (b->type == KEY_I32 || b->type == KEY_U32) ? UINT32_MAX : UINT64_MAX;

    key_map_init(&km, b->type, 0);
    ck_assert_uint_eq(key_map(&km, b->raw), b->key);
    ck_assert_uint_eq(key_map(&km, b->key), b->raw);

    /* descending: the rank from the other end */
    key_map_init(&km, b->type, 1);
    ck_assert_uint_eq(key_map(&km, b->raw), max - b->key);
    ck_assert_uint_eq(key_map(&km, max - b->key), b->raw);
}
END_TEST

/* Random raw values of every type, both directions: the key is the oracle's, fits the
 * width, and mapping it again gives the raw value back. */
START_TEST(test_keys_map_round_trip)
{
    uint64_t seed = 0x6b657973 + (uint64_t)_i;
    for (int t = 0; t < 4; t++) {
        for (int rev = 0; rev < 2; rev++) {
            keymap_t km;
            key_map_init(&km, (key_type_t)(t), rev);
            for (int k = 0; k < 100000; k++) {
                uint64_t raw = ck_raw((key_type_t)(t), ck_rng_varied(&seed));
                uint64_t key = key_map(&km, raw);
                if (key != ck_ref_key((key_type_t)(t), rev, raw))
                    ck_abort_msg("type %d rev %d raw %#llx: key %#llx, expected %#llx", t, rev,
                                 (unsigned long long)raw, (unsigned long long)key,
                                 (unsigned long long)ck_ref_key((key_type_t)(t), rev, raw));
                if (km.width == 4 && key > UINT32_MAX)
                    ck_abort_msg("type %d rev %d raw %#llx: key %#llx wider than 32 bits", t, rev,
                                 (unsigned long long)raw, (unsigned long long)key);
                if (key_map(&km, key) != raw)
                    ck_abort_msg("type %d rev %d raw %#llx: no round trip", t, rev,
                                 (unsigned long long)raw);
            }
        }
    }
}
END_TEST

/* a < b in the type (signed or unsigned compare), from the raw bits. */
static int type_less(key_type_t type, uint64_t a, uint64_t b)
{
    switch (type) {
    case KEY_I32: return (int32_t)(uint32_t)a < (int32_t)(uint32_t)b;
    case KEY_U32: return (uint32_t)a < (uint32_t)b;
    case KEY_I64: return (int64_t)a < (int64_t)b;
    default:      return a < b;
    }
}

/* For random pairs a < b of each type: key(a) < key(b) ascending, > with reverse,
 * including neighbours (b = a + 1) and pairs across zero. */
START_TEST(test_keys_map_order)
{
    uint64_t seed = 0x6f72646572;
    for (int t = 0; t < 4; t++) {
        key_type_t type = (key_type_t)(t);
        keymap_t up, down;
        key_map_init(&up, type, 0);
        key_map_init(&down, type, 1);
        for (int k = 0; k < 200000; k++) {
            uint64_t a = ck_raw(type, ck_rng_varied(&seed));
            uint64_t b = (k % 4 == 0) ? ck_raw(type, a + 1) : ck_raw(type, ck_rng_varied(&seed));
            if (type_less(type, b, a)) {
                uint64_t x = a;
                a = b;
                b = x;
            }
            if (!type_less(type, a, b))
                continue;   /* equal, or a + 1 wrapped at the type's maximum */
            if (!(key_map(&up, a) < key_map(&up, b)))
                ck_abort_msg("type %d: %#llx < %#llx but keys %#llx >= %#llx", t,
                             (unsigned long long)a, (unsigned long long)b,
                             (unsigned long long)key_map(&up, a), (unsigned long long)key_map(&up, b));
            if (!(key_map(&down, a) > key_map(&down, b)))
                ck_abort_msg("type %d reverse: %#llx < %#llx but keys %#llx <= %#llx", t,
                             (unsigned long long)a, (unsigned long long)b,
                             (unsigned long long)key_map(&down, a), (unsigned long long)key_map(&down, b));
        }
    }
}
END_TEST

/* ------------------------------------------------------------------------------ */
/* Type names                                                                      */

START_TEST(test_keys_type_parse_names)
{
    static const char *names[4] = { "i32", "u32", "i64", "u64" };
    for (int t = 0; t < 4; t++) {
        key_type_t got = (key_type_t)-1;
        ck_assert_int_eq(key_type_parse(names[t], &got), 0);
        ck_assert_int_eq(got, (key_type_t)(t));
        ck_assert_str_eq(key_type_name((key_type_t)(t)), names[t]);
    }
}
END_TEST

START_TEST(test_keys_type_parse_rejects)
{
    static const char *bad[] = { "", "x", "i", "i3", "i16", "i320", "u6", "u128", "i64x",
                                 " i64", "i64 ", "int", "-1", "64", "i 64" };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        key_type_t got = KEY_U64;
        ck_assert_msg(key_type_parse(bad[k], &got) == -1, "'%s' accepted as a type", bad[k]);
    }
}
END_TEST

/* The hint of a range error: the types at least as wide that hold the value, each
 * type's edges and one past them. */
static const struct {
    key_type_t type;
    const char *tok;
    const char *hint;
} range_hints[] = {
    { KEY_I32, "2147483648", "; it fits --type=i64 or --type=u32" },
    { KEY_I32, "4294967295", "; it fits --type=i64 or --type=u32" },
    { KEY_I32, "4294967296", "; it fits --type=i64 or --type=u64" },
    { KEY_I32, "-2147483649", "; it fits --type=i64" },
    { KEY_I32, "-9223372036854775808", "; it fits --type=i64" },
    { KEY_I32, "-9223372036854775809", "" },
    { KEY_I32, "18446744073709551615", "; it fits --type=u64" },
    { KEY_U32, "-1", "; it fits --type=i32 or --type=i64" },
    { KEY_U32, "-2147483649", "; it fits --type=i64" },
    { KEY_U32, "4294967296", "; it fits --type=u64 or --type=i64" },
    { KEY_U32, "9223372036854775808", "; it fits --type=u64" },
    { KEY_I64, "9223372036854775808", "; it fits --type=u64" },
    { KEY_I64, "+0018446744073709551615", "; it fits --type=u64" },
    { KEY_I64, "18446744073709551616", "" },
    { KEY_I64, "-9223372036854775809", "" },
    { KEY_U64, "-1", "; it fits --type=i64" },
    { KEY_U64, "-9223372036854775808", "; it fits --type=i64" },
    { KEY_U64, "-9223372036854775809", "" },
    { KEY_U64, "18446744073709551616", "" },
    { KEY_U64, "123456789012345678901", "" },
    { KEY_I64, " 9223372036854775808\t", "; it fits --type=u64" },   /* a field's blanks */
    { KEY_I64, "9223372036854775808x", "" },
    { KEY_I64, "-", "" },
    { KEY_I64, "", "" },
};

START_TEST(test_keys_range_hint)
{
    const char *tok = range_hints[_i].tok;
    char buf[64];
    key_range_hint(buf, sizeof buf, tok, strlen(tok), range_hints[_i].type);
    ck_assert_msg(strcmp(buf, range_hints[_i].hint) == 0, "%s '%s': '%s', not '%s'",
                  key_type_name(range_hints[_i].type), tok, buf, range_hints[_i].hint);
}
END_TEST

/* ------------------------------------------------------------------------------ */
/* key_unique                                                                      */

static uint64_t get(const void *keys, size_t i, int width)
{
    return width == 4 ? ((const uint32_t *)keys)[i] : ((const uint64_t *)keys)[i];
}

/* The reference: the distinct values of sorted v[0..n), in order. */
static size_t ref_unique(const uint64_t *v, size_t n, uint64_t *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || out[m - 1] != v[i])
            out[m++] = v[i];
    return m;
}

/* Put v[0..n) into a width-byte array, run key_unique, compare with the reference. */
static void check_unique(const uint64_t *v, size_t n, int width)
{
    void *keys = malloc((n + 1) * 8);
    uint64_t *want = malloc((n + 1) * sizeof *want);
    ck_assert_ptr_nonnull(keys);
    ck_assert_ptr_nonnull(want);
    for (size_t i = 0; i < n; i++)
        ck_put_key(keys, i, width, v[i]);
    size_t m = ref_unique(v, n, want);
    size_t got = key_unique(keys, n, width);
    ck_assert_uint_eq(got, m);
    for (size_t i = 0; i < m; i++)
        if (get(keys, i, width) != want[i])
            ck_abort_msg("width %d n %zu: key %zu is %#llx, expected %#llx", width, n, i,
                         (unsigned long long)get(keys, i, width), (unsigned long long)want[i]);
    free(keys);
    free(want);
}

/* _i: 0 for width 4, 1 for width 8 */
START_TEST(test_keys_unique_small)
{
    int width = _i ? 8 : 4;
    uint64_t top = width == 8 ? UINT64_C(0xffffffffffffffff) : UINT32_MAX;
    uint64_t v[4] = { 0, 0, 0, 0 };

    check_unique(v, 0, width);
    v[0] = 42;
    check_unique(v, 1, width);
    v[0] = top;
    check_unique(v, 1, width);
    v[0] = 5; v[1] = 5;
    check_unique(v, 2, width);
    v[0] = 5; v[1] = 6;
    check_unique(v, 2, width);
    v[0] = 0; v[1] = top;
    check_unique(v, 2, width);
    v[0] = 1; v[1] = 1; v[2] = 2;
    check_unique(v, 3, width);
    v[0] = 1; v[1] = 2; v[2] = 2;
    check_unique(v, 3, width);

    /* n = 0 must not touch the keys */
    uint64_t guard = 0x1234;
    ck_assert_uint_eq(key_unique(&guard, 0, width), 0);
    ck_assert_uint_eq(guard, 0x1234);
}
END_TEST

START_TEST(test_keys_unique_all_equal)
{
    int width = _i ? 8 : 4;
    static uint64_t v[5000];
    for (size_t i = 0; i < 5000; i++)
        v[i] = width == 8 ? UINT64_C(0xdeadbeefcafef00d) : UINT64_C(0xcafef00d);
    check_unique(v, 5000, width);
}
END_TEST

START_TEST(test_keys_unique_no_duplicates)
{
    int width = _i ? 8 : 4;
    static uint64_t v[5000];
    for (size_t i = 0; i < 5000; i++)
        v[i] = width == 8 ? (uint64_t)i << 32 : (uint64_t)i * 3 + 1;   /* width 8: only the high half differs */
    check_unique(v, 5000, width);
}
END_TEST

/* Sorted random keys in runs of random lengths (1..9); for width 8, keys that differ
 * only in their high or only in their low 32 bits. */
START_TEST(test_keys_unique_runs)
{
    int width = _i ? 8 : 4;
    uint64_t seed = 0x72756e73 + (uint64_t)_i;
    static uint64_t v[20000];
    for (int rep = 0; rep < 50; rep++) {
        size_t n = (size_t)ck_rng_below(&seed, 20000);
        uint64_t cur = ck_rng_below(&seed, 100);
        size_t i = 0;
        while (i < n) {
            size_t run = 1 + (size_t)ck_rng_below(&seed, 9);
            for (size_t k = 0; k < run && i < n; k++)
                v[i++] = cur;
            if (width == 8)
                cur += (ck_rng_next(&seed) & 1) ? UINT64_C(1) << 32 : 1 + ck_rng_below(&seed, 3);
            else
                cur += 1 + ck_rng_below(&seed, 3);
        }
        check_unique(v, n, width);
    }
}
END_TEST

/* ------------------------------------------------------------------------------ */
/* binary keys: key_decode and key_encode                                          */


/* _i = type * 4 + big_endian * 2 + reverse */
START_TEST(test_keys_decode)
{
    key_type_t type = (key_type_t)(_i / 4);
    int big = _i / 2 % 2, rev = _i % 2;
    int width = ck_type_width(type);
    uint64_t seed = 0x6465636f6465 + (uint64_t)_i;
    keymap_t km;
    key_map_init(&km, type, rev);

    enum { N = 5000 };
    static unsigned char src[N * 8 + 1];
    static uint64_t raw[N];
    static uint64_t dst[N];
    for (size_t i = 0; i < N; i++) {
        raw[i] = ck_raw(type, ck_rng_varied(&seed));
        ck_put_bytes(src + 1 + i * width, raw[i], width, big);   /* src unaligned on purpose */
    }
    key_decode(src + 1, dst, N, &km, big);
    for (size_t i = 0; i < N; i++) {
        uint64_t got = width == 4 ? ((uint32_t *)dst)[i] : dst[i];
        if (got != ck_ref_key(type, rev, raw[i]))
            ck_abort_msg("%s big %d rev %d: key %zu (raw %#" PRIx64 ") decoded to %#" PRIx64
                         ", expected %#" PRIx64, ck_type_name(type), big, rev, i, raw[i], got,
                         ck_ref_key(type, rev, raw[i]));
    }

    /* in place */
    memcpy(dst, src + 1, (size_t)N * width);
    key_decode(dst, dst, N, &km, big);
    for (size_t i = 0; i < N; i++) {
        uint64_t got = width == 4 ? ((uint32_t *)dst)[i] : dst[i];
        if (got != ck_ref_key(type, rev, raw[i]))
            ck_abort_msg("%s big %d rev %d in place: key %zu wrong", ck_type_name(type), big, rev, i);
    }
}
END_TEST

/* A few keys spelled out byte by byte. */
START_TEST(test_keys_decode_by_hand)
{
    keymap_t km;
    uint32_t k32[2];
    uint64_t k64[2];

    /* i32 -2 little: fe ff ff ff -> 0x7ffffffe; 1 big: 00 00 00 01 -> 0x80000001 */
    static const unsigned char a[] = { 0xfe, 0xff, 0xff, 0xff, 0x01, 0x00, 0x00, 0x00 };
    key_map_init(&km, KEY_I32, 0);
    key_decode(a, k32, 2, &km, 0);
    ck_assert_uint_eq(k32[0], 0x7ffffffeu);
    ck_assert_uint_eq(k32[1], 0x80000001u);
    static const unsigned char b[] = { 0x00, 0x00, 0x00, 0x01, 0x80, 0x00, 0x00, 0x00 };
    key_decode(b, k32, 2, &km, 1);
    ck_assert_uint_eq(k32[0], 0x80000001u);
    ck_assert_uint_eq(k32[1], 0x00000000u);            /* INT32_MIN */

    /* u32 0x01020304 big: 01 02 03 04; reversed: complement */
    static const unsigned char c[] = { 0x01, 0x02, 0x03, 0x04, 0x04, 0x03, 0x02, 0x01 };
    key_map_init(&km, KEY_U32, 0);
    key_decode(c, k32, 2, &km, 1);
    ck_assert_uint_eq(k32[0], 0x01020304u);
    ck_assert_uint_eq(k32[1], 0x04030201u);
    key_map_init(&km, KEY_U32, 1);
    key_decode(c, k32, 2, &km, 0);
    ck_assert_uint_eq(k32[0], ~0x04030201u);
    ck_assert_uint_eq(k32[1], ~0x01020304u);

    /* i64 -1 big, and 0x0102030405060708 little */
    static const unsigned char d[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                       0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01 };
    key_map_init(&km, KEY_I64, 0);
    key_decode(d, k64, 2, &km, 0);
    ck_assert_uint_eq(k64[0], UINT64_C(0x7fffffffffffffff));
    ck_assert_uint_eq(k64[1], UINT64_C(0x8102030405060708));
    key_decode(d, k64, 2, &km, 1);
    ck_assert_uint_eq(k64[0], UINT64_C(0x7fffffffffffffff));
    ck_assert_uint_eq(k64[1], UINT64_C(0x8807060504030201));

    /* u64 big */
    key_map_init(&km, KEY_U64, 0);
    key_decode(d, k64, 2, &km, 1);
    ck_assert_uint_eq(k64[0], UINT64_MAX);
    ck_assert_uint_eq(k64[1], UINT64_C(0x0807060504030201));
}
END_TEST


/* _i = type * 4 + big_endian * 2 + reverse */
START_TEST(test_keys_encode)
{
    key_type_t type = (key_type_t)(_i / 4);
    int big = _i / 2 % 2, rev = _i % 2;
    int width = ck_type_width(type);
    uint64_t seed = 0x656e636f6465 + (uint64_t)_i;
    keymap_t km;
    key_map_init(&km, type, rev);

    enum { N = 5000 };
    static uint64_t raw[N], keys[N], back[N];
    static unsigned char want[N * 8], got[N * 8 + 8];
    for (size_t i = 0; i < N; i++) {
        raw[i] = ck_raw(type, ck_rng_varied(&seed));
        ck_put_key(keys, i, width, ck_ref_key(type, rev, raw[i]));
        ck_put_bytes(want + i * width, raw[i], width, big);
    }
    memset(got, 0xee, sizeof got);
    key_encode(keys, got, N, &km, big);
    ck_assert_msg(memcmp(got, want, (size_t)N * width) == 0, "%s big %d rev %d: bytes differ",
                  ck_type_name(type), big, rev);
    ck_assert_uint_eq(got[(size_t)N * width], 0xee);

    /* the inverse of key_decode */
    key_decode(got, back, N, &km, big);
    ck_assert_msg(memcmp(back, keys, (size_t)N * width) == 0, "%s big %d rev %d: no round trip",
                  ck_type_name(type), big, rev);

    /* in place */
    memcpy(back, keys, (size_t)N * width);
    key_encode(back, back, N, &km, big);
    ck_assert_msg(memcmp(back, want, (size_t)N * width) == 0, "%s big %d rev %d in place: bytes differ",
                  ck_type_name(type), big, rev);
}
END_TEST

START_TEST(test_keys_encode_by_hand)
{
    keymap_t km;
    unsigned char b[16];

    uint32_t k32 = 0x7ffffffe;                   /* i32 -2 */
    key_map_init(&km, KEY_I32, 0);
    key_encode(&k32, b, 1, &km, 0);
    ck_assert_mem_eq(b, "\xfe\xff\xff\xff", 4);
    key_encode(&k32, b, 1, &km, 1);
    ck_assert_mem_eq(b, "\xff\xff\xff\xfe", 4);

    k32 = 0x01020304;                            /* u32, descending: complemented key */
    key_map_init(&km, KEY_U32, 1);
    key_encode(&k32, b, 1, &km, 1);
    ck_assert_mem_eq(b, "\xfe\xfd\xfc\xfb", 4);

    uint64_t k64 = UINT64_C(0x8102030405060708); /* i64 0x0102030405060708 */
    key_map_init(&km, KEY_I64, 0);
    key_encode(&k64, b, 1, &km, 0);
    ck_assert_mem_eq(b, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
    key_encode(&k64, b, 1, &km, 1);
    ck_assert_mem_eq(b, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);

    k64 = 0;                                     /* u64 0, and i64 INT64_MIN */
    key_map_init(&km, KEY_U64, 0);
    key_encode(&k64, b, 1, &km, 1);
    ck_assert_mem_eq(b, "\0\0\0\0\0\0\0\0", 8);
    key_map_init(&km, KEY_I64, 0);
    key_encode(&k64, b, 1, &km, 1);
    ck_assert_mem_eq(b, "\x80\0\0\0\0\0\0\0", 8);
}
END_TEST

Suite *make_keys_suite(void)
{
    Suite *s = suite_create("keys");
    TCase *tc = ck_tcase("map");
    tcase_add_test(tc, test_keys_map_init_fields);
    tcase_add_loop_test(tc, test_keys_map_boundaries, 0,
                        (int)(sizeof boundaries / sizeof boundaries[0]));
    tcase_add_loop_test(tc, test_keys_map_round_trip, 0, 3);
    tcase_add_test(tc, test_keys_map_order);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = ck_tcase("names");
    tcase_add_test(tc, test_keys_type_parse_names);
    tcase_add_test(tc, test_keys_type_parse_rejects);
    tcase_add_loop_test(tc, test_keys_range_hint, 0,
                        (int)(sizeof range_hints / sizeof range_hints[0]));
    suite_add_tcase(s, tc);

    tc = ck_tcase("unique");
    tcase_add_loop_test(tc, test_keys_unique_small, 0, 2);
    tcase_add_loop_test(tc, test_keys_unique_all_equal, 0, 2);
    tcase_add_loop_test(tc, test_keys_unique_no_duplicates, 0, 2);
    tcase_add_loop_test(tc, test_keys_unique_runs, 0, 2);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = ck_tcase("binary");
    tcase_add_loop_test(tc, test_keys_decode, 0, 16);
    tcase_add_test(tc, test_keys_decode_by_hand);
    tcase_add_loop_test(tc, test_keys_encode, 0, 16);
    tcase_add_test(tc, test_keys_encode_by_hand);
    suite_add_tcase(s, tc);
    return s;
}
