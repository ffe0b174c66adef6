/* SPDX-License-Identifier: MIT */
/* check_codec.c: unit tests of store/codec.[ch]: round trips of both codecs and both
 * widths over a sweep of sizes and key distributions, the byte layout of a block
 * (its header read here from the definition, its LZ4 block checked against liblz4,
 * its content against a reference transpose written here), the compression of small
 * deltas, and decoding of damaged input: truncations, bit and byte flips (every one
 * refused: the checksum covers the bytes stored), a wrong n, wrapping deltas and
 * random garbage must give -1 or ascending keys, never a crash.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include <lz4.h>
#include "store/codec.h"
#include "check_suites.h"

static const size_t sizes[] = { 0, 1, 2, 3, 255, 256, 257, 16383, 16384, 16385 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

enum { DIST_RANDOM, DIST_EQUAL, DIST_DENSE, DIST_SPARSE, DIST_DUPS, NDISTS };
static const char *dist_names[NDISTS] = { "random", "equal", "dense", "sparse", "dups" };

/* Bytes of guard after each buffer, filled with GUARD_BYTE and checked afterwards. */
#define GUARD 64
#define GUARD_BYTE 0xA5

/* ------------------------------------------------------------------------------ */
/* Helpers                                                                         */

static uint64_t width_max(int width)
{
    return width == 4 ? UINT32_MAX : UINT64_MAX;
}

