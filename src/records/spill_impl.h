/* SPDX-License-Identifier: MIT */
/* spill_impl.h: the files of runs, shared by their two parts: spill.c (writing
 * runs) and spill_merge.c (merging them). Not for other modules: their interface is
 * spill.h.
 *
 * A block is a header of SPILL_HEAD bytes (little-endian: the records' bytes, the
 * bytes stored, their checksum) and the bytes stored: the records as they are where
 * the stored length equals theirs, else their LZ4 block. A run is its blocks, in
 * order, spread over the files: each thread that packs blocks writes them to a file
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
#include "records/spill.h"

#define SPILL_HEAD 16                     /* a block's header */

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

/* The n-byte little-endian number at p. */
static inline uint64_t spill_get(const char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | (unsigned char)p[i];
    return v;
}

#endif
