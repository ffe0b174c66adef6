/* smerge.c: the merge by sorting key ranges (see smerge.h).
 *
 * The cut reads runs by rank (runs.h): memory runs directly, spilled runs one
 * decoded block at a time. A piece is gathered by the pool's threads, task by task,
 * spilled blocks decoded straight into the piece; the chunk sorter sorts it; and,
 * for binary output, a writer thread writes it while the next piece is gathered and
 * sorted in the other two of three buffers. A sorter that sorts aside into pinned
 * memory (a GPU) sorts each piece while the next is gathered, in a buffer more.
 */
#include <config.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/error.h"
#include "core/keys.h"
#include "core/mem.h"
#include "merge/smerge.h"
#include "core/stats.h"

/* Pieces are never made smaller than this many keys (unless the input is). */
#define SM_MIN_PIECE ((size_t)1 << 16)

/* The runs as the cut sees them: memory arrays (smerge_cut), or runs, some of
 * them spilled, read through the main thread's block buffers. */
typedef struct {
    run_t **runs;            /* NULL: keys[] below */
    const void *const *keys; /* [nruns] memory arrays, when runs is NULL */
    const size_t *n;         /* [nruns] keys in each */
    const uint64_t *last;    /* [nruns] each run's last key (n > 0) */
    uint64_t *head;          /* [nruns] each run's key at pos, set by the cut */
    int width;
    void *buffers;           /* run_cursor_bytes(width), for spilled runs */
    int rc;                  /* the first read error */
} sm_view_t;

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

/* smerge_cut() over a view; a read error leaves v->rc set (the cut is then void). */
static size_t sm_cut(sm_view_t *v, int nruns, const size_t *pos, size_t cap, size_t *end,
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

/* Gathering a piece: tasks of at most SM_TASK_KEYS keys of one run each, taken in
 * turn by the pool's threads; a spilled run's are whole blocks where they can be,
 * decoded by each thread through block buffers of its own. */
#define SM_TASK_KEYS ((size_t)RUN_BLOCK_KEYS * 32)

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

/* The writer of a merge's sorted pieces, on a thread of its own (binary output), so
 * that the next piece is gathered and sorted while this one is written. */
typedef struct {
    output_t *out;
    pthread_t thread;
    int started;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    const char *keys;        /* the piece to write, */
    size_t n;                /* its keys; */
    void *map;               /* with give: the buffer it lies in, given up */
    size_t map_bytes;
    int give;                /* 1: output_give() the pieces (output_can_give()) */
    int busy;                /* 1: posted and not yet written */
    int quit;
    int rc;                  /* the first error */
    double wait_s;           /* seconds the merge spent writing or waiting for it */
} sm_emit_t;

static void *sm_emit_main(void *arg)
{
    sm_emit_t *e = arg;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->busy && !e->quit)
            pthread_cond_wait(&e->cond, &e->lock);
        if (!e->busy)
            break;
        pthread_mutex_unlock(&e->lock);
        int rc = e->rc;
        if (e->give)
            rc = rc ? (mem_unmap(e->map, e->map_bytes), rc)
                    : output_give(e->out, e->map, e->map_bytes, e->keys, e->n);
        else if (!rc)
            rc = output_write(e->out, e->keys, e->n);
        pthread_mutex_lock(&e->lock);
        if (rc && !e->rc)
            e->rc = rc;
        e->busy = 0;
        pthread_cond_broadcast(&e->cond);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* Wait until the piece posted last is written; the first error. */
static int sm_emit_wait(sm_emit_t *e)
{
    double t0 = stats_now();
    pthread_mutex_lock(&e->lock);
    while (e->busy)
        pthread_cond_wait(&e->cond, &e->lock);
    int rc = e->rc;
    pthread_mutex_unlock(&e->lock);
    e->wait_s += stats_now() - t0;
    return rc;
}

/* Write keys[0..n): posted to the writer thread where there is one, else here.
 * With give, map (map_bytes, holding the keys) is given up, whatever the result. */
static int sm_emit(sm_emit_t *e, const char *keys, size_t n, void *map, size_t map_bytes)
{
    if (!e->started) {
        double t0 = stats_now();
        int rc = e->give ? output_give(e->out, map, map_bytes, keys, n)
                         : output_write(e->out, keys, n);
        e->wait_s += stats_now() - t0;
        return rc;
    }
    int rc = sm_emit_wait(e);
    if (rc) {
        if (e->give)
            mem_unmap(map, map_bytes);
        return rc;
    }
    pthread_mutex_lock(&e->lock);
    e->keys = keys;
    e->n = n;
    e->map = map;
    e->map_bytes = map_bytes;
    e->busy = 1;
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->lock);
    return GS_OK;
}

