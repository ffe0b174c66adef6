/* SPDX-License-Identifier: MIT */
/* text.cu: text parsed on the device (kernels.h).
 *
 * The tokens of a buffer of text, separated by white space, become mapped keys as
 * the host's parser makes them (io/textscan.c): an optional '-' or '+', then decimal
 * digits, in the type's range, the raw bits XOR the mapping's mask. The buffer is
 * cut into tiles of TEXT_TILE bytes, a block a tile and 16 bytes a thread. A token
 * belongs to the tile it starts in and may run on past it. Two passes: each tile
 * counts the tokens that start in it; an exclusive scan of the counts gives each
 * tile its first token's rank; then each tile counts again, each thread's first
 * rank from a scan within the block, and every thread parses the tokens that start
 * in its 16 bytes and stores their keys at their ranks.
 *
 * A token that is not such an integer is not reported where it is: a flag says one
 * was met, and the host parses the text itself, which names the file and the line.
 */
#include <cstdint>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "gk_check.h"
#include "kernels.h"

constexpr int TEXT_THREADS = 256;
constexpr int TEXT_BYTES = 16;                            /* a thread's bytes */
constexpr size_t TEXT_TILE = TEXT_THREADS * TEXT_BYTES;   /* a block's */

/* What the parse met (the flags' bits). */
constexpr unsigned long long TEXT_BAD = GK_TEXT_BAD;
constexpr unsigned long long TEXT_FULL = GK_TEXT_FULL;

__device__ __forceinline__ bool text_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');   /* \t \n \v \f \r */
}

/* Bit k of the result: a token starts at t[i + k], of the 16 bytes from i (as many as
 * there are before len). */
__device__ __forceinline__ unsigned text_starts(const unsigned char *t, size_t len, size_t i)
{
    if (i >= len)
        return 0;
    unsigned starts = 0;
    bool before = i == 0 || text_space(t[i - 1]);
    size_t m = len - i < TEXT_BYTES ? len - i : TEXT_BYTES;
    for (size_t k = 0; k < m; k++) {
        bool sp = text_space(t[i + k]);
        if (before && !sp)
            starts |= 1u << k;
        before = sp;
    }
    return starts;
}

__global__ void gk_text_count_kernel(const unsigned char *t, size_t len, uint64_t *counts)
{
    typedef cub::BlockReduce<unsigned, TEXT_THREADS> reduce_t;
    __shared__ typename reduce_t::TempStorage tmp;
    size_t i = (size_t)blockIdx.x * TEXT_TILE + (size_t)threadIdx.x * TEXT_BYTES;
    unsigned mine = __popc(text_starts(t, len, i));
    unsigned total = reduce_t(tmp).Sum(mine);
    if (threadIdx.x == 0)
        counts[blockIdx.x] = total;
}

/* The token at t[i] (its first byte not white space), to its first white space or
 * len: its raw two's complement bits, or false where it is not an integer in
 * [-neg_max, pos_max]. */
__device__ bool text_token(const unsigned char *t, size_t len, size_t i, uint64_t pos_max,
                           uint64_t neg_max, uint64_t *raw)
{
    bool neg = false;
    if (t[i] == '-' || t[i] == '+') {
        neg = t[i] == '-';
        i++;
    }
    uint64_t v = 0;
    bool over = false, digits = false;
    for (; i < len && !text_space(t[i]); i++) {
        unsigned d = (unsigned)t[i] - '0';
        if (d > 9)
            return false;
        digits = true;
        if (v > (UINT64_MAX - d) / 10)
            over = true;
        v = v * 10 + d;
    }
    if (!digits || over || v > (neg ? neg_max : pos_max))
        return false;
    *raw = neg ? 0 - v : v;
    return true;
}

