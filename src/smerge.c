/* smerge.c: the merge by sorting key ranges (see smerge.h). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "keys.h"
#include "mem.h"
#include "smerge.h"
#include "stats.h"

/* Pieces are never made smaller than this many keys (unless the input is). */
#define SM_MIN_PIECE ((size_t)1 << 16)

/* Keys below v still to take: the sum over runs of lower_bound(v) - pos. */
static size_t sm_count_below(const void *const *keys, const size_t *n, int nruns, int width,
                             const size_t *pos, uint64_t v)
{
    size_t c = 0, w = (size_t)width;
    for (int r = 0; r < nruns; r++)
        c += key_lower_bound((const char *)keys[r] + pos[r] * w, n[r] - pos[r], width, v);
    return c;
}

size_t smerge_cut(const void *const *keys, const size_t *n, int nruns, int width,
                  const size_t *pos, size_t cap, size_t *end, int *same)
{
    size_t left = 0, w = (size_t)width;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int r = 0; r < nruns; r++) {
        end[r] = pos[r];
        if (pos[r] == n[r])
            continue;
        left += n[r] - pos[r];
        uint64_t a = key_get(keys[r], pos[r], width), b = key_get(keys[r], n[r] - 1, width);
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    *same = 0;
    if (left <= cap) {
        for (int r = 0; r < nruns; r++)
            end[r] = n[r];
        return left;
    }
    if (lo == UINT64_MAX || sm_count_below(keys, n, nruns, width, pos, lo + 1) > cap) {
        /* The smallest value alone fills the piece: take cap of its copies. */
        size_t need = cap;
        for (int r = 0; r < nruns && need > 0; r++) {
            const char *k = (const char *)keys[r] + pos[r] * w;
            size_t m = n[r] - pos[r];
            size_t copies = lo == UINT64_MAX ? m : key_lower_bound(k, m, width, lo + 1);
            if (copies > 0 && key_get(k, 0, width) != lo)
                copies = 0;
            copies = copies < need ? copies : need;
            end[r] = pos[r] + copies;
            need -= copies;
        }
        *same = 1;
        return cap - need;
    }
    /* The largest cut v with at most cap keys below it: count(lo + 1) <= cap and
     * count(hi + 1) = left > cap, so v lies in [lo + 1, hi]. */
    uint64_t a = lo + 1, b = hi;
    while (a < b) {
        uint64_t m = a + (b - a + 1) / 2;
        if (sm_count_below(keys, n, nruns, width, pos, m) <= cap)
            a = m;
        else
            b = m - 1;
    }
    size_t taken = 0;
    for (int r = 0; r < nruns; r++) {
        end[r] = pos[r] + key_lower_bound((const char *)keys[r] + pos[r] * w, n[r] - pos[r],
                                          width, a);
        taken += end[r] - pos[r];
    }
    return taken;
}

/* Gathering a piece: the segments of every run, copied into one buffer by the
 * pool's threads, each taking an equal share of the bytes. */
typedef struct {
    const char **src;        /* [nseg] */
    const size_t *len;       /* [nseg] bytes */
    int nseg;
    size_t total;
    char *dst;
    size_t unit;             /* shares are whole keys */
} gather_job_t;

static void sm_gather_share(void *arg, int t, int nt)
{
    gather_job_t *j = arg;
    size_t keys = j->total / j->unit;
    size_t a = keys * (size_t)t / (size_t)nt * j->unit;
    size_t b = keys * (size_t)(t + 1) / (size_t)nt * j->unit;
    size_t off = 0;
    for (int s = 0; s < j->nseg && off < b; s++) {
        size_t s0 = off, s1 = off + j->len[s];
        off = s1;
        size_t lo = a > s0 ? a : s0, hi = b < s1 ? b : s1;
        if (lo < hi)
            memcpy(j->dst + lo, j->src[s] + (lo - s0), hi - lo);
    }
}

typedef struct {
    const void **keys;       /* [nruns] each run's keys */
    size_t *n, *pos, *end;   /* [nruns] */
    const char **src;        /* [nruns] gather segments */
    size_t *len;             /* [nruns] */
} sm_state_t;

