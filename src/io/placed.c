/* SPDX-License-Identifier: MIT */
/* placed.c: keys placed in the output file, and the file's mapping (pieces.c's
 * mapped way).
 *
 * ext4, like most file systems, takes one write(2) at a time per file, but page
 * faults on a shared mapping of the file run in parallel. So many keys bound for a
 * file are placed: their layout is known ahead (output_write() has each thread
 * count the bytes of its share of text; of keys in order (sorted), it
 * finds where they cross each step of the line lengths by binary search; binary
 * keys are all of one width), the output lays them out (pieces.c) and each thread
 * writes its part through a window at its offset: into the file's pages, whose
 * space is reserved first with fallocate(2) so that a full disk is an error there
 * and never a fault on a mapped page, or, where fallocate is not supported, by
 * pwrite. Standard output that is a regular file ("> FILE") is placed too, through
 * a descriptor of its own (outfile.c). The file is mapped whole, once, and each
 * thread lets go of the pages it has filled every WRITE_RELEASE bytes: they stay in
 * the page cache, dirty, but leave the process's resident memory.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/error.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "io/output_impl.h"
#include "io/pieces.h"
#include "io/textnum.h"

int output_place_worth(const output_t *o, uint64_t keys)
{
#if defined(__linux__) && defined(MADV_DONTNEED)
    if (!(o->tmp_path || o->map_fd >= 0) || o->threads < 2)
        return 0;   /* not a file written from a position, or one thread */
    return o->cfg.binary ? !o->solo && keys * (uint64_t)o->cfg.km->width >=
                                           (uint64_t)WRITE_PLACE_BINARY_MIN
                         : keys >= (uint64_t)WRITE_KEYS_A_THREAD * (uint64_t)o->threads;
#else
    (void)o;
    (void)keys;
    return 0;
#endif
}

size_t output_line_steps(const output_t *o, uint64_t *start, unsigned char *len)
{
    if (o->cfg.binary) {   /* every key its width */
        start[0] = 0;
        len[0] = (unsigned char)o->cfg.km->width;
        return 1;
    }
    return tn_line_steps(o->cfg.km, start, len);
}

int output_settle(output_t *o)
{
    int rc = output_drain(o);   /* what the writer holds goes first */
    if (rc == GS_OK)
        rc = output_target_fd(o);
    if (rc == GS_OK)
        output_ahead_end(o);
    return rc;
}

int output_place_begin(output_t *o, uint64_t total, char **base)
{
    *base = NULL;
#if defined(__linux__) && defined(MADV_DONTNEED)
    if (!(o->tmp_path || o->map_fd >= 0))
        return GS_OK;   /* not a regular file written from a position (/dev/null, say) */
    int rc = output_settle(o);
    if (rc)
        return rc;
    int fd = o->map_fd >= 0 ? o->map_fd : o->fd;   /* o->fd: the position */
    off_t pos = lseek(o->fd, 0, SEEK_CUR);
    if (total == 0 || total > SIZE_MAX - o->page || pos < 0)
        return GS_OK;
    /* The mapping starts at the page that holds pos: the bytes before pos in it
     * are the file's, left as they are (gpusort-mpi's ranks place their ranges
     * side by side, at offsets inside pages). */
    size_t lead = (size_t)(pos % (off_t)o->page);
    /* Zeros written ahead from the start: their pages are there, their space
     * reserved; what lies past the text is cut off, what they lack reserved. */
    uint64_t ahead = pos == 0 ? o->ahead_done : 0;
    o->ahead_done = 0;
    if (ahead >= total) {
        if (ftruncate(fd, (off_t)total) != 0)
            return err_sys(GS_EIO, errno, "write error on '%s'", o->name);
    } else if (fallocate(fd, 0, pos + (off_t)ahead, (off_t)(total - ahead)) != 0) {
        if (errno != EOPNOTSUPP && errno != ENOSYS)
            return err_sys(GS_EIO, errno, "write error on '%s'", o->name);
        return GS_OK;
    }
    void *map = mmap(NULL, (size_t)total + lead, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                     pos - (off_t)lead);
    if (map == MAP_FAILED) {
        /* The plain writer writes from pos: the temporary's space reserved goes
         * back (standard output's file may hold more past pos: left as it is). */
        if (o->tmp_path && ftruncate(fd, pos) != 0)
            return err_sys(GS_EIO, errno, "write error on '%s'", o->name);
        return GS_OK;
    }
    o->place_pos = pos;
    o->place_lead = lead;
    *base = (char *)map + lead;
    return GS_OK;
#else
    (void)o;
    (void)total;
    return GS_OK;
#endif
}

/* Let go of the whole pages in [from, to) of a mapping (the page that holds from
 * included). A page another thread still fills is only faulted in again: the page
 * cache keeps its contents. */
static void output_release(const output_t *o, char *from, char *to)
{
#ifdef MADV_DONTNEED
    uintptr_t a = (uintptr_t)from & ~(uintptr_t)(o->page - 1);
    uintptr_t b = (uintptr_t)to & ~(uintptr_t)(o->page - 1);
    if (b > a)
        madvise((void *)a, b - a, MADV_DONTNEED);
#else
    (void)o;
    (void)from;
    (void)to;
#endif
}

/* Bytes placed from *at up to p: counted, *at moved to p, and the pages filled since
 * *released let go of once they add up or reach end. */
