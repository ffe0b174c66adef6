/* pmerge.c: the parallel merge of sorted runs by key range (see pmerge.h).
 *
 * Pieces: keys in [split[j-1], split[j]), the first from 0 and the last to the end.
 * Repeats of a key never straddle two pieces, so -u is done inside each piece. The
 * turn counter says which piece may deliver; a thread whose buffer fills before its
 * turn waits, so memory stays bounded and the thread holding the turn never waits.
 * Placed (pmerge.h), piece p fills bytes [off[p], off[p + 1]) of the sink's room.
 */
#include <config.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/keys.h"
#include "merge/pmerge.h"
#include "core/stats.h"

/* Keys merged between two prepare() calls. */
#define PM_BATCH (16u << 10)
/* Bytes the thread holding the turn delivers at a time: written while still in the
 * cache, they cost write(2) a fraction of what 16 MB at a time did. */
#define PM_STREAM ((size_t)512 << 10)
/* The most bytes one thread holds before its turn. */
#define PM_HOLD_MAX ((size_t)256 << 20)
/* Placed, the most keys a piece takes: with nothing held, pieces need not fit a
 * thread's hold, and larger ones cost less: 100M i64 keys of text on the H100
 * machine's 16 threads merged in 0.46-0.49 s in pieces of 1.6 Mi keys (a quarter
 * of a thread's share), 0.66-0.71 s in pieces of 0.8 Mi (those of the hold); on
 * the 2-core VM pieces of 12.5 Mi keys (a quarter of a share) left threads idle at
 * the end, where 3 to 6 Mi did not. */
#define PM_PLACED_PIECE_MAX ((size_t)4 << 20)
/* Samples taken from each run to choose splitters. */
#define PM_SAMPLES 4096
/* Up to this many runs a thread merges through a tree of two-way merges (pm_tree);
 * past it, through the loser tree (pm_merge). */
#define PM_TREE_MAX 16
/* Keys each inner node of that tree holds: 8 KiB of u64, the tree in a core's cache. */
#define PM_NODE_KEYS 1024

typedef struct {
    run_t **runs;
    int nruns, width, unique;
    const pmerge_sink_t *sink;
    uint64_t *split;         /* [npieces - 1] splitter keys, ascending, distinct */
    size_t npieces;
    size_t hold;             /* bytes a thread may hold before its turn */
    size_t next;             /* the next piece to take (atomic) */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    size_t turn;             /* the piece that may deliver */
    int failed;              /* 1: stop; the first error is in rc */
    int rc;
    char *base;              /* placed: the sink's room, else NULL */
    uint64_t *off;           /* placed: [npieces + 1] where each piece's bytes start */
} pm_job_t;

/* A source whose runs are done holds this key; a u64 key of this value is told
 * apart by done[]. */
#define PM_SENT UINT64_MAX

/* One thread's state. Each source (run) is read through its cursor, one batch at a
 * time, the batch cut at the piece's upper bound; cur[i] points at its head key.
 * The loser tree keeps keys in its nodes (node j: lkey[j], lsrc[j]; leaves k..2k-1
 * are the sources), so a replay reads no source's memory. */
typedef struct {
    pm_job_t *j;
    run_cursor_t **cur_run;  /* [nruns] */
    const char **cur, **end; /* [nruns] head key, and the end of its batch */
    unsigned char *last;     /* [nruns] 1: the batch is the source's last */
    unsigned char *done;     /* [nruns] 1: the source is exhausted (key PM_SENT) */
    uint64_t *lkey;          /* [nruns] losers' keys; [0] unused */
    int *lsrc;               /* [nruns] losers' sources */
    uint64_t *win;           /* [2 * nruns] scratch for building the tree */
    void *batch;             /* PM_BATCH keys */
    size_t nb;
    char *out;               /* prepared bytes waiting for the turn */
    size_t outlen, outcap;
    int have_last;           /* -u: a key was kept in this piece */
    uint64_t last_key;
    char *at, *pend;         /* placed: where the piece's next bytes go, its end, */
    char *released;          /* and its pages let go up to here */
    /* the tree of two-way merges (pm_tree): nodes 1..K-1 inner, K..2K-1 the sources
     * (K: nruns rounded up to a power of two, at least 2) */
    int K;
    const char **hd, **tl;   /* [2K] each node's keys at hand: [hd, tl) */
    unsigned char *fin;      /* [2K] 1: the node has no keys beyond those at hand */
    char *nodes;             /* [K][PM_NODE_KEYS] inner nodes' buffers */
} pm_thread_t;

