/* SPDX-License-Identifier: MIT */
/* smerge.c: the merge by sorting key ranges (see smerge.h).
 *
 * Each piece is cut (smerge_cut.c), then gathered by the pool's threads, task by
 * task, spilled blocks decoded straight into the piece; the chunk sorter sorts it;
 * and, for binary output, a job writes it while the next piece is gathered and
 * sorted in the other two of three buffers. A sorter that sorts aside into pinned
 * memory (a GPU) sorts each piece while the next is gathered, in a buffer more.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/job.h"
#include "core/keys.h"
#include "core/mem.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "pipeline/smerge_impl.h"

/* Gathering a piece: tasks of at most SM_TASK_KEYS keys of one run each, taken in
 * turn by the pool's threads; a spilled run's are whole blocks where they can be,
 * decoded by each thread through block buffers of its own. */
typedef struct {
    int r;
    size_t from, n;          /* keys [from, from + n) of run r */
    size_t at;               /* where they go in the piece, in keys */
} sm_task_t;

typedef struct {
    run_t **runs;
    const sm_task_t *tasks;
    size_t ntasks;
    size_t next;             /* the next task to take (atomic) */
    char *dst;
    size_t width;
    char *buffers;           /* [threads] run_cursor_bytes each */
    size_t per;              /* bytes of one thread's buffers */
    int rc;                  /* the first error */
} gather_job_t;

static void sm_gather_share(void *arg, int t, int nt)
{
    (void)nt;
    gather_job_t *j = arg;
    for (;;) {
        size_t i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (i >= j->ntasks || __atomic_load_n(&j->rc, __ATOMIC_RELAXED))
            return;
        const sm_task_t *k = &j->tasks[i];
        int rc = run_copy_keys(j->runs[k->r], k->from, k->n, j->dst + k->at * j->width,
                               j->buffers + (size_t)t * j->per);
        if (rc) {
            int none = 0;
            __atomic_compare_exchange_n(&j->rc, &none, rc, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED);
            return;
        }
    }
}

typedef struct {
    run_t **runs;
    size_t *n, *pos, *end;   /* [nruns] */
    uint64_t *last, *head;   /* [nruns] */
    sm_task_t *tasks;
    size_t cap_tasks;
    char *buffers;           /* [threads + 1] block buffers: the pool's, then the cut's */
    size_t per;
} sm_state_t;

static void sm_state_free(sm_state_t *st)
{
    free(st->n);
    free(st->pos);
    free(st->end);
    free(st->last);
    free(st->head);
    free(st->tasks);
    free(st->buffers);
}

static int sm_state_init(sm_state_t *st, run_t **runs, int nruns, int width, int threads,
                         size_t cap)
{
    size_t k = (size_t)nruns;
    st->runs = runs;
    st->n = calloc(k, sizeof *st->n);
    st->pos = calloc(k, sizeof *st->pos);
    st->end = calloc(k, sizeof *st->end);
    st->last = calloc(k, sizeof *st->last);
    st->head = calloc(k, sizeof *st->head);
    st->cap_tasks = cap / SM_TASK_KEYS + 2 * k + 1;   /* a piece's tasks, at most */
    st->tasks = malloc(sizeof *st->tasks * st->cap_tasks);
    st->per = (run_cursor_bytes(width) + 63) & ~(size_t)63;   /* each one's keys aligned */
    st->buffers = malloc(st->per * (size_t)(threads + 1));
    if (!st->n || !st->pos || !st->end || !st->last || !st->head || !st->tasks ||
        !st->buffers)
        return err_set(GS_ENOMEM, "out of memory");
    for (int r = 0; r < nruns; r++) {
        st->n[r] = run_keys(runs[r]);
        if (st->n[r] == 0)
            continue;
        uint64_t key;   /* aligned, as in sm_key() */
        int rc = run_copy_keys(runs[r], st->n[r] - 1, 1, &key, st->buffers);
        if (rc)
            return rc;
        st->last[r] = key_get(&key, 0, width);
    }
    return GS_OK;
}

