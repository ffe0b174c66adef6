/* SPDX-License-Identifier: MIT */
/* run.c: the one entry point behind main(): build the context (key mapping,
 * threads, chunk sorter), then sort (sort.c), merge (mergefiles.c) or check
 * (check.c), or any of them for records (records.c); report and tear down.
 */
#include <config.h>

#include <stdlib.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/stats.h"
#include "pipeline/ctx.h"
#include "pipeline/run.h"

/* The mode the settings ask for: records (every mode), or a sort, a merge or a
 * check of bare keys. */
static int run_mode(ctx_t *c)
{
    if (settings_records(c->set))
        return records_run(c);
    switch (c->set->mode) {
    case MODE_SORT:
        return sort_run(c);
    case MODE_MERGE:
        return mergefiles_run(c);
    default:
        return check_run(c);
    }
}

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

int run(const settings_t *set)
{
    double t0 = stats_now();
    ctx_t c = { .set = set };
    key_map_init(&c.km, set->type, set->reverse);
    int rc = pool_create(&c.pool, set->threads);
    if (rc == GS_OK)
        rc = engine_create(&c);
    uint64_t in_bytes;
    if (rc == GS_OK && set->progress) {
        rc = progress_start();
        /* The total the line shows, where every input is a regular file. */
        if (rc == GS_OK && ctx_input_bytes(&c, &in_bytes))
            progress_total(in_bytes, run_out_bytes(set, &c.km, in_bytes));
    }
    if (rc == GS_OK)
        rc = run_mode(&c);
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
    return rc;
}
