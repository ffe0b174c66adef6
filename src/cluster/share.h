/* SPDX-License-Identifier: MIT */
/* share.h: each rank's share of the inputs (gpusort-mpi).
 *
 * The inputs, named regular files, are taken as one run of bytes in input order and
 * cut into as many ranges of about equal size as there are ranks. Each cut is moved
 * forward to the next record's start: after a line's end for text (lines or bare
 * integers), to a whole record of its input for binary records, to a whole key of
 * the run of bytes for bare binary keys (which the contract lets straddle two
 * inputs). So no line, record or key is split, and the shares, in rank order, are
 * the inputs in order.
 */
#ifndef GS_CLUSTER_SHARE_H
#define GS_CLUSTER_SHARE_H

#include <stddef.h>
#include <stdint.h>

#include "core/settings.h"

/* A piece of one input. */
typedef struct {
    int input;          /* its index in settings_t.sources */
    uint64_t off, len;  /* bytes [off, off + len) of it */
    int header;         /* --header: it starts the input, whose first line is skipped */
} span_t;

typedef struct {
    span_t *spans;      /* in input order */
    int nspans;
    uint64_t *sizes;    /* every input's size */
    uint64_t total;     /* and their sum */
} share_t;

/* Rank's share of set's inputs among nranks: every input checked (a regular file
 * that can be read; binary records a whole number of them; bare binary keys a whole
 * number of keys in all), the messages gpusort's. GS_OK, or an error with its
 * message set; share_free() either way. */
int share_plan(const settings_t *set, int rank, int nranks, share_t *sh);

/* --header: the header line that gpusort writes first (the first line of the first
 * input that is not empty), with its line's end, into *line (malloc'ed; NULL and 0
 * where there is none). GS_OK or an error. */
int share_header(const settings_t *set, const share_t *sh, char **line, size_t *len);

void share_free(share_t *sh);

#endif
