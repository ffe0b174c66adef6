/* SPDX-License-Identifier: MIT */
/* loader_map.c: a lone regular input mapped as the table's arena, not read (see
 * loader.c, which says why): whole where it fits a chunk, else a window a chunk,
 * each cut after its last whole line; its SIGBUS watched (see loader_impl.h).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/mem.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "records/loader_impl.h"

/* ---- a lone input mapped ------------------------------------------------------------ */

/* Let the mapped arena go: its pages leave the process, not the page cache. */
void loader_unmap(rtable_t *t, rloader_t *ld)
{
    if (!ld->map.base)
        return;
    mem_unmap_file(&ld->map, t->pool);
    if (ld->map_fd > STDIN_FILENO && ld->map_fd != ld->file.fd)   /* not an input read on */
        close(ld->map_fd);
    ld->map_fd = -1;
    t->arena = NULL;
    t->bytes = t->cap = 0;
}

/* Map bytes [from, from + len) of the open input (of size bytes) as the arena,
 * zeros after them: a terminator's byte and RTABLE_SLACK (table.h). 1, or 0 where
 * it does not map or cannot be watched (the input is then read as any other). */
static int loader_map_range(rtable_t *t, rloader_t *ld, uint64_t from, size_t len,
                            uint64_t size)
{
    /* Private and writable: the terminator a last line lacks is written after it
     * (loader_end_input), into a page of the process's own. */
    if (mem_map_file(&ld->map, ld->file.fd, from, len, 1 + RTABLE_SLACK, ld->name) != 0)
        return 0;
    if (ld->map.watch < 0) {
        mem_unmap_file(&ld->map, NULL);
        return 0;
    }
#ifdef MADV_WILLNEED
    madvise(ld->map.base, (size_t)(ld->map.data - ld->map.base) + len,
            MADV_WILLNEED);   /* read from the disk ahead, where it must be */
#endif
    ld->map_fd = ld->file.fd;
    ld->map_size = size;
    ld->map_name = ld->name;
    t->arena = ld->map.data;
    t->cap = len + 1;   /* the terminator's byte; RTABLE_SLACK bytes after it */
    t->bytes = len;
    return 1;
}

/* n bytes of the input mapped are read (as far as --stats tells). */
static void loader_mapped(uint64_t n, double t0)
{
    stats_add(ST_READ, n, stats_now() - t0);
    stats_note_records_mapped(n);
}

/* Standard input mapped, not read: its offset moved to where the reading ended, as
 * read(2) would have left it (sort reads standard input to its end, and a command
 * after it in a shell's group reads on from there, not from the start again). */
static void loader_stdin_read(const rloader_t *ld)
{
    if (ld->file.fd == STDIN_FILENO && !ld->file.ranged)
        (void)lseek(STDIN_FILENO, (off_t)ld->pos, SEEK_SET);
}

/* Where the open input is the only one, a regular file read from its range's start,
 * of READ_MAP_MIN bytes or more: map it, whole where it fits in a chunk (*mapped 1,
 * read to its range's end), else a window at a time (ld->windows). Anything that does not
 * map leaves *mapped 0 and no windows: the input is read as any other. */
void loader_map(rtable_t *t, rloader_t *ld, int *mapped)
{
    *mapped = 0;
    struct stat st;
    if (!ld->file.regular || ld->nsources != 1 || ld->pos != ld->file.start || t->arena ||
        ld->tokens || fstat(ld->file.fd, &st) != 0)
        return;
    uint64_t end = (uint64_t)st.st_size < ld->file.end ? (uint64_t)st.st_size : ld->file.end;
    uint64_t len = end > ld->file.start ? end - ld->file.start : 0;
    if (len < READ_MAP_MIN)
        return;
    if (len > ld->limit) {
        ld->windows = 1;
        ld->map_size = end;
        return;
    }
    double t0 = stats_now();
    if (!loader_map_range(t, ld, ld->file.start, (size_t)len, end))
        return;
    loader_mapped(len, t0);
    ld->pos = end;
    loader_stdin_read(ld);
    *mapped = 1;
}

/* The next window of the open input (ld->windows) as the arena, in segment sg: the
 * chunk's bytes from ld->pos to its last whole line (record), or to the input's
 * end (*ended; the input then ended too). A line longer than the chunk widens the
 * window. GS_OK, or *mapped 0 where it does not map (read on as any other). */
int loader_window(rtable_t *t, rloader_t *ld, rseg_t *sg, int *mapped, int *ended)
{
    uint64_t size = ld->map_size, from = ld->pos;
    size_t len = ld->limit;
    *mapped = *ended = 0;
    double t0 = stats_now();
    for (;;) {
        if (len >= size - from)
            len = (size_t)(size - from);
        if (!loader_map_range(t, ld, from, len, size)) {
            *mapped = ld->windows = 0;   /* read on from ld->pos as any other */
            return GS_OK;
        }
        *mapped = 1;
        size_t keep = len;
        if (from + len < size) {   /* cut after the last whole line (record) */
            if (t->rsize) {
                keep = len / t->rsize * t->rsize;
            } else {
                const char *a = t->arena, *p = a + len;
                while (p > a && p[-1] != t->term)
                    p--;
                keep = (size_t)(p - a);
            }
        }
        if (keep > 0 || len == size - from) {
            loader_mapped(keep, t0);
            t->bytes = keep;
            ld->pos = from + keep;
            sg->end = keep;
            if (ld->pos == size) {   /* the last window: the input ends here */
                *ended = 1;
                loader_stdin_read(ld);
                ld->file.fd = -1;   /* kept as map_fd, closed with the mapping */
                ld->windows = 0;
                return loader_end_input(t, ld, sg);
            }
            return GS_OK;
        }
        loader_unmap(t, ld);   /* no whole line yet: a wider window */
        len = len > SIZE_MAX / 2 ? SIZE_MAX : 2 * len;
    }
}

