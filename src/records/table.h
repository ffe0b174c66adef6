/* SPDX-License-Identifier: MIT */
/* table.h: records in memory, a chunk of the inputs at a time: their bytes and keys.
 *
 * The loader (loader.c) reads the inputs, one after another, into one arena, up to
 * a limit: a chunk that ends at a line's end (or a record's), the partial line after
 * it carried into the next chunk. Each text input's last line is given its
 * terminator where it lacks one, so the arena is a sequence of whole lines (or of
 * whole binary records). Where everything fits, the first chunk is all of it.
 *
 * A chunk holds a segment of each input it reaches: the indexer (table.c) indexes
 * the segments' lines, line l being [start[l], start[l + 1]), its terminator
 * included, and key[l] its word (rkey.h: its normalized key, or the first 8 bytes
 * of it). With --header, the first line of each input is a line of the table but not a
 * record (rtable_is_header()); the first of them is kept for the output.
 *
 * Binary records need no index: record l is the rsize bytes at l * rsize.
 */
#ifndef GS_TABLE_H
#define GS_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/keys.h"
#include "core/pool.h"
#include "core/settings.h"
#include "core/tuning.h"
#include "records/rkey.h"

/* The part of one input in a chunk. */
typedef struct {
    int input;             /* which input (set->inputs[]) */
    const char *name;      /* its name, escaped, for messages */
    uint64_t off, end;     /* its bytes in the arena */
    size_t first;          /* the table line of its first line */
    size_t lines;          /* its lines */
    uint64_t line0;        /* the input's line number (from 1) of its first line */
    int header;            /* 1: its first line is the input's header (--header) */
} rseg_t;

typedef struct rloader rloader_t;

typedef struct {
    const settings_t *set;
    rkey_t rk;             /* the keys, and how a line's word is made (rkey.h) */
    pool_t *pool;
    char term;             /* the lines' terminator: '\n', or NUL with -z */
    size_t rsize;          /* binary records: their size; 0 for text */
    /* the chunk's bytes */
    char *arena;
    size_t bytes, cap;
    rseg_t *seg;
    int nseg;
    /* its lines */
    size_t n;              /* lines (text) or records (binary) */
    size_t nrec;           /* of them, records (the headers left out) */
    uint64_t *start;       /* text: n + 1 offsets */
    uint64_t *key;         /* n words (a header's: 0) */
    size_t index_cap;      /* lines key[] (and start[], less one) have room for: kept
                              from chunk to chunk, their pages faulted in once */
    uint64_t kmin, kmax;   /* the least and the greatest word of the records */
    size_t bad;            /* the line of the chunk's first bad key (rtable_next()'s
                              error), the lines before it indexed; SIZE_MAX: none */
    /* the first header of the inputs (--header), once a chunk has met it */
    char *header;
    size_t header_len;
    rloader_t *loader;
} rtable_t;

/* Get ready to read the inputs of set, chunks of at most limit bytes (a line
 * longer than that makes its chunk longer). GS_OK or GS_ENOMEM. */
int rtable_open(rtable_t *t, const settings_t *set, pool_t *pool, size_t limit);

/* Read and index the next chunk: GS_OK, *more 1 where inputs remain after it (0:
 * this chunk holds the rest, or nothing is left: t->n == 0 then); or an error with
 * its message set (an input that cannot be read, a bad key naming FILE:LINE and the
 * field, t->bad its line, a binary input not a whole number of records, no
 * memory). */
int rtable_next(rtable_t *t, int *more);

/* The input's line number (from 1) of table line l, for messages: with -g on bare
 * numbers (tokens.h), the line its number was on. */
uint64_t rtable_line_number(const rtable_t *t, size_t l);
/* 1 where the chunk's arena is an input's mapping, not bytes read into memory. */
int rtable_mapped(const rtable_t *t);

/* GS_OK, or the read error of an input that was mapped (loader.c) and has been cut
 * short since: the bytes read from its last page may be NULs where the file's were
 * not. Called once the chunk's bytes have all been read (indexed, written out). */
int rtable_intact(const rtable_t *t);

/* Line (or record) l's bytes, its terminator included: its start, *len its length. */
static inline const char *rtable_line(const rtable_t *t, size_t l, size_t *len)
{
    if (t->rsize) {
        *len = t->rsize;
        return t->arena + l * t->rsize;
    }
    *len = (size_t)(t->start[l + 1] - t->start[l]);
    return t->arena + t->start[l];
}

/* The arena holds RTABLE_SLACK bytes past its end, so that a gather may copy a
 * line of text by a fixed RTABLE_SLACK bytes from its start: one copy without
 * branches, where memcpy(3) of lines of varying lengths mispredicts its branches,
 * and each misprediction throws away the random reads in flight. Binary records
 * are all of one length (memcpy predicts well), and the fixed copy would read a
 * second cache line for most small ones. rtable_copy(): line s[0..len) of t to d,
 * bytes up to dend free to be written over (the fixed copy only where they reach
 * that far). */
#define RTABLE_SLACK 64

static inline void rtable_copy(const rtable_t *t, char *d, const char *dend, const char *s,
                               size_t len)
{
    if (!t->rsize && len <= RTABLE_SLACK && (size_t)(dend - d) >= RTABLE_SLACK)
        memcpy(d, s, RTABLE_SLACK);
    else
        memcpy(d, s, len);
}

