/* sort.c: the sort: inputs -> chunks -> chunk sorter -> runs -> merge -> output.
 *
 * Keys are read into a chunk of half of -S (the other half is the sort's scratch);
 * a full chunk is sorted and kept as a run, in memory while the runs and the chunk
 * being filled fit -S, the largest spilled under -T as the chunk needs the room
 * (runs.h). With a GPU, a chunk is sorted aside while the next is read, and once
 * the input is known to take several chunks, chunks are read into two buffers
 * pinned for DMA, each sorted chunk copied out into a run of its own.
 * An input that fits one chunk is sorted and written directly: no run, no merge.
 * Otherwise, merge passes bring the runs down to what one merge takes, and the
 * parallel merge (pmerge.h) writes the output. Nothing is written before every input
 * has been read, so an input error leaves no output and -o may name an input; the
 * output of one chunk of text may be opened as the chunk's sort begins, to have
 * zeros written ahead into it while it sorts (output_write_ahead).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "pipeline/ctx.h"
#include "core/error.h"
#include "core/mem.h"
#include "merge/pmerge.h"
#include "core/progress.h"
#include "store/runs.h"
#include "merge/smerge.h"
#include "core/stats.h"
#include "io/textnum.h"

/* The least -S that works: smaller values are raised to it, silently. */
#define SORT_MIN_BUDGET ((size_t)1 << 20)

/* A sort in progress: the chunk being filled and the runs made so far. */
typedef struct {
    ctx_t *c;
    size_t budget;           /* -S: bytes for chunks and runs in memory */
    runcfg_t rcfg;
    char *keys;              /* the chunk being filled */
    size_t n, cap;           /* its keys, and its room */
    size_t limit;            /* most keys this chunk may take */
    run_t **runs;
    int nruns, caprun;
    uint64_t mem_bytes;      /* bytes of the runs held in memory */
    char *spare;             /* a buffer the last sort left free, or NULL */
    size_t spare_cap;        /* its room, in keys */
    /* a chunk the sorter sorts aside (sort_begin) while the next one is read */
    int aside;               /* 1: one is being sorted */
    char *a_keys, *a_scratch;
    size_t a_cap, a_scap, a_n;   /* their room, and its keys */
    /* chunk buffers pinned by the sorter (pin), reused chunk after chunk */
    char *pinned[2];
    size_t pin_cap;          /* their room, in keys */
    int pin_off;             /* 1: pinning failed once; not tried again */
    const char *copy_src;    /* a sorted chunk in a pinned buffer still to copy out, */
    size_t copy_n;           /* its keys */
    int room_rc;             /* an error met making room for the reader (sorting_room_keys) */
} sorting_t;

static size_t sort_budget(const opts_t *o)
{
    uint64_t phys = opt_physical_memory();
    uint64_t b = opt_size_bytes(&o->buffer_size, phys, phys / 2);
    if (b < SORT_MIN_BUDGET)
        b = SORT_MIN_BUDGET;
    if (b > SIZE_MAX / 4)
        b = SIZE_MAX / 4;
    return (size_t)b;
}

/* Read blocks: an eighth of the budget, within 64 KiB .. 4 MiB a thread (at least
 * 4 MiB, at most 64 MiB): enough for every thread's share of a parse, and no more
 * fresh memory than that on a machine of few cores, where first touches of new pages
 * are a good part of a small sort (10M keys of text on the 2-core VM, each run right
 * after a process freed 800 MB: medians 0.230 s with 16 MiB blocks, 0.205 s with 4).
 * Each block costs its hand-offs among the threads: 100M keys of text on the H100
 * machine's 16 threads read and parsed in 0.59-0.74 s in blocks of 4 MiB, 0.32-0.43
 * s of 16 MiB, 0.23-0.27 s of 64 MiB. */
#define SORT_BLOCK_PER_THREAD ((size_t)4 << 20)
#define SORT_BLOCK_MAX ((size_t)64 << 20)
static size_t sort_read_block(size_t budget, int threads)
{
    size_t cap = (size_t)threads * SORT_BLOCK_PER_THREAD;
    if (cap < ((size_t)4 << 20))
        cap = (size_t)4 << 20;
    if (cap > SORT_BLOCK_MAX)
        cap = SORT_BLOCK_MAX;
    size_t b = budget / 8;
    if (b < ((size_t)64 << 10))
        b = (size_t)64 << 10;
    if (b > cap)
        b = cap;
    return b;
}