size_t pmerge_cursor_bytes(int nruns, int width)
{
    return (size_t)nruns * run_cursor_bytes(width);
}

static void pm_fail(pm_job_t *j, int rc)
{
    pthread_mutex_lock(&j->lock);
    if (!j->failed) {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELEASE);
        j->rc = rc;
    }
    pthread_cond_broadcast(&j->cond);
    pthread_mutex_unlock(&j->lock);
}

/* Wait for piece p's turn; 0, or -1 if the merge failed. */
static int pm_wait_turn(pm_job_t *j, size_t p)
{
    pthread_mutex_lock(&j->lock);
    while (j->turn != p && !j->failed)
        pthread_cond_wait(&j->cond, &j->lock);
    int failed = j->failed;
    pthread_mutex_unlock(&j->lock);
    return failed ? -1 : 0;
}

/* Deliver what the thread holds (it has the turn). */
static int pm_deliver(pm_thread_t *t)
{
    if (t->outlen == 0)
        return GS_OK;
    const pmerge_sink_t *s = t->j->sink;
    int rc = s->deliver(s->self, t->out, t->outlen);
    t->outlen = 0;
    return rc;
}

/* Prepare the batch into the thread's buffer; deliver if it holds the turn, or wait
 * for the turn when the buffer is full. */
static int pm_flush(pm_thread_t *t, size_t p)
{
    pm_job_t *j = t->j;
    size_t w = (size_t)j->width, n = t->nb;
    t->nb = 0;
    if (n == 0)
        return GS_OK;
    stats_note_merge(n, 0);
    if (j->unique) {
        size_t o = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t k = key_get(t->batch, i, j->width);
            if (t->have_last && k == t->last_key)
                continue;
            t->last_key = k;
            t->have_last = 1;
            if (w == 4)
                ((uint32_t *)t->batch)[o++] = (uint32_t)k;
            else
                ((uint64_t *)t->batch)[o++] = k;
        }
        n = o;
    }
    if (j->base)
        return j->sink->place->fill(j->sink->self, t->batch, n, &t->at, t->pend, &t->released);
    size_t need = n * j->sink->max_bytes;
    if (t->outlen + need > t->outcap) {
        /* Full: wait for the turn and hand the bytes on. */
        if (pm_wait_turn(j, p))
            return GS_EIO;
        int rc = pm_deliver(t);
        if (rc)
            return rc;
    }
    if (j->sink->prepare) {
        t->outlen += j->sink->prepare(j->sink->self, t->batch, n, t->out + t->outlen);
    } else {
        memcpy(t->out + t->outlen, t->batch, n * w);
        t->outlen += n * w;
    }
    if (__atomic_load_n(&j->turn, __ATOMIC_ACQUIRE) == p &&
        (t->outlen >= PM_STREAM || t->outlen >= t->outcap / 2))
        /* our turn: stream, while the bytes are still in the cache */
        return pm_deliver(t);
    return GS_OK;
}

/* Source i's next batch (cut at hi when has_hi): *key its first key, or PM_SENT
 * and done[i] when the source has no more keys below hi. */
static int pm_refill(pm_thread_t *t, int i, int has_hi, uint64_t hi, uint64_t *key)
{
    int width = t->j->width;
    for (;;) {
        const void *keys;
        size_t n = 0;
        if (!t->last[i]) {
            int rc = run_cursor_next(t->cur_run[i], &keys, &n);
            if (rc)
                return rc;
        }
        if (n == 0) {
            t->done[i] = 1;
            *key = PM_SENT;
            return GS_OK;
        }
        if (has_hi) {
            size_t m = key_lower_bound(keys, n, width, hi);
            if (m < n) {
                n = m;
                t->last[i] = 1;
            }
        }
        if (n > 0) {
            t->cur[i] = keys;
            t->end[i] = (const char *)keys + n * (size_t)width;
            *key = key_get(keys, 0, width);
            return GS_OK;
        }
    }
}

