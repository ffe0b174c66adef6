/* SPDX-License-Identifier: MIT */
/* table.h: the records of every input, in memory: their bytes and their keys.
 *
 * The inputs are read whole, one after another, into one arena, each text input's
 * last line given its terminator where it lacks one, so that the arena is a
 * sequence of whole lines (or of whole binary records). The table indexes them:
 * line l is [start[l], start[l + 1]), its terminator included; key[l] its mapped key
 * (keys.h), the mapping descending where the key is. With --header, the first line
 * of each input is a line of the table but not a record: rtable_is_header() says
 * which, and the first of them is the output's first line.
 *
 * Binary records need no index: record l is the rsize bytes at l * rsize.
 */
#ifndef GS_TABLE_H
#define GS_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "core/keys.h"
#include "core/pool.h"
#include "core/settings.h"

typedef struct {
    char *name;            /* escaped, for messages */
    uint64_t off, end;     /* its bytes in the arena (after its terminator was added) */
    size_t first;          /* the table line of its first line */
    size_t lines;          /* its lines (its header included) */
} rinput_t;

typedef struct {
    const settings_t *set;
    keymap_t km;           /* the key's mapping (descending with -r or a key's r) */
    pool_t *pool;
    char term;             /* the lines' terminator: '\n', or NUL with -z */
    size_t rsize;          /* binary records: their size; 0 for text */
    /* the inputs */
    char *arena;
    size_t bytes, cap;
    rinput_t *in;
    int nin;
    /* the lines */
    size_t n;              /* lines (text) or records (binary) */
    size_t nrec;           /* of them, records (the headers left out) */
    uint64_t *start;       /* text: n + 1 offsets */
    uint64_t *key;         /* n mapped keys (a header's: 0) */
    uint64_t kmin, kmax;   /* the least and the greatest key of the records */
} rtable_t;

/* Read every input of set into t and index it: GS_OK, or an error with its message
 * set (an input that cannot be read, a bad key naming FILE:LINE and the field, a
 * binary input not a whole number of records, more than -S). */
int rtable_load(rtable_t *t, const settings_t *set, pool_t *pool);

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

/* 1 where line l is an input's header (--header). */
int rtable_is_header(const rtable_t *t, size_t l);

/* The input line l belongs to. */
const rinput_t *rtable_input(const rtable_t *t, size_t l);

/* The header written first (--header): the first input's that has one; NULL where
 * none has. *len its length, terminator included. */
const char *rtable_header(const rtable_t *t, size_t *len);

void rtable_free(rtable_t *t);

#endif