static void sm_state_free(sm_state_t *st)
{
    free(st->keys);
    free(st->n);
    free(st->pos);
    free(st->end);
    free(st->src);
    free(st->len);
}

static int sm_state_init(sm_state_t *st, run_t **runs, int nruns)
{
    size_t k = (size_t)nruns;
    st->keys = calloc(k, sizeof *st->keys);
    st->n = calloc(k, sizeof *st->n);
    st->pos = calloc(k, sizeof *st->pos);
    st->end = calloc(k, sizeof *st->end);
    st->src = calloc(k, sizeof *st->src);
    st->len = calloc(k, sizeof *st->len);
    if (!st->keys || !st->n || !st->pos || !st->end || !st->src || !st->len)
        return err_set(GS_ENOMEM, "out of memory");
    for (int r = 0; r < nruns; r++) {
        st->keys[r] = run_memory_keys(runs[r]);
        st->n[r] = run_keys(runs[r]);
        if (!st->keys[r])
            st->n[r] = 0;   /* an empty run; spilled runs are not taken here */
    }
    return GS_OK;
}

/* Gather the piece [pos, end) of every run into buf. */
static void sm_gather(sm_state_t *st, int nruns, int width, char *buf, pool_t *pool)
{
    size_t w = (size_t)width;
    gather_job_t j = { .src = st->src, .len = st->len, .dst = buf, .unit = w };
    for (int r = 0; r < nruns; r++) {
        if (st->end[r] == st->pos[r])
            continue;
        st->src[j.nseg] = (const char *)st->keys[r] + st->pos[r] * w;
        st->len[j.nseg] = (st->end[r] - st->pos[r]) * w;
        j.total += st->len[j.nseg++];
    }
    if (j.total >= ((size_t)4 << 20) && pool_size(pool) > 1)
        pool_run(pool, sm_gather_share, &j);
    else
        sm_gather_share(&j, 0, 1);
}

int smerge_runs(run_t **runs, int nruns, int width, int unique, sorter_t *sorter,
                pool_t *pool, size_t budget, output_t *out)
{
    double t0 = stats_now(), out_s = 0;
    size_t w = (size_t)width, total = 0;
    for (int r = 0; r < nruns; r++)
        total += run_keys(runs[r]);
    size_t cap = budget / (2 * w);
    if (sorter->max_keys && cap > sorter->max_keys)
        cap = sorter->max_keys;
    if (cap < SM_MIN_PIECE)
        cap = SM_MIN_PIECE;
    if (cap > total)
        cap = total > 0 ? total : 1;
    sm_state_t st = { 0 };
    char *buf = NULL, *scratch = NULL;
    int rc = sm_state_init(&st, runs, nruns);
    if (rc == GS_OK) {
        buf = mem_alloc(cap * w);
        scratch = mem_alloc(cap * w);
        if (!buf || !scratch)
            rc = err_set(GS_ENOMEM, "out of memory");
    }
    stats_note_merge(0, total);
    int have_last = 0;
    uint64_t last = 0;
    for (size_t done = 0; rc == GS_OK && done < total;) {
        int same;
        size_t m = smerge_cut(st.keys, st.n, nruns, width, st.pos, cap, st.end, &same);
        sm_gather(&st, nruns, width, buf, pool);
        memcpy(st.pos, st.end, sizeof *st.pos * (size_t)nruns);
        done += m;
        void *sorted = buf;
        if (!same && m > 1)
            rc = sorter->sort(sorter, buf, scratch, m, width, &sorted);
        if (rc)
            break;
        size_t skip = 0, keep = m;
        if (unique) {
            keep = same ? 1 : key_unique(sorted, m, width);
            if (have_last && key_get(sorted, 0, width) == last)
                skip = 1;
            last = key_get(sorted, keep - 1, width);
            have_last = 1;
        }
        stats_note_merge(m, 0);
        double t1 = stats_now();
        rc = output_write(out, (const char *)sorted + skip * w, keep - skip);
        out_s += stats_now() - t1;
    }
    free(buf);
    free(scratch);
    sm_state_free(&st);
    stats_add(ST_MERGE, total * (uint64_t)w, stats_now() - t0 - out_s);
    return rc;
}
