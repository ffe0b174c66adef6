/* SPDX-License-Identifier: MIT */
/* pmerge_layout.c: the layout of a placed merge (see pmerge.h): a key's bytes depend
 * on its value alone, as steps over the keys, so the bytes of every piece follow from
 * the ranks of the steps and of the splitters in each run, without reading the keys.
 */
#include <config.h>

#include <stdlib.h>

#include "core/error.h"
#include "io/textnum.h"
#include "merge/pmerge_impl.h"

typedef struct {
    pm_job_t *j;
    uint64_t step_key[TN_MAX_STEPS];   /* the bytes of a key by its value */
    unsigned char step_len[TN_MAX_STEPS];
    size_t nsteps;
    uint64_t *below;         /* [nruns][npieces]: bytes of run r's keys below piece
                                p's upper bound (the last: all of run r's bytes) */
    int next;                /* the next run to measure (atomic) */
    int rc;                  /* the first error (atomic) */
} pm_layout_t;

/* A thread failed: rc kept where it is the first error; every thread stops. */
static void pm_layout_fail(pm_layout_t *L, int rc)
{
    int ok = GS_OK;
    __atomic_compare_exchange_n(&L->rc, &ok, rc, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* Measure runs, one at a time: ranks of the steps and of the splitters in the run
 * give the keys, hence the bytes, between each two. */
static void pm_layout_worker(void *arg, int ti, int nt)
{
    (void)ti;
    (void)nt;
    pm_layout_t *L = arg;
    pm_job_t *j = L->j;
    size_t m = L->nsteps, np = j->npieces;
    size_t *rs = malloc(sizeof *rs * (m + 1));    /* ranks of the steps, then n */
    size_t *rx = malloc(sizeof *rx * np);         /* ranks of the splitters, then n */
    void *buffers = malloc(run_cursor_bytes(j->width));
    if (!rs || !rx || !buffers) {
        pm_layout_fail(L, err_set(GS_ENOMEM, "out of memory"));
    } else {
        for (;;) {
            int r = __atomic_fetch_add(&L->next, 1, __ATOMIC_RELAXED);
            if (r >= j->nruns || __atomic_load_n(&L->rc, __ATOMIC_ACQUIRE))
                break;
            run_t *run = j->runs[r];
            size_t n = run_keys(run);
            int rc = run_ranks(run, L->step_key, m, rs, buffers);
            if (rc == GS_OK)
                rc = run_ranks(run, j->split, np - 1, rx, buffers);
            if (rc) {
                pm_layout_fail(L, rc);
                break;
            }
            rs[m] = n;
            rx[np - 1] = n;
            for (size_t p = 0; p < np; p++) {
                uint64_t bytes = 0;
                for (size_t i = 0; i < m && rs[i] < rx[p]; i++) {
                    size_t top = rs[i + 1] < rx[p] ? rs[i + 1] : rx[p];
                    bytes += (uint64_t)(top - rs[i]) * L->step_len[i];
                }
                L->below[(size_t)r * np + p] = bytes;
            }
        }
    }
    free(rs);
    free(rx);
    free(buffers);
}

/* Lay the keys out: j->off. */
int pm_layout(pm_job_t *j, pool_t *pool)
{
    size_t np = j->npieces;
    pm_layout_t L = { .j = j };
    L.nsteps = output_line_steps(j->sink->out, L.step_key, L.step_len);
    L.below = calloc((size_t)j->nruns * np, sizeof *L.below);
    j->off = calloc(np + 1, sizeof *j->off);
    if (!L.below || !j->off) {
        free(L.below);
        return err_set(GS_ENOMEM, "out of memory");
    }
    pool_run(pool, pm_layout_worker, &L);
    for (size_t p = 0; p < np; p++) {
        uint64_t below = 0;
        for (int r = 0; r < j->nruns; r++)
            below += L.below[(size_t)r * np + p];
        j->off[p + 1] = below;
    }
    free(L.below);
    return L.rc;
}
