/* SPDX-License-Identifier: MIT */
/* fuzz_binary.c: the binary decoder (key_decode and reader.h's binary reader), for
 * each key type and byte order, against a byte-by-byte reference, and the encoder
 * (key_encode) as its inverse.
 *
 * Input: byte 0 picks the type (bits 0-1), big-endian (bit 2), -r (bit 3), two inputs
 * with partial keys carried from the first to the second (bit 4, as pipeline/sort.c reads
 * several files) and the reader's block size (bits 5-7); byte 1 where the bytes are
 * split between the two inputs; the rest is the data. Checked, for every input:
 *   - key_decode gives the reference's keys, and key_encode gives the bytes back;
 *   - the reader gives the same keys, each with its 1-based index in its own input,
 *     then the end, or GS_EINPUT after every whole key when the bytes are not a
 *     whole number of keys (with the carry, a partial key is left over instead).
 */
#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fuzz.h"
#include "io/reader.h"
#include "core/keys.h"
#include "io/output.h"
#include "core/pool.h"

/* The sort key of the width bytes at p: assembled a byte at a time in the given
 * order, then the sign bit flipped for a signed type and every bit for -r. */
static uint64_t ref_key(const uint8_t *p, int width, int big_endian, int is_signed,
                        int reverse)
{
    uint64_t v = 0;
    for (int i = 0; i < width; i++) {
        int b = big_endian ? i : width - 1 - i;
        v = v << 8 | p[b];
    }
    uint64_t top = (uint64_t)1 << (8 * width - 1);
    uint64_t all = width == 4 ? 0xFFFFFFFFu : UINT64_MAX;
    if (is_signed)
        v ^= top;
    if (reverse)
        v ^= all;
    return v;
}

static uint64_t get_key(const void *keys, size_t i, int width)
{
    uint64_t v;
    if (width == 4) {
        uint32_t k;
        memcpy(&k, (const char *)keys + 4 * i, 4);
        v = k;
    } else {
        memcpy(&v, (const char *)keys + 8 * i, 8);
    }
    return v;
}

static void check_decode(const uint8_t *p, size_t len, const keymap_t *km, int big_endian,
                         int reverse)
{
    size_t w = (size_t)km->width, n = len / w;
    void *keys = malloc(n * w + 1), *back = malloc(n * w + 1);
    if (!keys || !back)
        fuzz_fail("out of memory");
    key_decode(p, keys, n, km, big_endian);
    for (size_t i = 0; i < n; i++) {
        uint64_t want = ref_key(p + i * w, km->width, big_endian, km->is_signed, reverse);
        if (get_key(keys, i, km->width) != want)
            fuzz_fail("key_decode: key %zu is %#" PRIx64 ", the reference %#" PRIx64,
                      i, get_key(keys, i, km->width), want);
    }
    key_encode(keys, back, n, km, big_endian);
    if (n && memcmp(back, p, n * w) != 0)
        fuzz_fail("key_encode does not give the input bytes back");
    free(keys);
    free(back);
}

/* Read one input with the reader; check each key against the reference, which
 * starts at ref_first (the input's first key, carried bytes included). Returns the
 * reader's last code; *seen counts keys. */
static int read_input(const uint8_t *bytes, size_t len, kreader_cfg_t *cfg, const uint8_t *all,
                      size_t ref_first, size_t *seen, int big_endian, int reverse)
{
    const keymap_t *km = cfg->km;
    size_t w = (size_t)km->width;
    kreader_t *r;
    source_t src = { .path = fuzz_memfile(bytes, len), .fd = -1 };
    if (kreader_open(&r, &src, cfg) != GS_OK)
        fuzz_fail("kreader_open failed");
    int rc;
    for (;;) {
        const void *keys;
        size_t n;
        rc = kreader_next(r, &keys, &n);
        if (rc != GS_OK || n == 0)
            break;
        for (size_t i = 0; i < n; i++, (*seen)++) {
            uint64_t want = ref_key(all + *seen * w, km->width, big_endian, km->is_signed,
                                    reverse);
            if (get_key(keys, i, km->width) != want)
                fuzz_fail("reader: key %zu is %#" PRIx64 ", the reference %#" PRIx64, *seen,
                          get_key(keys, i, km->width), want);
            uint64_t pos = kreader_position(r, i);
            if (pos != *seen - ref_first + 1)
                fuzz_fail("reader: key %zu at index %" PRIu64 ", %zu expected", *seen, pos,
                          *seen - ref_first + 1);
        }
    }
    kreader_close(r);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    keymap_t km;
    int big_endian = (data[0] >> 2) & 1, reverse = (data[0] >> 3) & 1;
    int two = (data[0] >> 4) & 1;
    key_map_init(&km, (key_type_t)(data[0] & 3), reverse);
    static const size_t blocks[8] = { 1, 3, 4, 7, 8, 13, 64, 4096 };
    size_t block = blocks[data[0] >> 5];
    const uint8_t *p = data + 2;
    size_t len = size - 2, w = (size_t)km.width;

    check_decode(p, len, &km, big_endian, reverse);

    static pool_t *pool;
    if (!pool && pool_create(&pool, 1) != GS_OK)
        fuzz_fail("pool_create failed");
    carry_t carry = { .n = 0 };
    kreader_cfg_t cfg = { .km = &km, .binary = 1, .big_endian = big_endian, .pool = pool,
                          .block_bytes = block, .carry = two ? &carry : NULL };
    size_t whole = len / w, seen = 0;
    int want = len % w ? GS_EINPUT : GS_OK;
    if (!two) {
        int rc = read_input(p, len, &cfg, p, 0, &seen, big_endian, reverse);
        if (seen != whole || rc != want)
            fuzz_fail("reader: %zu keys and code %d; %zu keys and %d expected", seen, rc,
                      whole, want);
        return 0;
    }
    /* Two inputs: the second's keys are counted from its start, the bytes carried
     * from the first included. */
    size_t split = data[1] % (len + 1);
    int rc = read_input(p, split, &cfg, p, 0, &seen, big_endian, reverse);
    if (rc != GS_OK || seen != split / w || (size_t)carry.n != split % w)
        fuzz_fail("reader, first input: %zu keys, code %d, %d bytes carried; %zu, 0, %zu "
                  "expected", seen, rc, carry.n, split / w, split % w);
    rc = read_input(p + split, len - split, &cfg, p, seen, &seen, big_endian, reverse);
    if (rc != GS_OK || seen != whole || (size_t)carry.n != len % w)
        fuzz_fail("reader, second input: %zu keys, code %d, %d bytes carried; %zu, 0, %zu "
                  "expected", seen, rc, carry.n, whole, len % w);
    rc = kreader_carry_end(&carry, GS_OK);   /* bytes left over: an error, and only then */
    if (rc != want)
        fuzz_fail("reader, the end: code %d, %d expected", rc, want);
    return 0;
}