/* Keys a chunk may take: half the budget (the other half is the sort's scratch),
 * within what the backend takes at once (known from the start, or once it is set
 * up). Room for them is made as the chunk grows (sorting_room), so chunks are
 * full-sized and runs few. */
static void sorting_set_limit(sorting_t *s)
{
    size_t w = (size_t)s->c->km.width;
    s->limit = s->budget / (2 * w);
    if (s->c->sorter->max_keys && s->limit > s->c->sorter->max_keys)
        s->limit = s->c->sorter->max_keys;   /* what the backend takes at once */
    if (s->limit < 1024)
        s->limit = 1024;
}

/* Room in the budget for a chunk of want keys and its scratch, made by spilling the
 * largest runs held in memory, only as the chunk comes to need it: an input that
 * fits the budget never touches the disk, and one that does not is spilled in runs
 * of full chunks (few runs make a fast merge). With every run spilled, a chunk of
 * the limit fits. */
static int sorting_room(sorting_t *s, size_t want)
{
    size_t w = (size_t)s->c->km.width;
    while (s->mem_bytes > 0 &&
           (s->mem_bytes >= s->budget || (s->budget - s->mem_bytes) / (2 * w) < want)) {
        int big = -1;
        for (int i = 0; i < s->nruns; i++)
            if (run_in_memory(s->runs[i]) && run_keys(s->runs[i]) > 0 &&
                (big < 0 || run_keys(s->runs[i]) > run_keys(s->runs[big])))
                big = i;
        if (big < 0)
            break;
        uint64_t bytes = run_key_bytes(s->runs[big]);
        int rc = run_spill(s->runs[big], &s->rcfg);
        if (rc)
            return rc;
        s->mem_bytes -= bytes;
    }
    return GS_OK;
}

/* Scratch for a sort of n keys: the spare where it is large enough, else new memory
 * (the spare, too small, freed). The spare is taken either way. */
static int sorting_scratch(sorting_t *s, size_t n, void **scratch, size_t *scap)
{
    *scratch = s->spare;
    *scap = s->spare_cap;
    s->spare = NULL;
    s->spare_cap = 0;
    if (!*scratch || *scap < n) {
        free(*scratch);
        *scap = n;
        if (!(*scratch = mem_alloc(n * (size_t)s->c->km.width)))
            return err_set(GS_ENOMEM, "out of memory");
    }
    return GS_OK;
}

/* After a sort of keys (room for cap) with scratch (scap) whose result is sorted:
 * the buffer it left free becomes the spare. */
static void sorting_keep_spare(sorting_t *s, const void *sorted, void *keys, size_t cap,
                               void *scratch, size_t scap)
{
    free(s->spare);
    s->spare = sorted == scratch ? keys : scratch;
    s->spare_cap = sorted == scratch ? cap : scap;
}

/* 1 if p is one of the pinned chunk buffers. */
static int sorting_is_pinned(const sorting_t *s, const void *p)
{
    return p && (p == s->pinned[0] || p == s->pinned[1]);
}

/* Free a chunk's buffer, unless it is a pinned one (those are kept, and freed by
 * sorting_drop_pinned()). */
static void sorting_free_chunk(sorting_t *s, void *p)
{
    if (!sorting_is_pinned(s, p))
        free(p);
}

/* Unpin and free the pinned chunk buffers, no chunk being aside (the chunk being
 * filled, where it is one of them, must be empty). */
static void sorting_drop_pinned(sorting_t *s)
{
    if (sorting_is_pinned(s, s->keys)) {
        s->keys = NULL;
        s->n = s->cap = 0;
    }
    for (int i = 0; i < 2; i++)
        if (s->pinned[i]) {
            s->c->sorter->unpin(s->c->sorter, s->pinned[i]);
            free(s->pinned[i]);
            s->pinned[i] = NULL;
        }
}

/* Sort keys[0..n) with the chunk sorter; *out is the buffer that holds the result.
 * The other buffer (the chunk's, or the scratch) is kept as the spare, for the next
 * sort's scratch or the next chunk: reusing memory already faulted in costs nothing,
 * new memory a page fault per page. Applies -u. */
