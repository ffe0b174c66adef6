/* SPDX-License-Identifier: MIT */
/* ahead.c: zeros written ahead into -o's temporary (see output_cfg_t.ahead_keys).
 *
 * A page fault on a page of the file that the page cache does not hold yet costs far
 * more than one on a page it holds: the page is allocated, zeroed and its block
 * reserved under the file's locks, one page at a time, by threads that contend for
 * those locks. So where the caller knows that the text of one chunk is coming before
 * it is sorted, a job writes zeros into the temporary by write(2) while the chunk
 * sorts: the kernel makes those pages in large folios with their space reserved, and
 * placing the text later (placed.c) faults in only pages that are there.
 */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fdio.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "io/output_impl.h"

/* Written from a buffer never written: the kernel backs it with its one page of
 * zeros, no memory of ours. */
static char ahead_zeros[WRITE_AHEAD_PIECE];

static void output_ahead_job(void *arg)
{
    output_t *o = arg;
    double t0 = stats_now();
    uint64_t off = 0;
    while (off < o->ahead_bound && !__atomic_load_n(&o->ahead_stop, __ATOMIC_RELAXED)) {
        uint64_t left = o->ahead_bound - off;
        size_t len = left < WRITE_AHEAD_PIECE ? (size_t)left : WRITE_AHEAD_PIECE;
        size_t done;
        int e = fdio_write(o->fd, ahead_zeros, len, (int64_t)off, &done);
        off += done;
        if (e)
            break;   /* a full disk, say: the writing proper meets it, if it must */
    }
    o->ahead_done = off;
    o->ahead_seconds = stats_now() - t0;
}

void output_ahead_start(output_t *o)
{
    uint64_t keys = o->cfg.ahead_keys, bound = o->cfg.ahead_bytes;
    if (!o->tmp_path || o->cfg.binary || o->threads < WRITE_AHEAD_MIN_THREADS ||
        !output_place_worth(o, keys) || o->ahead_used || o->bytes != 0 || bound == 0 ||
        bound > (uint64_t)INT64_MAX)
        return;
    o->ahead_bound = bound;
    o->ahead_stop = 0;
    /* No thread: the faults are taken later, as without. */
    o->ahead_posted = o->ahead_used = job_try_post(&o->ahead, output_ahead_job, o);
}

/* Whether the zeros are written up to their bound whatever the sort's speed: set by
 * the tests alone (GS_TEST_WRITE_AHEAD_WHOLE=1), so that the path where text is
 * placed over zeros is taken on every run, not only where the job happened to get
 * a CPU before the chunk was sorted. */
static int output_ahead_whole(void)
{
    const char *v = getenv("GS_TEST_WRITE_AHEAD_WHOLE");
    return v && strcmp(v, "1") == 0;
}

void output_ahead_end(output_t *o)
{
    if (!o->ahead_posted)
        return;
    if (!output_ahead_whole())
        __atomic_store_n(&o->ahead_stop, 1, __ATOMIC_RELAXED);
    job_wait(&o->ahead);
    o->ahead_posted = 0;
    stats_note_ahead(o->ahead_done, o->ahead_seconds);
}

int output_ahead_cut(output_t *o)
{
    output_ahead_end(o);
    if (!o->ahead_used)
        return GS_OK;
    struct stat st;
    if (fstat(o->fd, &st) != 0 || ((uint64_t)st.st_size > o->bytes &&
                                   ftruncate(o->fd, (off_t)o->bytes) != 0))
        return err_sys(GS_EIO, errno, "write error on '%s'", o->name);
    return GS_OK;
}
