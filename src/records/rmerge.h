/* SPDX-License-Identifier: MIT */
/* rmerge.h: sorted runs of records merged into the output by pieces of keys, on a
 * pool's threads: the one merge of records' runs, whatever holds them (a spill's
 * runs, records/spill_merge.c; the parts a gpusort-mpi rank received,
 * cluster/merge.c).
 *
 * A source is a run of records in the order of their words (rkey.h), equal words
 * as rkey_order() puts them; the caller's cursors read it (rmerge_src_t): seek to
 * the first record of a word, advance to the next. The words are cut into pieces,
 * [split[p-1], split[p]), so that every record of a word is in one piece and the
 * ties and -u are settled inside it. Each thread takes the next piece not yet
 * taken and plays one loser tree (merge/ltree.h) over the sources' parts of it:
 * equal words by rkey_order(), then the earlier source. -u keeps the first record
 * of equal keys.
 *
 * The bytes are known before they are written where rmerge_plan() was asked to
 * find them: measured at the bounds of the threads' stretches of pieces (each
 * source's bytes before the bound's first word, a seek a source and bound) or,
 * under -u, counted piece by piece by a merge that writes nothing. Then a thread
 * merges a stretch at a time, as one range, to its offset in the output file,
 * copied into its mapped pages or written with pwrite, where the file allows
 * (io/pieces.h); otherwise each piece goes
 * out on its turn (the lowest piece not yet out), a thread whose buffer fills
 * before then waiting for it, so that memory stays bounded and the thread holding
 * the turn never waits.
 */
#ifndef GS_RMERGE_H
#define GS_RMERGE_H

#include <stddef.h>
#include <stdint.h>

#include "core/pool.h"
#include "io/output.h"
#include "io/turns.h"
#include "records/rkey.h"

/* A cursor's record at hand, the first member of every source's cursor. */
typedef struct {
    const char *rec;       /* the record (NULL: the source's part is done) */
    const char *end;       /* its source's bytes readable up to here (rec + len or more) */
    size_t len;            /* its bytes, terminator included */
    uint64_t key;          /* its word (UINT64_MAX once done) */
} rcur_t;

/* A kind of source: how its cursors read it. ctx is the caller's (rmerge_cfg_t);
 * own a thread's state of the source's kind (own_size bytes, zeroed at first); cur
 * a cursor (cur_size bytes, an rcur_t first, zeroed at first). */
typedef struct {
    size_t cur_size, own_size;
    /* cur at source j's first record of word lo or above (has_lo; else its first);
     * *at (where not NULL) the source's bytes before that record, all of them
     * where there is none. GS_OK or an error (the message set). */
    int (*seek)(void *ctx, void *own, rcur_t *cur, size_t j, uint64_t lo, int has_lo,
                uint64_t *at);
    /* cur at its next record (rec NULL past the source's last). GS_OK or an error. */
    int (*advance)(void *ctx, void *own, rcur_t *cur);
    /* What a cursor and a thread's state hold, let go of (either may be NULL). */
    void (*cur_free)(rcur_t *cur);
    void (*own_free)(void *own);
} rmerge_src_t;

typedef struct {
    const rmerge_src_t *src;
    void *ctx;
    size_t nsrc;
    const uint64_t *size;  /* [nsrc] each source's bytes */
    const rkey_t *rk;      /* the records' keys; NULL: bare numbers (the word is all) */
    int unique;            /* -u */
    int text;              /* 1: records end with a terminator (rkey.h takes them without) */
    const uint64_t *split; /* npieces - 1 words, increasing (copied) */
    size_t npieces;
    pool_t *pool;
    int nthreads;          /* the pool's threads that take part (1: the caller's alone) */
    size_t outcap;         /* a thread's bytes buffered at a time (in order, or at
                              offsets: the window's buffer) */
} rmerge_cfg_t;

enum {
    RMERGE_IN_ORDER,       /* pieces' bytes not known: written in order */
    RMERGE_MEASURE,        /* measured by seeks (not with -u) */
    RMERGE_COUNT,          /* counted by a merge that writes nothing */
};

typedef struct rmerge rmerge_t;

/* The pieces to cut a merge of bytes into, for nthreads threads buffering outcap
 * bytes each: MERGE_PIECES a thread (so that the threads end together), and at
 * least a piece to half a buffer, so that written in order (to a pipe, or -u), a thread holds its whole piece while
 * it waits for the piece's turn and the threads merge at once (with pieces of tens
 * of buffers, the thread with the turn merged alone); MERGE_PIECES_MAX at most. 1
 * for one thread. Laid out, a thread merges a stretch of consecutive pieces as one
 * range (nthreads x MERGE_PIECES stretches), so that fine pieces cost no more seeks
 * there (a spilled run's seek decodes a block). */
size_t rmerge_pieces(int nthreads, uint64_t bytes, size_t outcap);

/* Plan the merge cfg says (how = RMERGE_*): *m, and *bytes, what it will write
 * (where known; else 0). GS_OK or an error; *m is for rmerge_free() either way. */
int rmerge_plan(const rmerge_cfg_t *cfg, int how, rmerge_t **m, uint64_t *bytes);

/* Write header[0..hlen) (where hlen), then the merge, to out: placed or at offsets
 * where the pieces' bytes are known and out allows it, else in order. GS_OK or an
 * error (the first a thread met). */
int rmerge_write(rmerge_t *m, output_t *out, const char *header, size_t hlen);

/* The merge handed to put(ctx, bytes, len) in order instead, whole records each
 * call (a merge pass into a new run: records/spill_merge.c), by the caller's
 * thread where cfg->nthreads is 1. GS_OK or the first error (put's too). */
int rmerge_write_to(rmerge_t *m, turns_put_fn put, void *ctx);

void rmerge_free(rmerge_t *m);

#endif
