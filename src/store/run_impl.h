/* SPDX-License-Identifier: MIT */
/* run_impl.h: a run's state, shared by the run store's parts: run.c (runs in
 * memory, spilling, sampling), run_writer.c (spilled runs written as a stream) and
 * run_read.c (cursors and reading by rank). Not for other modules: their interface
 * is runs.h.
 *
 * A spilled run's file is its blocks one after another, each encoded on its own
 * (codec.h); the index in memory gives each block's first key and its offset, so
 * that any key is reached by reading one block.
 */
#ifndef GS_RUN_IMPL_H
#define GS_RUN_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/tuning.h"
#include "store/codec.h"
#include "store/runs.h"

struct run {
    int width;
    size_t n;                /* keys */
    void *keys;              /* a memory run's keys, or NULL once spilled */
    int borrowed;            /* 1: keys belong to someone else (run_view) */
    /* a spilled run */
    char *path;              /* its file */
    int slot;                /* cleanup slot, or -1 */
    int fd;                  /* open while cursors may read it, else -1 */
    codec_t codec;
    size_t nblocks;
    uint64_t *first;         /* [nblocks] each block's first key */
    uint64_t *offset;        /* [nblocks + 1] each block's file offset, then the end */
};

/* Keys in block b of r. */
static inline size_t run_block_keys(const run_t *r, size_t b)
{
    size_t lo = b * RUN_BLOCK_KEYS;
    return r->n - lo < RUN_BLOCK_KEYS ? r->n - lo : RUN_BLOCK_KEYS;
}

/* run.c: a new registered temporary file for r under tmpdir (r->path, r->fd,
 * r->slot). GS_OK, or an error with the message set. */
int run_create_file(run_t *r, const runcfg_t *cfg);

/* run.c: write buf[0..len) to r's file at its position, every byte or an error. */
int run_write_all(run_t *r, const void *buf, size_t len);

/* run.c: the codec for a run whose first block is keys[0..n): the one asked for,
 * or with COMPRESS_AUTO, LZ4 where that block shrinks by a tenth or more. */
codec_t run_choose_codec(compress_t compress, const void *keys, size_t n, int width);

#endif
