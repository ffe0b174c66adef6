/* SPDX-License-Identifier: MIT */
/* run.c: the engine's one entry point: build the context (key mapping, threads,
 * chunk sorter), choose the path (plan.c) and take it; report and tear down.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "pipeline/ctx.h"
#include "pipeline/plan.h"
#include "pipeline/run.h"

/* About the bytes a run whose inputs are in_bytes long writes, for --progress: none
 * for -c, the inputs' for a sort or a merge in one format (records are written
 * whole), and for bare keys changing format, their count times the bytes of a
 * line of the type's widest value (a key's width in binary). */
static uint64_t run_out_bytes(const settings_t *set, const keymap_t *km, uint64_t in_bytes)
{
    if (set->mode == MODE_CHECK || set->mode == MODE_CHECK_QUIET)
        return 0;
    if (set->in_format == set->out_format || settings_records(set))
        return in_bytes;
    uint64_t line = set->type == KEY_I32 || set->type == KEY_U32 ? 11 : 21;
    if (set->in_format == FMT_BINARY)
        return in_bytes / (uint64_t)km->width * line;
    return in_bytes / line * (uint64_t)km->width;
}

/* A run that failed for want of host memory with the bare "out of memory": its
 * message told the way out, a smaller -S where the default was used (the code stays
 * GS_ENOMEM), or the -S given named. Past the run, when no thread sets a message
 * any more. */
static void run_hint_memory(const settings_t *set, gs_error_t *e)
{
    if (!e->message || strcmp(e->message, "out of memory") != 0)
        return;
    unsigned long long b = set->buffer_bytes;
    char *m = NULL;
    int n;
    if (!set->buffer_given && b > SORT_MIN_BUDGET)
        n = asprintf(&m, "out of memory with the default -S of %.1f MiB: try a smaller -S",
                     b / 1048576.0);
    else if (!set->buffer_given)   /* no smaller -S to try */
        n = asprintf(&m, "out of memory, even with -S at its least (%.1f MiB)", b / 1048576.0);
    else if (b % (1u << 20) == 0)   /* as a SIZE would give it */
        n = asprintf(&m, "-S %lluM: out of memory", b >> 20);
    else if (b % (1u << 10) == 0)
        n = asprintf(&m, "-S %lluK: out of memory", b >> 10);
    else
        n = asprintf(&m, "-S %llub: out of memory", b);
    if (n >= 0) {
        free(e->message);
        e->message = m;
    }
}

gs_error_t run(const settings_t *set)
{
    double t0 = stats_now();
    ctx_t c = { .set = set };
    key_map_init(&c.km, set->type, set->reverse);
    int rc = pool_create(&c.pool, set->threads);
    plan_t plan;
    if (rc == GS_OK) {
        ctx_init(&c);
        rc = plan_make(&c, &plan);
    }
    if (rc == GS_OK && set->progress) {
        rc = progress_start();
        /* The total the line shows, where every input is a regular file. */
        if (rc == GS_OK && c.in_sized)
            progress_total(c.in_bytes, run_out_bytes(set, &c.km, c.in_bytes));
    }
    if (rc == GS_OK)
        rc = plan_run(&c, &plan);
    progress_stop(rc == GS_OK);
    if (set->stats && (rc == GS_OK || rc == GS_EDISORDER)) {
        double total = stats_now() - t0;
        engine_note_device(&c);
        stats_print(total);
        if (c.sorter)
            sorter_report(c.sorter);
    }
    sorter_destroy(c.sorter);
    pool_destroy(c.pool);
    free(c.header);
    gs_error_t e = err_take(rc);
    if (rc == GS_ENOMEM)
        run_hint_memory(set, &e);
    return e;
}
