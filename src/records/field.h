/* SPDX-License-Identifier: MIT */
/* field.h: the key inside a text record: find field F of a line, read its integer.
 *
 * Pure functions on one line (its terminator excluded), safe on any thread: the
 * table (table.c) runs them over every line in parallel, -c and -m line by line, and
 * tests/fuzz checks them against a plain reference.
 */
#ifndef GS_FIELD_H
#define GS_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "core/keys.h"
#include "io/textnum.h"

/* field_key()'s results (FIELD_NOT_FLOAT: rkey.h's g keys). */
enum { FIELD_OK = 0, FIELD_MISSING, FIELD_EMPTY, FIELD_NOT_INT, FIELD_RANGE, FIELD_NOT_FLOAT };

/* Field f (1-based) of line[0..len) into [*b, *e): with sep >= 0, the bytes between
 * the (f-1)th and the f-th sep (or the line's ends); with sep < 0, as sort splits a
 * line without -t, a run of blanks (space, tab, and LF, which only -z lets a line
 * hold) then the non-blanks after it, here without the blanks. 1, or 0 where the line has fewer than f fields. */
int field_find(const char *line, size_t len, int f, int sep, size_t *b, size_t *e);

/* The integer of type in line[b..e) (a field), blanks (space, tab, LF, CR) around it
 * allowed, into *raw: FIELD_OK, FIELD_EMPTY (blanks only), FIELD_NOT_INT or
 * FIELD_RANGE. */
int field_parse(const char *line, size_t b, size_t e, key_type_t type, uint64_t *raw);

/* The largest magnitude of a positive key of type. */
static inline uint64_t field_pos_max(key_type_t type)
{
    switch (type) {
    case KEY_I32: return 0x7FFFFFFFull;
    case KEY_U32: return 0xFFFFFFFFull;
    case KEY_I64: return 0x7FFFFFFFFFFFFFFFull;
    default: return ~0ull;
    }
}

/* field_parse(), the common key (1 to 16 digits, at most pos_max, which is
 * field_pos_max(type)) read at once. Reads the 16 bytes at line + b whatever the
 * field's length: they must be there. */
static inline int field_parse_quick(const char *line, size_t b, size_t e, key_type_t type,
                                    uint64_t pos_max, uint64_t *raw)
{
    if (tn_digits16(line + b, e - b, raw) && *raw <= pos_max)
        return FIELD_OK;
    return field_parse(line, b, e, type, raw);
}

/* The key of line[0..len): field f's integer of type, blanks (space, tab, LF, CR)
 * around it allowed, into *raw (two's complement bits, as tn_parse()). FIELD_OK, or why
 * not: the field is missing or empty (blanks only), or not an integer, or out of
 * range; *b and *e are set to the field (for a message) where it exists. */
int field_key(const char *line, size_t len, int f, int sep, key_type_t type, uint64_t *raw,
              size_t *b, size_t *e);

#endif