static uint64_t get_key(const void *keys, size_t i, int width)
{
    return width == 4 ? ((const uint32_t *)keys)[i] : ((const uint64_t *)keys)[i];
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A buffer of size bytes followed by GUARD guard bytes; never NULL. */
static unsigned char *guarded_alloc(size_t size)
{
    unsigned char *p = malloc(size + GUARD);
    ck_assert_ptr_nonnull(p);
    memset(p + size, GUARD_BYTE, GUARD);
    return p;
}

static void guard_check(const unsigned char *p, size_t size, const char *what)
{
    for (size_t i = 0; i < GUARD; i++)
        if (p[size + i] != GUARD_BYTE)
            ck_abort_msg("%s: byte %zu past the end was written", what, i);
}

/* A buffer of exactly size bytes (at least 1 for malloc): for input, so that a read
 * past its end is caught by valgrind or a sanitizer; never NULL. */
static unsigned char *exact_alloc(size_t size)
{
    unsigned char *p = malloc(size ? size : 1);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* n sorted keys of width drawn from dist, as width-byte keys in a new buffer. */
static void *make_keys(size_t n, int width, int dist, uint64_t *seed)
{
    uint64_t max = width_max(width);
    uint64_t *v = malloc((n ? n : 1) * sizeof *v);
    ck_assert_ptr_nonnull(v);
    uint64_t c = ck_rng_next(seed) & max;
    uint64_t start = ck_rng_below(seed, max - n + 1);
    size_t ndistinct = n / 4 + 1;
    for (size_t i = 0; i < n; i++) {
        switch (dist) {
        case DIST_RANDOM:
            v[i] = ck_rng_next(seed) & max;
            break;
        case DIST_EQUAL:
            v[i] = c;
            break;
        case DIST_DENSE:
            v[i] = start + i;
            break;
        case DIST_SPARSE:
            /* 0 first, the largest key last, huge even gaps between */
            if (n == 1)
                v[i] = max;
            else if (i == n - 1)
                v[i] = max;
            else
                v[i] = (max / (n - 1)) * i;
            break;
        default: /* DIST_DUPS: a few distinct values over the full range */
            v[i] = (ck_rng_below(seed, ndistinct) * (max / ndistinct)) & max;
            break;
        }
    }
    qsort(v, n, sizeof *v, cmp_u64);
    void *keys = guarded_alloc(n * (size_t)width);
    for (size_t i = 0; i < n; i++)
        ck_put_key(keys, i, width, v[i]);
    free(v);
    return keys;
}

/* Encode with a buffer of codec_bound() bytes; the encoding is returned in a new
 * buffer of exactly *len bytes. */
static unsigned char *encode_exact(codec_t codec, const void *keys, size_t n, int width,
                                   size_t *len)
{
    size_t bound = codec_bound(n, width);
    ck_assert_uint_ge(bound, n * (size_t)width);
    unsigned char *dst = guarded_alloc(bound);
    unsigned char *scratch = guarded_alloc(n * (size_t)width);
    *len = codec_encode(codec, keys, n, width, dst, bound, scratch);
    guard_check(dst, bound, "encode dst");
    guard_check(scratch, n * (size_t)width, "encode scratch");
    if (!(codec == CODEC_RAW && n == 0))
        ck_assert_uint_gt(*len, 0);
    ck_assert_uint_le(*len, bound);
    unsigned char *out = exact_alloc(*len);
    memcpy(out, dst, *len);
    free(dst);
    free(scratch);
    return out;
}

/* Decode into new guarded buffers of exactly n * width bytes; -1 or 0 as
 * codec_decode, and the guards checked. The keys are left in *out for the caller to
 * free, or freed when out is NULL. */
static int decode_guarded(codec_t codec, const void *src, size_t len, size_t n,
                          int width, unsigned char **out)
{
    unsigned char *keys = guarded_alloc(n * (size_t)width);
    unsigned char *scratch = guarded_alloc(n * (size_t)width);
    memset(keys, 0, n * (size_t)width);
    int rc = codec_decode(codec, src, len, keys, n, width, scratch);
    guard_check(keys, n * (size_t)width, "decode keys");
    guard_check(scratch, n * (size_t)width, "decode scratch");
    free(scratch);
    if (out)
        *out = keys;
    else
        free(keys);
    return rc;
}

static int is_ascending(const void *keys, size_t n, int width)
{
    for (size_t i = 1; i < n; i++)
        if (get_key(keys, i, width) < get_key(keys, i - 1, width))
            return 0;
    return 1;
}

/* The reference CODEC_LZ4 content, from the definition: deltas from the previous
 * key (the first from 0), byte b of delta i at b * n + i. */
static unsigned char *ref_transpose(const void *keys, size_t n, int width)
{
    unsigned char *out = malloc(n * (size_t)width + 1);
    ck_assert_ptr_nonnull(out);
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = get_key(keys, i, width);
        uint64_t d = (k - prev) & width_max(width);
        prev = k;
        for (int b = 0; b < width; b++)
            out[(size_t)b * n + i] = (unsigned char)(d >> (8 * b));
    }
    return out;
}

/* A block's header at blk, from the definition (codec.h): the content's bytes and
 * the bytes stored (u32), the checksum of the stored bytes after it (u64), all
 * little-endian. */
static void test_head(unsigned char *blk, size_t content, size_t stored)
{
    uint64_t sum = codec_checksum(blk + 16, stored);
    for (int b = 0; b < 4; b++) {
        blk[b] = (unsigned char)(content >> (8 * b));
        blk[4 + b] = (unsigned char)(stored >> (8 * b));
    }
    for (int b = 0; b < 8; b++)
        blk[8 + b] = (unsigned char)(sum >> (8 * b));
}

/* The block of content[0..size), made here from the definition (codec.h): the
 * header (content bytes, bytes stored, their checksum, little-endian), then the
 * content's LZ4 block where liblz4 makes it smaller, else the content. Returns a new
 * buffer and its length in *len. */
static unsigned char *test_block(const void *content, size_t size, size_t *len)
{
    int bound = LZ4_compressBound((int)size);
    unsigned char *dst = malloc(16 + (size_t)bound + size + 1);
    ck_assert_ptr_nonnull(dst);
    int got = size ? LZ4_compress_default(content, (char *)dst + 16, (int)size, bound) : 0;
    size_t stored = got > 0 && (size_t)got < size ? (size_t)got : size;
    if (stored == size && size)
        memcpy(dst + 16, content, size);
    test_head(dst, size, stored);
    *len = 16 + stored;
    return dst;
}

/* The little-endian n-byte number at p. */
static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int b = n - 1; b >= 0; b--)
        v = v << 8 | p[b];
    return v;
}

/* ------------------------------------------------------------------------------ */
/* Round trips                                                                     */

