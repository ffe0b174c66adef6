/* SPDX-License-Identifier: MIT */
/* plan.c: the one choice of a run's path (see plan.h). */
#include <config.h>

#include <stdio.h>

#include "core/error.h"
#include "core/stats.h"
#include "pipeline/plan.h"

static const char *plan_name(plan_path_t p)
{
    switch (p) {
    case PLAN_CHECK:
        return "check";
    case PLAN_MERGE:
        return "merge";
    case PLAN_RECORDS:
        return "records";
    case PLAN_STREAM:
        return "stream";
    case PLAN_STREAM_TEXT:
        return "stream-text";
    default:
        return "chunks";
    }
}

int plan_make(ctx_t *c, plan_t *p)
{
    const settings_t *set = c->set;
    int checking = set->mode == MODE_CHECK || set->mode == MODE_CHECK_QUIET;
    /* The streams' reasons come first: --device=auto's weighing asks whether text
     * would take the GPU's text stream. */
    const char *no_stream = stream_declines(c);
    const char *no_text = stream_text_declines(c);
    int rc = engine_create(c, !no_text);
    if (rc)
        return rc;
    if (!sorter_caps(c->sorter)->streams)
        no_stream = no_text = set->gpus == 0 ? "--device=cpu"
                                             : "the CPU sorts: the device line says why";
    const char *why;
    if (set->mode == MODE_SORT && !no_stream) {
        p->path = PLAN_STREAM;
        why = "binary, regular files: through the GPU if it holds them all, else in "
              "chunks";
    } else if (settings_records(set)) {
        p->path = PLAN_RECORDS;
        why = checking ? "records: checked a chunk at a time"
              : set->mode == MODE_MERGE ? "records: merged by chunks of the inputs"
                                        : "records: chunks sorted, kept or spilled, merged";
    } else if (checking) {
        p->path = PLAN_CHECK;
        why = "the one input read and checked";
    } else if (set->mode == MODE_MERGE) {
        p->path = PLAN_MERGE;
        why = "the inputs merged, in passes where they are more than can be open";
    } else if (!no_text) {
        p->path = PLAN_STREAM_TEXT;
        why = "integers as text, regular files: parsed and sorted on the GPU if it "
              "holds them, else in chunks";
    } else {
        p->path = PLAN_CHUNKS;
        why = "chunks sorted, kept in memory or spilled, merged";
    }
    int n = snprintf(p->why, sizeof p->why, "%s (%s", plan_name(p->path), why);
    /* Why the GPU's stream was not taken, where it could have been thought of. */
    const char *no = set->in_format == FMT_BINARY ? no_stream : no_text;
    if ((p->path == PLAN_CHUNKS || (p->path == PLAN_RECORDS && set->record_size)) && no &&
        set->mode == MODE_SORT && n > 0 && (size_t)n < sizeof p->why)
        n += snprintf(p->why + n, sizeof p->why - (size_t)n, "; no GPU stream: %s", no);
    if (n > 0 && (size_t)n < sizeof p->why)
        snprintf(p->why + n, sizeof p->why - (size_t)n, ")");
    return GS_OK;
}

int plan_run(ctx_t *c, const plan_t *p)
{
    stats_set_plan(p->why);
    int done = 0, rc = GS_OK;
    switch (p->path) {
    case PLAN_CHECK:
        return check_run(c);
    case PLAN_MERGE:
        return mergefiles_run(c);
    case PLAN_RECORDS:
        return records_run(c);
    case PLAN_STREAM:
        rc = stream_run(c, &done);
        break;
    case PLAN_STREAM_TEXT:
        rc = stream_text_run(c, &done);
        break;
    default:
        return sort_run(c);
    }
    if (rc || done)
        return rc;
    stats_set_plan_fallback("the GPU could not hold the input: read again in chunks");
    return settings_records(c->set) ? records_run(c) : sort_run(c);
}