/* Append key to the batch, flushing it when full. */
static int pm_emit(pm_thread_t *t, size_t p, uint64_t key)
{
    if (t->j->width == 4)
        ((uint32_t *)t->batch)[t->nb++] = (uint32_t)key;
    else
        ((uint64_t *)t->batch)[t->nb++] = key;
    return t->nb == PM_BATCH ? pm_flush(t, p) : GS_OK;
}

/* The winner is a done source, but u64 sources may still hold keys equal to
 * PM_SENT (the largest key), which tie with it: emit them all. */
static int pm_drain_max(pm_thread_t *t, size_t p, int has_hi, uint64_t hi)
{
    int rc = GS_OK;
    for (int i = 0; i < t->j->nruns && rc == GS_OK; i++) {
        while (!t->done[i] && rc == GS_OK) {
            for (const char *c = t->cur[i]; c < t->end[i] && rc == GS_OK; c += 8)
                rc = pm_emit(t, p, *(const uint64_t *)c);
            uint64_t k;
            if (rc == GS_OK)
                rc = pm_refill(t, i, has_hi, hi, &k);
        }
    }
    return rc;
}

/* Merge the piece: the tight loop, for keys of width w (a constant where it is
 * called, so each width gets its own code). */
static inline __attribute__((always_inline)) int pm_merge(pm_thread_t *t, size_t p, int has_hi,
                                                          uint64_t hi, const int w)
{
    pm_job_t *j = t->j;
    const int k = j->nruns;
    uint64_t *lkey = t->lkey;
    int *lsrc = t->lsrc;
    /* Build: play every match bottom-up; win[] holds each node's winner. */
    uint64_t *win = t->win;
    for (int i = 0; i < k; i++)
        win[k + i] = (uint64_t)i;
    for (int node = k - 1; node >= 1; node--) {
        int a = (int)win[2 * node], b = (int)win[2 * node + 1];
        uint64_t ka = t->done[a] ? PM_SENT : (w == 4 ? *(const uint32_t *)t->cur[a]
                                                     : *(const uint64_t *)t->cur[a]);
        uint64_t kb = t->done[b] ? PM_SENT : (w == 4 ? *(const uint32_t *)t->cur[b]
                                                     : *(const uint64_t *)t->cur[b]);
        int bwins = kb < ka;
        win[node] = (uint64_t)(bwins ? b : a);
        lsrc[node] = bwins ? a : b;
        lkey[node] = bwins ? ka : kb;
    }
    int s = k > 1 ? (int)win[1] : 0;
    uint64_t key = t->done[s] ? PM_SENT : (w == 4 ? *(const uint32_t *)t->cur[s]
                                                  : *(const uint64_t *)t->cur[s]);
    int rc = GS_OK;
    size_t nb = t->nb;
    for (;;) {
        if (key == PM_SENT && t->done[s]) {
            t->nb = nb;
            if (w == 8)
                rc = pm_drain_max(t, p, has_hi, hi);
            return rc;
        }
        if (w == 4)
            ((uint32_t *)t->batch)[nb++] = (uint32_t)key;
        else
            ((uint64_t *)t->batch)[nb++] = key;
        if (nb == PM_BATCH) {
            t->nb = nb;
            rc = pm_flush(t, p);
            nb = t->nb;
            if (rc || __atomic_load_n(&j->failed, __ATOMIC_ACQUIRE))
                return rc;
        }
        const char *c = t->cur[s] + w;
        if (c < t->end[s]) {
            t->cur[s] = c;
            key = w == 4 ? *(const uint32_t *)c : *(const uint64_t *)c;
        } else if ((rc = pm_refill(t, s, has_hi, hi, &key)) != GS_OK) {
            t->nb = nb;
            return rc;
        }
        /* Replay from s's leaf to the root, without branches. */
        for (int node = (s + k) >> 1; node > 0; node >>= 1) {
            uint64_t lk = lkey[node];
            int ls = lsrc[node];
            int up = lk < key;
            lkey[node] = up ? key : lk;
            lsrc[node] = up ? s : ls;
            key = up ? lk : key;
            s = up ? ls : s;
        }
    }
}