static int sorting_sort(sorting_t *s, void *keys, size_t cap, size_t *n, void **out)
{
    ctx_t *c = s->c;
    int width = c->km.width;
    *out = keys;
    if (*n > 1) {
        void *scratch;
        size_t scap;
        int rc = sorting_scratch(s, *n, &scratch, &scap);
        if (rc)
            return rc;
        rc = c->sorter->sort(c->sorter, keys, scratch, *n, width, out);
        if (rc) {
            *out = keys;
            free(scratch);
            return rc;
        }
        sorting_keep_spare(s, *out, keys, cap, scratch, scap);
    }
    if (c->o->unique)
        *n = key_unique(*out, *n, width);
    return GS_OK;
}

/* Keep sorted[0..n) as a new run in memory. */
static int sorting_add_run(sorting_t *s, void *sorted, size_t n)
{
    if (s->nruns == s->caprun) {
        int nc = s->caprun ? 2 * s->caprun : 16;
        run_t **nr = realloc(s->runs, sizeof *nr * (size_t)nc);
        if (!nr) {
            free(sorted);
            return err_set(GS_ENOMEM, "out of memory");
        }
        s->runs = nr;
        s->caprun = nc;
    }
    int rc = run_from_memory(&s->runs[s->nruns], sorted, n, s->c->km.width);
    if (rc) {
        free(sorted);
        return rc;
    }
    s->nruns++;
    stats_note_run();
    s->mem_bytes += (uint64_t)n * (uint64_t)s->c->km.width;
    return GS_OK;
}

/* The sorter can sort chunks aside (a GPU), and the budget holds two chunks and
 * their scratch (the one aside is counted in mem_bytes meanwhile). */
static int sorting_aside_fits(const sorting_t *s)
{
    return s->c->sorter->sort_begin && s->limit <= s->budget / (4 * (size_t)s->c->km.width);
}

/* Chunks are sorted aside, while the next one is read, where it fits (and always
 * from a pinned buffer, which must not become a run). */
static int sorting_aside_ok(const sorting_t *s)
{
    return sorting_aside_fits(s) && (s->n > 1 || sorting_is_pinned(s, s->keys));
}

/* Chunks are read into pinned buffers where they are sorted aside, the input is
 * known to take more than one chunk (a run made or a chunk aside), the sorter is
 * set up (its chunk size known) and pinning has not failed. */
static int sorting_pin_ok(const sorting_t *s)
{
    const sorter_t *so = s->c->sorter;
    return so->pin && !s->pin_off && sorting_aside_fits(s) && (s->nruns > 0 || s->aside) &&
           !so->setup_keys && !so->setup_wait_keys;
}

/* The sorted chunk left in a pinned buffer by sorting_aside_end(), if any: copied
 * out (on the pool's threads, while the next chunk sorts aside) into a run of its
 * own, the buffer free for the next chunk. */
static int sorting_copy_out(sorting_t *s)
{
    if (!s->copy_src)
        return GS_OK;
    size_t n = s->copy_n, bytes = n * (size_t)s->c->km.width;
    const char *src = s->copy_src;
    s->copy_src = NULL;
    double t0 = stats_now();
    char *run = mem_alloc(bytes ? bytes : 1);
    if (!run)
        return err_set(GS_ENOMEM, "out of memory");
    mem_copy(s->c->pool, run, src, bytes);
    stats_note_copy_out(bytes, stats_now() - t0);
    return sorting_add_run(s, run, n);
}

/* Wait for the chunk aside, if any, and keep it as a run; one sorted in a pinned
 * buffer is left for sorting_copy_out(). */
static int sorting_aside_end(sorting_t *s)
{
    if (!s->aside)
        return GS_OK;
    size_t w = (size_t)s->c->km.width;
    void *sorted;
    int rc = s->c->sorter->sort_end(s->c->sorter, &sorted);
    s->aside = 0;
    s->mem_bytes -= (uint64_t)(s->a_cap + s->a_scap) * w;
    if (rc) {
        sorting_free_chunk(s, s->a_keys);
        free(s->a_scratch);
        return rc;
    }
    size_t n = s->a_n;
    if (s->c->o->unique)
        n = key_unique(sorted, n, s->c->km.width);
    if (!sorting_is_pinned(s, s->a_keys)) {
        sorting_keep_spare(s, sorted, s->a_keys, s->a_cap, s->a_scratch, s->a_scap);
        return sorting_add_run(s, sorted, n);
    }
    if (sorted == s->a_scratch)   /* the scratch holds it: that is the run */
        return sorting_add_run(s, sorted, n);
    /* Still in the pinned buffer: copied out later; the scratch is the spare. */
    free(s->spare);
    s->spare = s->a_scratch;
    s->spare_cap = s->a_scap;
    s->copy_src = sorted;
    s->copy_n = n;
    return GS_OK;
}

