/* SPDX-License-Identifier: MIT */
/* records.cu: binary records on the device (kernels.h): their keys taken out and
 * mapped as the host maps them (keys.h: the bytes in their order, XOR a mask), and
 * the records gathered in the order of their sorted indices. */
#include <cstdint>

#include "gk_check.h"
#include "kernels.h"

constexpr int REC_THREADS = 256;

/* keys[i] = the key of record i: width bytes at off, little- or big-endian, XOR
 * mask. Byte loads: a record's key need not be aligned. */
__global__ void gk_record_keys_kernel(const unsigned char *recs, size_t n, size_t size,
                                      size_t off, int width, int big_endian, uint64_t mask,
                                      uint64_t *keys)
{
    size_t stride = (size_t)gridDim.x * REC_THREADS;
    for (size_t i = (size_t)blockIdx.x * REC_THREADS + threadIdx.x; i < n; i += stride) {
        const unsigned char *p = recs + i * size + off;
        uint64_t v = 0;
        for (int b = 0; b < width; b++)
            v |= (uint64_t)p[b] << (8 * (big_endian ? width - 1 - b : b));
        keys[i] = v ^ mask;
    }
}

/* Blocks for a grid-stride loop over n items: enough to fill the device, no more. */
static unsigned gk_blocks(size_t n)
{
    size_t b = (n + REC_THREADS - 1) / REC_THREADS;
    return (unsigned)(b < 65536 ? (b ? b : 1) : 65536);
}

extern "C" int gk_record_keys(const void *d_recs, size_t n, size_t size, size_t off,
                              int width, int big_endian, uint64_t mask, void *d_keys,
                              gk_stream_t stream)
{
    if (n == 0)
        return GK_OK;
    gk_record_keys_kernel<<<gk_blocks(n), REC_THREADS, 0, (cudaStream_t)stream>>>(
        (const unsigned char *)d_recs, n, size, off, width, big_endian, mask,
        (uint64_t *)d_keys);
    GK_CHECK_LAUNCH();
    return GK_OK;
}

/* out's record j = recs' record perm[j], copied in units of T (T divides the size):
 * consecutive threads take consecutive units, so the writes are coalesced and the
 * reads of one record are too. */
template <typename T>
__global__ void gk_gather_kernel(const T *recs, size_t per, const uint32_t *perm, size_t m,
                                 T *out)
{
    size_t total = m * per, stride = (size_t)gridDim.x * REC_THREADS;
    for (size_t u = (size_t)blockIdx.x * REC_THREADS + threadIdx.x; u < total; u += stride) {
        size_t j = u / per, q = u - j * per;
        out[u] = recs[(size_t)perm[j] * per + q];
    }
}

template <typename T>
static int gk_gather_t(const void *d_recs, size_t size, const uint32_t *d_perm, size_t m,
                       void *d_out, cudaStream_t s)
{
    size_t per = size / sizeof(T);
    gk_gather_kernel<T><<<gk_blocks(m * per), REC_THREADS, 0, s>>>((const T *)d_recs, per,
                                                                   d_perm, m, (T *)d_out);
    GK_CHECK_LAUNCH();
    return GK_OK;
}

extern "C" int gk_gather(const void *d_recs, size_t size, const uint32_t *d_perm, size_t m,
                         void *d_out, gk_stream_t stream)
{
    if (m == 0)
        return GK_OK;
    cudaStream_t s = (cudaStream_t)stream;
    /* The widest unit that divides the size (the buffers are aligned to 256). */
    if (size % 16 == 0)
        return gk_gather_t<uint4>(d_recs, size, d_perm, m, d_out, s);
    if (size % 8 == 0)
        return gk_gather_t<uint64_t>(d_recs, size, d_perm, m, d_out, s);
    if (size % 4 == 0)
        return gk_gather_t<uint32_t>(d_recs, size, d_perm, m, d_out, s);
    if (size % 2 == 0)
        return gk_gather_t<uint16_t>(d_recs, size, d_perm, m, d_out, s);
    return gk_gather_t<unsigned char>(d_recs, size, d_perm, m, d_out, s);
}
