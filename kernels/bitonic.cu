/* SPDX-License-Identifier: MIT */
/* bitonic.cu: our bitonic sort of u32 and u64 keys (kernels.h): the host entry points,
 * which run the kernels and pass schedule of bitonic.cuh in the configurations below
 * (chosen by measuring: doc/perf/TUNING.md, "The GPU kernels"). */
#include <cstdint>

#include <cuda_runtime.h>

#include "gk_check.h"
#include "kernels.h"
#include "bitonic.cuh"

/* Tiles of 16 Ki u32 keys (512 threads x 32 keys) and 8 Ki u64 keys (512 x 16): 64 KiB
 * of keys in registers and 66 KiB of shared memory a block; fused global passes of 6
 * strides for u32 and 5 for u64 (64 registers of keys a thread), wide ones of up to 9
 * (u32) and 8 (u64) strides, blocks of the tile's size, two an SM. */
typedef gk_bitonic_cfg<uint32_t, 512, 32, 6> gk_bitonic32;
typedef gk_bitonic_cfg<uint64_t, 512, 16, 5> gk_bitonic64;

/* Launches on one stream, each checked; kernels wanting more than 48 KiB of shared
 * memory are allowed it first. */
struct gk_cuda_launch {
    cudaStream_t stream;
    template <class... P, class... A>
    int operator()(void (*kernel)(P...), size_t blocks, int threads, size_t smem, A... args)
    {
        if (blocks > 0x7FFFFFFFu)
            return gk_fail(cudaErrorInvalidConfiguration, "gk_bitonic_sort: grid", __FILE__,
                           __LINE__);
        if (smem > 48 * 1024)
            GK_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          (int)smem));
        kernel<<<(unsigned)blocks, threads, smem, stream>>>(args...);
        GK_CHECK_LAUNCH();
        return GK_OK;
    }
};

extern "C" int gk_bitonic_scratch(size_t n, int width, size_t *bytes)
{
    (void)n;
    (void)width;
    *bytes = 0;
    return GK_OK;
}

extern "C" int gk_bitonic_sort(void *d_keys, size_t n, int width, void *d_scratch,
                               size_t scratch_bytes, gk_stream_t stream)
{
    (void)d_scratch;
    (void)scratch_bytes;
    gk_cuda_launch launch = { (cudaStream_t)stream };
    return width == 4 ? gk_bitonic_run<gk_bitonic32>((uint32_t *)d_keys, n, launch)
                      : gk_bitonic_run<gk_bitonic64>((uint64_t *)d_keys, n, launch);
}

extern "C" int gk_bitonic_sort_range(void *d_keys, void *d_alt, size_t n, int width,
                                     uint64_t min, uint64_t max, void *d_scratch,
                                     size_t scratch_bytes, void **result, gk_stream_t stream)
{
    *result = d_keys;
    if (n < 2 || min == max)
        return GK_OK;
    int rc;
    if (width == 8 && max - min <= 0xFFFFFFFFull) {
        /* 64-bit keys as 32-bit offsets in d_alt: half the bytes through every pass. */
        if ((rc = gk_rebase(d_keys, 8, d_alt, 4, n, min, 1, stream)) ||
            (rc = gk_bitonic_sort(d_alt, n, 4, d_scratch, scratch_bytes, stream)))
            return rc;
        return gk_rebase(d_alt, 4, d_keys, 8, n, min, 0, stream);
    }
    return gk_bitonic_sort(d_keys, n, width, d_scratch, scratch_bytes, stream);
}
