/* SPDX-License-Identifier: MIT */
/* keydef.h: the keys of text records, as sort's -k KEYDEF defines them: where each
 * key starts and ends in a line, how it compares, and in which direction.
 *
 * cli/ parses `-k F[.C][OPTS][,F2[.C2][OPTS]]` into a keydef_t a key, global
 * -b -r -n -g inherited by keys with no letters of their own, as sort does; the
 * records engine (records/rkey.h) turns a line's keys into its normalized key.
 * Positions follow sort: fields and characters 1-based, a key without F2 runs to the
 * line's end, one whose .C2 is absent or 0 to the end of field F2.
 */
#ifndef GS_KEYDEF_H
#define GS_KEYDEF_H

/* The most -k options one run takes. */
#define GS_MAX_KEYS 32

/* How a key compares: its bytes (sort without a letter), an integer of --type (n), a
 * floating-point number (g). */
typedef enum { KD_TEXT, KD_INT, KD_FLOAT } kd_kind_t;

typedef struct {
    int sfield, schar;       /* start: field (from 1), character in it (from 1) */
    int efield, echar;       /* end: field (0: the line's end), its last character
                                (0: the field's end) */
    int skip_sblanks;        /* b on the start: its field's leading blanks skipped
                                before schar counts */
    int skip_eblanks;        /* b on the end: likewise before echar counts */
    int reverse;             /* r: this key descending */
    kd_kind_t kind;
} keydef_t;

#endif
