/* SPDX-License-Identifier: MIT */
/* rkey.h: a record's normalized key: the one way every stage of the records engine
 * orders two records.
 *
 * The keys of a record (several -k keys of text, numbers or floating-point numbers
 * in a line; or one binary key inside a fixed-size record) are encoded, key after
 * key, into bytes whose unsigned order (memcmp) is the wanted order:
 *  - an integer (n, or a binary integer key): its value with the sign bit flipped,
 *    big-endian, in the type's width (4 or 8 bytes);
 *  - a floating-point number (g, f32, f64): its IEEE bits, all flipped for a
 *    negative number and only the sign bit for the others (-0 as 0), big-endian;
 *    every NaN before every number (8 bytes of 0 for g);
 *  - text: its bytes, 0x00 written 0x01 0x01 and 0x01 written 0x01 0x02, then 0x00
 *    (so a key that is a prefix of another goes first); bytesN: its N bytes;
 *  - a key with r: its encoding's bytes inverted.
 * Each encoding is prefix-free, so their concatenation orders as the keys do, one
 * after another.
 *
 * The engine carries one 64-bit word a record (table.h's key[], the sorters' words,
 * the spill's first keys): the normalized key itself as a big-endian number where
 * it is 8 bytes or fewer whatever the record (rkey_t.exact: one integer or float
 * key, bytesN up to 8), else its first 8 bytes (the rest zeros). Equal words of an
 * exact key are equal keys; else rkey_cmp() compares the keys in full. Then, for
 * text without -s or -u, sort's last resort: the whole lines, bytewise.
 */
#ifndef GS_RKEY_H
#define GS_RKEY_H

#include <stddef.h>
#include <stdint.h>

#include "core/keydef.h"
#include "core/keys.h"
#include "core/settings.h"

/* The keys of the records of a run, compiled from the settings. */
typedef struct {
    const keydef_t *keys;    /* text records: the -k keys */
    int nkeys;
    int sep;                 /* -t's byte, or -1: fields are runs of blanks */
    key_type_t type;         /* n keys' and the binary key's type */
    size_t rsize;            /* binary records: their size (0: text) */
    size_t koff;             /* the binary key's first byte */
    int big_endian;          /* a binary integer or float key's byte order */
    size_t kbytes;           /* the binary key's bytes */
    int reverse;             /* the binary key descending (-r) */
    keymap_t km;             /* a binary integer key's mapping, -r in it; or the quick
                                key's (below) */
    keymap_t int_km;         /* n keys' mapping of --type, no -r in it, */
    uint64_t int_max;        /*   and their largest positive magnitude */
    unsigned char whole[GS_MAX_KEYS];   /* 1: key i is its -t field whole (F,F with
                                no character or b): its bytes lie between the
                                line's separators, once they are known */
    int exact;               /* 1: the word is the whole normalized key */
    int wide;                /* 1: the words may take all 64 bits (a key not exact, or
                                one of 8 bytes): a chunk's seldom leave room for
                                the line numbers beside them (records/order.h) */
    int quick;               /* 1: one n key, field F from its start to its end, not
                                reversed but by -r or its r: the table parses it at
                                once (field_parse_quick) into km's mapping */
    int last_resort;         /* 1: equal keys ordered by the whole lines (text, no
                                -s, no -u) */
    int last_reverse;        /* the last resort descending (a global -r) */
} rkey_t;

/* Compile the settings' keys. */
void rkey_init(rkey_t *k, const settings_t *set);

/* Why a line's key is not valid (rkey_word()'s RKEY_BAD). */
typedef struct {
    int key;                 /* which key, from 1 */
    int field;               /* the field it starts in (for a message) */
    int status;              /* FIELD_MISSING, FIELD_EMPTY, FIELD_NOT_INT or
                                FIELD_RANGE (records/field.h), or FIELD_NOT_FLOAT */
    size_t b, e;             /* the bytes at fault in the line, where there are some */
} rkey_bad_t;

enum { RKEY_OK = 0, RKEY_BAD };

/* A line whose fields several keys look for: with -t, where its separators are,
 * each found once as the keys need them (the first RKEY_SEPS kept), or given by a
 * caller that found them already (the table: 64 bytes at a time), sep[] then
 * holding them (offsets in the line) and end 1, or the first RKEY_SEPS of them and
 * end 0 where the line has more. */
#define RKEY_SEPS 32
typedef struct {
    const char *p;
    size_t len;
    int nsep;                /* separators known: sep[0..nsep) */
    int end;                 /* 1: there are no more */
    int slack;               /* 1: 16 bytes past any byte of the line may be read
                                (the table's arena: RTABLE_SLACK), so that an n
                                key's digits are read at once (field_parse_quick) */
    size_t sep[RKEY_SEPS];
} rkey_line_t;

/* l: line p[0..len), none of its separators known yet. */
static inline void rkey_line_init(rkey_line_t *l, const char *p, size_t len)
{
    l->p = p;
    l->len = len;
    l->nsep = 0;
    l->end = 0;
    l->slack = 0;
}

/* The word of line[0..len) (its terminator excluded): RKEY_OK, or RKEY_BAD with *bad
 * set where an n or g key is not a number of its kind (missing, empty, not a
 * number, out of range). Pure; any thread. */
int rkey_word(const rkey_t *k, const char *line, size_t len, uint64_t *word, rkey_bad_t *bad);
/* rkey_word() of a line whose separators may be known. */
int rkey_word_line(const rkey_t *k, rkey_line_t *l, uint64_t *word, rkey_bad_t *bad);

/* The normalized key's bytes [8 * depth, 8 * depth + 8) as a big-endian word (zeros
 * past its end) into *word; 1 where the key goes on past them, else 0 (the word's
 * bytes are its last). A text record's keys must have given RKEY_OK; a binary
 * record's key is bytesN. Depth 0 is rkey_word()'s word for a key that is not
 * exact. Pure; any thread. */
int rkey_word_at(const rkey_t *k, const char *line, size_t len, size_t depth, uint64_t *word);
/* The word of a binary record. */
uint64_t rkey_word_binary(const rkey_t *k, const char *rec);

/* -1, 0 or 1 as record a's keys go before, with or after record b's, compared in
 * full (records whose words are equal; where the key is exact, 0). a and b are
 * lines without their terminators, or binary records (la, lb: rsize). Both must
 * have given RKEY_OK. */
int rkey_cmp(const rkey_t *k, const char *a, size_t la, const char *b, size_t lb);

/* rkey_cmp(), then, where the keys are equal and k->last_resort, sort's last resort:
 * the lines bytewise (terminators excluded), descending with a global -r. */
int rkey_order(const rkey_t *k, const char *a, size_t la, const char *b, size_t lb);

/* A binary record's key as a message shows it, into buf (size bytes, NUL-ended):
 * an integer or a float in decimal, bytesN in hexadecimal. */
void rkey_format_binary(const rkey_t *k, const char *rec, char *buf, size_t size);

/* The bytes of key i (from 0) of line[0..len): [*b, *e), as sort finds them. */
void rkey_span(const rkey_t *k, int i, const char *line, size_t len, size_t *b, size_t *e);

#endif