/* _i = dist * NSIZES + size index; every codec and width. */
START_TEST(test_codec_roundtrip)
{
    int dist = _i / (int)NSIZES;
    size_t n = sizes[_i % (int)NSIZES];
    uint64_t seed = 0xc0dec000 + (uint64_t)_i;
    for (int w = 0; w < 2; w++) {
        int width = w ? 8 : 4;
        void *keys = make_keys(n, width, dist, &seed);
        for (int c = 0; c < 2; c++) {
            codec_t codec = c ? CODEC_LZ4 : CODEC_RAW;
            size_t len;
            unsigned char *enc = encode_exact(codec, keys, n, width, &len);
            unsigned char *out;
            int rc = decode_guarded(codec, enc, len, n, width, &out);
            if (rc != 0)
                ck_abort_msg("%s n=%zu width=%d codec=%d: decode failed", dist_names[dist],
                             n, width, c);
            for (size_t i = 0; i < n; i++)
                if (get_key(out, i, width) != get_key(keys, i, width))
                    ck_abort_msg("%s n=%zu width=%d codec=%d: key %zu is %llu, not %llu",
                                 dist_names[dist], n, width, c, i,
                                 (unsigned long long)get_key(out, i, width),
                                 (unsigned long long)get_key(keys, i, width));
            free(out);
            free(enc);
        }
        free(keys);
    }
}
END_TEST

/* The scratch buffers may be left dirty between calls: reuse one pair of buffers
 * for blocks of different sizes, widths and codecs. */
START_TEST(test_codec_reused_buffers)
{
    uint64_t seed = 0x7e05ed;
    size_t maxn = 20000;
    size_t cap = codec_bound(maxn, 8);
    unsigned char *dst = malloc(cap), *scratch = malloc(maxn * 8);
    unsigned char *out = malloc(maxn * 8);
    ck_assert(dst && scratch && out);
    memset(scratch, 0xEE, maxn * 8);
    for (int rep = 0; rep < 40; rep++) {
        int width = (rep & 1) ? 8 : 4;
        codec_t codec = (rep & 2) ? CODEC_LZ4 : CODEC_RAW;
        size_t n = (size_t)ck_rng_below(&seed, maxn + 1);
        void *keys = make_keys(n, width, (int)ck_rng_below(&seed, NDISTS), &seed);
        size_t len = codec_encode(codec, keys, n, width, dst, cap, scratch);
        ck_assert(len > 0 || (codec == CODEC_RAW && n == 0));
        ck_assert_int_eq(codec_decode(codec, dst, len, out, n, width, scratch), 0);
        ck_assert(n == 0 || memcmp(out, keys, n * (size_t)width) == 0);
        free(keys);
    }
    free(dst);
    free(scratch);
    free(out);
}
END_TEST

/* ------------------------------------------------------------------------------ */
/* The byte layout                                                                 */

/* A block: a header of 16 bytes (the content's bytes, the bytes stored, their
 * checksum), then the bytes stored. CODEC_RAW: the keys' bytes, as they are.
 * CODEC_LZ4: the transposed deltas, as an LZ4 block where that is smaller (it is,
 * for these keys: their deltas' high bytes repeat) that liblz4 decompresses. _i:
 * 0..3 = width 4 or 8, size 257 or 16385. */
START_TEST(test_codec_layout)
{
    int width = (_i & 1) ? 8 : 4;
    size_t n = (_i & 2) ? 16385 : 257;
    uint64_t seed = 0x1a9007 + (uint64_t)_i;
    void *keys = make_keys(n, width, DIST_DENSE, &seed);
    size_t bytes = n * (size_t)width;

    size_t len;
    unsigned char *raw = encode_exact(CODEC_RAW, keys, n, width, &len);
    ck_assert_uint_eq(len, 16 + bytes);
    ck_assert_uint_eq(get_le(raw, 4), bytes);
    ck_assert_uint_eq(get_le(raw + 4, 4), bytes);
    ck_assert_uint_eq(get_le(raw + 8, 8), codec_checksum(keys, bytes));
    ck_assert(memcmp(raw + 16, keys, bytes) == 0);
    free(raw);

    unsigned char *lz = encode_exact(CODEC_LZ4, keys, n, width, &len);
    size_t stored = (size_t)get_le(lz + 4, 4);
    ck_assert_uint_eq(get_le(lz, 4), bytes);
    ck_assert_uint_eq(len, 16 + stored);
    ck_assert_uint_lt(stored, bytes);
    ck_assert_uint_eq(get_le(lz + 8, 8), codec_checksum(lz + 16, stored));
    unsigned char *content = malloc(bytes + 16);
    ck_assert_ptr_nonnull(content);
    ck_assert_int_eq(LZ4_decompress_safe((const char *)lz + 16, (char *)content, (int)stored,
                                         (int)bytes + 16),
                     (int)bytes);
    unsigned char *ref = ref_transpose(keys, n, width);
    for (size_t i = 0; i < bytes; i++)
        if (content[i] != ref[i])
            ck_abort_msg("width %d n %zu: content byte %zu is %#x, not %#x", width, n, i,
                         content[i], ref[i]);
    free(ref);
    free(content);
    free(lz);
    free(keys);
}
END_TEST

