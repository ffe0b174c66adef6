/* SPDX-License-Identifier: MIT */
/* loader_impl.h: the loader's state (loader.c), shared with loader_map.c, where a
 * lone regular input is mapped rather than read. Not for other modules: their
 * interface is table.h.
 */
#ifndef GS_LOADER_IMPL_H
#define GS_LOADER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/mem.h"
#include "core/source.h"
#include "records/table.h"
#include "records/tokens.h"

struct rloader {
    /* what the settings ask, taken once by rtable_open() */
    const source_t *sources;   /* the inputs, */
    int nsources;              /*   their count */
    int tokens;                /* -g on bare numbers: one number a line (tokens.h) */
    int keep_header;           /* --header: the first header kept for the output */
    size_t limit;          /* a chunk's bytes, at most (but for one long line) */
    int next;              /* the input to open next */
    source_file_t file;    /* the input being read (file.fd -1: none; a regular
                              file's bytes from file.start, to file.end as its size
                              when opened promised; file.name is name's) */
    int cur;               /* its number */
    char *name;            /* its escaped name (names[cur]) */
    uint64_t pos;          /* the offset read up to */
    uint64_t lines;        /* its lines in the chunks before */
    char *carry;           /* the partial line (record) that ended the last chunk */
    size_t carry_len, carry_cap;
    char **names;          /* every input's escaped name, made as it is opened */
    /* the arena, where it is the input mapped (map.base NULL: memory of ours) */
    mem_file_map_t map;
    int map_fd;            /* the file, kept open to check its size (-1: none) */
    uint64_t map_size;     /* where its bytes end (its size, or its range's end) */
    const char *map_name;
    int windows;           /* 1: the open input is mapped a chunk at a time */
    rtokens_t tok;         /* -g on bare numbers: the open input's numbers, one a line */
};

/* ---- loader_map.c ------------------------------------------------------------------ */

/* Let the mapped arena go: its pages leave the process, not the page cache. */
void loader_unmap(rtable_t *t, rloader_t *ld);

/* The open input mapped as the arena where it is the only one, a regular file read
 * from its start, of READ_MAP_MIN bytes or more: whole where it fits a chunk
 * (*mapped 1), else a window at a time (ld->windows); else *mapped 0, no windows. */
void loader_map(rtable_t *t, rloader_t *ld, int *mapped);

/* The next window of the open input (ld->windows) as the arena, in segment sg: to
 * its last whole line or the input's end (*ended); *mapped 0 where it does not map. */
int loader_window(rtable_t *t, rloader_t *ld, rseg_t *sg, int *mapped, int *ended);

/* ---- loader.c ---------------------------------------------------------------------- */

/* The open input has ended inside segment sg: its last line ended, its size
 * checked (binary), the input closed (loader.c). */
int loader_end_input(rtable_t *t, rloader_t *ld, rseg_t *sg);

#endif
