/* SPDX-License-Identifier: MIT */
/* ctx.h: what one run of gpusort shares: the settings, the key mapping, the thread
 * pool and the chunk sorter, plus the helpers every mode uses to open inputs and the
 * output. run.c builds it; the modes (sort.c, mergefiles.c, check.c) use it.
 */
#ifndef GS_CTX_H
#define GS_CTX_H

#include <stdint.h>

#include "core/keys.h"
#include "core/pool.h"
#include "core/settings.h"
#include "io/output.h"
#include "io/reader.h"
#include "sorter/sorter.h"

typedef struct {
    const settings_t *set;
    keymap_t km;
    pool_t *pool;
    sorter_t *sorter;        /* the chunk sorter (the CPU for -m and -c) */
    char *header;            /* --header: the first header met, in input order, its
                                terminator included; NULL while none was, or where
                                none is to be written */
    size_t header_len;
    /* Made once by run(), before anything is read or chosen, so that every choice
     * of the run sees the same inputs and every path the same configurations: */
    int in_sized;            /* 1: every input is a regular file (or a range of one), */
    uint64_t in_bytes;       /*   their bytes in all then; 0 and unknown where one is
                                not (a pipe) */
    kreader_cfg_t rcfg;      /* the reader the settings ask for (block_bytes 0: each
                                path sets its own) */
    output_cfg_t ocfg;       /* the output the settings ask for */
} ctx_t;

/* Fill c->in_sized, c->in_bytes, c->rcfg and c->ocfg from c->set, c->km and
 * c->pool (run.c, once). */
void ctx_init(ctx_t *c);

/* --header: keep r's header (read once kreader_next() has returned) where none was
 * kept before and the settings ask for it to be written (set->header), its
 * terminator added where the input lacked one; the inputs are met in input order.
 * GS_OK or GS_ENOMEM. */
int ctx_keep_header(ctx_t *c, const kreader_t *r);

/* Write the header kept, if any, to out: before anything else is written. */
int ctx_write_header(const ctx_t *c, output_t *out);

/* Commit out if rc says everything before went well, else abort it; the result. */
int ctx_finish(int rc, output_t *out);

/* How many files one merge may hold open: the open-file limit less a reserve. */
int ctx_fan_in(void);

/* The engine: the chunk sorter the settings and the input ask for (engine.c);
 * text_streams 1 where integers as text would take the GPU's text stream
 * (--device=auto weighs the input's keys against that path's speed). plan_make()
 * calls it. */
int engine_create(ctx_t *c, int text_streams);

/* --stats: the device line set to the device that sorted and why, once the run's
 * last sort is done (a GPU backend may count the GPUs now: sorter_use). */
void engine_note_device(const ctx_t *c);

/* The paths (plan.h chooses one; each path's *_declines() says why it does not
 * apply, NULL where it does). */
int sort_run(ctx_t *c);         /* sort.c: bare keys in chunks, in memory or runs */
/* stream.c: the sort of binary keys (or binary records) streamed through a GPU that
 * holds them all (*done 1), else nothing done (*done 0; nothing read): the chunked
 * path goes on. */
int stream_run(ctx_t *c, int *done);
const char *stream_declines(const ctx_t *c);
/* stream_text.c: the sort of text streamed through a GPU and parsed there (*done 1),
 * else nothing written (*done 0; the inputs may have been read, and are read again
 * from their start): the chunked path goes on. --device=auto weighs the GPU against
 * the CPU's parse and sort by another measure where this applies (engine.c). */
int stream_text_run(ctx_t *c, int *done);
const char *stream_text_declines(const ctx_t *c);
int mergefiles_run(ctx_t *c);   /* mergefiles.c: -m */
int check_run(ctx_t *c);        /* check.c: -c and -C */
int records_run(ctx_t *c);      /* records.c: every mode, for records */

#endif