/* The raw block's checksum is XXH64 with seed 0: xxHash's published values. */
START_TEST(test_codec_checksum_vectors)
{
    ck_assert_uint_eq(codec_checksum("", 0), UINT64_C(0xEF46DB3751D8E999));
    ck_assert_uint_eq(codec_checksum("a", 1), UINT64_C(0xD24EC4F1A98C6E5B));
    ck_assert_uint_eq(codec_checksum("abc", 3), UINT64_C(0x44BC2CF5AD770999));
}
END_TEST

/* codec_bound covers both codecs: the header and the larger of the content and its
 * LZ4 bound; bad widths and sizes over a block's give 0. */
START_TEST(test_codec_bound)
{
    for (size_t i = 0; i < NSIZES; i++)
        for (int width = 4; width <= 8; width += 4) {
            size_t n = sizes[i], bytes = n * (size_t)width;
            ck_assert_uint_ge(codec_bound(n, width), 16 + bytes);
            ck_assert_uint_ge(codec_bound(n, width), 16 + (size_t)LZ4_compressBound((int)bytes));
            ck_assert_uint_eq(codec_block_bound(bytes), codec_bound(n, width));
        }
    ck_assert_uint_eq(codec_bound(10, 3), 0);
    ck_assert_uint_eq(codec_bound(10, 0), 0);
    ck_assert_uint_eq(codec_bound(SIZE_MAX / 4, 8), 0);
    ck_assert_uint_eq(codec_bound(SIZE_MAX, 4), 0);
    ck_assert_uint_eq(codec_block_bound((size_t)CODEC_BLOCK_MAX + 1), 0);
}
END_TEST

/* A dst smaller than needed, or a bad width or codec, gives 0 and no write past cap. */
START_TEST(test_codec_encode_errors)
{
    uint64_t seed = 0xe440;
    size_t n = 1000;
    uint32_t *keys = make_keys(n, 4, DIST_RANDOM, &seed);
    size_t bound = codec_bound(n, 4);
    unsigned char *scratch = guarded_alloc(n * 4);
    unsigned char *dst = guarded_alloc(bound);

    ck_assert_uint_eq(codec_encode(CODEC_RAW, keys, n, 4, dst, bound - 1, scratch), 0);
    ck_assert_uint_eq(codec_encode(CODEC_RAW, keys, n, 4, dst, bound, scratch), n * 4 + 16);
    ck_assert_uint_eq(codec_encode(CODEC_LZ4, keys, n, 4, dst, 0, scratch), 0);
    ck_assert_uint_eq(codec_encode(CODEC_LZ4, keys, n, 4, dst, 10, scratch), 0);
    ck_assert_uint_gt(codec_encode(CODEC_LZ4, keys, n, 4, dst, bound, scratch), 0);
    ck_assert_uint_eq(codec_encode(CODEC_LZ4, keys, n, 3, dst, bound, scratch), 0);
    ck_assert_uint_eq(codec_encode((codec_t)7, keys, n, 4, dst, bound, scratch), 0);
    ck_assert_int_eq(codec_decode((codec_t)7, dst, 10, keys, n, 4, scratch), -1);
    ck_assert_int_eq(codec_decode(CODEC_RAW, dst, 12, keys, 4, 3, scratch), -1);
    guard_check(dst, bound, "dst");
    guard_check(scratch, n * 4, "scratch");
    free(dst);
    free(scratch);
    free(keys);
}
END_TEST

