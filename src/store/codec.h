/* SPDX-License-Identifier: MIT */
/* codec.h: the byte format of one block of a spilled run, the one format of every
 * spilled run: bare keys' (store/run*.c) and records' (records/spill*.c). Pure
 * functions.
 *
 * A block is a header of CODEC_HEAD bytes, little-endian: the content's bytes (u32),
 * the bytes stored (u32) and the checksum of the bytes stored (u64: codec_checksum,
 * XXH64); then the bytes stored: the content as it is (stored equal to the
 * content's bytes), or its LZ4 block (liblz4's LZ4_compress_default), only where that
 * is smaller. Records' content is the records' bytes. Keys' content, n sorted
 * ascending unsigned keys (u32 where width is 4, u64 where 8): CODEC_RAW, their bytes
 * as they are, never compressed; CODEC_LZ4, the deltas between neighbours,
 * byte-transposed, compressed where that shrinks them. Decoding checks everything it
 * reads, so a damaged temporary file gives an error, never a crash and never wrong
 * keys or records.
 */
#ifndef GS_CODEC_H
#define GS_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define CODEC_HEAD 16                   /* a block's header */
#define CODEC_BLOCK_MAX 0x7E000000u     /* most content a block takes (liblz4's limit) */

/* ---- a block of bytes ------------------------------------------------------------ */

/* Most bytes a block of len bytes of content takes, its header included; 0 where
 * len is over CODEC_BLOCK_MAX. */
size_t codec_block_bound(size_t len);

/* Make the block at blk (room for codec_block_bound(len) bytes) of content[0..len):
 * its LZ4 block where lz4 and that is smaller, else the content copied (not copied
 * where content is blk + CODEC_HEAD already), then the header. Returns the block's
 * bytes, or 0 where len is over CODEC_BLOCK_MAX. Thread-safe. */
size_t codec_block_seal(void *blk, const void *content, size_t len, int lz4);

/* The header of the block at blk, of which avail bytes are at hand: 0 and *len (the
 * content's bytes) and *stored (the bytes stored after the header), where the
 * header is whole, the bytes stored at hand, no more than the content, and their
 * checksum right; else -1. */
int codec_block_head(const void *blk, size_t avail, size_t *len, size_t *stored);

/* The content of the block at blk whose header codec_block_head() took: where it is
 * stored as it is, blk + CODEC_HEAD; else decompressed into dst (room for len
 * bytes) and dst; NULL where the LZ4 block is damaged or not exactly len bytes. */
const void *codec_block_content(const void *blk, size_t len, size_t stored, void *dst);

/* ---- a block of keys ------------------------------------------------------------- */

typedef enum { CODEC_RAW = 0, CODEC_LZ4 = 1 } codec_t;

/* Most bytes codec_encode() can write for n keys of width bytes (4 or 8), with
 * either codec. 0 if width is neither 4 nor 8 or the size does not fit in size_t. */
size_t codec_bound(size_t n, int width);

/* Encode keys[0..n) (sorted ascending; width 4 or 8) into the block at dst, which
 * has room for cap bytes; scratch has room for n * width bytes and is clobbered
 * (CODEC_LZ4 only; it may be NULL for CODEC_RAW). keys, dst and scratch must not
 * overlap. Returns the block's bytes, or 0 if dst is too small, width is not 4 or 8
 * or the keys are more than a block takes; cap >= codec_bound(n, width) is always
 * enough. Unsorted keys are not detected here; their CODEC_LZ4 encoding fails to
 * decode. O(n), no allocation, thread-safe (no shared state). */
size_t codec_encode(codec_t codec, const void *keys, size_t n, int width, void *dst,
                    size_t cap, void *scratch);

/* Decode the block src[0..len), written by codec_encode() for exactly n keys of
 * width bytes, into keys (room for n * width bytes); scratch has room for n * width
 * bytes and is clobbered (CODEC_LZ4 only; it may be NULL for CODEC_RAW). Buffers must
 * not overlap. Returns 0, or -1 if the bytes are not a valid encoding of n ascending
 * keys: a wrong len, a header or checksum that does not match, a damaged LZ4 block,
 * content that is not n * width bytes, CODEC_RAW keys stored compressed, deltas
 * whose sum wraps past the largest key, or (CODEC_RAW) keys that are not ascending;
 * also for a bad codec or width. After -1 the contents of keys are unspecified.
 * Never reads or writes outside the given buffers, whatever the input. O(n).
 * Thread-safe. */
int codec_decode(codec_t codec, const void *src, size_t len, void *keys, size_t n,
                 int width, void *scratch);

/* The checksum of a block's bytes stored: XXH64 (seed 0) of p[0..len). Pure. */
uint64_t codec_checksum(const void *p, size_t len);

/* The version of the liblz4 linked in, as "1.9.4" (for --version). */
const char *codec_lz4_version(void);

#endif