/* ---- the tree of two-way merges (up to PM_TREE_MAX runs) --------------------------
 *
 * The loser tree's replay is one chain of dependent loads and compares per key, a
 * level at a time; a two-way merge's step is a compare and two pointer moves. So for
 * few runs, each inner node of a binary tree merges its two children's keys into a
 * buffer of its own, a stretch at a time, and the root merges into the batch: every
 * step of every stretch branch-free and sure of its bounds (no sentinel keys). On the
 * 2-core VM, 100M u32 keys of text at -S 256M (4 runs): the merging itself took 0.68
 * s of CPU against the loser tree's 1.24 (perf), the merge phase 1.12-1.40 s against
 * 1.33-1.65 (tests/bench/RESULTS.md, issue 3, twelfth session). */

static int pt_more(pm_thread_t *t, int v, int has_hi, uint64_t hi, int w);

/* Merge node v's two children into [o, oe) until it is full or both are finished;
 * *end: the end of the keys merged. */
static inline __attribute__((always_inline)) int pt_merge2(pm_thread_t *t, int v, char *o,
                                                           char *oe, char **end, int has_hi,
                                                           uint64_t hi, const int w)
{
    const int a = 2 * v, b = 2 * v + 1;
    const char **hd = t->hd, **tl = t->tl;
    int rc = GS_OK;
    while (o < oe) {
        if (hd[a] == tl[a] && !t->fin[a] && (rc = pt_more(t, a, has_hi, hi, w)) != GS_OK)
            break;
        if (hd[b] == tl[b] && !t->fin[b] && (rc = pt_more(t, b, has_hi, hi, w)) != GS_OK)
            break;
        size_t na = (size_t)(tl[a] - hd[a]) / w, nb = (size_t)(tl[b] - hd[b]) / w;
        size_t room = (size_t)(oe - o) / w;
        if (na == 0 || nb == 0) {
            /* A child is finished (pt_more left it so): the other's keys as they are. */
            int c = na ? a : b;
            size_t m = na ? na : nb;
            if (m == 0)
                break;   /* both finished */
            if (m > room)
                m = room;
            memcpy(o, hd[c], m * w);
            hd[c] += m * w;
            o += m * w;
            continue;
        }
        /* m steps take m keys, none of them past either child's end. */
        size_t m = na < nb ? na : nb;
        if (m > room)
            m = room;
        const char *x = hd[a], *y = hd[b];
        for (size_t i = 0; i < m; i++) {
            uint64_t kx = key_get(x, 0, w), ky = key_get(y, 0, w);
            int ty = ky < kx;
            uint64_t key = ty ? ky : kx;
            if (w == 4)
                ((uint32_t *)o)[i] = (uint32_t)key;
            else
                ((uint64_t *)o)[i] = key;
            x += (size_t)!ty * w;
            y += (size_t)ty * w;
        }
        hd[a] = x;
        hd[b] = y;
        o += m * w;
    }
    *end = o;
    return rc;
}

/* Node v has no keys at hand and is not finished: a source takes its next batch,
 * an inner node merges its children into its buffer. Either has keys at hand after,
 * or is finished. */
static int pt_more(pm_thread_t *t, int v, int has_hi, uint64_t hi, int w)
{
    int rc;
    if (v >= t->K) {
        int i = v - t->K;
        uint64_t key;
        if ((rc = pm_refill(t, i, has_hi, hi, &key)) != GS_OK)
            return rc;
        if (t->done[i]) {
            t->hd[v] = t->tl[v] = NULL;
            t->fin[v] = 1;
        } else {
            t->hd[v] = t->cur[i];
            t->tl[v] = t->end[i];
        }
        return GS_OK;
    }
    char *buf = t->nodes + (size_t)v * PM_NODE_KEYS * (size_t)w, *end;
    char *full = buf + PM_NODE_KEYS * (size_t)w;
    rc = w == 4 ? pt_merge2(t, v, buf, full, &end, has_hi, hi, 4)
                : pt_merge2(t, v, buf, full, &end, has_hi, hi, 8);
    t->hd[v] = buf;
    t->tl[v] = end;
    t->fin[v] = end < full;   /* short only where both children are finished */
    return rc;
}