/* Sorted u32 keys with small deltas compress: 16384 keys drawn from 16384 * 256
 * values (mean delta 256, so the two high byte planes are all zero). Measured
 * with liblz4 1.9.4: 0.411 (0.409 to 0.411 over five seeds); asserted with margin. */
START_TEST(test_codec_compresses_small_deltas)
{
    size_t n = 16384;
    uint64_t seed = 0x5a11de17a;
    uint64_t *v = malloc(n * sizeof *v);
    uint32_t *keys = malloc(n * sizeof *keys);
    ck_assert(v && keys);
    for (size_t i = 0; i < n; i++)
        v[i] = ck_rng_below(&seed, (uint64_t)n * 256);
    qsort(v, n, sizeof *v, cmp_u64);
    for (size_t i = 0; i < n; i++)
        keys[i] = (uint32_t)v[i];
    size_t len;
    unsigned char *enc = encode_exact(CODEC_LZ4, keys, n, 4, &len);
    double ratio = (double)len / (double)(n * 4);
    ck_assert_msg(ratio < 0.45, "compressed to %zu bytes of %zu: ratio %.3f", len, n * 4,
                  ratio);
    free(enc);
    free(keys);
    free(v);
}
END_TEST

/* ------------------------------------------------------------------------------ */
/* Damaged input                                                                   */

/* Every truncation, and one extra byte, of a small block: -1. _i: width, codec. */
START_TEST(test_codec_truncated)
{
    int width = (_i & 1) ? 8 : 4;
    codec_t codec = (_i & 2) ? CODEC_LZ4 : CODEC_RAW;
    uint64_t seed = 0x7a11 + (uint64_t)_i;
    size_t n = 300;
    void *keys = make_keys(n, width, DIST_RANDOM, &seed);
    size_t len;
    unsigned char *enc = encode_exact(codec, keys, n, width, &len);
    for (size_t cut = 0; cut < len; cut++) {
        unsigned char *part = exact_alloc(cut);
        memcpy(part, enc, cut);
        if (decode_guarded(codec, part, cut, n, width, NULL) != -1)
            ck_abort_msg("width %d codec %d: %zu of %zu bytes decoded", width, codec, cut,
                         len);
        free(part);
    }
    unsigned char *longer = exact_alloc(len + 1);
    memcpy(longer, enc, len);
    longer[len] = 0;
    ck_assert_int_eq(decode_guarded(codec, longer, len + 1, n, width, NULL), -1);
    free(longer);
    free(enc);
    free(keys);
}
END_TEST

/* A flip of any bit of a raw block, keys or checksum, is refused: before the
 * checksum, a flip that kept the keys in order decoded silently into a wrong key
 * (found by tests/fuzz/fuzz_runs). _i: width 4 or 8. */
START_TEST(test_codec_raw_bit_flips)
{
    int width = _i ? 8 : 4;
    uint64_t seed = 0xb17f + (uint64_t)_i;
    size_t n = 100;
    void *keys = make_keys(n, width, DIST_RANDOM, &seed);
    size_t len;
    unsigned char *enc = encode_exact(CODEC_RAW, keys, n, width, &len);
    unsigned char *bad = exact_alloc(len);
    for (size_t pos = 0; pos < len; pos++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(bad, enc, len);
            bad[pos] ^= (unsigned char)(1u << bit);
            if (decode_guarded(CODEC_RAW, bad, len, n, width, NULL) != -1)
                ck_abort_msg("width %d: bit %d of byte %zu flipped, and the block decoded",
                             width, bit, pos);
        }
    free(bad);
    free(enc);
    free(keys);
}
END_TEST

/* A flip of bits at every position of a small LZ4 block: -1, every one (the
 * checksum covers the bytes stored, the header's lengths are checked), and never a
 * crash. _i: width 4 or 8, and one of three masks. */
