/* run.c: the one entry point behind main(): build the context (key mapping, threads,
 * chunk sorter), then sort (sort.c), merge (mergefiles.c) or check (here).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "ctx.h"
#include "error.h"
#include "merge.h"
#include "progress.h"
#include "run.h"
#include "stats.h"
#include "textnum.h"

/* ---- the engine ----------------------------------------------------------------------- */

/* Pick the chunk sorter. This build has no GPU backend: --device=auto and cpu use
 * the CPU; asking for a GPU by number or with all is an error. */
static int run_engine(ctx_t *c)
{
    const opts_t *o = c->o;
    if (o->device == DEV_LIST)
        return err_set(GS_EUSAGE, "--device=%d: no such GPU: this gpusort was built "
                       "without CUDA support", o->devices[0]);
    if (o->device == DEV_ALL)
        return err_set(GS_EUSAGE, "--device=all: no usable GPU: this gpusort was built "
                       "without CUDA support");
    int rc = sorter_cpu_create(&c->sorter, c->pool);
    if (rc)
        return rc;
    char text[160];
    snprintf(text, sizeof text, "cpu (%s, %d threads; --algorithm=%s applies to GPUs)",
             c->sorter->name, pool_size(c->pool),
             o->algorithm == ALGO_RADIX ? "radix" : "bitonic");
    stats_set_device(text);
    return GS_OK;
}

/* ---- check ------------------------------------------------------------------------------- */

static int run_check(ctx_t *c)
{
    const char *path = c->o->nfiles ? c->o->files[0] : "-";
    kreader_cfg_t cfg = ctx_reader_cfg(c, 0);
    kreader_t *r;
    progress_phase("checking");
    int rc = kreader_open(&r, path, &cfg);
    if (rc)
        return rc;
    uint64_t pos = 0, key = 0;
    rc = merge_check(r, c->km.width, c->o->unique, &pos, &key);
    if (rc == GS_EDISORDER && c->o->mode == MODE_CHECK) {
        char v[TN_MAX_LINE + 1];
        v[tn_format(key_map(&c->km, key), c->km.type, v)] = '\0';
        fprintf(stderr, "gpusort: %s:%llu: disorder: %s\n", kreader_name(r),
                (unsigned long long)pos, v);
    }
    kreader_close(r);
    return rc;
}

/* ---- the entry point ----------------------------------------------------------------------- */

int run(const opts_t *o)
{
    double t0 = stats_now();
    ctx_t c = { .o = o };
    key_map_init(&c.km, o->type, o->reverse);
    int rc = pool_create(&c.pool, o->threads);
    if (rc == GS_OK)
        rc = run_engine(&c);
    if (rc == GS_OK && o->progress)
        rc = progress_start();
    if (rc == GS_OK) {
        switch (o->mode) {
        case MODE_SORT:
            rc = sort_run(&c);
            break;
        case MODE_MERGE:
            rc = mergefiles_run(&c);
            break;
        default:
            rc = run_check(&c);
            break;
        }
    }
    progress_stop(rc == GS_OK || rc == GS_EDISORDER);
    if (c.sorter)
        c.sorter->destroy(c.sorter);
    pool_destroy(c.pool);
    if (o->stats && (rc == GS_OK || rc == GS_EDISORDER))
        stats_print(stats_now() - t0);
    return rc;
}
