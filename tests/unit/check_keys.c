/* check_keys.c: unit tests of keys.[ch]: the order-preserving mapping of every key
 * type to unsigned keys (both directions), type names, and key_unique.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "core/keys.h"
#include "check_suites.h"

static const key_type_t all_types[4] = { KEY_I32, KEY_U32, KEY_I64, KEY_U64 };

/* ------------------------------------------------------------------------------ */
/* The mapping                                                                     */

START_TEST(test_keys_map_init_fields)
{
    for (int t = 0; t < 4; t++) {
        for (int rev = 0; rev < 2; rev++) {
            keymap_t km;
            memset(&km, 0xa5, sizeof km);
            key_map_init(&km, all_types[t], rev);
            ck_assert_int_eq(km.type, all_types[t]);
            ck_assert_int_eq(km.width, (all_types[t] == KEY_I32 || all_types[t] == KEY_U32) ? 4 : 8);
            ck_assert_int_eq(km.is_signed, (all_types[t] == KEY_I32 || all_types[t] == KEY_I64) ? 1 : 0);
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
            key_map_init(&km, all_types[t], rev);
            for (int k = 0; k < 100000; k++) {
                uint64_t raw = ck_raw(all_types[t], ck_rng_varied(&seed));
                uint64_t key = key_map(&km, raw);
                if (key != ck_ref_key(all_types[t], rev, raw))
                    ck_abort_msg("type %d rev %d raw %#llx: key %#llx, expected %#llx", t, rev,
                                 (unsigned long long)raw, (unsigned long long)key,
                                 (unsigned long long)ck_ref_key(all_types[t], rev, raw));
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
        key_type_t type = all_types[t];
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
        ck_assert_int_eq(got, all_types[t]);
        ck_assert_str_eq(key_type_name(all_types[t]), names[t]);
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

/* ------------------------------------------------------------------------------ */
/* key_unique                                                                      */

static void put(void *keys, size_t i, int width, uint64_t v)
{
    if (width == 4)
        ((uint32_t *)keys)[i] = (uint32_t)v;
    else
        ((uint64_t *)keys)[i] = v;
}

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
        put(keys, i, width, v[i]);
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

Suite *make_keys_suite(void)
{
    Suite *s = suite_create("keys");
    TCase *tc = tcase_create("map");
    tcase_add_test(tc, test_keys_map_init_fields);
    tcase_add_loop_test(tc, test_keys_map_boundaries, 0,
                        (int)(sizeof boundaries / sizeof boundaries[0]));
    tcase_add_loop_test(tc, test_keys_map_round_trip, 0, 3);
    tcase_add_test(tc, test_keys_map_order);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("names");
    tcase_add_test(tc, test_keys_type_parse_names);
    tcase_add_test(tc, test_keys_type_parse_rejects);
    suite_add_tcase(s, tc);

    tc = tcase_create("unique");
    tcase_add_loop_test(tc, test_keys_unique_small, 0, 2);
    tcase_add_loop_test(tc, test_keys_unique_all_equal, 0, 2);
    tcase_add_loop_test(tc, test_keys_unique_no_duplicates, 0, 2);
    tcase_add_loop_test(tc, test_keys_unique_runs, 0, 2);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
