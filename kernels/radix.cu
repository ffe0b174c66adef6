/* SPDX-License-Identifier: MIT */
/* radix.cu: CUB's DeviceRadixSort on gpusort's unsigned keys, alone or with their
 * indices (records' wide keys), and the rebase kernel that narrows a chunk's key
 * range before it (kernels.h). */
#include <cstdint>

#include <cub/device/device_radix_sort.cuh>

#include "gk_check.h"
#include "kernels.h"

/* Threads per block and items per thread of the rebase kernel. */
constexpr int REBASE_THREADS = 256;
constexpr int REBASE_ITEMS = 8;
static_assert(REBASE_THREADS % 32 == 0, "whole warps");

template <typename KeyT>
static int gk_radix_scratch_t(size_t n, size_t *bytes)
{
    cub::DoubleBuffer<KeyT> keys(nullptr, nullptr);
    *bytes = 0;
    GK_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, *bytes, keys, (int64_t)n));
    return GK_OK;
}

extern "C" int gk_radix_scratch(size_t n, int width, size_t *bytes)
{
    return width == 4 ? gk_radix_scratch_t<uint32_t>(n, bytes)
                      : gk_radix_scratch_t<uint64_t>(n, bytes);
}

template <typename KeyT>
static int gk_radix_sort_t(void *d_keys, void *d_alt, size_t n, int begin_bit, int end_bit,
                           void *d_scratch, size_t scratch_bytes, int *in_alt,
                           cudaStream_t stream)
{
    cub::DoubleBuffer<KeyT> keys((KeyT *)d_keys, (KeyT *)d_alt);
    size_t bytes = scratch_bytes;
    GK_CHECK(cub::DeviceRadixSort::SortKeys(d_scratch, bytes, keys, (int64_t)n, begin_bit,
                                            end_bit, stream));
    *in_alt = keys.selector;
    return GK_OK;
}

extern "C" int gk_radix_sort(void *d_keys, void *d_alt, size_t n, int width, int begin_bit,
                             int end_bit, void *d_scratch, size_t scratch_bytes, int *in_alt,
                             gk_stream_t stream)
{
    *in_alt = 0;
    if (n < 2 || begin_bit >= end_bit)
        return GK_OK;
    cudaStream_t s = (cudaStream_t)stream;
    return width == 4 ? gk_radix_sort_t<uint32_t>(d_keys, d_alt, n, begin_bit, end_bit,
                                                 d_scratch, scratch_bytes, in_alt, s)
                      : gk_radix_sort_t<uint64_t>(d_keys, d_alt, n, begin_bit, end_bit,
                                                 d_scratch, scratch_bytes, in_alt, s);
}

/* ---- keys sorted with their indices -------------------------------------------------- */

extern "C" int gk_index_scratch(size_t n, size_t *bytes)
{
    cub::DoubleBuffer<uint64_t> keys(nullptr, nullptr);
    cub::DoubleBuffer<uint32_t> vals(nullptr, nullptr);
    *bytes = 0;
    GK_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, *bytes, keys, vals, (int64_t)n));
    return GK_OK;
}

/* vals[i] = i, each thread REBASE_ITEMS of them, strided by the block. */
__global__ void gk_iota_kernel(uint32_t *vals, size_t n)
{
    size_t i = (size_t)blockIdx.x * REBASE_THREADS * REBASE_ITEMS + threadIdx.x;
#pragma unroll
    for (int k = 0; k < REBASE_ITEMS; k++, i += REBASE_THREADS)
        if (i < n)
            vals[i] = (uint32_t)i;
}

extern "C" int gk_sort_index(void *d_keys, void *d_keys_alt, void *d_vals, void *d_vals_alt,
                             size_t n, int end_bit, void *d_scratch, size_t scratch_bytes,
                             void **result, gk_stream_t stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    *result = d_vals;
    if (n == 0)
        return GK_OK;
    size_t per = (size_t)REBASE_THREADS * REBASE_ITEMS;
    gk_iota_kernel<<<(unsigned)((n + per - 1) / per), REBASE_THREADS, 0, s>>>((uint32_t *)d_vals, n);
    GK_CHECK_LAUNCH();
    if (n < 2 || end_bit <= 0)
        return GK_OK;
    cub::DoubleBuffer<uint64_t> keys((uint64_t *)d_keys, (uint64_t *)d_keys_alt);
    cub::DoubleBuffer<uint32_t> vals((uint32_t *)d_vals, (uint32_t *)d_vals_alt);
    size_t bytes = scratch_bytes;
    GK_CHECK(cub::DeviceRadixSort::SortPairs(d_scratch, bytes, keys, vals, (int64_t)n, 0,
                                             end_bit, s));
    *result = vals.Current();
    return GK_OK;
}

/* out[i] = in[i] -/+ base, each thread REBASE_ITEMS keys, strided by the block. */
template <typename InT, typename OutT>
__global__ void gk_rebase_kernel(const InT *in, OutT *out, size_t n, uint64_t base, int subtract)
{
    size_t i = (size_t)blockIdx.x * REBASE_THREADS * REBASE_ITEMS + threadIdx.x;
#pragma unroll
    for (int k = 0; k < REBASE_ITEMS; k++, i += REBASE_THREADS) {
        if (i < n) {
            uint64_t v = (uint64_t)in[i];
            out[i] = (OutT)(subtract ? v - base : v + base);
        }
    }
}