/* Merge the piece through the tree, into the batch, flushing it as it fills. */
static int pm_tree(pm_thread_t *t, size_t p, int has_hi, uint64_t hi, const int w)
{
    pm_job_t *j = t->j;
    for (int v = 1; v < t->K; v++) {
        t->hd[v] = t->tl[v] = NULL;
        t->fin[v] = 0;
    }
    for (int i = 0; i < t->K; i++) {
        int live = i < j->nruns && !t->done[i];
        t->hd[t->K + i] = live ? t->cur[i] : NULL;
        t->tl[t->K + i] = live ? t->end[i] : NULL;
        t->fin[t->K + i] = !live;
    }
    char *batch = t->batch, *full = batch + PM_BATCH * (size_t)w;
    for (;;) {
        char *end;
        int rc = pt_merge2(t, 1, batch + t->nb * (size_t)w, full, &end, has_hi, hi, w);
        t->nb = (size_t)(end - batch) / (size_t)w;
        if (rc || end < full)
            return rc;   /* finished, or failed */
        if ((rc = pm_flush(t, p)) != GS_OK || __atomic_load_n(&j->failed, __ATOMIC_ACQUIRE))
            return rc;
    }
}

static int pm_piece(pm_thread_t *t, size_t p)
{
    pm_job_t *j = t->j;
    int k = j->nruns, rc = GS_OK;
    uint64_t lo = p > 0 ? j->split[p - 1] : 0;
    int has_hi = p + 1 < j->npieces;
    uint64_t hi = has_hi ? j->split[p] : 0;
    t->have_last = 0;
    for (int i = 0; i < k; i++) {
        t->cur_run[i] = NULL;
        t->done[i] = t->last[i] = 0;
    }
    for (int i = 0; i < k && rc == GS_OK; i++) {
        uint64_t first;
        rc = run_cursor_open(&t->cur_run[i], j->runs[i], lo);
        if (rc == GS_OK)
            rc = pm_refill(t, i, has_hi, hi, &first);
    }
    if (j->base) {
        t->at = t->released = j->base + j->off[p];
        t->pend = j->base + j->off[p + 1];
    }
    if (rc == GS_OK && t->K)
        rc = j->width == 4 ? pm_tree(t, p, has_hi, hi, 4) : pm_tree(t, p, has_hi, hi, 8);
    else if (rc == GS_OK)
        rc = j->width == 4 ? pm_merge(t, p, has_hi, hi, 4) : pm_merge(t, p, has_hi, hi, 8);
    int failed = __atomic_load_n(&j->failed, __ATOMIC_ACQUIRE);
    if (rc == GS_OK && !failed)
        rc = pm_flush(t, p);
    if (j->base) {
        if (rc == GS_OK && !failed && t->at != t->pend)
            rc = err_set(GS_EIO, "internal error: merged output shorter than laid out");
    } else {
        if (rc == GS_OK && pm_wait_turn(j, p))
            rc = GS_EIO;
        if (rc == GS_OK)
            rc = pm_deliver(t);
    }
    for (int i = 0; i < k; i++)
        run_cursor_close(t->cur_run[i]);
    if (rc == GS_OK && !j->base) {
        pthread_mutex_lock(&j->lock);
        __atomic_store_n(&j->turn, p + 1, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&j->cond);
        pthread_mutex_unlock(&j->lock);
    }
    return rc;
}

