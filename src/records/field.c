/* SPDX-License-Identifier: MIT */
/* field.c: the key inside a text record (see field.h). */
#include <config.h>

#include <string.h>

#include "io/textnum.h"
#include "records/field.h"

/* sort's blanks: space, tab, and LF (which a line holds only under -z). */
static inline int field_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

int field_find(const char *line, size_t len, int f, int sep, size_t *b, size_t *e)
{
    size_t p = 0;
    if (sep >= 0) {
        /* Past f - 1 separators: memchr, as most lines have few, long fields. */
        for (int i = 1; i < f; i++) {
            const char *s = memchr(line + p, sep, len - p);
            if (!s)
                return 0;
            p = (size_t)(s - line) + 1;
        }
        const char *s = memchr(line + p, sep, len - p);
        *b = p;
        *e = s ? (size_t)(s - line) : len;
        return 1;
    }
    for (int i = 1;; i++) {
        while (p < len && field_blank((unsigned char)line[p]))
            p++;
        size_t start = p;
        while (p < len && !field_blank((unsigned char)line[p]))
            p++;
        if (i == f) {
            /* A line of f - 1 fields ends in blanks at most: field f is missing. */
            if (start == len && i > 1)
                return 0;
            *b = start;
            *e = p;
            return 1;
        }
        if (p == len)
            return 0;
    }
}

int field_key(const char *line, size_t len, int f, int sep, key_type_t type, uint64_t *raw,
              size_t *b, size_t *e)
{
    if (!field_find(line, len, f, sep, b, e))
        return FIELD_MISSING;
    return field_parse(line, *b, *e, type, raw);
}

int field_parse(const char *line, size_t b, size_t e, key_type_t type, uint64_t *raw)
{
    size_t s = b, t = e;
    while (s < t && (field_blank((unsigned char)line[s]) || line[s] == '\r'))
        s++;
    while (t > s && (field_blank((unsigned char)line[t - 1]) || line[t - 1] == '\r'))
        t--;
    if (s == t)
        return FIELD_EMPTY;
    int st = tn_parse(line + s, t - s, type, raw);
    return st == TN_OK ? FIELD_OK : st == TN_RANGE ? FIELD_RANGE : FIELD_NOT_INT;
}