/* sorting_aside_end(), the copy out included. */
static int sorting_aside_finish(sorting_t *s)
{
    int rc = sorting_aside_end(s);
    int crc = sorting_copy_out(s);
    return rc ? rc : crc;
}

/* Hand the chunk to the sorter to sort aside; start an empty chunk. */
static int sorting_aside_begin(sorting_t *s)
{
    size_t w = (size_t)s->c->km.width, n = s->n;
    void *scratch;
    size_t scap;
    int rc = sorting_scratch(s, n, &scratch, &scap);
    if (rc)
        return rc;
    if (s->c->sorter->sort_begin(s->c->sorter, s->keys, scratch, n, s->c->km.width))
        stats_note_aside(0);
    s->aside = 1;
    s->a_keys = s->keys;
    s->a_cap = s->cap;
    s->a_scratch = scratch;
    s->a_scap = scap;
    s->a_n = n;
    s->mem_bytes += (uint64_t)(s->cap + scap) * w;
    s->keys = NULL;
    s->n = s->cap = 0;
    return GS_OK;
}

/* Sort the chunk and keep it as a run (aside where it can, the one before it then
 * waited for, and copied out of its pinned buffer while this one sorts); start an
 * empty chunk. */
static int sorting_seal(sorting_t *s)
{
    if (sorting_aside_ok(s)) {
        int rc = sorting_aside_end(s);
        if (rc == GS_OK)
            rc = sorting_aside_begin(s);
        int crc = sorting_copy_out(s);
        return rc ? rc : crc;
    }
    void *sorted;
    size_t n = s->n;
    progress_phase("sorting");
    int rc = sorting_sort(s, s->keys, s->cap, &n, &sorted);
    progress_phase("reading");
    s->keys = NULL;
    s->n = s->cap = 0;
    if (rc) {
        free(sorted);
        return rc;
    }
    return sorting_add_run(s, sorted, n);
}

/* A pinned buffer for a new chunk, where chunks are pinned (sorting_pin_ok) and are
 * still of the buffers' size: the one not aside, made (faulted in and pinned) the
 * first time. 1 if s->keys is one (or, where pinning failed, a plain chunk already
 * faulted in). */
static int sorting_chunk_pinned(sorting_t *s)
{
    if (!sorting_pin_ok(s) || (s->pin_cap && s->pin_cap != s->limit))
        return 0;
    sorter_t *so = s->c->sorter;
    size_t bytes = s->limit * (size_t)s->c->km.width;
    for (int i = 0; i < 2; i++) {
        char *p = s->pinned[i];
        if (p && s->aside && p == s->a_keys)
            continue;   /* the chunk aside */
        if (!p) {
            if (!(p = mem_alloc(bytes)))
                return 0;
            mem_touch(s->c->pool, p, bytes);
            if (so->pin(so, p, bytes)) {
                s->pinned[i] = p;
                s->pin_cap = s->limit;
            } else {
                s->pin_off = 1;   /* not pinned: tried no more */
            }
        }
        s->keys = p;
        s->cap = s->limit;
        return 1;
    }
    return 0;
}

/* A buffer for a new chunk: a pinned one (sorting_chunk_pinned), or the spare where
 * it holds the chunk's limit, else the whole limit at once (pages are only faulted
 * in as keys arrive; growing a buffer of gigabytes by realloc cost more than all the
 * rest of reading). Where even that cannot be had, the chunk starts small and grows. */
