/* SPDX-License-Identifier: MIT */
/* plan.h: the device and the path a run takes, chosen once, before anything is
 * read, from the settings, the inputs (their kinds and sizes) and the engine's
 * sorter, with why; --stats prints it. The paths live in their own files (ctx.h
 * lists them); this is the one place that weighs them against each other.
 *
 * A path through a GPU that holds everything at once (stream.c, stream_text.c) may
 * still find, once it asks the GPU, that it does not fit; it then hands the run to
 * the chunked path, which reads the inputs from their start, and --stats says so.
 */
#ifndef GS_PLAN_H
#define GS_PLAN_H

#include "pipeline/ctx.h"

typedef enum {
    PLAN_CHECK,          /* -c, -C on bare keys: check.c */
    PLAN_MERGE,          /* -m on bare keys: mergefiles.c */
    PLAN_RECORDS,        /* records, every mode: records.c */
    PLAN_CHUNKS,         /* bare keys in chunks, kept or spilled, merged: sort.c */
    PLAN_STREAM,         /* binary keys or records through one GPU: stream.c */
    PLAN_STREAM_TEXT,    /* integers as text parsed and sorted on one GPU: stream_text.c */
} plan_path_t;

typedef struct {
    plan_path_t path;
    char why[240];       /* the reason, for --stats */
} plan_t;

/* The device and the path for c (ctx_init() done): its sorter made (engine_create,
 * told whether the path would be the GPU's text stream), then the path chosen from
 * the sorter's caps. GS_OK or the engine's error. */
int plan_make(ctx_t *c, plan_t *p);

/* Run p's path (a stream the GPU cannot hold: the chunked path, or the records'
 * table, instead). GS_OK, GS_EDISORDER or an error. */
int plan_run(ctx_t *c, const plan_t *p);

#endif
