/* SPDX-License-Identifier: MIT */
/* reader_impl.h: the reader's state, shared by reader.c (sources, blocks),
 * reader_text.c (text blocks scanned in parallel) and reader_binary.c (binary keys).
 * Not for other modules: their interface is reader.h.
 */
#ifndef GS_READER_IMPL_H
#define GS_READER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/job.h"
#include "core/mem.h"
#include "core/source.h"
#include "io/reader.h"

struct kreader {
    source_t src;            /* what was opened */
    source_file_t file;      /* and how: its descriptor, range and name (for
                                messages) */
    int regular;             /* a regular file (not standard input): read with pread
                                at off */
    uint64_t off;            /* its next offset */
    uint64_t size;           /* where its bytes end: the range's end, at most the
                                file's size when opened */
    kreader_cfg_t cfg;
    int width;               /* key bytes */
    char *bufs[2];           /* raw buffers, used in turn */
    size_t have[2];          /* bytes in each */
    size_t cap;              /* the size of each */
    int cur;                 /* the buffer of the last block */
    char *buf;               /* the last block: bufs[cur], or in the mapping */
    size_t used;             /* bytes of buf the last block took */
    int eof;                 /* read() returned 0 (the read-ahead sets it too) */
    int last;                /* the last block ends the input (eof when it was cut) */
    uint64_t bytes;          /* bytes read from the file */
    int started;             /* 1 once the first block was read */
    pool_t *readers;         /* a regular file's pread pool, made at its first large fill */
    int mapped;              /* 1: text of a regular file, read through windows mapped */
    mem_file_map_t map;      /* the window mapped now (map.base NULL: none), */
    uint64_t map_off;        /*   the file offset of map.base, */
    size_t map_len;          /*   the file's bytes it holds from there */
    /* reading ahead: a job fills bufs[cur ^ 1] while the caller uses bufs[cur] */
    job_t ahead;
    int ahead_posted;        /* 1: a fill was posted and not yet waited for */
    int ahead_rc;            /* its result */
    /* text */
    void *keys;              /* keys of the last block */
    size_t keycap;           /* room in keys, in keys */
    void *packed;            /* the pieces' keys packed together, where they moved */
    size_t packcap;          /* its room, in keys */
    const void *out;         /* the last block's keys: keys or packed */
    uint64_t lines_before;   /* LF bytes before the last block */
    uint64_t block_lines;    /* LF bytes in the last block */
    int pending;             /* an error code to return at the next call */
    /* --header: the first line's bytes as read, until its terminator (or the end) */
    char *header;
    size_t header_len, header_cap;
    int header_done;         /* 1 once the terminator was read (or no header is asked) */
    /* binary */
    uint64_t keys_before;    /* keys before the last block */
    size_t block_keys;       /* keys in the last block */
};

/* The byte that ends the input's lines: for source_line(). */
static inline char kreader_term(const kreader_t *r)
{
    return r->cfg.zero_terminated ? '\0' : '\n';
}

/* Make r->buf the next block (reader.c): r->used its bytes, 0 at the end. */
int kreader_advance(kreader_t *r);

/* Fill dst[0..len) of a regular file from r->off, on the read pool where the file
 * holds more than a piece (reader.c). Sets *got and r->eof; GS_OK, or GS_ENOMEM or
 * GS_EIO with the message set. */
int kreader_pread(kreader_t *r, char *dst, size_t len, size_t *got);

/* The next block of binary keys, decoded in place (reader_binary.c): *n of them, 0
 * at the end; a partial key at the end carried, or its error returned once the
 * whole keys before it were. */
int kreader_next_binary(kreader_t *r, const void **keys, size_t *n);

/* The memory for a block's keys that the caller of kreader_next_into() gives. */
typedef struct {
    kreader_room_fn fn;
    void *arg;
} kreader_room_t;

/* The next block of text, scanned (reader_text.c): at least one key, or the end,
 * or an error; into the caller's memory where room gives some (*keys NULL). */
int kreader_next_text(kreader_t *r, const kreader_room_t *room, const void **keys, size_t *n);

#endif
