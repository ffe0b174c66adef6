/* SPDX-License-Identifier: MIT */
/* codec.c: the byte format of one block of a spilled run (see codec.h): a block of
 * bytes (the header, LZ4 where it shrinks, the checksum), and keys' content in it.
 *
 * The hot loops work in chunks of CODEC_CHUNK keys with a constant trip count and
 * restrict pointers, so that the compiler vectorises them at -O2 too (GCC's
 * "very cheap" cost model vectorises only loops that need no scalar epilogue and no
 * alias check); the few keys after the last whole chunk take a scalar loop.
 */
#include <config.h>

#include <assert.h>
#include <stdint.h>
#include <string.h>
#include <lz4.h>

#include "store/codec.h"

/* Keys per chunk of the vectorised loops: a multiple of every vector width. */
#define CODEC_CHUNK 64
static_assert(CODEC_CHUNK % 32 == 0, "CODEC_CHUNK must be a multiple of 32");

static_assert(CODEC_BLOCK_MAX <= LZ4_MAX_INPUT_SIZE, "a block's content is one LZ4 block");

/* n * width, or 0 with *ok = 0 if width is not 4 or 8 or the product is more than a
 * block takes. */
static size_t codec_bytes(size_t n, int width, int *ok)
{
    *ok = (width == 4 || width == 8) && n <= CODEC_BLOCK_MAX / 8;
    return *ok ? n * (size_t)width : 0;
}

size_t codec_bound(size_t n, int width)
{
    int ok;
    size_t bytes = codec_bytes(n, width, &ok);
    return ok ? codec_block_bound(bytes) : 0;
}

/* ------------------------------------------------------------------------------ */
/* The checksum of a raw block: XXH64 (seed 0), as xxHash specifies it            */

#define XXH_P1 UINT64_C(0x9E3779B185EBCA87)
#define XXH_P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define XXH_P3 UINT64_C(0x165667B19E3779F9)
#define XXH_P4 UINT64_C(0x85EBCA77C2B2AE63)
#define XXH_P5 UINT64_C(0x27D4EB2F165667C5)

static inline uint64_t codec_rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint64_t codec_read64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);      /* little-endian on every host gpusort targets */
    return v;
}

static inline uint64_t codec_xxh_round(uint64_t acc, uint64_t input)
{
    acc += input * XXH_P2;
    return codec_rotl(acc, 31) * XXH_P1;
}

static inline uint64_t codec_xxh_merge(uint64_t acc, uint64_t v)
{
    acc ^= codec_xxh_round(0, v);
    return acc * XXH_P1 + XXH_P4;
}

/* XXH64 of p[0..len): far faster than the disk it guards against. */
static uint64_t codec_xxh64(const uint8_t *p, size_t len)
{
    const uint8_t *end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = XXH_P1 + XXH_P2, v2 = XXH_P2, v3 = 0, v4 = 0 - XXH_P1;
        do {
            v1 = codec_xxh_round(v1, codec_read64(p));
            v2 = codec_xxh_round(v2, codec_read64(p + 8));
            v3 = codec_xxh_round(v3, codec_read64(p + 16));
            v4 = codec_xxh_round(v4, codec_read64(p + 24));
            p += 32;
        } while (end - p >= 32);
        h = codec_rotl(v1, 1) + codec_rotl(v2, 7) + codec_rotl(v3, 12) + codec_rotl(v4, 18);
        h = codec_xxh_merge(h, v1);
        h = codec_xxh_merge(h, v2);
        h = codec_xxh_merge(h, v3);
        h = codec_xxh_merge(h, v4);
    } else {
        h = XXH_P5;
    }
    h += (uint64_t)len;
    for (; end - p >= 8; p += 8) {
        h ^= codec_xxh_round(0, codec_read64(p));
        h = codec_rotl(h, 27) * XXH_P1 + XXH_P4;
    }
    if (end - p >= 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        h ^= (uint64_t)v * XXH_P1;
        h = codec_rotl(h, 23) * XXH_P2 + XXH_P3;
        p += 4;
    }
    for (; p < end; p++) {
        h ^= (uint64_t)*p * XXH_P5;
        h = codec_rotl(h, 11) * XXH_P1;
    }
    h ^= h >> 33;
    h *= XXH_P2;
    h ^= h >> 29;
    h *= XXH_P3;
    h ^= h >> 32;
    return h;
}