/* Wait for the last piece and stop the thread; the first error. */
static int sm_emit_stop(sm_emit_t *e)
{
    if (!e->started)
        return GS_OK;
    int rc = sm_emit_wait(e);
    pthread_mutex_lock(&e->lock);
    e->quit = 1;
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->lock);
    pthread_join(e->thread, NULL);
    e->started = 0;
    return rc;
}

/* The merge loop's buffers and the state of what it writes. */
typedef struct {
    sm_emit_t *e;
    char *buf[4];
    int pinned[4];           /* 1: buf[i] is pinned (lent, or by us) */
    int lent[4];             /* 1: buf[i] is lent (not ours to unpin or free) */
    int nbuf;
    size_t bytes;            /* of each buffer */
    int writing;             /* the buffer the writer holds, or -1 */
    int unique, have_last;
    uint64_t last;           /* with unique: the last key written */
    int width;
} sm_bufs_t;

/* A buffer that none of the writer, x and y holds: a pinned one where pinned (a
 * piece is gathered into it), else an unpinned one (a sort's scratch, which the
 * sorter leaves untouched where it sorts in place) where there is such. */
static int sm_free_buf(const sm_bufs_t *b, int x, int y, int pinned)
{
    int any = -1;
    for (int i = 0; i < b->nbuf; i++)
        if (i != b->writing && i != x && i != y) {
            if (b->pinned[i] == pinned)
                return i;
            if (any < 0)
                any = i;
        }
    return any;   /* never -1: there are enough buffers */
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
    int rc = sm_emit(b->e, sorted + skip * w, keep - skip, b->buf[x], b->bytes);
    if (b->e->give) {
        /* Given up: the slot takes a fresh buffer (its pages faulted in as the next
         * gather fills it). */
        b->buf[x] = NULL;
        if (rc == GS_OK && more && !(b->buf[x] = mem_map(b->bytes)))
            rc = err_set(GS_ENOMEM, "out of memory");
    } else if (b->e->started) {
        b->writing = x;   /* the writer holds the piece's buffer until it is written */
    }
    return rc;
}