static int sorting_chunk_alloc(sorting_t *s)
{
    size_t w = (size_t)s->c->km.width;
    if (sorting_chunk_pinned(s))
        return GS_OK;
    if (s->spare && s->spare_cap >= s->limit) {
        /* Pages past the limit go back: the budget has room for the limit only. */
        mem_trim(s->spare, s->limit * w, s->spare_cap * w);
        s->keys = s->spare;
        s->cap = s->limit;
        s->spare = NULL;
        s->spare_cap = 0;
        return GS_OK;
    }
    free(s->spare);   /* too small to be the chunk: memory back for it */
    s->spare = NULL;
    s->spare_cap = 0;
    s->keys = mem_alloc(s->limit * w);
    s->cap = s->keys ? s->limit : 0;
    return GS_OK;
}

/* Room for up to m more keys at the chunk's end: the backend set up where the chunk
 * grows past its threshold, the chunk sealed where it is full, the budget made room
 * in, the chunk allocated or grown. *take (1..m) keys fit at keys + n * width. */
static int sorting_make_room(sorting_t *s, size_t m, size_t *take)
{
    size_t w = (size_t)s->c->km.width;
    sorter_t *so = s->c->sorter;
    int rc;
    if (so->setup_keys && s->n + m > so->setup_keys) {
        /* The backend sets itself up now: in the background where it can, else
         * here, chunks sized to it from then on. */
        rc = so->setup_begin ? so->setup_begin(so) : so->setup(so);
        if (rc)
            return rc;
        sorting_set_limit(s);
    }
    if (so->setup_wait_keys && s->n + m > so->setup_wait_keys) {
        /* Past what the backend guessed it takes: wait for its set-up. */
        if ((rc = so->setup(so)) != GS_OK)
            return rc;
        sorting_set_limit(s);
    }
    if (s->n >= s->limit && (rc = sorting_seal(s)) != GS_OK)
        return rc;
    *take = s->limit - s->n < m ? s->limit - s->n : m;
    if ((rc = sorting_room(s, s->n + *take)) != GS_OK)
        return rc;
    if (!s->keys && (rc = sorting_chunk_alloc(s)) != GS_OK)
        return rc;
    if (s->n + *take > s->cap) {
        /* Only where the chunk could not be had whole: grow it. */
        size_t ncap = s->cap ? 2 * s->cap : ((size_t)1 << 16);
        while (ncap < s->n + *take)
            ncap *= 2;
        if (ncap > s->limit)
            ncap = s->limit;
        char *nk = mem_realloc(s->keys, ncap * w);
        if (!nk)
            return err_set(GS_ENOMEM, "out of memory");
        s->keys = nk;
        s->cap = ncap;
    }
    return GS_OK;
}

/* Add keys[0..m) to the chunk, sealing it each time it reaches its limit. */
static int sorting_add(sorting_t *s, const char *keys, size_t m)
{
    size_t w = (size_t)s->c->km.width;
    while (m > 0) {
        size_t take;
        int rc = sorting_make_room(s, m, &take);
        if (rc)
            return rc;
        double t0 = stats_now();
        mem_copy(s->c->pool, s->keys + s->n * w, keys, take * w);
        stats_add(ST_PARSE, 0, stats_now() - t0);   /* placing keys is part of parsing */
        s->n += take;
        keys += take * w;
        m -= take;
    }
    return GS_OK;
}

/* The reader's room for m keys of text (kreader_next_into): the chunk's end. NULL
 * where they would cross the chunk's limit (the reader keeps them, and sorting_add
 * fills the chunk to its limit with them and starts the next, so chunks stay
 * whole), or on an error, kept in room_rc. */
static void *sorting_room_keys(void *arg, size_t m)
{
    sorting_t *s = arg;
    size_t take;
    if (s->room_rc || s->n + m > s->limit)
        return NULL;
    if ((s->room_rc = sorting_make_room(s, m, &take)) != GS_OK || take < m)
        return NULL;   /* the limit changed with the backend's set-up */
    return s->keys + s->n * (size_t)s->c->km.width;
}

/* Keys read straight into the chunk at a time (kreader_read_keys), at most: small
 * enough that the backend's set-up thresholds are met on time. */
#define SORT_DIRECT_KEYS ((size_t)1 << 24)

/* Read binary keys from a regular file straight into chunks, as many at a time as
 * its size says are left (so that a small file never sets up a GPU, nor a full
 * chunk is sealed before the input is known to go on). */
