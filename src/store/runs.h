/* SPDX-License-Identifier: MIT */
/* runs.h: the run store: sorted runs of mapped keys, kept in memory or spilled to a
 * file under the temporary directory, and cursors that read them back in order
 * (run.c, run_writer.c, run_read.c).
 *
 * A spilled run is a sequence of independently encoded blocks of RUN_BLOCK_KEYS keys
 * (codec.h), with an index in memory (each block's first key, offset and length), so
 * a cursor can start at any key by reading one block, and merge threads can read
 * different parts of one run at once with pread(2).
 */
#ifndef GS_RUNS_H
#define GS_RUNS_H

#include <stddef.h>
#include <stdint.h>
#include "core/pool.h"
#include "core/settings.h"
#include "core/tuning.h"
#include "store/codec.h"

typedef struct {
    const char *const *tmpdirs; /* where spilled runs go, each in turn */
    int ntmpdirs;
    compress_t compress;     /* auto, lz4 or none */
    int width;               /* key bytes: 4 or 8 */
    pool_t *pool;            /* threads that encode blocks when a run spills */
} runcfg_t;

typedef struct run run_t;

/* A batch: n items of a run, in order, as the store hands them on (cursors) and takes
 * them in (run writers), and as a merge hands them to its sink. An item is a mapped
 * key; records add their payload beside the keys, in fields of their own, so that
 * what only passes batches along does not change (doc/DESIGN.md, "Records"). */
typedef struct {
    const void *keys;        /* n mapped keys of the run's width */
    size_t n;
} run_batch_t;

/* A run in memory, taking ownership of keys (n sorted keys from malloc/mem_alloc). */
int run_from_memory(run_t **r, void *keys, size_t n, int width);

/* A memory run over keys it does not own (freeing the run leaves them alone); such a
 * run is never spilled. */
int run_view(run_t **r, const void *keys, size_t n, int width);

/* Write a memory run to a new temporary file and free its keys. GS_OK, or GS_EIO
 * with the message set (a full disk, say); the run is unchanged then. */
int run_spill(run_t *r, const runcfg_t *cfg);

/* Keys in the run. */
size_t run_keys(const run_t *r);

/* 1 if the run is in memory. */
int run_in_memory(const run_t *r);

/* A memory run's keys (run_keys() of them, sorted), or NULL for a spilled run. */
const void *run_memory_keys(const run_t *r);

/* Bytes of the run's keys (as keys), and bytes its file takes (0 in memory). */
uint64_t run_key_bytes(const run_t *r);
uint64_t run_file_bytes(const run_t *r);

/* Free the run and remove its file; NULL is a no-op. */
void run_free(run_t *r);

/* Open or close a spilled run's file for cursors (a no-op for a memory run). Runs
 * keep no file open otherwise, so a store may hold more runs than the open-file
 * limit. */
int run_open(run_t *r);
void run_close(run_t *r);

/* Up to max keys spread evenly over the run, each standing for *weight keys, for
 * choosing merge splitters. Returns the number written to out (as u64). */
size_t run_sample(const run_t *r, uint64_t *out, size_t max, size_t *weight);

/* ---- streaming a new spilled run (merge passes) ------------------------------------ */

typedef struct run_writer run_writer_t;

int run_writer_open(run_writer_t **w, const runcfg_t *cfg);
/* Append b's items (keys >= every key before them). */
int run_writer_add(run_writer_t *w, const run_batch_t *b);
/* Finish: *out is the new run (on disk). The writer is freed either way. */
int run_writer_close(run_writer_t *w, run_t **out);
/* Drop an unfinished run and its file. */
void run_writer_abort(run_writer_t *w);

/* ---- reading by rank (the merge by sorting, smerge.h) --------------------------------- */

/* Keys [from, from + n) of r (from + n <= run_keys(r)) copied into dst (aligned for
 * the key width: whole blocks are decoded into it as keys). A spilled run
 * (open) has the blocks that hold them read and decoded, whole blocks straight into
 * dst, through buffers (run_cursor_bytes(width) bytes, the caller's own). Thread-safe:
 * threads with buffers of their own may read one run at once. GS_OK or GS_EIO. */
int run_copy_keys(run_t *r, size_t from, size_t n, void *dst, void *buffers);

/* *idx = the number of keys of r below v (the first index whose key is >= v); a
 * spilled run (open) decodes one block, through buffers as above. GS_OK or GS_EIO. */
int run_rank(run_t *r, uint64_t v, size_t *idx, void *buffers);

/* run_rank() of each of v[0..m) into idx[0..m); v ascending, so that a spilled run
 * decodes each block once. */
int run_ranks(run_t *r, const uint64_t *v, size_t m, size_t *idx, void *buffers);

/* ---- cursors ---------------------------------------------------------------------- */

/* A cursor's memory: the buffers one cursor over a spilled run needs. */
size_t run_cursor_bytes(int width);

typedef struct run_cursor run_cursor_t;

/* A cursor over r's keys that are >= lo, in order (r must be open). */
int run_cursor_open(run_cursor_t **c, run_t *r, uint64_t lo);

/* The next items into *b: valid until the next call; b->n == 0 at the end of the
 * run. */
int run_cursor_next(run_cursor_t *c, run_batch_t *b);

void run_cursor_close(run_cursor_t *c);

#endif