uint64_t codec_checksum(const void *p, size_t len)
{
    return codec_xxh64(p, len);
}

/* ------------------------------------------------------------------------------ */
/* Deltas and the byte transpose (encode)                                         */

/* One chunk of the u32 transpose: b[x][j] = byte x of (c[j] - c[j - 1]); c[-1] is
 * read. The restrict parameters tell the compiler the planes do not overlap. */
static inline void codec_split32_chunk(const uint32_t *restrict c, uint8_t *restrict b0,
                                       uint8_t *restrict b1, uint8_t *restrict b2,
                                       uint8_t *restrict b3)
{
    for (size_t j = 0; j < CODEC_CHUNK; j++) {
        uint32_t d = c[j] - c[(ptrdiff_t)j - 1];
        b0[j] = (uint8_t)d;
        b1[j] = (uint8_t)(d >> 8);
        b2[j] = (uint8_t)(d >> 16);
        b3[j] = (uint8_t)(d >> 24);
    }
}

/* out[b * n + i] = byte b of (k[i] - k[i - 1]), with k[-1] = 0. */
static void codec_delta_split32(const uint32_t *k, size_t n, uint8_t *out)
{
    size_t i = 0;
    if (n >= 1 + CODEC_CHUNK) {
        /* the first key's delta is itself: a scalar step, then whole chunks */
        for (int b = 0; b < 4; b++)
            out[(size_t)b * n] = (uint8_t)(k[0] >> (8 * b));
        for (i = 1; n - i >= CODEC_CHUNK; i += CODEC_CHUNK)
            codec_split32_chunk(k + i, out + i, out + n + i, out + 2 * n + i,
                                out + 3 * n + i);
    }
    for (; i < n; i++) {
        uint32_t d = k[i] - (i ? k[i - 1] : 0);
        for (int b = 0; b < 4; b++)
            out[(size_t)b * n + i] = (uint8_t)(d >> (8 * b));
    }
}

/* One chunk of the u64 transpose: eight byte planes. */
static inline void codec_split64_chunk(const uint64_t *restrict c, uint8_t *restrict b0,
                                       uint8_t *restrict b1, uint8_t *restrict b2,
                                       uint8_t *restrict b3, uint8_t *restrict b4,
                                       uint8_t *restrict b5, uint8_t *restrict b6,
                                       uint8_t *restrict b7)
{
    for (size_t j = 0; j < CODEC_CHUNK; j++) {
        uint64_t d = c[j] - c[(ptrdiff_t)j - 1];
        b0[j] = (uint8_t)d;
        b1[j] = (uint8_t)(d >> 8);
        b2[j] = (uint8_t)(d >> 16);
        b3[j] = (uint8_t)(d >> 24);
        b4[j] = (uint8_t)(d >> 32);
        b5[j] = (uint8_t)(d >> 40);
        b6[j] = (uint8_t)(d >> 48);
        b7[j] = (uint8_t)(d >> 56);
    }
}

/* The same for u64 keys. */
static void codec_delta_split64(const uint64_t *k, size_t n, uint8_t *out)
{
    size_t i = 0;
    if (n >= 1 + CODEC_CHUNK) {
        for (int b = 0; b < 8; b++)
            out[(size_t)b * n] = (uint8_t)(k[0] >> (8 * b));
        for (i = 1; n - i >= CODEC_CHUNK; i += CODEC_CHUNK)
            codec_split64_chunk(k + i, out + i, out + n + i, out + 2 * n + i,
                                out + 3 * n + i, out + 4 * n + i, out + 5 * n + i,
                                out + 6 * n + i, out + 7 * n + i);
    }
    for (; i < n; i++) {
        uint64_t d = k[i] - (i ? k[i - 1] : 0);
        for (int b = 0; b < 8; b++)
            out[(size_t)b * n + i] = (uint8_t)(d >> (8 * b));
    }
}

/* ------------------------------------------------------------------------------ */
/* The inverse: gather the bytes, then a running sum (decode)                     */

