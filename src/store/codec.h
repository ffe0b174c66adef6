/* SPDX-License-Identifier: MIT */
/* codec.h: the byte format of one block of a spilled run (pure functions).
 *
 * A block is n sorted ascending unsigned keys (u32 when width == 4, u64 when
 * width == 8). CODEC_RAW stores the keys' bytes as they are, then their checksum;
 * CODEC_LZ4 stores the deltas between neighbours, byte-transposed, in one LZ4 frame
 * with its content checksum. Decoding checks everything it reads, so a damaged
 * temporary file gives an error, never a crash and never wrong keys.
 */
#ifndef GS_CODEC_H
#define GS_CODEC_H

#include <stddef.h>
#include <stdint.h>

typedef enum { CODEC_RAW = 0, CODEC_LZ4 = 1 } codec_t;

/* Most bytes codec_encode() can write for n keys of width bytes (4 or 8), with
 * either codec. 0 if width is neither 4 nor 8 or the size does not fit in size_t. */
size_t codec_bound(size_t n, int width);

/* Encode keys[0..n) (sorted ascending; width 4 or 8) into dst, which has room for
 * cap bytes; scratch has room for n * width bytes and is clobbered (CODEC_LZ4 only;
 * it may be NULL for CODEC_RAW). keys, dst and scratch must not overlap.
 * CODEC_RAW: the keys' bytes as they are (host order, little-endian on every host
 * gpusort targets), then 8 bytes: codec_checksum() of them, little-endian.
 * CODEC_LZ4: the deltas from the previous key (the first key from
 * 0), then their bytes transposed (byte 0, the least significant, of every delta,
 * then byte 1 of every delta, ...), then one LZ4 frame (liblz4's LZ4F_compressFrame,
 * default preferences, contentSize and the content checksum set).
 * Returns the bytes written, or 0 if dst is too small, width is not 4 or 8, or
 * liblz4 fails; cap >= codec_bound(n, width) is always enough. Unsorted keys are not
 * detected here; their LZ4 encoding fails to decode. O(n), no allocation,
 * thread-safe (no shared state). */
size_t codec_encode(codec_t codec, const void *keys, size_t n, int width, void *dst,
                    size_t cap, void *scratch);

/* Decode src[0..len), written by codec_encode() for exactly n keys of width bytes,
 * into keys (room for n * width bytes); scratch has room for n * width bytes and is
 * clobbered (CODEC_LZ4 only; it may be NULL for CODEC_RAW). Buffers must not overlap.
 * Returns 0, or -1 if the bytes are not a valid encoding of n ascending keys: a
 * wrong len, a damaged or truncated LZ4 frame, bytes after the frame, a frame whose
 * content is not n * width bytes, deltas whose sum wraps past the largest key, or
 * (CODEC_RAW) a checksum that does not match or keys that are not ascending; also
 * for a bad codec or width. After -1
 * the contents of keys are unspecified. Never reads or writes outside the given
 * buffers, whatever the input. O(n); CODEC_LZ4 allocates one small liblz4
 * decompression context per call. Thread-safe. */
int codec_decode(codec_t codec, const void *src, size_t len, void *keys, size_t n,
                 int width, void *scratch);

/* The checksum of a CODEC_RAW block: XXH64 (seed 0) of p[0..len). Pure; exported
 * for the tests. */
uint64_t codec_checksum(const void *p, size_t len);

/* The version of the liblz4 linked in, as "1.9.4" (for --version). */
const char *codec_lz4_version(void);

#endif