static int sorting_read_direct(sorting_t *s, kreader_t *r)
{
    size_t w = (size_t)s->c->km.width;
    for (;;) {
        uint64_t left = kreader_left(r) / w;
        size_t take, got;
        int rc;
        if (left == 0) {
            /* Done by its size: a key more would show that it grew (a partial one
             * is carried or reported by the reader). */
            uint64_t k;
            if ((rc = kreader_read_keys(r, &k, 1, &got)) != GS_OK || got == 0)
                return rc;
            if ((rc = sorting_add(s, (const char *)&k, 1)) != GS_OK)
                return rc;
            continue;
        }
        rc = sorting_make_room(s, left < SORT_DIRECT_KEYS ? (size_t)left : SORT_DIRECT_KEYS,
                               &take);
        if (rc == GS_OK)
            rc = kreader_read_keys(r, s->keys + s->n * w, take, &got);
        if (rc || got == 0)
            return rc;
        s->n += got;
    }
}

/* Read every input into chunks and runs. */
static int sorting_read(sorting_t *s)
{
    ctx_t *c = s->c;
    char *const *files;
    int nfiles;
    ctx_inputs(c, &files, &nfiles);
    carry_t carry = { .n = 0 };
    kreader_cfg_t cfg = ctx_reader_cfg(c, sort_read_block(s->budget, pool_size(c->pool)));
    cfg.carry = &carry;
    const char *last_name = NULL;
    uint64_t last_bytes = 0;
    int rc = GS_OK;
    for (int f = 0; f < nfiles && rc == GS_OK; f++) {
        kreader_t *r;
        rc = kreader_open(&r, files[f], &cfg);
        if (rc)
            break;
        if (kreader_direct(r))
            rc = sorting_read_direct(s, r);
        for (; rc == GS_OK && !kreader_direct(r);) {
            const void *blk;
            size_t m;
            rc = kreader_next_into(r, sorting_room_keys, s, &blk, &m);
            if (rc == GS_OK)
                rc = s->room_rc;
            if (rc || m == 0)
                break;
            if (blk)
                rc = sorting_add(s, blk, m);
            else
                s->n += m;   /* scanned in place */
            if (rc)
                break;
        }
        last_name = files[f];
        last_bytes = kreader_bytes(r);
        kreader_close(r);
    }
    if (rc == GS_OK && carry.n)
        rc = err_set(GS_EINPUT, "%s: %llu bytes: not a whole number of %d-byte keys",
                     last_name, (unsigned long long)last_bytes, c->km.width);
    return rc;
}

/* The merge's sinks: formatted output, or a new run. */
static size_t sort_sink_format(void *self, const void *keys, size_t n, void *dst)
{
    return output_format(self, keys, n, dst);
}

static int sort_sink_write(void *self, const void *bytes, size_t len)
{
    return output_write_bytes(self, bytes, len);
}

/* Placed text (output.h): the layout's steps and the output's calls. */
typedef struct {
    uint64_t key[TN_MAX_STEPS];
    unsigned char len[TN_MAX_STEPS];
    pmerge_place_t place;
} sort_place_t;

static int sort_place_begin(void *self, uint64_t total, char **base)
{
    return output_place_begin(self, total, base);
}

static int sort_place_fill(void *self, const void *keys, size_t n, char **at, char *end,
                           char **released)
{
    double t0 = stats_now();
    char *from = *at;
    int rc = output_place(self, keys, n, at, end, released);
    stats_add(ST_WRITE, (uint64_t)(*at - from), stats_now() - t0);
    return rc;
}

static int sort_place_end(void *self, char *base, uint64_t total, int ok)
{
    return output_place_end(self, base, total, ok);
}

/* The merge places the output where it can: see pmerge.h. */
static const pmerge_place_t *sort_place(sort_place_t *sp, output_t *out, run_t **runs, int n,
                                        int unique)
{
    uint64_t keys = 0;
    for (int i = 0; i < n; i++)
        keys += run_keys(runs[i]);
    if (unique || !output_can_place(out, keys))
        return NULL;
    sp->place = (pmerge_place_t){ .nsteps = output_line_steps(out, sp->key, sp->len),
                                  .step_key = sp->key, .step_len = sp->len,
                                  .begin = sort_place_begin, .fill = sort_place_fill,
                                  .end = sort_place_end };
    return &sp->place;
}

typedef struct {
    int width;
    run_writer_t *w;
} sort_sink_t;