START_TEST(test_codec_lz4_byte_flips)
{
    static const unsigned char masks[3] = { 0x01, 0x80, 0xFF };
    int width = (_i & 1) ? 8 : 4;
    unsigned char mask = masks[_i / 2];
    uint64_t seed = 0xf1195 + (uint64_t)_i;
    size_t n = 300;
    void *keys = make_keys(n, width, DIST_DUPS, &seed);
    size_t len;
    unsigned char *enc = encode_exact(CODEC_LZ4, keys, n, width, &len);
    unsigned char *bad = exact_alloc(len);
    size_t decoded = 0;
    for (size_t pos = 0; pos < len; pos++) {
        memcpy(bad, enc, len);
        bad[pos] ^= mask;
        unsigned char *out;
        int rc = decode_guarded(CODEC_LZ4, bad, len, n, width, &out);
        if (rc != 0 && rc != -1)
            ck_abort_msg("byte %zu: decode returned %d", pos, rc);
        if (rc == 0 && !is_ascending(out, n, width))
            ck_abort_msg("width %d mask %#x byte %zu: decoded keys are not ascending",
                         width, mask, pos);
        decoded += rc == 0;
        free(out);
    }
    ck_assert_uint_eq(decoded, 0);
    free(bad);
    free(enc);
    free(keys);
}
END_TEST

/* A block decoded with the wrong n, or from len 0: -1. _i: width, codec. */
START_TEST(test_codec_wrong_n)
{
    int width = (_i & 1) ? 8 : 4;
    codec_t codec = (_i & 2) ? CODEC_LZ4 : CODEC_RAW;
    uint64_t seed = 0x4e4e + (uint64_t)_i;
    size_t n = 1000;
    void *keys = make_keys(n, width, DIST_RANDOM, &seed);
    size_t len;
    unsigned char *enc = encode_exact(codec, keys, n, width, &len);
    static const size_t wrong[] = { 0, 1, 999, 1001, 2000, 250 };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++)
        if (decode_guarded(codec, enc, len, wrong[i], width, NULL) != -1)
            ck_abort_msg("width %d codec %d: %zu keys decoded as %zu", width, codec, n,
                         wrong[i]);
    /* the other width reads the same bytes as a different number of keys */
    ck_assert_int_eq(decode_guarded(codec, enc, len, n, 12 - width, NULL), -1);
    ck_assert_int_eq(decode_guarded(codec, enc, 0, n, width, NULL), -1);
    /* no block is empty: even one of no keys holds its header */
    ck_assert_int_eq(decode_guarded(codec, enc, 0, 0, width, NULL), -1);
    free(enc);
    free(keys);
}
END_TEST

/* Deltas whose sum wraps past the largest key, in a well-formed block: -1, whether
 * the wrap is in the first key, in a whole chunk or in the tail. _i: width, place. */
START_TEST(test_codec_lz4_wrapping_deltas)
{
    int width = (_i & 1) ? 8 : 4;
    int place = _i / 2;                       /* 0: n=3; 1: n=200, early; 2: n=200, last */
    size_t n = place == 0 ? 3 : 200;
    uint64_t max = width_max(width);
    size_t bytes = n * (size_t)width;
    unsigned char *content = calloc(bytes, 1);
    ck_assert_ptr_nonnull(content);
    /* deltas: max at the first key, then all 0 except one delta of 1 */
    size_t at = place == 1 ? 5 : n - 1;
    for (int b = 0; b < width; b++) {
        content[(size_t)b * n + 0] = (unsigned char)(max >> (8 * b));
        content[(size_t)b * n + at] = (unsigned char)(UINT64_C(1) >> (8 * b));
    }
    size_t len;
    unsigned char *blk = test_block(content, bytes, &len);
    unsigned char *out;
    ck_assert_int_eq(decode_guarded(CODEC_LZ4, blk, len, n, width, NULL), -1);

    /* the same block without the wrap decodes: the check is not too eager */
    content[(size_t)0 * n + at] = 0;
    free(blk);
    blk = test_block(content, bytes, &len);
    ck_assert_int_eq(decode_guarded(CODEC_LZ4, blk, len, n, width, &out), 0);
    ck_assert_uint_eq(get_key(out, n - 1, width), max);
    free(out);
    free(blk);
    free(content);
}
END_TEST

