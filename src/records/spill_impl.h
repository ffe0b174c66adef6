/* SPDX-License-Identifier: MIT */
/* spill_impl.h: the files of runs, shared by their three parts: spill.c (writing
 * runs), spill_cursor.c (reading a run back, a source of records/rmerge.h) and
 * spill_merge.c (merging them); and the merge's context, shared by the last two. Not for other modules: their interface
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

#include <stddef.h>
#include <stdint.h>

#include "core/pool.h"
#include "core/settings.h"
#include "core/tuning.h"
#include "records/ends.h"
#include "records/rkey.h"
#include "records/rmerge.h"
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
    int failed;            /* 1: out of memory; 2: a record no block takes, */
    size_t too_long;       /*   of this many bytes */
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
    size_t block;          /* a block's records: about this many bytes (spill_open) */
};

/* ---- the merge (spill_merge.c) and its cursors (spill_cursor.c) -------------------- */

/* ---- a run written as its records come, in order (a merge pass; spill.c) ---------- */

typedef struct {
    rspill_t *s;
    const rkey_t *rk;      /* each block's first record's word */
    char term;
    srun_t run;            /* the run made */
    char *blk;             /* the block being filled: its records */
    size_t fill, cap;
    uint64_t key;          /* its first record's word */
    int lz4;               /* 1: blocks compressed; -1: the first block decides */
} swriter_t;

/* Begin a run after every block of s's index; none may be added meanwhile. */
void spill_writer_begin(rspill_t *s, swriter_t *w, const rkey_t *rk);
/* Records bytes[0..len), whole, appended to the run (a turns_put_fn). GS_OK or an
 * error. */
int spill_writer_put(void *w, const void *bytes, size_t len);
/* The run ended: its last blocks written and noted, *run it (where ok; else what
 * was written is left in the files, unused). GS_OK or an error. */
int spill_writer_end(swriter_t *w, int ok, srun_t *run);

/* The runs as the merge's sources (records/rmerge.h): its context. */
typedef struct {
    rspill_t *s;
    const srun_t *runs;    /* the runs merged: s->runs, or a pass's group of them */
    rkey_t rk;             /* the keys (rkey.h) */
    char term;
    int by_masks;          /* the quick key (rkey.h), lines split by one byte (-t)
                              other than term: found by ends.h's masks */
    uint64_t pos_max;      /* field_pos_max() of the quick key's type */
} smerge_t;

/* A run's cursor. */
typedef struct {
    rcur_t c;              /* the record at hand (rmerge.h) */
    size_t blk, bend;      /* the run's blocks still to read, in the index */
    uint64_t rawoff;       /* the run's records' bytes before the block being read */
    char *raw;             /* the block being read: its records from raw + base */
    size_t raw_len, raw_cap, pos, base;
    ends_t ends;           /* by masks: the block's terminators and separators */
} scur_t;

/* A thread's state: a block as stored. */
typedef struct {
    char *comp;
    size_t comp_cap;
} sown_t;

/* The cursors' functions (rmerge_src_t; spill_cursor.c). */
extern const rmerge_src_t spill_source;

#endif
