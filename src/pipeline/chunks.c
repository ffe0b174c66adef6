/* SPDX-License-Identifier: MIT */
/* chunks.c: the sort's chunks (see chunks.h). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "core/progress.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "pipeline/chunks.h"

/* Keys a chunk may take: half the budget (the other half is the sort's scratch),
 * within what the backend takes at once (known from the start, or once it is set
 * up). Room for them is made as the chunk grows (chunks_spill_for), so chunks are
 * full-sized and runs few. */
static void chunks_set_limit(chunks_t *s)
{
    size_t w = (size_t)s->c->km.width, most = sorter_caps(s->c->sorter)->max_keys;
    s->limit = s->budget / (2 * w);
    if (most && s->limit > most)
        s->limit = most;   /* what the backend takes at once */
    if (s->limit < 1024)
        s->limit = 1024;
}

/* Room in the budget for a chunk of want keys and its scratch, made by spilling the
 * largest runs held in memory, only as the chunk comes to need it: an input that
 * fits the budget never touches the disk, and one that does not is spilled in runs
 * of full chunks (few runs make a fast merge). With every run spilled, a chunk of
 * the limit fits. */
static int chunks_spill_for(chunks_t *s, size_t want)
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
static int chunks_scratch(chunks_t *s, size_t n, void **scratch, size_t *scap)
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
static void chunks_keep_spare(chunks_t *s, const void *sorted, void *keys, size_t cap,
                               void *scratch, size_t scap)
{
    free(s->spare);
    s->spare = sorted == scratch ? keys : scratch;
    s->spare_cap = sorted == scratch ? cap : scap;
}

/* 1 if p is one of the pinned chunk buffers. */
static int chunks_is_pinned(const chunks_t *s, const void *p)
{
    return p && (p == s->pinned[0] || p == s->pinned[1]);
}

/* Free a chunk's buffer, unless it is a pinned one (those are kept, and freed by
 * chunks_drop_pinned()). */
static void chunks_free_chunk(chunks_t *s, void *p)
{
    if (!chunks_is_pinned(s, p))
        free(p);
}

/* Unpin and free the pinned chunk buffers, no chunk being aside (the chunk being
 * filled, where it is one of them, must be empty). */
static void chunks_drop_pinned(chunks_t *s)
{
    if (chunks_is_pinned(s, s->keys)) {
        s->keys = NULL;
        s->n = s->cap = 0;
    }
    for (int i = 0; i < 2; i++)
        if (s->pinned[i]) {
            sorter_unpin(s->c->sorter, s->pinned[i]);
            free(s->pinned[i]);
            s->pinned[i] = NULL;
        }
}

/* Sort keys[0..n) with the chunk sorter; *out is the buffer that holds the result.
 * The other buffer (the chunk's, or the scratch) is kept as the spare, for the next
 * sort's scratch or the next chunk: reusing memory already faulted in costs nothing,
 * new memory a page fault per page. Applies -u. */
static int chunks_sort(chunks_t *s, void *keys, size_t cap, size_t *n, void **out)
{
    ctx_t *c = s->c;
    int width = c->km.width;
    *out = keys;
    if (*n > 1) {
        sort_job_t job = { .keys = keys, .n = *n, .width = width };
        size_t scap;
        int rc = chunks_scratch(s, *n, &job.scratch, &scap);
        if (rc)
            return rc;
        rc = sorter_sort(c->sorter, &job);
        if (rc) {
            free(job.scratch);
            return rc;
        }
        *out = sort_job_result(&job);
        chunks_keep_spare(s, *out, keys, cap, job.scratch, scap);
    }
    if (c->set->unique)
        *n = key_unique(*out, *n, width);
    return GS_OK;
}

/* Keep sorted[0..n) as a new run in memory. */
static int chunks_add_run(chunks_t *s, void *sorted, size_t n)
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
static int chunks_aside_fits(const chunks_t *s)
{
    return sorter_caps(s->c->sorter)->aside &&
           s->limit <= s->budget / (4 * (size_t)s->c->km.width);
}

/* Chunks are sorted aside, while the next one is read, where it fits (and always
 * from a pinned buffer, which must not become a run). */
static int chunks_aside_ok(const chunks_t *s)
{
    return chunks_aside_fits(s) && (s->n > 1 || chunks_is_pinned(s, s->keys));
}

/* Chunks are read into pinned buffers where they are sorted aside, the input is
 * known to take more than one chunk (a run made or a chunk aside), the sorter is
 * set up (its chunk size known) and pinning has not failed. */
static int chunks_pin_ok(const chunks_t *s)
{
    const sorter_caps_t *caps = sorter_caps(s->c->sorter);
    return caps->pins && !s->pin_off && chunks_aside_fits(s) && (s->nruns > 0 || s->aside) &&
           !caps->grow_at;
}

/* The sorted chunk left in a pinned buffer by chunks_aside_end(), if any: copied
 * out (on the pool's threads, while the next chunk sorts aside) into a run of its
 * own, the buffer free for the next chunk. */
