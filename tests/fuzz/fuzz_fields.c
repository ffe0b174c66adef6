/* SPDX-License-Identifier: MIT */
/* fuzz_fields.c: the text-record field scanner (records/field.h: field_find,
 * field_key and field_parse_quick; records/ends.h) against a slow reference written
 * here from the contract alone.
 *
 * Input: byte 0 picks the field F (bits 0-2: 1 to 8), the separator (bits 3-5: ',',
 * tab, ':', NUL, space or 0xFF, or, for two of the eight values, none: sort's
 * blank-run fields) and the key type (bits 6-7); the rest is lines, each ended by a
 * terminator (or the input's end) that is not part of it, as table.c hands them
 * over: NUL, as under -z, so that lines hold LFs (blanks to sort), or LF where the
 * separator is NUL.
 * Checked, for every line, each in a buffer of its exact size:
 *   - field_find for every field 1 to 9: found or missing as the reference, and the
 *     same [b, e);
 *   - field_key for field F and the type: the reference's status, its value where
 *     FIELD_OK, and the field's [b, e) wherever the field exists;
 *   - field_parse_quick on that field, the line followed by 16 digits (which it
 *     reads and must not take): field_key's status and value.
 * And over the whole input after byte 0: the terminators and separators that
 * ends.h's walker gives, in order, against a byte-by-byte scan.
 */
#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/keys.h"
#include "fuzz.h"
#include "records/ends.h"
#include "records/field.h"

/* The separators byte 0 can pick; -1: none (blank runs). Space and 0xFF beside the
 * usual ones: a separator that is also a blank, and one that is negative as a char. */
static const int fields_seps[8] = { ',', '\t', ':', '\0', ' ', 0xFF, -1, -1 };

/* The most fields field_find is asked for: one past byte 0's largest F, so that the
 * step from the last field to a missing one is always tried. */
#define FIELDS_MAX_F 9

/* ---- the reference --------------------------------------------------------------- */

static int ref_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* Field f of a line split at each sep byte: walk the line, counting separators. */
static int ref_find_sep(const uint8_t *line, size_t len, int f, int sep, size_t *b, size_t *e)
{
    int k = 1;          /* the field that starts at start */
    size_t start = 0;
    for (size_t i = 0; i < len; i++) {
        if (line[i] != (uint8_t)sep)
            continue;
        if (k == f) {
            *b = start;
            *e = i;
            return 1;
        }
        k++;
        start = i + 1;
    }
    if (k != f)
        return 0;       /* fewer than f - 1 separators */
    *b = start;
    *e = len;
    return 1;
}

/* Field f of a line split into blank runs, as sort without -t: field k is the k-th
 * maximal run of non-blanks (its leading blanks not reported). Field 1 always exists:
 * on a line of blanks only it is the empty range at the line's end. */
static int ref_find_blanks(const uint8_t *line, size_t len, int f, size_t *b, size_t *e)
{
    int k = 0;          /* non-blank runs seen */
    for (size_t i = 0; i < len; i++) {
        if (ref_blank(line[i]) || (i > 0 && !ref_blank(line[i - 1])))
            continue;   /* not the first byte of a run of non-blanks */
        size_t j = i;
        while (j < len && !ref_blank(line[j]))
            j++;
        if (++k == f) {
            *b = i;
            *e = j;
            return 1;
        }
    }
    if (f != 1)
        return 0;
    *b = len;
    *e = len;
    return 1;
}

static int ref_find(const uint8_t *line, size_t len, int f, int sep, size_t *b, size_t *e)
{
    return sep >= 0 ? ref_find_sep(line, len, f, sep, b, e) : ref_find_blanks(line, len, f, b, e);
}

/* [+-]?[0-9]+ within the type's range, into *raw (two's complement bits, the type's
 * width). The magnitude is kept exact up to 2^64 and pinned just above it after, as
 * no type holds more. */
static int ref_int(const uint8_t *t, size_t len, key_type_t type, uint64_t *raw)
{
    size_t i = 0;
    int neg = 0;
    if (len > 0 && (t[0] == '+' || t[0] == '-')) {
        neg = t[0] == '-';
        i = 1;
    }
    if (i == len)
        return FIELD_NOT_INT;
    const unsigned __int128 cap = ((unsigned __int128)1 << 64) + 1;
    unsigned __int128 mag = 0;
    for (; i < len; i++) {
        if (t[i] < '0' || t[i] > '9')
            return FIELD_NOT_INT;
        mag = mag * 10 + (unsigned)(t[i] - '0');
        if (mag > cap)
            mag = cap;
    }
    __int128 lo, hi;
    switch (type) {
    case KEY_I32: lo = INT32_MIN; hi = INT32_MAX; break;
    case KEY_U32: lo = 0; hi = UINT32_MAX; break;
    case KEY_I64: lo = INT64_MIN; hi = INT64_MAX; break;
    default: lo = 0; hi = UINT64_MAX; break;
    }
    __int128 v = neg ? -(__int128)mag : (__int128)mag;
    if (v < lo || v > hi)
        return FIELD_RANGE;
    uint64_t bits = (uint64_t)v;
    *raw = (type == KEY_I32 || type == KEY_U32) ? bits & 0xFFFFFFFFu : bits;
    return FIELD_OK;
}