int smerge_runs(run_t **runs, int nruns, int width, int unique, sorter_t *sorter,
                pool_t *pool, size_t budget, const smerge_lent_t *lent, output_t *out)
{
    double t0 = stats_now();
    size_t w = (size_t)width, total = 0;
    for (int r = 0; r < nruns; r++)
        total += run_keys(runs[r]);
    /* Binary output is written on a thread of its own, from a third buffer. Into a
     * pipe, where keys need no encoding, a written piece's buffer goes with it
     * (output_give()), and a fresh one takes its place. */
    sm_emit_t e = { .out = out, .give = output_can_give(out) };
    int nbuf = output_solo(out) ? 3 : 2;
    size_t cap = budget / ((size_t)nbuf * w);
    if (sorter->max_keys && cap > sorter->max_keys)
        cap = sorter->max_keys;
    if (cap < SM_MIN_PIECE)
        cap = SM_MIN_PIECE;
    if (cap > total)
        cap = total > 0 ? total : 1;
    /* A sorter that sorts aside into pinned buffers (a GPU) sorts each piece while
     * the next is gathered, in one buffer more (the sorts' scratch), where the
     * budget holds it at the same piece size and the buffers below are pinned:
     * staged through the sorter's own pool, a piece aside would only slow the
     * gathering. */
    int aside = sorter->sort_begin && sorter->pin && !e.give && total > cap &&
                budget / ((size_t)(nbuf + 1) * w) >= cap;
    sm_state_t st = { 0 };
    sm_bufs_t b = { .e = &e, .nbuf = nbuf, .bytes = cap * w, .writing = -1,
                    .unique = unique, .width = width };
    int rc = GS_OK, opened = 0, threaded = 0;
    for (; opened < nruns && rc == GS_OK; opened++)
        rc = run_open(runs[opened]);
    if (rc == GS_OK)
        rc = sm_state_init(&st, runs, nruns, width, pool_size(pool), cap);
    /* Given pieces leave with their buffers: the merge itself holds two. Lent
     * buffers are taken first where they hold a piece. */
    int nlent = lent && !e.give && lent->bytes >= cap * w ? lent->n : 0;
    for (int i = 0; i < (e.give ? 2 : nbuf) && rc == GS_OK; i++) {
        if (i < nlent) {
            b.buf[i] = lent->buf[i];
            b.lent[i] = b.pinned[i] = 1;
        } else if (!(b.buf[i] = e.give ? mem_map(cap * w) : mem_alloc(cap * w))) {
            rc = err_set(GS_ENOMEM, "out of memory");
        }
    }
    /* Buffers that stay are pinned where the sorter asks it (a GPU: DMA with no
     * staging copy, at PCIe's speed), faulted in first on every thread. Given ones
     * leave with the output, so are not. */
    int pinning = rc == GS_OK && !e.give && sorter->pin;
    for (int i = nlent; pinning && i < nbuf; i++) {
        mem_touch(pool, b.buf[i], cap * w);
        b.pinned[i] = sorter->pin(sorter, b.buf[i], cap * w);
    }
    for (int i = 0; aside && i < nbuf; i++)
        aside = b.pinned[i];
    if (aside && rc == GS_OK) {
        /* The sorts' scratch: not pinned, and untouched by a sort in place. */
        if ((b.buf[nbuf] = mem_alloc(cap * w)) != NULL)
            b.nbuf = ++nbuf;
        else
            aside = 0;
    }
    aside = aside && rc == GS_OK;
    if (rc == GS_OK && output_solo(out)) {
        pthread_mutex_init(&e.lock, NULL);
        pthread_cond_init(&e.cond, NULL);
        threaded = 1;
        e.started = cleanup_thread_create(&e.thread, sm_emit_main, &e) == 0;
    }
    sm_view_t view = { .runs = runs, .n = st.n, .last = st.last, .head = st.head,
                       .width = width,
                       .buffers = st.buffers + (size_t)pool_size(pool) * st.per };
    stats_note_merge(0, total);
    int a_k = -1, a_s = -1;   /* the piece sorted aside: its buffer and its scratch */
    size_t a_m = 0;
    for (size_t done = 0; rc == GS_OK && (done < total || a_k >= 0);) {
        /* Gather the next piece into a free buffer (while the last one sorts). */
        int g = -1, same = 0;
        size_t m = 0;
        if (done < total) {
            g = sm_free_buf(&b, a_k, a_s, 1);
            m = sm_cut(&view, nruns, st.pos, cap, st.end, &same);
            if ((rc = view.rc) != GS_OK ||
                (rc = sm_gather(&st, nruns, width, b.buf[g], pool)) != GS_OK)
                break;
            memcpy(st.pos, st.end, sizeof *st.pos * (size_t)nruns);
            done += m;
        }
        if (a_k >= 0) {
            void *sorted;
            rc = sorter->sort_end(sorter, &sorted);
            int x = sorted == b.buf[a_k] ? a_k : a_s;
            a_k = a_s = -1;
            if (rc || (rc = sm_put(&b, x, a_m, 0, 1)) != GS_OK)
                break;
        }
        if (g < 0)
            continue;
        /* Sort it with another free buffer as scratch: aside, or here. */
        int x = g;
        if (!same && m > 1) {
            int s = sm_free_buf(&b, g, -1, 0);
            if (aside) {
                if (sorter->sort_begin(sorter, b.buf[g], b.buf[s], m, width))
                    stats_note_aside(1);
                a_k = g;
                a_s = s;
                a_m = m;
                continue;
            }
            void *sorted;
            if ((rc = sorter->sort(sorter, b.buf[g], b.buf[s], m, width, &sorted)) != GS_OK)
                break;
            x = sorted == b.buf[g] ? g : s;
        }
        rc = sm_put(&b, x, m, same, done < total);
    }
    if (a_k >= 0) {   /* an error ended the loop meanwhile */
        void *sorted;
        sorter->sort_end(sorter, &sorted);
    }
    int erc = sm_emit_stop(&e);
    if (rc == GS_OK)
        rc = erc;
    if (threaded) {
        pthread_mutex_destroy(&e.lock);
        pthread_cond_destroy(&e.cond);
    }
    for (int i = 0; i < opened; i++)
        run_close(runs[i]);
    for (int i = 0; i < nbuf; i++) {
        if (b.lent[i])
            continue;
        if (b.pinned[i])
            sorter->unpin(sorter, b.buf[i]);
        if (e.give)
            mem_unmap(b.buf[i], cap * w);
        else
            free(b.buf[i]);
    }
    sm_state_free(&st);
    /* The merge's own time: gathering and sorting, not waiting for the writer. */
    stats_add(ST_MERGE, total * (uint64_t)w, stats_now() - t0 - e.wait_s);
    return rc;
}