/* Keys that are not ascending: CODEC_RAW refuses them on decode; with CODEC_LZ4 the
 * encoder's deltas wrap, so the decoder refuses them too. _i: width. */
START_TEST(test_codec_unsorted_refused)
{
    int width = _i ? 8 : 4;
    size_t n = 200;
    uint64_t seed = 0x50f7 + (uint64_t)_i;
    void *keys = make_keys(n, width, DIST_RANDOM, &seed);
    uint64_t a = get_key(keys, 150, width), b = get_key(keys, 151, width);
    ck_assert_uint_lt(a, b);
    ck_put_key(keys, 150, width, b);
    ck_put_key(keys, 151, width, a);
    for (int c = 0; c < 2; c++) {
        size_t len;
        unsigned char *enc = encode_exact(c ? CODEC_LZ4 : CODEC_RAW, keys, n, width, &len);
        ck_assert_int_eq(decode_guarded(c ? CODEC_LZ4 : CODEC_RAW, enc, len, n, width, NULL),
                         -1);
        free(enc);
    }
    free(keys);
}
END_TEST

/* Random garbage, and valid blocks with several random bytes changed, with random
 * n: never a crash, never 0 with keys out of order. _i: width. */
START_TEST(test_codec_lz4_garbage)
{
    int width = _i ? 8 : 4;
    uint64_t seed = 0x6a5ba6e + (uint64_t)_i;
    for (int rep = 0; rep < 300; rep++) {
        size_t n = (size_t)ck_rng_below(&seed, 600);
        size_t len;
        unsigned char *enc;
        if (rep % 3 == 0) {
            len = (size_t)ck_rng_below(&seed, 400);
            enc = exact_alloc(len);
            for (size_t i = 0; i < len; i++)
                enc[i] = (unsigned char)ck_rng_next(&seed);
            if (len >= 16 && (rep & 1)) {   /* a header that holds, to get further */
                size_t stored = len - 16;
                test_head(enc, ck_rng_below(&seed, 2) ? n * (size_t)width : stored, stored);
            }
        } else {
            void *keys = make_keys(n, width, (int)ck_rng_below(&seed, NDISTS), &seed);
            enc = encode_exact(CODEC_LZ4, keys, n, width, &len);
            int changes = 1 + (int)ck_rng_below(&seed, 4);
            for (int c = 0; c < changes && len > 0; c++)
                enc[ck_rng_below(&seed, len)] = (unsigned char)ck_rng_next(&seed);
            free(keys);
        }
        unsigned char *out;
        int rc = decode_guarded(CODEC_LZ4, enc, len, n, width, &out);
        if (rc == 0 && !is_ascending(out, n, width))
            ck_abort_msg("rep %d: decoded keys are not ascending", rep);
        ck_assert(rc == 0 || rc == -1);
        free(out);
        free(enc);
    }
}
END_TEST

Suite *make_codec_suite(void)
{
    Suite *s = suite_create("codec");
    TCase *tc = ck_tcase("roundtrip");
    tcase_add_loop_test(tc, test_codec_roundtrip, 0, (int)(NDISTS * NSIZES));
    tcase_add_test(tc, test_codec_reused_buffers);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = ck_tcase("format");
    tcase_add_loop_test(tc, test_codec_layout, 0, 4);
    tcase_add_test(tc, test_codec_checksum_vectors);
    tcase_add_test(tc, test_codec_bound);
    tcase_add_test(tc, test_codec_encode_errors);
    tcase_add_test(tc, test_codec_compresses_small_deltas);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = ck_tcase("corrupt");
    tcase_add_loop_test(tc, test_codec_truncated, 0, 4);
    tcase_add_loop_test(tc, test_codec_raw_bit_flips, 0, 2);
    tcase_add_loop_test(tc, test_codec_lz4_byte_flips, 0, 6);
    tcase_add_loop_test(tc, test_codec_wrong_n, 0, 4);
    tcase_add_loop_test(tc, test_codec_lz4_wrapping_deltas, 0, 6);
    tcase_add_loop_test(tc, test_codec_unsorted_refused, 0, 2);
    tcase_add_loop_test(tc, test_codec_lz4_garbage, 0, 2);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
