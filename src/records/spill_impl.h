/* SPDX-License-Identifier: MIT */
/* spill_impl.h: the files of runs, shared by their three parts: spill.c (writing
 * runs), spill_cursor.c (reading a run back) and spill_merge.c (merging them); and
 * the merge's state, shared by the last two. Not for other modules: their interface
 * is spill.h.
 *
 * A block is one of store/codec.h (its header, then the records' bytes as they are
 * or their LZ4 block): the one block format of every spilled run. A run is its
 * blocks, in order, spread over the files: each thread that packs blocks writes them to a file
 * of its own (where there are threads enough), since the kernel takes one write to
 * a file at a time (doc/perf/TUNING.md, SPILL_RECORD_FILES). Beside the files, in
 * memory, the index: each block's file, offset and stored bytes, and the mapped key
 * of its first record: where a range of keys starts in each run, and where its
 * next block is.
 */
#ifndef GS_SPILL_IMPL_H
#define GS_SPILL_IMPL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/pool.h"
#include "core/settings.h"
#include "core/tuning.h"
#include "merge/ltree.h"
#include "records/ends.h"
#include "records/rkey.h"
#include "records/spill.h"
#include "store/codec.h"


/* A block: its offset in its file, the mapped key of its first record, the bytes
 * of its run's records before it (while a thread packs it: its own bytes), its
 * file, and its bytes stored after the header. */
typedef struct {
    uint64_t off, key, raw;
    uint32_t file, stored;
} sblock_t;

typedef struct {
    uint64_t raw;          /* its records' bytes */
    size_t block0, nblocks;/* its blocks in the index */
} srun_t;

/* A file of blocks, unlinked since it was made (spill.c). */
typedef struct {
    int fd;
    char *path;            /* its name when made, for messages */
    uint64_t bytes;        /* its length (atomic: threads that share it reserve their
                              bytes by adding to it) */
} sfile_t;

/* A block as the packing plans it: its first record (in order[]), its records'
 * bytes, and its first record's mapped key. */
typedef struct {
    size_t r, bytes;
    uint64_t key;
} splan_t;

/* A thread's blocks of a round, packed in memory, then written by the thread. */
typedef struct {
    splan_t *plan;         /* the round's blocks, planned */
    size_t nplan, pcap;
    char *buf;             /* blocks, ready to write */
    size_t len, cap;
    char *raw;             /* a block's records, before they are compressed */
    size_t raw_cap;
    sblock_t *blocks;      /* its blocks: offsets in buf, first keys */
    size_t nblocks, bcap;
    int file;              /* the file it writes to, */
    uint64_t at;           /* where buf went in it */
    double pack_s, write_s;/* its time packing and writing, this round */
    int failed;            /* out of memory */
    int rc;                /* the write's error, or GS_OK */
} spack_t;

struct rspill {
    const settings_t *set;
    pool_t *pool;
    sfile_t *files;        /* thread i writes to file i % nfiles */
    int nfiles;
    uint64_t bytes;        /* the files' lengths together */
    srun_t *runs;
    size_t nruns, cap;
    sblock_t *blocks;      /* every block of every run, run after run */
    size_t nblocks, bcap;
    spack_t *packs;        /* one a thread */
    int lz4;               /* 1: blocks compressed (--compress-temp lz4 or auto) */
    int probe;             /* 1: auto: each run's first block decides (spill_pays) */
};

/* ---- the merge (spill_merge.c) and its cursors (spill_cursor.c) -------------------- */

/* A run's cursor inside one piece. */
typedef struct {
    size_t blk, bend;      /* the run's blocks still to read, in the index */
    uint64_t rawoff;       /* the run's records' bytes before the block being read */
    char *raw;             /* the block being read: its records from raw + base */
    size_t raw_len, raw_cap, pos, base;
    ends_t ends;           /* by masks: the block's terminators and separators */
    const char *rec;       /* the record at hand (NULL: the run's part is done), */
    size_t len;            /* its length, terminator included, */
    uint64_t key;          /* its word (rkey.h) */
    int run;
} scur_t;

/* The merge, shared by its threads. */
typedef struct {
    rspill_t *s;
    output_t *out;
    rkey_t rk;             /* the keys (rkey.h) */
    char term;
    int by_masks;          /* the quick key (rkey.h), lines split by one byte (-t)
                              other than term: found by ends.h's masks */
    uint64_t pos_max;      /* field_pos_max() of the quick key's type */
    uint64_t *split;       /* npieces - 1 keys, increasing */
    size_t npieces;
    int nthreads;          /* the pool's threads that take part */
    size_t outcap;         /* a thread's output buffer */
    int fd;                /* written at offsets: the output's descriptor; else -1 */
    uint64_t *at;          /* with fd: piece p's bytes at [at[p], at[p + 1]) */
    char *map;             /* placed: the file mapped from offset map_pos (with fd) */
    uint64_t map_pos, map_len;
    size_t next;           /* the next piece to take (atomic) */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    size_t turn;           /* the piece whose bytes go out now */
    int failed, rc;
} smerge_t;

/* A thread's part of the merge. */
typedef struct {
    smerge_t *m;
    scur_t *cur;           /* a cursor a run */
    ltree_t tree;          /* the loser tree over them (merge/ltree.h) */
    char *comp;            /* a block as stored */
    size_t comp_cap;
    char *obuf;
    size_t olen;
    size_t piece;
    uint64_t hi;           /* the piece's keys are below hi, */
    int has_hi;            /* where it has one */
    uint64_t at;           /* with m->fd: where the buffer's bytes go */
    char *released;        /* with m->map: the piece's pages let go of up to here, */
    char *mark;            /* and counted as placed up to here */
    char *last;            /* -u where words are not the whole keys: the last record
                              written, its keys compared with the next one's */
    size_t last_len, last_cap;
} sthread_t;

/* Move cursor c to its next record and take its key (spill_cursor.c): GS_OK, c->rec
 * NULL at the run's end or at the piece's (a key at t->hi or above). */
int spill_advance(sthread_t *t, scur_t *c);

/* Cursor c at run r's first record of key lo or above (has_lo; else its first), and
 * *at (where not NULL) the run's bytes before that record (spill_cursor.c). */
int spill_seek(sthread_t *t, scur_t *c, size_t r, uint64_t lo, int has_lo, uint64_t *at);

#endif
