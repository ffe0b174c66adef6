/* SPDX-License-Identifier: MIT */
/* chunks.h: the sort's chunks: keys gathered into chunks within -S, each sorted and
 * kept as a run.
 *
 * A chunk takes at most half of -S (the other half is its sort's scratch) and what
 * the sorter takes at once. A full chunk is sealed: sorted (aside, on the sorter's
 * own engines, while the next chunk is read, where the sorter can and -S holds two
 * chunks) and kept as a run, in memory while the runs and the chunk being filled
 * fit -S; as the chunk being filled needs the room, the largest runs in memory are
 * spilled under -T. Buffers are reused from one chunk to the next (memory already
 * faulted in costs nothing, new memory a fault per page); once the input is known
 * to take several chunks and the sorter pins memory (a GPU), chunks are read into
 * two buffers pinned once, each sorted chunk copied out into a run of its own.
 */
#ifndef GS_CHUNKS_H
#define GS_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline/ctx.h"
#include "sorter/sorter.h"
#include "store/runs.h"

typedef struct {
    ctx_t *c;
    size_t budget;           /* -S: bytes for chunks and runs in memory */
    runcfg_t rcfg;           /* how runs spill */
    char *keys;              /* the chunk being filled */
    size_t n, cap;           /* its keys, and its room */
    size_t limit;            /* most keys this chunk may take */
    uint64_t most;           /* the most keys the inputs can hold, where their sizes
                                are known (regular files); 0: not known (a pipe) */
    run_t **runs;            /* the runs made so far */
    int nruns, caprun;
    uint64_t mem_bytes;      /* bytes of the runs held in memory (and of a chunk aside) */
    char *spare;             /* a buffer the last sort left free, or NULL */
    size_t spare_cap;        /* its room, in keys */
    /* a chunk the sorter sorts aside (sorter_submit) while the next one is read */
    int aside;               /* 1: one is being sorted */
    sort_job_t a_job;        /* its sort: its buffers, its keys */
    size_t a_cap, a_scap;    /* the room of its buffers, in keys */
    /* chunk buffers pinned by the sorter (sorter_pin), reused chunk after chunk */
    char *pinned[2];
    size_t pin_cap;          /* their room, in keys */
    int pin_off;             /* 1: pinning failed once; not tried again */
    const char *copy_src;    /* a sorted chunk in a pinned buffer still to copy out, */
    size_t copy_n;           /* its keys */
    int room_rc;             /* an error met making room for the reader (chunks_room) */
} chunks_t;

/* Start with no chunk and no run. */
void chunks_init(chunks_t *s, ctx_t *c);

/* Room for up to m more keys at the chunk's end: the sorter readied where the chunk
 * grows past what it asked (sorter_grow), the chunk sealed where it is full, the
 * budget made room in, the chunk allocated or grown. *take (1..m) keys fit at
 * keys + n * width; the caller puts them there and adds them to n. */
int chunks_make_room(chunks_t *s, size_t m, size_t *take);

/* Add keys[0..m) to the chunk, sealing it each time it reaches its limit. */
int chunks_add(chunks_t *s, const char *keys, size_t m);

/* For kreader_next_into(): the reader's room for m keys of text at the chunk's end,
 * or NULL where they would cross the chunk's limit (the reader keeps them, and
 * chunks_add() fills the chunk to its limit with them and starts the next, so
 * chunks stay whole), or on an error, kept in s->room_rc. arg is s. */
void *chunks_room(void *arg, size_t m);

/* Sort the chunk and keep it as a run, aside where it can; start an empty chunk. */
int chunks_seal(chunks_t *s);

/* Wait for the chunk aside, if any, and keep it as a run (copied out of its pinned
 * buffer, if it is in one). */
int chunks_settle(chunks_t *s);

/* Sort the one chunk there is, in place of runs: its sorted keys in *sorted (in
 * s->keys or in the scratch), n updated for -u. The spare is dropped: nothing more
 * is sorted. */
int chunks_sort_last(chunks_t *s, void **sorted);

/* Let go of the spare buffer, and of the pinned ones unless keep_pinned (a merge by
 * sorting takes them as piece buffers): the merge has the budget to itself. */
void chunks_release(chunks_t *s, int keep_pinned);

/* Free the chunks and the runs (waiting for a sort aside). */
void chunks_free(chunks_t *s);

#endif