static int chunks_copy_out(chunks_t *s)
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
    return chunks_add_run(s, run, n);
}

/* Wait for the chunk aside, if any, and keep it as a run; one sorted in a pinned
 * buffer is left for chunks_copy_out(). */
static int chunks_aside_end(chunks_t *s)
{
    if (!s->aside)
        return GS_OK;
    size_t w = (size_t)s->c->km.width;
    sort_job_t *j = &s->a_job;
    int rc = sorter_wait(s->c->sorter);
    s->aside = 0;
    s->mem_bytes -= (uint64_t)(s->a_cap + s->a_scap) * w;
    if (rc) {
        chunks_free_chunk(s, j->keys);
        free(j->scratch);
        return rc;
    }
    void *sorted = sort_job_result(j);
    size_t n = j->n;
    if (s->c->set->unique)
        n = key_unique(sorted, n, s->c->km.width);
    if (!chunks_is_pinned(s, j->keys)) {
        chunks_keep_spare(s, sorted, j->keys, s->a_cap, j->scratch, s->a_scap);
        return chunks_add_run(s, sorted, n);
    }
    if (j->in_scratch)   /* the scratch holds it: that is the run */
        return chunks_add_run(s, sorted, n);
    /* Still in the pinned buffer: copied out later; the scratch is the spare. */
    free(s->spare);
    s->spare = j->scratch;
    s->spare_cap = s->a_scap;
    s->copy_src = sorted;
    s->copy_n = n;
    return GS_OK;
}

/* chunks_aside_end(), the copy out included. */
int chunks_settle(chunks_t *s)
{
    int rc = chunks_aside_end(s);
    int crc = chunks_copy_out(s);
    return rc ? rc : crc;
}

/* Hand the chunk to the sorter to sort aside; start an empty chunk. */
static int chunks_aside_begin(chunks_t *s)
{
    size_t w = (size_t)s->c->km.width, n = s->n;
    void *scratch;
    size_t scap;
    int rc = chunks_scratch(s, n, &scratch, &scap);
    if (rc)
        return rc;
    s->a_job = (sort_job_t){ .keys = s->keys, .scratch = scratch, .n = n,
                             .width = s->c->km.width };
    if (sorter_submit(s->c->sorter, &s->a_job))
        stats_note_aside(0);
    s->aside = 1;
    s->a_cap = s->cap;
    s->a_scap = scap;
    s->mem_bytes += (uint64_t)(s->cap + scap) * w;
    s->keys = NULL;
    s->n = s->cap = 0;
    return GS_OK;
}

/* Sort the chunk and keep it as a run (aside where it can, the one before it then
 * waited for, and copied out of its pinned buffer while this one sorts); start an
 * empty chunk. */
int chunks_seal(chunks_t *s)
{
    if (chunks_aside_ok(s)) {
        int rc = chunks_aside_end(s);
        if (rc == GS_OK)
            rc = chunks_aside_begin(s);
        int crc = chunks_copy_out(s);
        return rc ? rc : crc;
    }
    void *sorted;
    size_t n = s->n;
    progress_phase("sorting");
    int rc = chunks_sort(s, s->keys, s->cap, &n, &sorted);
    progress_phase("reading");
    s->keys = NULL;
    s->n = s->cap = 0;
    if (rc) {
        free(sorted);
        return rc;
    }
    return chunks_add_run(s, sorted, n);
}

/* A pinned buffer for a new chunk, where chunks are pinned (chunks_pin_ok) and are
 * still of the buffers' size: the one not aside, made (faulted in and pinned) the
 * first time. 1 if s->keys is one (or, where pinning failed, a plain chunk already
 * faulted in). */