static void pm_worker(void *arg, int ti, int nt)
{
    (void)ti;
    (void)nt;
    pm_job_t *j = arg;
    pm_thread_t t = { .j = j };
    size_t k = (size_t)j->nruns;
    t.cur_run = calloc(k, sizeof *t.cur_run);
    t.cur = calloc(k, sizeof *t.cur);
    t.end = calloc(k, sizeof *t.end);
    t.last = calloc(k, 1);
    t.done = calloc(k, 1);
    t.lkey = calloc(k, sizeof *t.lkey);
    t.lsrc = calloc(k, sizeof *t.lsrc);
    t.win = calloc(2 * k, sizeof *t.win);
    t.batch = malloc(PM_BATCH * (size_t)j->width);
    t.outcap = j->base ? 0 : j->hold;   /* placed: nothing held */
    t.out = t.outcap ? malloc(t.outcap) : NULL;
    int tree_ok = 1;
    if (k <= PM_TREE_MAX) {
        for (t.K = 2; (size_t)t.K < k; t.K *= 2)
            ;
        t.hd = calloc(2 * (size_t)t.K, sizeof *t.hd);
        t.tl = calloc(2 * (size_t)t.K, sizeof *t.tl);
        t.fin = calloc(2 * (size_t)t.K, 1);
        t.nodes = malloc((size_t)t.K * PM_NODE_KEYS * (size_t)j->width);
        tree_ok = t.hd && t.tl && t.fin && t.nodes;
    }
    if (!t.cur_run || !t.cur || !t.end || !t.last || !t.done || !t.lkey || !t.lsrc ||
        !t.win || !t.batch || (t.outcap && !t.out) || !tree_ok) {
        pm_fail(j, err_set(GS_ENOMEM, "out of memory"));
    } else {
        for (;;) {
            size_t p = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
            if (p >= j->npieces || __atomic_load_n(&j->failed, __ATOMIC_ACQUIRE))
                break;
            int rc = pm_piece(&t, p);
            if (rc) {
                pm_fail(j, rc);
                break;
            }
        }
    }
    free(t.cur_run);
    free(t.cur);
    free(t.end);
    free(t.last);
    free(t.done);
    free(t.lkey);
    free(t.lsrc);
    free(t.win);
    free(t.batch);
    free(t.out);
    free(t.hd);
    free(t.tl);
    free(t.fin);
    free(t.nodes);
}