/* The helpers that only ask for bytes ahead are always inlined: called, a function
 * whose one effect is __builtin_prefetch() looks to GCC's analysis of what functions
 * change (IPA mod-ref, GCC 12) like one with no effect, and the call is dropped
 * before it could be inlined: the hints were gone from most of the loops below. */
#define RTABLE_AHEAD_FN static inline __attribute__((always_inline)) void

/* Gathers read lines from random places, so their latency bounds them: a gather
 * asks for what it will read a few records ahead (RTABLE_AHEAD, core/tuning.h), as
 * hints. rtable_ahead_start(t, order, r, end): for text, the start of line
 * order[r + 2 * RTABLE_AHEAD] (what finding its bytes, or its length, will need);
 * rtable_ahead(): that, and line order[r + RTABLE_AHEAD]'s first bytes. */

/* The start of line order[r + 2 * RTABLE_AHEAD], given the table's start[] (a loop
 * that holds it in a local). */
RTABLE_AHEAD_FN rtable_start_ahead(const uint64_t *start, const uint64_t *order, size_t r,
                                   size_t end)
{
    if (r + 2 * RTABLE_AHEAD < end)
        __builtin_prefetch(&start[order[r + 2 * RTABLE_AHEAD]]);
}

RTABLE_AHEAD_FN rtable_ahead_start(const rtable_t *t, const uint64_t *order, size_t r,
                                   size_t end)
{
    if (!t->rsize)
        rtable_start_ahead(t->start, order, r, end);
}

RTABLE_AHEAD_FN rtable_ahead(const rtable_t *t, const uint64_t *order, size_t r, size_t end)
{
    size_t len;
    rtable_ahead_start(t, order, r, end);
    if (r + RTABLE_AHEAD < end)
        __builtin_prefetch(rtable_line(t, (size_t)order[r + RTABLE_AHEAD], &len));
}

/* Where a line of text lies, in one word (a where word): its offset in the arena
 * above WHERE_LEN_BITS bits of its length, or 0 there for a line of WHERE_LEN_MAX
 * bytes or more (every line has its terminator, so no line's length is 0): arenas
 * under 2^44 bytes (rtable_can_where()). An order of table lines made where words
 * (emit.c, spill.c) is copied with one random read a record, where a table line
 * takes two (its start in t->start, then its bytes). */
#define WHERE_LEN_BITS 20
#define WHERE_LEN_MAX ((size_t)1 << WHERE_LEN_BITS)

static inline int rtable_can_where(const rtable_t *t)
{
    return !t->rsize && t->bytes < ((uint64_t)1 << (64 - WHERE_LEN_BITS));
}

/* The where word of the line of len bytes at offset off of an arena. */
static inline uint64_t rtable_where_at(uint64_t off, size_t len)
{
    return off << WHERE_LEN_BITS | (len < WHERE_LEN_MAX ? len : 0);
}

/* Record r of order[], *len its length: order[r] a table line, or, where where is 1,
 * a where word. */
static inline const char *rtable_record(const rtable_t *t, const uint64_t *order, int where,
                                        size_t r, size_t *len)
{
    if (!where)
        return rtable_line(t, (size_t)order[r], len);
    const char *s = t->arena + (order[r] >> WHERE_LEN_BITS);
    *len = (size_t)(order[r] & (WHERE_LEN_MAX - 1));
    if (*len == 0)   /* a long line: to its terminator, which the arena holds */
        *len = (size_t)((const char *)memchr(s, t->term, t->bytes - (size_t)(s - t->arena)) -
                        s) + 1;
    return s;
}

/* Ask for the line of where word order[r + RTABLE_AHEAD], given the table's arena. */
RTABLE_AHEAD_FN rtable_where_ahead(const char *arena, const uint64_t *order, size_t r,
                                   size_t end)
{
    if (r + RTABLE_AHEAD < end)
        __builtin_prefetch(arena + (order[r + RTABLE_AHEAD] >> WHERE_LEN_BITS));
}

/* Ask for record r + RTABLE_AHEAD's bytes (and, for table lines, more: above). */
RTABLE_AHEAD_FN rtable_record_ahead(const rtable_t *t, const uint64_t *order, int where,
                                    size_t r, size_t end)
{
    if (!where)
        rtable_ahead(t, order, r, end);
    else
        rtable_where_ahead(t->arena, order, r, end);
}

/* The segment line l belongs to. */
const rseg_t *rtable_seg(const rtable_t *t, size_t l);

/* 1 where line l is an input's header (--header). */
int rtable_is_header(const rtable_t *t, size_t l);

/* The header written first (--header): the first input's that has one, as far as
 * the chunks read so far tell; NULL where none has. *len its length, terminator
 * included. */
const char *rtable_header(const rtable_t *t, size_t *len);

/* The indexer (table.c): the chunk's lines (t->seg filled by the loader), their
 * starts and keys. GS_OK, or the first bad key's error. */
int rtable_index(rtable_t *t);

/* Forget the chunk's index (before the next is read); its memory is kept for the
 * next chunk's. */
void rtable_drop_index(rtable_t *t);

void rtable_close(rtable_t *t);

#endif