/* Gather the piece [pos, end) of every run into buf. */
static int sm_gather(sm_state_t *st, int nruns, int width, char *buf, pool_t *pool)
{
    gather_job_t j = { .runs = st->runs, .tasks = st->tasks, .dst = buf, .width = (size_t)width,
                       .buffers = st->buffers, .per = st->per };
    size_t at = 0, nt = 0;
    for (int r = 0; r < nruns; r++) {
        for (size_t from = st->pos[r]; from < st->end[r];) {
            /* Tasks end on block boundaries, so that blocks are decoded once. */
            size_t to = (from / SM_TASK_KEYS + 1) * SM_TASK_KEYS;
            if (to > st->end[r])
                to = st->end[r];
            st->tasks[nt++] = (sm_task_t){ r, from, to - from, at };
            at += to - from;
            from = to;
        }
    }
    j.ntasks = nt;
    if (nt > 1 && pool_size(pool) > 1)
        pool_run(pool, sm_gather_share, &j);
    else
        sm_gather_share(&j, 0, 1);
    return j.rc;
}

/* The merge loop's buffers and the state of what it writes. */
typedef struct {
    output_t *out;
    output_hands_t hands;    /* how out takes the pieces */
    double wait_s;           /* seconds the merge spent handing them over */
    char *buf[5];
    int pinned[5];           /* 1: buf[i] is pinned (lent, or by us) */
    int lent[5];             /* 1: buf[i] is lent (not ours to unpin or free) */
    int nbuf;
    size_t bytes;            /* of each buffer */
    int writing;             /* the buffer out holds (hands.held), or -1 */
    int unique, have_last;
    uint64_t last;           /* with unique: the last key written */
    int width;
} sm_bufs_t;

/* A buffer that neither the writer nor any buffer in the mask busy holds: a pinned
 * one where pinned (a piece is gathered into it), else an unpinned one (a sort's
 * scratch, which the sorter leaves untouched where it sorts in place) where there
 * is such. */
static int sm_free_buf(const sm_bufs_t *b, unsigned busy, int pinned)
{
    int any = -1;
    for (int i = 0; i < b->nbuf; i++)
        if (i != b->writing && !(busy >> i & 1)) {
            if (b->pinned[i] == pinned)
                return i;
            if (any < 0)
                any = i;
        }
    return any;   /* never -1: there are enough buffers */
}

/* The mask of buffers x and y (each -1 for none). */
static unsigned sm_busy(int x, int y)
{
    return (x >= 0 ? 1u << x : 0) | (y >= 0 ? 1u << y : 0);
}

/* Write the sorted piece in buffer x (m keys, all one value where same), repeats
 * dropped with unique; a given buffer is replaced by a fresh one where more is to
 * come. */
static int sm_put(sm_bufs_t *b, int x, size_t m, int same, int more)
{
    size_t w = (size_t)b->width, skip = 0, keep = m;
    const char *sorted = b->buf[x];
    if (b->unique) {
        keep = same ? 1 : key_unique(b->buf[x], m, b->width);
        if (b->have_last && key_get(sorted, 0, b->width) == b->last)
            skip = 1;
        b->last = key_get(sorted, keep - 1, b->width);
        b->have_last = 1;
    }
    stats_note_merge(m, 0);
    double t0 = stats_now();
    int rc = output_hand(b->out, b->buf[x], b->bytes, sorted + skip * w, keep - skip);
    b->wait_s += stats_now() - t0;
    if (b->hands.kept) {
        /* Given up: the slot takes a fresh buffer (its pages faulted in as the next
         * gather fills it). */
        b->buf[x] = NULL;
        if (rc == GS_OK && more && !(b->buf[x] = mem_map(b->bytes)))
            rc = err_set(GS_ENOMEM, "out of memory");
    } else if (b->hands.held) {
        b->writing = x;   /* out holds the piece's buffer until it is written */
    }
    return rc;
}

/* A piece aside: its buffer, its scratch and its sort (the sorter's until waited
 * for). */
typedef struct {
    int k, s;
    sort_job_t job;
} sm_aside_t;