void output_placed(const output_t *o, char **at, char *p, char *end, char **released)
{
    /* Counted as placed, a batch at a time: --progress shows the output grow. */
    stats_add(ST_WRITE, (uint64_t)(p - *at), 0);
    *at = p;
    size_t every = o->cfg.map_release ? o->cfg.map_release : WRITE_RELEASE;
    if ((size_t)(p - *released) >= every || p == end) {
        output_release(o, *released, p);
        *released = (char *)((uintptr_t)p & ~(uintptr_t)(o->page - 1));
    }
}

int output_place_end(output_t *o, char *base, uint64_t total, int ok)
{
    if (!base)
        return GS_OK;
    munmap(base - o->place_lead, (size_t)total + o->place_lead);
    if (!ok)
        return GS_OK;
    if (lseek(o->fd, o->place_pos + (off_t)total, SEEK_SET) < 0)
        return err_sys(GS_EIO, errno, "write error on '%s'", o->name);
    o->bytes += total;
    o->mapped += total;
    stats_note_laid(1, total, o->threads);
    return GS_OK;
}

/* Keys placed: each pool thread's share of the keys, one contiguous stretch of the
 * file a thread, written through a window (pieces.h): its pages let go of as they
 * fill (threads that meet at every step, or share one stretch of pages, wait on one
 * another's page faults). */
typedef struct {
    output_t *o;
    pieces_t *P;
    const char *keys;
    size_t n;
    uint64_t *off;      /* [nt + 1]: each share's bytes, then where each starts */
} place_job_t;

static void output_measure_share(void *arg, int t, int nt)
{
    place_job_t *j = arg;
    size_t lo, hi;
    pool_share(j->n, t, nt, &lo, &hi);
    const keymap_t *km = j->o->cfg.km;
    j->off[t] = tn_format_bytes(j->keys + lo * (size_t)km->width, hi - lo, km);
}

static void output_place_share(void *arg, int t, int nt)
{
    place_job_t *j = arg;
    size_t lo, hi;
    pool_share(j->n, t, nt, &lo, &hi);
    piece_t w;
    int rc = piece_init(j->P, 0, &w);
    if (rc == GS_OK) {
        piece_start(&w, (size_t)t, j->off[t], j->off[t + 1] - j->off[t]);
        rc = piece_keys(&w, j->keys + lo * (size_t)j->o->cfg.km->width, hi - lo);
        int rc2 = piece_end(&w, rc == GS_OK);
        rc = rc ? rc : rc2;
    }
    if (rc)
        pieces_fail(j->P, rc);
    piece_free(&w);
}

/* Each share's bytes of keys in order, by ranks: where the keys cross each step of
 * the line lengths (tn_line_steps), found by binary search; no pass over the keys. */
static void output_measure_ranked(place_job_t *j, int nt)
{
    const keymap_t *km = j->o->cfg.km;
    uint64_t key[TN_MAX_STEPS];
    unsigned char len[TN_MAX_STEPS];
    size_t at[TN_MAX_STEPS + 1];
    size_t ns = output_line_steps(j->o, key, len);
    for (size_t i = 0; i < ns; i++)
        at[i] = key_lower_bound(j->keys, j->n, km->width, key[i]);
    at[ns] = j->n;
    for (int t = 0; t < nt; t++) {
        size_t lo, hi;
        uint64_t bytes = 0;
        pool_share(j->n, t, nt, &lo, &hi);
        for (size_t i = 0; i < ns; i++) {
            size_t a = at[i] > lo ? at[i] : lo, b = at[i + 1] < hi ? at[i + 1] : hi;
            if (b > a)
                bytes += (uint64_t)(b - a) * len[i];
        }
        j->off[t] = bytes;
    }
}

/* Keys in order (sorted) are measured by ranks (binary keys: all of one width),
 * text out of order by a pass over them. OUTPUT_PLAIN where placing does not apply:
 * few keys, or the output takes them in order (pieces.c: not a file written from
 * a position). */
int output_write_placed(output_t *o, const void *keys, size_t n, int sorted)
{
    if (!output_place_worth(o, n))
        return OUTPUT_PLAIN;
    int nt = o->threads;
    place_job_t j = { .o = o, .keys = keys, .n = n };
    j.off = malloc(sizeof *j.off * (size_t)(nt + 1));
    if (!j.off)
        return err_set(GS_ENOMEM, "out of memory");
    double t0 = stats_now();
    if (sorted || o->cfg.binary)
        output_measure_ranked(&j, nt);
    else
        pool_run(o->cfg.pool, output_measure_share, &j);
    uint64_t total = 0;
    for (int t = 0; t <= nt; t++) {
        uint64_t len = t < nt ? j.off[t] : 0;
        j.off[t] = total;
        total += len;
    }
    double t1 = stats_now();
    if (!o->cfg.binary)
        stats_add(ST_FORMAT, total, t1 - t0);
    pieces_t P;
    int rc = pieces_begin(&P, o, total, NULL, 0), plain = rc == GS_OK && !pieces_laid_out(&P);
    if (rc == GS_OK && !plain) {
        j.P = &P;
        pool_run(o->cfg.pool, output_place_share, &j);
    }
    rc = pieces_end(&P, rc);
    if (rc == GS_OK && !plain)
        stats_add(ST_WRITE, 0, stats_now() - t1);   /* the bytes: the windows */
    free(j.off);
    return rc == GS_OK && plain ? OUTPUT_PLAIN : rc;
}
