/* SPDX-License-Identifier: MIT */
/* pmerge.h: the parallel merge of sorted runs, by key range.
 *
 * Splitter keys drawn from samples of the runs cut the key space into pieces of
 * about the same number of keys. The pool's threads take pieces in order; each
 * merges its piece of every run (through a tree of two-way merges where the runs are
 * few, a loser tree where they are many), prepares the result (formats it,
 * say) in parallel with the others, and delivers it to the sink in key order: the
 * thread whose piece is next streams directly, the others hold their piece's bytes
 * (at most a bounded amount, then they wait for their turn).
 *
 * Where the sink places its output (text to a file), the merge first lays it out:
 * a key's bytes depend on its value alone, as steps over the keys, so the bytes of
 * every piece follow from the ranks of the steps and of the splitters in each run,
 * without reading the keys. Each thread then formats its pieces straight into
 * place, all at once, with no turn to wait for and nothing held.
 */
#ifndef GS_PMERGE_H
#define GS_PMERGE_H

#include <stddef.h>
#include <stdint.h>
#include "core/pool.h"
#include "store/runs.h"

/* A sink that places its output (optional). */
typedef struct {
    size_t nsteps;                  /* the bytes of a key, by its value: the keys from */
    const uint64_t *step_key;       /* step_key[i] (step_key[0] is 0) up to the next */
    const unsigned char *step_len;  /* step take step_len[i] bytes each */
    /* Make room for total bytes: *base, or NULL (declined: deliver in order). */
    int (*begin)(void *self, uint64_t total, char **base);
    /* Put b's sorted items at *at, no byte at or past end; move *at past them (and
     * *released, the caller's mark of pages let go: output_place()). */
    int (*fill)(void *self, const run_batch_t *b, char **at, char *end, char **released);
    /* Done with base (ok: every piece was filled). */
    int (*end)(void *self, char *base, uint64_t total, int ok);
} pmerge_place_t;

/* Where merged items go. prepare() runs on the merge threads in parallel and turns a
 * batch of sorted items into bytes at dst (room for b->n * max_bytes; NULL: the keys
 * as they are, max_bytes being the key width); deliver() takes those bytes in key
 * order, from one thread at a time. */
typedef struct {
    size_t (*prepare)(void *self, const run_batch_t *b, void *dst);
    int (*deliver)(void *self, const void *bytes, size_t len);
    size_t max_bytes;        /* most bytes prepare() makes of one key */
    void *self;
    const pmerge_place_t *place;   /* NULL: delivered in order only; never with -u */
} pmerge_sink_t;

/* Merge runs[0..nruns) (keys of width bytes, each run ascending) into sink, with
 * unique dropping repeats. Spilled runs must be open (run_open). budget bounds the
 * bytes the merge holds (cursor buffers and pieces waiting for their turn). */
int pmerge_runs(run_t **runs, int nruns, int width, int unique, pool_t *pool,
                size_t budget, const pmerge_sink_t *sink);

/* Bytes one thread's cursors over nruns spilled runs take: for sizing fan-in. */
size_t pmerge_cursor_bytes(int nruns, int width);

#endif