/* Piece g (m keys) sorted aside with scratch sc: the newest of the ring (head, *na). */
static void sm_submit(sorter_t *sorter, const sm_bufs_t *b, sm_aside_t *ring, int head,
                      int *na, int g, int sc, size_t m)
{
    sm_aside_t *a = &ring[(head + (*na)++) % 2];
    a->k = g;
    a->s = sc;
    a->job = (sort_job_t){ .keys = b->buf[g], .scratch = b->buf[sc], .n = m,
                           .width = b->width };
    if (sorter_submit(sorter, &a->job))
        stats_note_aside(1);
}

int smerge_runs(run_t **runs, int nruns, int width, int unique, sorter_t *sorter,
                pool_t *pool, size_t budget, const smerge_lent_t *lent, output_t *out)
{
    double t0 = stats_now();
    size_t w = (size_t)width, total = 0;
    for (int r = 0; r < nruns; r++)
        total += run_keys(runs[r]);
    /* Where out writes a piece while the next is gathered and sorted, that is a
     * third buffer; where it keeps a piece's buffer (its pages into a pipe), a fresh
     * one takes its place. */
    const sorter_caps_t *caps = sorter_caps(sorter);
    output_hands_t hands = output_hands(out);
    int nbuf = hands.held ? 3 : 2;
    size_t cap = budget / ((size_t)nbuf * w);
    if (caps->max_keys && cap > caps->max_keys)
        cap = caps->max_keys;
    if (cap < SM_MIN_PIECE)
        cap = SM_MIN_PIECE;
    if (cap > total)
        cap = total > 0 ? total : 1;
    /* A sorter that sorts aside into pinned buffers (a GPU) sorts each piece while
     * the next is gathered, in one buffer more (the sorts' scratch), where the
     * budget holds it at the same piece size and the buffers below are pinned:
     * staged through the sorter's own pool, a piece aside would only slow the
     * gathering. */
    int aside = caps->aside && caps->pins && !hands.kept && total > cap &&
                budget / ((size_t)(nbuf + 1) * w) >= cap;
    /* Two pieces aside at once where the sorter takes them (a GPU: one crosses in
     * while the other crosses back), with a scratch each. */
    int depth = aside && caps->aside_depth >= 2 && budget / ((size_t)(nbuf + 2) * w) >= cap
                    ? 2 : 1;
    sm_state_t st = { 0 };
    sm_bufs_t b = { .out = out, .hands = hands, .nbuf = nbuf, .bytes = cap * w, .writing = -1,
                    .unique = unique, .width = width };
    int rc = GS_OK, opened = 0;
    for (; opened < nruns && rc == GS_OK; opened++)
        rc = run_open(runs[opened]);
    if (rc == GS_OK)
        rc = sm_state_init(&st, runs, nruns, width, pool_size(pool), cap);
    /* Given pieces leave with their buffers: the merge itself holds two. Lent
     * buffers are taken first where they hold a piece. */
    int nlent = lent && !hands.kept && lent->bytes >= cap * w ? lent->n : 0;
    for (int i = 0; i < (hands.kept ? 2 : nbuf) && rc == GS_OK; i++) {
        if (i < nlent) {
            b.buf[i] = lent->buf[i];
            b.lent[i] = b.pinned[i] = 1;
        } else if (!(b.buf[i] = hands.kept ? mem_map(cap * w) : mem_alloc(cap * w))) {
            rc = err_set(GS_ENOMEM, "out of memory");
        }
    }
    /* Buffers that stay are pinned where the sorter asks it (a GPU: DMA with no
     * staging copy, at PCIe's speed), faulted in first on every thread. Given ones
     * leave with the output, so are not. */
    int pinning = rc == GS_OK && !hands.kept && caps->pins;
    for (int i = nlent; pinning && i < nbuf; i++) {
        mem_touch(pool, b.buf[i], cap * w);
        b.pinned[i] = sorter_pin(sorter, b.buf[i], cap * w);
    }
    for (int i = 0; aside && i < nbuf; i++)
        aside = b.pinned[i];
    for (int k = 0; aside && rc == GS_OK && k < depth; k++) {
        /* The sorts' scratch: not pinned, and untouched by a sort in place. */
        if ((b.buf[nbuf] = mem_alloc(cap * w)) != NULL)
            b.nbuf = ++nbuf;
        else if (k == 0)
            aside = 0;
        else
            depth = 1;
    }
    aside = aside && rc == GS_OK;
    sm_view_t view = { .runs = runs, .n = st.n, .last = st.last, .head = st.head,
                       .width = width,
                       .buffers = st.buffers + (size_t)pool_size(pool) * st.per };
    stats_note_merge(0, total);
    /* The pieces aside, a ring of depth oldest first (ring[head]). */
    sm_aside_t ring[2];
    int head = 0, na = 0;
    double gather_s = 0, sorter_s = 0;   /* for --stats: the merge's thread's time */
    uint64_t pieces = 0;
    for (size_t done = 0; rc == GS_OK && (done < total || na > 0);) {
        /* Gather the next piece into a free buffer (while the ones aside sort). */
        int g = -1, same = 0;
        size_t m = 0;
        unsigned busy = 0;
        for (int i = 0; i < na; i++)
            busy |= sm_busy(ring[(head + i) % 2].k, ring[(head + i) % 2].s);
        if (done < total) {
            g = sm_free_buf(&b, busy, 1);
            m = sm_cut(&view, nruns, st.pos, cap, st.end, &same);
            double tg = stats_now();
            if ((rc = view.rc) != GS_OK ||
                (rc = sm_gather(&st, nruns, width, b.buf[g], pool)) != GS_OK)
                break;
            gather_s += stats_now() - tg;
            pieces++;
            memcpy(st.pos, st.end, sizeof *st.pos * (size_t)nruns);
            done += m;
            busy |= 1u << g;
        }
        int sortable = g >= 0 && !same && m > 1;
        /* Two aside: the new piece goes before the oldest is waited for (its keys
         * cross in while the oldest's cross back); one: after. */
        if (aside && sortable && depth == 2 && na < 2) {
            sm_submit(sorter, &b, ring, head, &na, g, sm_free_buf(&b, busy, 0), m);
            g = -1;
        }
        if (na > 0 && (g >= 0 || na == 2 || done >= total)) {
            double tw = stats_now();
            rc = sorter_wait(sorter);
            sorter_s += stats_now() - tw;
            int x = ring[head].job.in_scratch ? ring[head].s : ring[head].k;
            size_t an = ring[head].job.n;
            head = (head + 1) % 2;
            na--;
            if (rc || (rc = sm_put(&b, x, an, 0, 1)) != GS_OK)
                break;
        }
        if (g < 0)
            continue;
        /* Nothing is aside here any more: a piece that went aside before was waited
         * for just above (at most one is aside when a piece is gathered). */
        int sc = sortable ? sm_free_buf(&b, 1u << g, 0) : -1;
        if (aside && sortable) {   /* the oldest waited for: this one aside now */
            sm_submit(sorter, &b, ring, head, &na, g, sc, m);
            continue;
        }
        /* Sort it here, with another free buffer as scratch. */
        int x = g;
        if (sortable) {
            sort_job_t job = { .keys = b.buf[g], .scratch = b.buf[sc], .n = m, .width = width };
            double ts = stats_now();
            if ((rc = sorter_sort(sorter, &job)) != GS_OK)
                break;
            sorter_s += stats_now() - ts;
            x = job.in_scratch ? sc : g;
        }
        rc = sm_put(&b, x, m, same, done < total);
    }
    while (na-- > 0)   /* an error ended the loop meanwhile */
        sorter_wait(sorter);
    double tw = stats_now();
    int erc = output_hand(out, NULL, 0, NULL, 0);   /* the last piece written */
    b.wait_s += stats_now() - tw;
    if (rc == GS_OK)
        rc = erc;
    for (int i = 0; i < opened; i++)
        run_close(runs[i]);
    for (int i = 0; i < nbuf; i++) {
        if (b.lent[i])
            continue;
        if (b.pinned[i])
            sorter_unpin(sorter, b.buf[i]);
        if (hands.kept)
            mem_unmap(b.buf[i], cap * w);
        else
            free(b.buf[i]);
    }
    sm_state_free(&st);
    /* The merge's own time: gathering and sorting, not waiting for the writer. */
    double wall = stats_now() - t0;
    stats_add(ST_MERGE, total * (uint64_t)w, wall - b.wait_s);
    stats_note_smerge(pieces, total * (uint64_t)w, wall, gather_s, sorter_s, b.wait_s);
    return rc;
}