static int chunks_chunk_pinned(chunks_t *s)
{
    if (!chunks_pin_ok(s) || (s->pin_cap && s->pin_cap != s->limit))
        return 0;
    sorter_t *so = s->c->sorter;
    size_t bytes = s->limit * (size_t)s->c->km.width;
    for (int i = 0; i < 2; i++) {
        char *p = s->pinned[i];
        if (p && s->aside && p == s->a_job.keys)
            continue;   /* the chunk aside */
        if (!p) {
            if (!(p = mem_alloc(bytes)))
                return 0;
            mem_touch(s->c->pool, p, bytes);
            if (sorter_pin(so, p, bytes)) {
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

/* A buffer for a new chunk: a pinned one (chunks_chunk_pinned), or the spare where
 * it holds the chunk's limit, else a new one: room for the limit where the inputs
 * may hold that many keys (pages are only faulted in as keys arrive), for fewer
 * where their sizes say they cannot (s->most), and for CHUNK_FIRST_KEYS where their
 * sizes are not known and no chunk was filled before (a pipe). A chunk that needs
 * more room grows (chunks_make_room): a pipe's first chunk, an input that grew
 * since it was measured, a chunk whose limit could not be had at once. */
static int chunks_chunk_alloc(chunks_t *s)
{
    size_t w = (size_t)s->c->km.width;
    if (chunks_chunk_pinned(s))
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
    uint64_t fewer = s->most ? s->most : s->nruns == 0 ? CHUNK_FIRST_KEYS : s->limit;
    size_t cap = fewer < s->limit ? (size_t)fewer : s->limit;
    s->keys = mem_alloc(cap * w);
    s->cap = s->keys ? cap : 0;
    return GS_OK;
}

/* Room for up to m more keys at the chunk's end: the backend set up where the chunk
 * grows past its threshold, the chunk sealed where it is full, the budget made room
 * in, the chunk allocated or grown. *take (1..m) keys fit at keys + n * width. */
int chunks_make_room(chunks_t *s, size_t m, size_t *take)
{
    size_t w = (size_t)s->c->km.width;
    sorter_t *so = s->c->sorter;
    size_t grow_at = sorter_caps(so)->grow_at;
    int rc;
    if (grow_at && s->n + m > grow_at) {
        /* The backend gets ready for larger chunks (a GPU sets itself up, in the
         * background where it can), chunks sized to it from then on. */
        if ((rc = sorter_grow(so, s->n + m)) != GS_OK)
            return rc;
        chunks_set_limit(s);
    }
    if (s->n >= s->limit && (rc = chunks_seal(s)) != GS_OK)
        return rc;
    *take = s->limit - s->n < m ? s->limit - s->n : m;
    if ((rc = chunks_spill_for(s, s->n + *take)) != GS_OK)
        return rc;
    if (!s->keys && (rc = chunks_chunk_alloc(s)) != GS_OK)
        return rc;
    if (s->n + *take > s->cap && s->cap > 0 && s->cap < s->limit) {
        /* A chunk made with less room than its limit (chunks_chunk_alloc) is moved
         * into a buffer of the limit at once: by realloc, step by step, the pages
         * moved would lose their huge pages, and each step's new pages be faulted
         * in small. */
        char *nk = mem_alloc(s->limit * w);
        if (nk) {
            mem_copy(s->c->pool, nk, s->keys, s->n * w);
            free(s->keys);
            s->keys = nk;
            s->cap = s->limit;
        }
    }
    if (s->n + *take > s->cap) {
        /* Where not even that could be had: grow by doubling. */
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
int chunks_add(chunks_t *s, const char *keys, size_t m)
{
    size_t w = (size_t)s->c->km.width;
    while (m > 0) {
        size_t take;
        int rc = chunks_make_room(s, m, &take);
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
 * where they would cross the chunk's limit (the reader keeps them, and chunks_add
 * fills the chunk to its limit with them and starts the next, so chunks stay
 * whole), or on an error, kept in room_rc. */
void *chunks_room(void *arg, size_t m)
{
    chunks_t *s = arg;
    size_t take;
    if (s->room_rc || s->n + m > s->limit)
        return NULL;
    if ((s->room_rc = chunks_make_room(s, m, &take)) != GS_OK || take < m)
        return NULL;   /* the limit changed with the backend's set-up */
    return s->keys + s->n * (size_t)s->c->km.width;
}

static void chunks_drop_spare(chunks_t *s)
{
    free(s->spare);
    s->spare = NULL;
    s->spare_cap = 0;
}

void chunks_free(chunks_t *s)
{
    if (s->aside) {
        sorter_wait(s->c->sorter);
        chunks_free_chunk(s, s->a_job.keys);
        free(s->a_job.scratch);
    }
    chunks_free_chunk(s, s->keys);
    chunks_drop_pinned(s);
    free(s->spare);
    for (int i = 0; i < s->nruns; i++)
        run_free(s->runs[i]);
    free(s->runs);
}

void chunks_init(chunks_t *s, ctx_t *c)
{
    memset(s, 0, sizeof *s);
    s->c = c;
    s->budget = c->set->buffer_bytes;
    s->rcfg = (runcfg_t){ .tmpdirs = c->set->tmpdirs,
                          .ntmpdirs = c->set->ntmpdirs, .compress = c->set->compress,
                          .width = c->km.width, .pool = c->pool };
    chunks_set_limit(s);
    /* A key of text takes a digit and, but for the last, a separator; one of binary
     * its width. Without this bound a small input's chunk would be a mapping of the
     * whole budget all the same: address space that `ulimit -v` counts, and that the
     * sanitizers' runtimes poison or shadow in full at every run. */
    if (c->in_sized) {
        uint64_t bytes = c->in_bytes;
        s->most = c->set->in_format == FMT_BINARY ? bytes / (uint64_t)c->km.width
                                                  : bytes / 2 + 1;
        if (s->most < CHUNK_FIRST_KEYS)
            s->most = CHUNK_FIRST_KEYS;   /* a file that grows as it is read */
    }
}

int chunks_sort_last(chunks_t *s, void **sorted)
{
    size_t n = s->n;
    int rc = chunks_sort(s, s->keys, s->cap, &n, sorted);
    s->keys = *sorted;
    s->n = n;
    chunks_drop_spare(s);   /* nothing more to sort */
    return rc;
}

void chunks_release(chunks_t *s, int keep_pinned)
{
    chunks_drop_spare(s);
    if (!keep_pinned)
        chunks_drop_pinned(s);
}
