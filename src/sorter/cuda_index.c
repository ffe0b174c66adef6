/* SPDX-License-Identifier: MIT */
/* cuda_index.c: records' wide keys sorted with their indices on one device (see
 * cuda_impl.h, sorter.h's sorter_sort_index).
 *
 * Keys whose range leaves no room for a line number beside them in one word go to
 * the device as they are, 8 bytes each, through the staging buffers (their min and
 * max taken on the way); the device makes their indices, CUB sorts keys and indices
 * together (stable, so equal keys keep their order), and only the indices, 4 bytes
 * each, come back. The device's buffers hold a chunk of 8-byte keys and as many
 * again: a key, its index and their alternates take 24 bytes, so two thirds of a
 * chunk's keys fit.
 */
#include <config.h>

#include "core/error.h"
#include "core/stats.h"
#include "sorter/cuda_impl.h"

int cuda_index_on(gdev_t *g, const uint64_t *keys, uint32_t *perm, size_t n, int *done)
{
    *done = 0;
    size_t scratch;
    int gk = gk_index_scratch(n, &scratch);
    if (gk)
        return cuda_fail(g, gk);
    /* Keys, then indices, in d_keys; their alternates likewise in d_alt. */
    size_t alt = g->cap * (size_t)(g->bitonic ? 4 : 8);
    if (n * 12 > g->cap * 8 || n * 12 > alt || scratch > g->scratch_bytes)
        return GS_OK;
    double t0 = stats_now();
    uint64_t min, max;
    int rc = cuda_copy_in(g, (const char *)keys, n, 8, &min, &max);
    if (rc)
        return rc;
    if ((gk = gk_stream_sync(g->stream[0])) || (gk = gk_stream_sync(g->stream[1])))
        return cuda_fail(g, gk);
    double t1 = stats_now();
    void *res;
    char *d_vals = (char *)g->d_keys + n * 8, *d_vals_alt = (char *)g->d_alt + n * 8;
    /* Sorted up to max's top bit; rebasing by min would save no digit pass on keys
     * this wide (their range has no room for an index beside it). */
    (void)min;
    int end_bit = max ? 64 - __builtin_clzll(max) : 0;
    if ((gk = gk_sort_index(g->d_keys, g->d_alt, d_vals, d_vals_alt, n, end_bit, g->d_scratch,
                            g->scratch_bytes, &res, g->stream[0])) ||
        (gk = gk_stream_sync(g->stream[0])))
        return cuda_fail(g, gk);
    double t2 = stats_now();
    if ((rc = cuda_copy_out(g, res, (char *)perm, n, 4)))
        return rc;
    double t3 = stats_now();
    g->bytes_in += n * 8ull;
    g->bytes_out += n * 4ull;
    g->xfer_s += (t1 - t0) + (t3 - t2);
    g->sort_s += t2 - t1;
    stats_add(ST_TRANSFER, n * 12ull, (t1 - t0) + (t3 - t2));
    *done = 1;
    return GS_OK;
}