static int sort_sink_append(void *self, const void *bytes, size_t len)
{
    sort_sink_t *rs = self;
    return run_writer_add(rs->w, bytes, len / (size_t)rs->width);
}

/* How many runs one merge takes: the open-file limit, and the cursor buffers that
 * half the budget pays for. */
static int sorting_fan_in(const sorting_t *s)
{
    int fan = ctx_fan_in();
    size_t per = (size_t)pool_size(s->c->pool) * run_cursor_bytes(s->c->km.width);
    size_t mem = (s->budget / 2) / per;
    if ((size_t)fan > mem)
        fan = (int)mem;
    return fan < 2 ? 2 : fan;
}

/* What a merge may hold: what the runs in memory leave of the budget, and at least
 * a quarter of it. */
static size_t sorting_merge_budget(const sorting_t *s)
{
    size_t budget = s->budget > s->mem_bytes ? s->budget - s->mem_bytes : 0;
    return budget < s->budget / 4 ? s->budget / 4 : budget;
}

/* The last merge sorts key ranges on the chunk sorter where that is the faster way
 * (a GPU), spilled runs read back by rank. */
static int sorting_merge_by_sort(const sorting_t *s)
{
    return s->c->sorter->merge_by_sort;
}

static int sorting_merge_into(sorting_t *s, run_t **runs, int n, const pmerge_sink_t *sink)
{
    int rc = GS_OK, opened = 0;
    for (; opened < n && rc == GS_OK; opened++)
        rc = run_open(runs[opened]);
    if (rc == GS_OK)
        rc = pmerge_runs(runs, n, s->c->km.width, s->c->o->unique, s->c->pool,
                         sorting_merge_budget(s), sink);
    for (int i = 0; i < opened; i++)
        run_close(runs[i]);
    return rc;
}

/* Merge runs[0..k) into one new run on disk. */
static int sorting_merge_group(sorting_t *s, run_t **runs, int k, run_t **merged)
{
    sort_sink_t rs = { .width = s->c->km.width };
    int rc = run_writer_open(&rs.w, &s->rcfg);
    if (rc)
        return rc;
    pmerge_sink_t sink = { NULL, sort_sink_append, (size_t)rs.width, &rs, NULL };
    rc = sorting_merge_into(s, runs, k, &sink);
    if (rc) {
        run_writer_abort(rs.w);
        return rc;
    }
    return run_writer_close(rs.w, merged);
}

/* Merge passes: while there are more runs than one merge takes, merge them in
 * rounds, each round merging groups of fan-in runs, so every key is rewritten about
 * log(runs) / log(fan-in) times. */
static int sorting_passes(sorting_t *s)
{
    int fan = sorting_fan_in(s);
    while (s->nruns > fan) {
        int out = 0;
        for (int g = 0; g < s->nruns; g += fan) {
            int k = s->nruns - g < fan ? s->nruns - g : fan;
            run_t *merged = s->runs[g];
            if (k > 1) {
                int rc = sorting_merge_group(s, s->runs + g, k, &merged);
                if (rc) {
                    /* Keep the store consistent for sorting_free(). */
                    memmove(s->runs + out, s->runs + g, sizeof *s->runs * (size_t)(s->nruns - g));
                    s->nruns = out + (s->nruns - g);
                    return rc;
                }
                for (int i = 0; i < k; i++) {
                    if (run_in_memory(s->runs[g + i]))
                        s->mem_bytes -= run_key_bytes(s->runs[g + i]);
                    run_free(s->runs[g + i]);
                }
            }
            s->runs[out++] = merged;
        }
        s->nruns = out;
    }
    return GS_OK;
}

static void sorting_drop_spare(sorting_t *s)
{
    free(s->spare);
    s->spare = NULL;
    s->spare_cap = 0;
}

static void sorting_free(sorting_t *s)
{
    if (s->aside) {
        void *sorted;
        s->c->sorter->sort_end(s->c->sorter, &sorted);
        sorting_free_chunk(s, s->a_keys);
        free(s->a_scratch);
    }
    sorting_free_chunk(s, s->keys);
    sorting_drop_pinned(s);
    free(s->spare);
    for (int i = 0; i < s->nruns; i++)
        run_free(s->runs[i]);
    free(s->runs);
}