/* field_key's reference: the field, trimmed of space, tab, LF and CR, as an integer. */
static int ref_key(const uint8_t *line, size_t len, int f, int sep, key_type_t type,
                   uint64_t *raw, size_t *b, size_t *e)
{
    if (!ref_find(line, len, f, sep, b, e))
        return FIELD_MISSING;
    size_t s = *b, t = *e;
    while (s < t && (line[s] == ' ' || line[s] == '\t' || line[s] == '\n' || line[s] == '\r'))
        s++;
    while (t > s && (line[t - 1] == ' ' || line[t - 1] == '\t' || line[t - 1] == '\n' ||
                     line[t - 1] == '\r'))
        t--;
    if (s == t)
        return FIELD_EMPTY;
    return ref_int(line + s, t - s, type, raw);
}

/* ---- the checks -------------------------------------------------------------------- */

static void check_find(const char *line, size_t len, int f, int sep)
{
    size_t b = (size_t)-1, e = (size_t)-1, rb = 0, re = 0;
    int got = field_find(line, len, f, sep, &b, &e);
    int want = ref_find((const uint8_t *)line, len, f, sep, &rb, &re);
    if (got != want)
        fuzz_fail("field_find(field %d, sep %d) on a line of %zu bytes: %d, the reference %d",
                  f, sep, len, got, want);
    if (want && (b != rb || e != re))
        fuzz_fail("field_find(field %d, sep %d) on a line of %zu bytes: [%zu, %zu), the "
                  "reference [%zu, %zu)", f, sep, len, b, e, rb, re);
}

static void check_key(const char *line, size_t len, int f, int sep, key_type_t type)
{
    size_t b = (size_t)-1, e = (size_t)-1, rb = 0, re = 0;
    uint64_t raw = 0, rraw = 0;
    int got = field_key(line, len, f, sep, type, &raw, &b, &e);
    int want = ref_key((const uint8_t *)line, len, f, sep, type, &rraw, &rb, &re);
    if (got != want)
        fuzz_fail("field_key(field %d, sep %d, %s) on a line of %zu bytes: status %d, the "
                  "reference %d", f, sep, key_type_name(type), len, got, want);
    if (want != FIELD_MISSING && (b != rb || e != re))
        fuzz_fail("field_key(field %d, sep %d, %s) on a line of %zu bytes: field [%zu, %zu), "
                  "the reference [%zu, %zu)", f, sep, key_type_name(type), len, b, e, rb, re);
    if (want == FIELD_OK && raw != rraw)
        fuzz_fail("field_key(field %d, sep %d, %s): %#" PRIx64 ", the reference %#" PRIx64,
                  f, sep, key_type_name(type), raw, rraw);
}

/* field_parse_quick() on field [b, e) of the line, with 16 digits after the line:
 * the same as field_parse() on the line alone. */
static void check_quick(const char *line, size_t len, size_t b, size_t e, key_type_t type)
{
    char *buf = malloc(len + 16);
    if (!buf)
        fuzz_fail("out of memory");
    memcpy(buf, line, len);
    memset(buf + len, '7', 16);
    uint64_t raw = 0, want_raw = 0;
    int got = field_parse_quick(buf, b, e, type, field_pos_max(type), &raw);
    int want = field_parse(line, b, e, type, &want_raw);
    free(buf);
    if (got != want || (want == FIELD_OK && raw != want_raw))
        fuzz_fail("field_parse_quick(%s) on a field of %zu bytes: status %d value %#" PRIx64
                  ", field_parse %d %#" PRIx64, key_type_name(type), e - b, got, raw, want,
                  want_raw);
}

/* ends.h's walker over buf[0..n): each terminator (and separator, where sep is not
 * term), in order, as a byte-by-byte scan finds them. */
static void check_ends(const char *buf, size_t n, char term, char sep)
{
    ends_t w;
    ends_init(&w, buf, n, term, sep);
    size_t i = 0;
    for (;;) {
        size_t got = ends_next(&w);
        while (i < n && buf[i] != term && buf[i] != sep)
            i++;
        if (got != i)
            fuzz_fail("ends_next over %zu bytes: %zu, the scan %zu", n, got, i);
        if (i == n)
            return;
        i++;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int f = (data[0] & 7) + 1;
    int sep = fields_seps[(data[0] >> 3) & 7];
    key_type_t type = (key_type_t)(data[0] >> 6);
    const uint8_t *p = data + 1, *end = data + size;
    int term = sep == '\0' ? '\n' : '\0';
    if (size > 1) {   /* a copy of the exact size, as below */
        char *all = malloc(size - 1);
        if (!all)
            fuzz_fail("out of memory");
        memcpy(all, data + 1, size - 1);
        check_ends(all, size - 1, (char)term, sep >= 0 ? (char)sep : (char)term);
        free(all);
    }
    for (;;) {
        const uint8_t *nl = p < end ? memchr(p, term, (size_t)(end - p)) : NULL;
        size_t len = (size_t)((nl ? nl : end) - p);
        /* A copy of the line's exact size, so a sanitizer sees a read past its end
         * (the next line's bytes would hide it). */
        char *line = malloc(len ? len : 1);
        if (!line)
            fuzz_fail("out of memory");
        memcpy(line, p, len);
        for (int g = 1; g <= FIELDS_MAX_F; g++)
            check_find(line, len, g, sep);
        check_key(line, len, f, sep, type);
        size_t b, e;
        if (field_find(line, len, f, sep, &b, &e))
            check_quick(line, len, b, e, type);
        free(line);
        if (!nl)
            break;
        p = nl + 1;
    }
    return 0;
}