/* Order (key, weight) pairs by key. */
static int pm_cmp_pair(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Choose splitters so that pieces hold about piece_keys keys each: sort samples of
 * every run (each standing for a number of keys) and cut wherever the keys passed
 * reach piece_keys, at a key greater than the last cut. */
static int pm_split(pm_job_t *j, size_t piece_keys)
{
    size_t cap = (size_t)j->nruns * PM_SAMPLES + 1, m = 0;
    uint64_t *pairs = malloc(sizeof *pairs * 2 * cap);   /* key, weight, key, ... */
    uint64_t *val = malloc(sizeof *val * PM_SAMPLES);
    j->split = malloc(sizeof *j->split * cap);
    int rc = GS_OK;
    if (!pairs || !val || !j->split) {
        rc = err_set(GS_ENOMEM, "out of memory");
        goto out;
    }
    for (int r = 0; r < j->nruns; r++) {
        size_t weight, got = run_sample(j->runs[r], val, PM_SAMPLES, &weight);
        for (size_t i = 0; i < got; i++, m++) {
            pairs[2 * m] = val[i];
            pairs[2 * m + 1] = weight;
        }
    }
    qsort(pairs, m, 2 * sizeof *pairs, pm_cmp_pair);
    size_t acc = 0, ns = 0;
    for (size_t i = 0; i < m; i++) {
        uint64_t v = pairs[2 * i];
        if (acc >= piece_keys && v > 0 && (ns == 0 || v > j->split[ns - 1])) {
            j->split[ns++] = v;
            acc = 0;
        }
        acc += (size_t)pairs[2 * i + 1];
    }
    j->npieces = ns + 1;
out:
    free(pairs);
    free(val);
    return rc;
}

/* ---- the layout of a placed merge ------------------------------------------------- */

typedef struct {
    pm_job_t *j;
    uint64_t *below;         /* [nruns][npieces]: bytes of run r's keys below piece
                                p's upper bound (the last: all of run r's bytes) */
    int next;                /* the next run to measure (atomic) */
} pm_layout_t;

/* Measure runs, one at a time: ranks of the steps and of the splitters in the run
 * give the keys, hence the bytes, between each two. */
static void pm_layout_worker(void *arg, int ti, int nt)
{
    (void)ti;
    (void)nt;
    pm_layout_t *L = arg;
    pm_job_t *j = L->j;
    const pmerge_place_t *pl = j->sink->place;
    size_t m = pl->nsteps, np = j->npieces;
    size_t *rs = malloc(sizeof *rs * (m + 1));    /* ranks of the steps, then n */
    size_t *rx = malloc(sizeof *rx * np);         /* ranks of the splitters, then n */
    void *buffers = malloc(run_cursor_bytes(j->width));
    if (!rs || !rx || !buffers) {
        pm_fail(j, err_set(GS_ENOMEM, "out of memory"));
    } else {
        for (;;) {
            int r = __atomic_fetch_add(&L->next, 1, __ATOMIC_RELAXED);
            if (r >= j->nruns || __atomic_load_n(&j->failed, __ATOMIC_ACQUIRE))
                break;
            run_t *run = j->runs[r];
            size_t n = run_keys(run);
            int rc = run_ranks(run, pl->step_key, m, rs, buffers);
            if (rc == GS_OK)
                rc = run_ranks(run, j->split, np - 1, rx, buffers);
            if (rc) {
                pm_fail(j, rc);
                break;
            }
            rs[m] = n;
            rx[np - 1] = n;
            for (size_t p = 0; p < np; p++) {
                uint64_t bytes = 0;
                for (size_t i = 0; i < m && rs[i] < rx[p]; i++) {
                    size_t top = rs[i + 1] < rx[p] ? rs[i + 1] : rx[p];
                    bytes += (uint64_t)(top - rs[i]) * pl->step_len[i];
                }
                L->below[(size_t)r * np + p] = bytes;
            }
        }
    }
    free(rs);
    free(rx);
    free(buffers);
}

/* Lay the placed output out (j->off), and make room for it (j->base, or NULL where
 * the sink declines). *total: its bytes. */
static int pm_layout(pm_job_t *j, pool_t *pool, uint64_t *total)
{
    size_t np = j->npieces;
    pm_layout_t L = { .j = j };
    L.below = calloc((size_t)j->nruns * np, sizeof *L.below);
    j->off = calloc(np + 1, sizeof *j->off);
    if (!L.below || !j->off) {
        free(L.below);
        return err_set(GS_ENOMEM, "out of memory");
    }
    pool_run(pool, pm_layout_worker, &L);
    for (size_t p = 0; p < np; p++) {
        uint64_t below = 0;
        for (int r = 0; r < j->nruns; r++)
            below += L.below[(size_t)r * np + p];
        j->off[p + 1] = below;
    }
    free(L.below);
    if (j->failed)
        return j->rc;
    *total = j->off[np];
    return j->sink->place->begin(j->sink->self, *total, &j->base);
}

int pmerge_runs(run_t **runs, int nruns, int width, int unique, pool_t *pool,
                size_t budget, const pmerge_sink_t *sink)
{
    double t0 = stats_now();
    int threads = pool_size(pool);
    pm_job_t j = { .runs = runs, .nruns = nruns, .width = width, .unique = unique,
                   .sink = sink };
    uint64_t total = 0;
    for (int r = 0; r < nruns; r++)
        total += run_keys(runs[r]);
    /* What each thread may hold: the budget left after cursors, shared out; at least
     * a few batches. Pieces: a few per thread, each fitting what a thread holds. */
    size_t cursors = (size_t)threads * pmerge_cursor_bytes(nruns, width);
    size_t left = budget > cursors ? budget - cursors : 0;
    j.hold = left / (size_t)threads;
    if (j.hold > PM_HOLD_MAX)   /* a huge -S must not mean huge allocations */
        j.hold = PM_HOLD_MAX;
    if (j.hold < 4 * PM_BATCH * sink->max_bytes)
        j.hold = 4 * PM_BATCH * sink->max_bytes;
    int placing = sink->place && !unique;
    size_t piece_keys = (size_t)(total / ((uint64_t)threads * 4) + 1);
    size_t most = placing ? PM_PLACED_PIECE_MAX : j.hold / sink->max_bytes;
    if (piece_keys > most)
        piece_keys = most;
    int rc = pm_split(&j, piece_keys);
    uint64_t placed = 0;
    if (rc == GS_OK && placing)
        rc = pm_layout(&j, pool, &placed);
    if (rc) {
        free(j.split);
        free(j.off);
        return rc;
    }
    stats_note_merge(0, total);
    pthread_mutex_init(&j.lock, NULL);
    pthread_cond_init(&j.cond, NULL);
    pool_run(pool, pm_worker, &j);
    pthread_mutex_destroy(&j.lock);
    pthread_cond_destroy(&j.cond);
    rc = j.failed ? j.rc : GS_OK;
    if (j.base) {
        int erc = sink->place->end(sink->self, j.base, placed, rc == GS_OK);
        if (rc == GS_OK)
            rc = erc;
    }
    free(j.split);
    free(j.off);
    stats_add(ST_MERGE, total * (uint64_t)width, stats_now() - t0);
    return rc;
}
