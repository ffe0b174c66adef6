/* SPDX-License-Identifier: MIT */
/* split.h: a rank's sorted output cut by key ranges (gpusort-mpi).
 *
 * After its local sort, a rank holds its records in order in one file, in
 * local_scratch()'s format (local.h): lines (records by a field, bare integers as
 * text under -u) or fixed-size binary items (binary records, bare integers
 * otherwise). This finds records' starts and reads their keys as order keys:
 * unsigned, ascending in the output's order (bare numbers: keys.h's mapping, -r
 * folded in; records: their words, rkey.h), so that every rank cuts by the same
 * numbers. Regular samples of them choose the splitters; a rank's part j is its
 * records whose order keys lie in (splitter j-1, splitter j], so all the records
 * of one key go to one rank.
 */
#ifndef GS_CLUSTER_SPLIT_H
#define GS_CLUSTER_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "core/keys.h"
#include "core/mem.h"
#include "core/settings.h"
#include "records/rkey.h"

typedef struct {
    mem_file_map_t map; /* the records mapped: map.data (NULL where empty) */
    uint64_t size;
    const settings_t *set;
    keymap_t km;        /* bare numbers: raw key -> order key */
    rkey_t rk;          /* records: their keys; the order key is their word */
    size_t item;        /* binary: bytes a record or key; 0: lines */
    char term;          /* lines: their end */
} sorted_t;

/* Map bytes [off, off + size) of the sorted file fd, written as set says. GS_OK or
 * an error. */
int sorted_open(sorted_t *s, const settings_t *set, int fd, uint64_t off, uint64_t size);

void sorted_close(sorted_t *s);

/* count regular samples of the order keys into keys[] (fewer where there are fewer
 * records): *n. */
void sorted_sample(const sorted_t *s, size_t count, uint64_t *keys, size_t *n);

/* The first record whose order key is greater than key: its byte offset (size where
 * none). */
uint64_t sorted_after(const sorted_t *s, uint64_t key);

/* The record that starts at start: where the next one starts (past this one's
 * terminator), and *key its order key. The file is what the engine wrote, so its
 * keys parse; 0 where one would not. */
uint64_t sorted_record(const sorted_t *s, uint64_t start, uint64_t *key);

#endif