/* k[i] = sum of the deltas in[b * n + i] for 0..i; -1 if the sum passes
 * UINT32_MAX (the keys would wrap and not be ascending), else 0. The sum is kept
 * in 64 bits and checked once a chunk, so it cannot itself overflow. */
static int codec_join_sum32(const uint8_t *restrict in, size_t n, uint32_t *restrict k)
{
    const uint8_t *restrict b0 = in, *restrict b1 = in + n;
    const uint8_t *restrict b2 = in + 2 * n, *restrict b3 = in + 3 * n;
    uint64_t sum = 0;
    size_t i = 0;
    for (; n - i >= CODEC_CHUNK; i += CODEC_CHUNK) {
        uint32_t d[CODEC_CHUNK];
        for (size_t j = 0; j < CODEC_CHUNK; j++)
            d[j] = (uint32_t)b0[i + j] | (uint32_t)b1[i + j] << 8
                 | (uint32_t)b2[i + j] << 16 | (uint32_t)b3[i + j] << 24;
        for (size_t j = 0; j < CODEC_CHUNK; j++) {
            sum += d[j];
            k[i + j] = (uint32_t)sum;
        }
        if (sum > UINT32_MAX)
            return -1;
    }
    for (; i < n; i++) {
        sum += (uint32_t)b0[i] | (uint32_t)b1[i] << 8
             | (uint32_t)b2[i] << 16 | (uint32_t)b3[i] << 24;
        k[i] = (uint32_t)sum;
    }
    return sum > UINT32_MAX ? -1 : 0;
}

/* The same for u64 keys: a carry out of any addition means a wrap. */
static int codec_join_sum64(const uint8_t *restrict in, size_t n, uint64_t *restrict k)
{
    const uint8_t *restrict b0 = in, *restrict b1 = in + n;
    const uint8_t *restrict b2 = in + 2 * n, *restrict b3 = in + 3 * n;
    const uint8_t *restrict b4 = in + 4 * n, *restrict b5 = in + 5 * n;
    const uint8_t *restrict b6 = in + 6 * n, *restrict b7 = in + 7 * n;
    uint64_t sum = 0;
    unsigned carry = 0;
    size_t i = 0;
    for (; n - i >= CODEC_CHUNK; i += CODEC_CHUNK) {
        uint64_t d[CODEC_CHUNK];
        for (size_t j = 0; j < CODEC_CHUNK; j++)
            d[j] = (uint64_t)b0[i + j] | (uint64_t)b1[i + j] << 8
                 | (uint64_t)b2[i + j] << 16 | (uint64_t)b3[i + j] << 24
                 | (uint64_t)b4[i + j] << 32 | (uint64_t)b5[i + j] << 40
                 | (uint64_t)b6[i + j] << 48 | (uint64_t)b7[i + j] << 56;
        for (size_t j = 0; j < CODEC_CHUNK; j++) {
            sum += d[j];
            carry |= sum < d[j];
            k[i + j] = sum;
        }
        if (carry)
            return -1;
    }
    for (; i < n; i++) {
        uint64_t d = 0;
        for (int b = 0; b < 8; b++)
            d |= (uint64_t)in[(size_t)b * n + i] << (8 * b);
        sum += d;
        carry |= sum < d;
        k[i] = sum;
    }
    return carry ? -1 : 0;
}

/* 0 if k[0..n) is ascending, else -1. */
static int codec_check_sorted32(const uint32_t *restrict k, size_t n)
{
    unsigned bad = 0;
    size_t i = 1;
    for (; n >= i && n - i >= CODEC_CHUNK; i += CODEC_CHUNK) {
        const uint32_t *restrict c = k + i;
        for (size_t j = 0; j < CODEC_CHUNK; j++)
            bad |= c[j] < c[(ptrdiff_t)j - 1];
        if (bad)
            return -1;
    }
    for (; i < n; i++)
        bad |= k[i] < k[i - 1];
    return bad ? -1 : 0;
}

static int codec_check_sorted64(const uint64_t *restrict k, size_t n)
{
    unsigned bad = 0;
    size_t i = 1;
    for (; n >= i && n - i >= CODEC_CHUNK; i += CODEC_CHUNK) {
        const uint64_t *restrict c = k + i;
        for (size_t j = 0; j < CODEC_CHUNK; j++)
            bad |= c[j] < c[(ptrdiff_t)j - 1];
        if (bad)
            return -1;
    }
    for (; i < n; i++)
        bad |= k[i] < k[i - 1];
    return bad ? -1 : 0;
}