template <typename InT, typename OutT>
static int gk_rebase_t(const void *d_in, void *d_out, size_t n, uint64_t base, int subtract,
                       cudaStream_t stream)
{
    size_t per = (size_t)REBASE_THREADS * REBASE_ITEMS;
    size_t blocks = (n + per - 1) / per;
    gk_rebase_kernel<InT, OutT><<<(unsigned)blocks, REBASE_THREADS, 0, stream>>>(
        (const InT *)d_in, (OutT *)d_out, n, base, subtract);
    GK_CHECK_LAUNCH();
    return GK_OK;
}

extern "C" int gk_rebase(const void *d_in, int in_width, void *d_out, int out_width, size_t n,
                         uint64_t base, int subtract, gk_stream_t stream)
{
    if (n == 0)
        return GK_OK;
    cudaStream_t s = (cudaStream_t)stream;
    if (in_width == 4 && out_width == 4)
        return gk_rebase_t<uint32_t, uint32_t>(d_in, d_out, n, base, subtract, s);
    if (in_width == 8 && out_width == 4)
        return gk_rebase_t<uint64_t, uint32_t>(d_in, d_out, n, base, subtract, s);
    if (in_width == 4 && out_width == 8)
        return gk_rebase_t<uint32_t, uint64_t>(d_in, d_out, n, base, subtract, s);
    return gk_rebase_t<uint64_t, uint64_t>(d_in, d_out, n, base, subtract, s);
}

/* Min and max of keys[0..n): each thread over a grid-strided share, a warp's folded
 * by shuffles, then one atomic each into out[0] (min) and out[1] (max). */
constexpr int MINMAX_THREADS = 256;

template <typename KeyT>
__global__ void gk_minmax_kernel(const KeyT *keys, size_t n, unsigned long long *out)
{
    unsigned long long lo = ~0ull, hi = 0;
    size_t stride = (size_t)gridDim.x * MINMAX_THREADS;
    for (size_t i = (size_t)blockIdx.x * MINMAX_THREADS + threadIdx.x; i < n; i += stride) {
        unsigned long long v = keys[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    for (int d = 16; d > 0; d /= 2) {
        unsigned long long a = __shfl_down_sync(0xffffffffu, lo, d);
        unsigned long long b = __shfl_down_sync(0xffffffffu, hi, d);
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMin(&out[0], lo);
        atomicMax(&out[1], hi);
    }
}

extern "C" int gk_minmax(const void *d_keys, size_t n, int width, void *d_tmp,
                         uint64_t *h_minmax, gk_stream_t stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    unsigned long long *out = (unsigned long long *)d_tmp;
    GK_CHECK(cudaMemsetAsync(out, 0xff, 8, s));
    GK_CHECK(cudaMemsetAsync(out + 1, 0, 8, s));
    if (n > 0) {
        size_t blocks = (n + MINMAX_THREADS * 16 - 1) / (MINMAX_THREADS * 16);
        if (blocks > 4096)
            blocks = 4096;
        if (width == 4)
            gk_minmax_kernel<uint32_t><<<(unsigned)blocks, MINMAX_THREADS, 0, s>>>(
                (const uint32_t *)d_keys, n, out);
        else
            gk_minmax_kernel<uint64_t><<<(unsigned)blocks, MINMAX_THREADS, 0, s>>>(
                (const uint64_t *)d_keys, n, out);
        GK_CHECK_LAUNCH();
    }
    GK_CHECK(cudaMemcpyAsync(h_minmax, out, 16, cudaMemcpyDeviceToHost, s));
    return GK_OK;
}

static int gk_bits(uint64_t v)
{
    return v ? 64 - __builtin_clzll(v) : 0;
}

extern "C" int gk_sort_range(void *d_keys, void *d_alt, size_t n, int width, uint64_t min,
                             uint64_t max, void *d_scratch, size_t scratch_bytes, void **result,
                             gk_stream_t stream)
{
    *result = d_keys;
    if (n < 2 || min == max)
        return GK_OK;
    int rc, in_alt;
    int plain = gk_bits(max), offset = gk_bits(max - min);
    if (width == 8 && offset <= 32) {
        /* 64-bit keys as 32-bit offsets: narrowed into d_alt, sorted there (d_keys is
         * the other buffer), widened back into whichever buffer is free. */
        if ((rc = gk_rebase(d_keys, 8, d_alt, 4, n, min, 1, stream)) ||
            (rc = gk_radix_sort(d_alt, d_keys, n, 4, 0, offset, d_scratch, scratch_bytes,
                                &in_alt, stream)))
            return rc;
        void *res = in_alt ? d_keys : d_alt, *other = in_alt ? d_alt : d_keys;
        if ((rc = gk_rebase(res, 4, other, 8, n, min, 0, stream)))
            return rc;
        *result = other;
        return GK_OK;
    }
    if ((offset + 7) / 8 + 2 <= (plain + 7) / 8) {
        /* Rebasing costs two passes over the keys (about one digit pass of the sort:
         * doc/perf/TUNING.md): worth it only where it saves two digit passes. */
        if ((rc = gk_rebase(d_keys, width, d_keys, width, n, min, 1, stream)) ||
            (rc = gk_radix_sort(d_keys, d_alt, n, width, 0, offset, d_scratch, scratch_bytes,
                                &in_alt, stream)))
            return rc;
        *result = in_alt ? d_alt : d_keys;
        return gk_rebase(*result, width, *result, width, n, min, 0, stream);
    }
    if ((rc = gk_radix_sort(d_keys, d_alt, n, width, 0, plain, d_scratch, scratch_bytes,
                            &in_alt, stream)))
        return rc;
    *result = in_alt ? d_alt : d_keys;
    return GK_OK;
}
