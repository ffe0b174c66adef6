/* SPDX-License-Identifier: MIT */
/* smerge_cut.c: the cut of the next piece of a merge by sorting (see smerge.h): the
 * largest key such that the keys below it, still to take in every run, fill the
 * piece, found by binary search on the key with ranks in the runs (runs.h): memory
 * runs directly, spilled runs one decoded block at a time.
 */
#include <config.h>

#include <stdlib.h>

#include "core/keys.h"
#include "pipeline/smerge_impl.h"

/* Key i of run r. */
static uint64_t sm_key(sm_view_t *v, int r, size_t i)
{
    if (!v->runs)
        return key_get(v->keys[r], i, v->width);
    const void *mem = run_memory_keys(v->runs[r]);
    if (mem)
        return key_get(mem, i, v->width);
    uint64_t k;   /* aligned: a one-key block is decoded straight into it */
    int rc = run_copy_keys(v->runs[r], i, 1, &k, v->buffers);
    if (rc && !v->rc)
        v->rc = rc;
    return rc ? 0 : key_get(&k, 0, v->width);
}

/* The first index at or after pos of run r whose key is >= x. */
static size_t sm_rank(sm_view_t *v, int r, size_t pos, uint64_t x)
{
    size_t w = (size_t)v->width;
    const void *mem = v->runs ? run_memory_keys(v->runs[r]) : v->keys[r];
    if (mem)
        return pos + key_lower_bound((const char *)mem + pos * w, v->n[r] - pos, v->width, x);
    if (x > v->last[r])
        return v->n[r];   /* past the run's last key: no block to read */
    if (x <= v->head[r])
        return pos;       /* not past its first key still to take: none either */
    size_t idx;
    int rc = run_rank(v->runs[r], x, &idx, v->buffers);
    if (rc && !v->rc)
        v->rc = rc;
    return rc || idx < pos ? pos : idx;
}

/* Keys below x still to take: the sum over runs of rank(x) - pos. */
static size_t sm_count_below(sm_view_t *v, int nruns, const size_t *pos, uint64_t x)
{
    size_t c = 0;
    for (int r = 0; r < nruns; r++)
        if (pos[r] < v->n[r])
            c += sm_rank(v, r, pos[r], x) - pos[r];
    return c;
}

size_t sm_cut(sm_view_t *v, int nruns, const size_t *pos, size_t cap, size_t *end,
              int *same)
{
    const size_t *n = v->n;
    size_t left = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int r = 0; r < nruns; r++) {
        end[r] = pos[r];
        if (pos[r] == n[r])
            continue;
        left += n[r] - pos[r];
        uint64_t a = sm_key(v, r, pos[r]), b = v->last[r];
        v->head[r] = a;
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    *same = 0;
    if (left <= cap) {
        for (int r = 0; r < nruns; r++)
            end[r] = n[r];
        return left;
    }
    if (lo == UINT64_MAX || sm_count_below(v, nruns, pos, lo + 1) > cap) {
        /* The smallest value alone fills the piece: take cap of its copies. */
        size_t need = cap;
        for (int r = 0; r < nruns && need > 0; r++) {
            if (pos[r] == n[r])
                continue;
            size_t copies = lo == UINT64_MAX ? n[r] - pos[r]
                                             : sm_rank(v, r, pos[r], lo + 1) - pos[r];
            if (copies > 0 && sm_key(v, r, pos[r]) != lo)
                copies = 0;
            copies = copies < need ? copies : need;
            end[r] = pos[r] + copies;
            need -= copies;
        }
        *same = 1;
        return cap - need;
    }
    /* The largest cut x with at most cap keys below it: count(lo + 1) <= cap and
     * count(hi + 1) = left > cap, so x lies in [lo + 1, hi]. */
    uint64_t a = lo + 1, b = hi;
    while (a < b && !v->rc) {
        uint64_t m = a + (b - a + 1) / 2;
        if (sm_count_below(v, nruns, pos, m) <= cap)
            a = m;
        else
            b = m - 1;
    }
    size_t taken = 0;
    for (int r = 0; r < nruns; r++) {
        if (pos[r] < n[r])
            end[r] = sm_rank(v, r, pos[r], a);
        taken += end[r] - pos[r];
    }
    return taken;
}

size_t smerge_cut(const void *const *keys, const size_t *n, int nruns, int width,
                  const size_t *pos, size_t cap, size_t *end, int *same)
{
    uint64_t *last = malloc(sizeof *last * 2 * (size_t)(nruns > 0 ? nruns : 1));
    if (!last)
        abort();   /* a test helper: no way to report it */
    for (int r = 0; r < nruns; r++)
        last[r] = n[r] ? key_get(keys[r], n[r] - 1, width) : 0;
    sm_view_t v = { .keys = keys, .n = n, .last = last, .head = last + nruns, .width = width };
    size_t taken = sm_cut(&v, nruns, pos, cap, end, same);
    free(last);
    return taken;
}