/* ------------------------------------------------------------------------------ */
/* A block of bytes                                                               */

static inline void codec_put(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t codec_get(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

size_t codec_block_bound(size_t len)
{
    if (len > CODEC_BLOCK_MAX)
        return 0;
    size_t lz = (size_t)LZ4_compressBound((int)len);
    return CODEC_HEAD + (lz > len ? lz : len);
}

size_t codec_block_seal(void *blk, const void *content, size_t len, int lz4)
{
    if (len > CODEC_BLOCK_MAX)
        return 0;
    uint8_t *h = blk, *d = h + CODEC_HEAD;
    size_t stored = len;
    if (lz4 && len > 0) {
        int got = LZ4_compress_default(content, (char *)d, (int)len,
                                       LZ4_compressBound((int)len));
        stored = got > 0 && (size_t)got < len ? (size_t)got : len;
    }
    if (stored == len && content != d && len > 0)   /* as it is */
        memcpy(d, content, len);
    codec_put(h, len, 4);
    codec_put(h + 4, stored, 4);
    codec_put(h + 8, codec_xxh64(d, stored), 8);
    return CODEC_HEAD + stored;
}

int codec_block_head(const void *blk, size_t avail, size_t *len, size_t *stored)
{
    const uint8_t *h = blk;
    if (avail < CODEC_HEAD)
        return -1;
    *len = (size_t)codec_get(h, 4);
    *stored = (size_t)codec_get(h + 4, 4);
    if (*stored > *len || *len > CODEC_BLOCK_MAX || *stored > avail - CODEC_HEAD ||
        codec_xxh64(h + CODEC_HEAD, *stored) != codec_get(h + 8, 8))
        return -1;
    return 0;
}

const void *codec_block_content(const void *blk, size_t len, size_t stored, void *dst)
{
    const char *d = (const char *)blk + CODEC_HEAD;
    if (stored == len)
        return d;
    return LZ4_decompress_safe(d, dst, (int)stored, (int)len) == (int)len ? dst : NULL;
}

/* ------------------------------------------------------------------------------ */
/* Keys                                                                           */

size_t codec_encode(codec_t codec, const void *keys, size_t n, int width, void *dst,
                    size_t cap, void *scratch)
{
    int ok;
    size_t bytes = codec_bytes(n, width, &ok);
    if (!ok || (codec != CODEC_RAW && codec != CODEC_LZ4) || cap < codec_block_bound(bytes))
        return 0;
    if (codec == CODEC_RAW)
        return codec_block_seal(dst, keys, bytes, 0);
    if (bytes > 0 && width == 4)
        codec_delta_split32(keys, n, scratch);
    else if (bytes > 0)
        codec_delta_split64(keys, n, scratch);
    return codec_block_seal(dst, scratch, bytes, 1);
}

int codec_decode(codec_t codec, const void *src, size_t len, void *keys, size_t n,
                 int width, void *scratch)
{
    int ok;
    size_t bytes = codec_bytes(n, width, &ok), clen, stored;
    /* A damaged temporary file must be an error, never a wrong result: the header,
     * the checksum and the length first; the order check alone misses most changes. */
    if (!ok || (codec != CODEC_RAW && codec != CODEC_LZ4) ||
        codec_block_head(src, len, &clen, &stored) || len != CODEC_HEAD + stored ||
        clen != bytes || (codec == CODEC_RAW && stored != bytes))
        return -1;
    if (bytes == 0)
        return 0;
    if (codec == CODEC_RAW) {
        memcpy(keys, (const uint8_t *)src + CODEC_HEAD, bytes);
        return width == 4 ? codec_check_sorted32(keys, n) : codec_check_sorted64(keys, n);
    }
    const uint8_t *content = codec_block_content(src, bytes, stored, scratch);
    if (!content)
        return -1;
    return width == 4 ? codec_join_sum32(content, n, keys) : codec_join_sum64(content, n, keys);
}

const char *codec_lz4_version(void)
{
    return LZ4_versionString();
}