template <typename KeyT>
__global__ void gk_text_parse_kernel(const unsigned char *t, size_t len,
                                     const uint64_t *first, uint64_t pos_max,
                                     uint64_t neg_max, uint64_t mask, KeyT *keys, size_t cap,
                                     unsigned long long *flags)
{
    typedef cub::BlockScan<unsigned, TEXT_THREADS> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    size_t i = (size_t)blockIdx.x * TEXT_TILE + (size_t)threadIdx.x * TEXT_BYTES;
    unsigned starts = text_starts(t, len, i), before;
    scan_t(tmp).ExclusiveSum(__popc(starts), before);
    size_t rank = first[blockIdx.x] + before;
    unsigned long long met = 0;
    for (; starts; starts &= starts - 1, rank++) {
        uint64_t raw;
        if (!text_token(t, len, i + (size_t)__ffs(starts) - 1, pos_max, neg_max, &raw))
            met |= TEXT_BAD;
        else if (rank >= cap)
            met |= TEXT_FULL;
        else
            keys[rank] = (KeyT)((raw ^ mask) & (KeyT)~(KeyT)0);
    }
    if (met)
        atomicOr(flags, met);
}

static unsigned gk_text_tiles(size_t len)
{
    return (unsigned)((len + TEXT_TILE - 1) / TEXT_TILE);
}

/* The scratch's layout: the tiles' counts and their first ranks (one more each: the
 * total), the flags, CUB's scan's room; each 256-byte aligned. */
static size_t gk_text_align(size_t b)
{
    return (b + 255) & ~(size_t)255;
}

extern "C" int gk_text_scratch(size_t len, size_t *bytes)
{
    size_t tiles = gk_text_tiles(len), scan = 0;
    GK_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan, (uint64_t *)nullptr,
                                           (uint64_t *)nullptr, (int64_t)tiles + 1));
    *bytes = 2 * gk_text_align((tiles + 1) * 8) + 256 + gk_text_align(scan);
    return GK_OK;
}

extern "C" int gk_parse_text(const void *d_text, size_t len, int width, uint64_t pos_max,
                             uint64_t neg_max, uint64_t mask, void *d_keys, size_t cap,
                             void *d_scratch, size_t scratch_bytes, uint64_t *h_result,
                             gk_stream_t stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    size_t tiles = gk_text_tiles(len), need;
    int gk = gk_text_scratch(len, &need);
    if (gk)
        return gk;
    if (need > scratch_bytes)
        return gk_fail(cudaErrorMemoryAllocation, "gk_parse_text: scratch", __FILE__,
                       __LINE__);
    char *p = (char *)d_scratch;
    uint64_t *counts = (uint64_t *)p;
    uint64_t *first = (uint64_t *)(p += gk_text_align((tiles + 1) * 8));
    unsigned long long *flags = (unsigned long long *)(p += gk_text_align((tiles + 1) * 8));
    void *scan = p + 256;
    size_t scan_bytes = need - (size_t)((char *)scan - (char *)d_scratch);
    const unsigned char *t = (const unsigned char *)d_text;
    /* counts[tiles] = 0: the exclusive scan's last output, first[tiles], is the total. */
    GK_CHECK(cudaMemsetAsync(flags, 0, sizeof *flags, s));
    GK_CHECK(cudaMemsetAsync(counts + tiles, 0, 8, s));
    if (tiles) {
        gk_text_count_kernel<<<tiles, TEXT_THREADS, 0, s>>>(t, len, counts);
        GK_CHECK_LAUNCH();
    }
    GK_CHECK(cub::DeviceScan::ExclusiveSum(scan, scan_bytes, counts, first, (int64_t)tiles + 1,
                                           s));
    if (tiles) {
        if (width == 4)
            gk_text_parse_kernel<uint32_t><<<tiles, TEXT_THREADS, 0, s>>>(
                t, len, first, pos_max, neg_max, mask, (uint32_t *)d_keys, cap, flags);
        else
            gk_text_parse_kernel<uint64_t><<<tiles, TEXT_THREADS, 0, s>>>(
                t, len, first, pos_max, neg_max, mask, (uint64_t *)d_keys, cap, flags);
        GK_CHECK_LAUNCH();
    }
    /* The total and the flags, to the host. */
    GK_CHECK(cudaMemcpyAsync(&h_result[0], first + tiles, 8, cudaMemcpyDeviceToHost, s));
    GK_CHECK(cudaMemcpyAsync(&h_result[1], flags, 8, cudaMemcpyDeviceToHost, s));
    return GK_OK;
}
