/* SPDX-License-Identifier: MIT */
/* tokens.h: -g on bare numbers (settings_t.tokens): the text made one number a line
 * as the records' loader reads it, so that each number is a record (its one key g).
 *
 * In place, as each read lands in the arena: every run of white space (with -z, NUL
 * too) between numbers becomes one terminator, white space before the first goes
 * (after the header line, kept whole with --header), and each number is checked
 * whole as it ends, so that a bad one is named by its file and line (the table's
 * lines are numbers by then). The state runs on from one read to the next, across
 * chunks: the number being read is always the arena's last bytes (the carry into
 * the next chunk is exactly those).
 */
#ifndef GS_TOKENS_H
#define GS_TOKENS_H

#include <stddef.h>
#include <stdint.h>

#include "core/source.h"

typedef struct {
    const source_t *src;   /* the input: its lines numbered as its file's */
    char term;             /* the lines' terminator */
    size_t len;            /* bytes of the number being read: the arena's last */
    uint64_t lines;        /* the input's lines (LF; NUL with -z) read so far */
    uint64_t line;         /* the line the number being read is on */
    int header;            /* 1: the header line is being read, kept whole */
    size_t hlen;           /* its bytes taken so far */
    char *bad;             /* a bad number's message (malloc'ed), or NULL */
    int note;              /* 1: each number's line noted (-c and -m, whose messages
                              name it; a sort names only a bad number's, as it ends) */
    uint64_t *at;          /* the line of each number (and header) the chunk holds,
                              in the table's order */
    size_t nat, capat;
} rtokens_t;

/* A new input begins, src (its first line a header where src->header), its lines
 * ended by term. */
void rtokens_start(rtokens_t *k, const source_t *src, char term);

/* A new chunk begins: its numbers' lines are noted from its first table line on. */
static inline void rtokens_chunk(rtokens_t *k)
{
    k->nat = 0;
}

/* arena[from, *bytes), just read, made one number a line in place (*bytes its new
 * end). GS_OK; GS_EINPUT where a number is bad: *bytes then ends before it and
 * k->bad holds its message, naming the input name; GS_ENOMEM. */
int rtokens_take(rtokens_t *k, char *arena, size_t from, size_t *bytes, char term,
                 const char *name);

/* The input ended: its last number, if any, checked (as rtokens_take). The caller
 * ends it with its terminator. */
int rtokens_end(rtokens_t *k, char *arena, size_t *bytes, const char *name);

void rtokens_free(rtokens_t *k);

#endif