/* One chunk of text to -o, about to be sorted: open the output now and have zeros
 * written ahead into it while the chunk sorts (output_write_ahead), as many bytes as
 * the inputs hold plus one a file, where they are regular files of text and every
 * key is kept (no -u): a key's canonical line is no longer than its token and the
 * white space after it, which only a file's last token may lack. Started before
 * reading, the same zeros slowed the reading more than they saved (100M keys of
 * text on the H100 machine, 7 rounds alternating: medians 0.355 s against 0.329 s
 * started here, 0.391 s with none). *out stays NULL where this does not apply. */
static int sorting_open_ahead(const sorting_t *s, output_t **out)
{
    const ctx_t *c = s->c;
    const opts_t *o = c->o;
    output_cfg_t ocfg = ctx_output_cfg(c);
    uint64_t bytes;
    *out = NULL;
    if (o->unique || o->in_format == FMT_BINARY || !output_may_write_ahead(&ocfg, s->n) ||
        !ctx_input_bytes(c, &bytes))
        return GS_OK;
    char *const *files;
    int nfiles;
    ctx_inputs(c, &files, &nfiles);
    int rc = output_open(out, &ocfg);
    if (rc == GS_OK)
        output_write_ahead(*out, bytes + (uint64_t)nfiles, s->n);
    return rc;
}

int sort_run(ctx_t *c)
{
    sorting_t s = { .c = c };
    s.budget = sort_budget(c->o);
    s.rcfg = (runcfg_t){ .tmpdir = ctx_tmpdir(c->o), .compress = c->o->compress,
                         .width = c->km.width, .pool = c->pool };
    sorting_set_limit(&s);
    progress_phase("reading");
    int rc = sorting_read(&s);
    if (rc == GS_OK)
        rc = sorting_aside_finish(&s);
    if (rc == GS_OK && c->sorter->setup_wait_keys)
        rc = c->sorter->setup(c->sorter);   /* a set-up still under way: its outcome */
    output_t *out = NULL;
    if (rc == GS_OK && s.nruns == 0) {
        /* One chunk in total: sort it and write it; no run store, no merge. */
        progress_phase("sorting");
        void *sorted = NULL;
        size_t n = s.n;
        rc = sorting_open_ahead(&s, &out);
        if (rc == GS_OK) {
            rc = sorting_sort(&s, s.keys, s.cap, &n, &sorted);
            s.keys = sorted;
        }
        sorting_drop_spare(&s);   /* nothing more to sort */
        progress_phase("writing");
        if (rc == GS_OK && !out) {
            output_cfg_t ocfg = ctx_output_cfg(c);
            rc = output_open(&out, &ocfg);
        }
        if (rc == GS_OK)
            rc = output_write_sorted(out, s.keys, n);
        rc = ctx_finish(rc, out);
        sorting_free(&s);
        return rc;
    }
    if (rc == GS_OK && s.n > 0)
        rc = sorting_seal(&s);
    if (rc == GS_OK)
        rc = sorting_aside_finish(&s);
    sorting_drop_spare(&s);   /* the merge has the budget to itself */
    if (rc == GS_OK && !sorting_merge_by_sort(&s))
        sorting_drop_pinned(&s);   /* a merge by sorting takes them as piece buffers */
    progress_phase("merging");
    if (rc == GS_OK)
        rc = sorting_passes(&s);
    if (rc == GS_OK) {
        output_cfg_t ocfg = ctx_output_cfg(c);
        rc = output_open(&out, &ocfg);
    }
    if (rc == GS_OK && sorting_merge_by_sort(&s)) {
        int nlent = s.pinned[0] && s.pinned[1] ? 2 : 0;
        smerge_lent_t lent = { { s.pinned[0], s.pinned[1] }, nlent,
                               s.pin_cap * (size_t)c->km.width };
        rc = ctx_finish(smerge_runs(s.runs, s.nruns, c->km.width, c->o->unique, c->sorter,
                                    c->pool, sorting_merge_budget(&s), &lent, out), out);
    } else if (rc == GS_OK) {
        sort_place_t sp;
        pmerge_sink_t sink = { sort_sink_format, sort_sink_write, output_max_bytes(out), out,
                               sort_place(&sp, out, s.runs, s.nruns, c->o->unique) };
        rc = ctx_finish(sorting_merge_into(&s, s.runs, s.nruns, &sink), out);
    }
    sorting_free(&s);
    return rc;
}

