/* SPDX-License-Identifier: MIT */
/* textnum.h: fast text <-> integer conversion (pure functions, the hot path):
 * textscan.c parses, textfmt.c formats.
 *
 * Parsing takes a block of whitespace-separated tokens and writes mapped keys
 * (keys.h); formatting takes mapped keys and writes canonical decimal lines. Neither
 * calls strtoll or printf; both are safe to run on disjoint blocks in parallel.
 */
#ifndef GS_TEXTNUM_H
#define GS_TEXTNUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/keys.h"

/* Most bytes one formatted key takes, its '\n' included: "-9223372036854775808\n". */
#define TN_MAX_LINE 21

enum { TN_OK = 0, TN_NOT_INT, TN_RANGE };

/* The result of scanning a block. */
typedef struct {
    int status;      /* TN_OK, or TN_NOT_INT / TN_RANGE for the first bad token */
    size_t nkeys;    /* keys written: every token before the bad one, or all */
    size_t nlines;   /* LF bytes before the bad token, or in the whole block */
    size_t err_off;  /* with an error: offset of the bad token in the block */
    size_t err_len;  /* with an error: its length (up to the next white space) */
} tn_scan_t;

/* 10^0 .. 10^19, for both directions. */
extern const uint64_t tn_pow10[20];

/* High bit set in each byte of x that is not an ASCII digit. Exact for every byte
 * up to and including the first non-digit (carries only run upwards from bytes that
 * are not digits), which is all the caller uses. */
static inline uint64_t tn_nondigit_mask(uint64_t x)
{
    const uint64_t hi = 0xF0F0F0F0F0F0F0F0ull, k30 = 0x3030303030303030ull;
    uint64_t c = ((x & hi) ^ k30) | (((x + 0x0606060606060606ull) & hi) ^ k30);
    return (((c & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | c) & 0x8080808080808080ull;
}

/* The value of the len (1..8) digits at the low bytes of x (first digit lowest). */
static inline uint64_t tn_swar_value(uint64_t x, unsigned len)
{
    x = (x & 0x0F0F0F0F0F0F0F0Full) << (8 * (8 - len));
    x = (x * 2561) >> 8;
    x = ((x & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
    return ((x & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
}

/* Where s[0..n) is 1 to 16 ASCII digits and nothing else (the common key), 1 with
 * their value in *v; else 0 (a sign, blanks, more digits, anything else: the caller
 * parses it carefully). Reads the 16 bytes at s whatever n: they must be there. */
static inline int tn_digits16(const char *s, size_t n, uint64_t *v)
{
    if (n - 1 >= 16)
        return 0;
    uint64_t x0, x1;
    memcpy(&x0, s, 8);
    uint64_t m0 = tn_nondigit_mask(x0);
    unsigned d0 = m0 ? (unsigned)__builtin_ctzll(m0) >> 3 : 8;   /* digits first */
    if (n <= 8) {
        if (d0 < n)
            return 0;
        *v = tn_swar_value(x0, (unsigned)n);
        return 1;
    }
    memcpy(&x1, s + 8, 8);
    uint64_t m1 = tn_nondigit_mask(x1);
    unsigned d1 = m1 ? (unsigned)__builtin_ctzll(m1) >> 3 : 8;
    if (d0 < 8 || d1 < n - 8)
        return 0;
    *v = tn_swar_value(x0, 8) * tn_pow10[n - 8] + tn_swar_value(x1, (unsigned)(n - 8));
    return 1;
}

/* An upper bound on the keys a block of len bytes can hold: out needs this room. */
static inline size_t tn_max_keys(size_t len) { return len / 2 + 1; }

/* 1 for the contract's white space: space, \t, \n, \v, \f, \r. */
int tn_is_space(unsigned char c);

/* Scan buf[0..len): tokens separated by white space, each [+-]?[0-9]+ in the range
 * of km->type. The end of the block ends a token. Writes each token's mapped key
 * (km->width bytes) to out, in order, and stops at the first bad token. */
void tn_scan(const char *buf, size_t len, const keymap_t *km, void *out, tn_scan_t *res);

/* tn_scan with the line scan (lines: 1, where tn_lines_supported()) or without it
 * (0): the same results; for the tests and the benchmarks, which compare the two. */
void tn_scan_with(const char *buf, size_t len, const keymap_t *km, void *out, tn_scan_t *res,
                  int lines);

/* 1 where tn_scan takes runs of one key a line 32 bytes at a time (x86-64 with
 * SSSE3), 0 where it reads every token a word at a time. */
int tn_lines_supported(void);

/* Parse one whole token s[0..len) (no white space) as type: 0 and *raw (the value's
 * two's complement bits), or TN_NOT_INT / TN_RANGE. Any number of leading zeros. */
int tn_parse(const char *s, size_t len, key_type_t type, uint64_t *raw);

/* The magnitudes a token of type may have: *pos_max positive, *neg_max negative (0
 * for the unsigned types), as tn_parse() and tn_scan() take them. */
void tn_range(key_type_t type, uint64_t *pos_max, uint64_t *neg_max);

/* Write raw (two's complement bits of type) in canonical decimal to dst, which has
 * room for TN_MAX_LINE bytes; no newline; return the length. */
size_t tn_format(uint64_t raw, key_type_t type, char *dst);

/* Format n mapped keys as lines ("VALUE\n" each) into dst, which has room for
 * n * TN_MAX_LINE bytes; return the bytes written. */
size_t tn_format_keys(const void *keys, size_t n, const keymap_t *km, char *dst);

/* tn_format_keys() with each line ended by term ('\n', or NUL for -z). */
size_t tn_format_lines(const void *keys, size_t n, const keymap_t *km, char term, char *dst);

/* The bytes tn_format_keys() writes for these keys, without writing them (so that
 * the output can be laid out before it is formatted, in parallel, in place). */
size_t tn_format_bytes(const void *keys, size_t n, const keymap_t *km);

/* Most steps tn_line_steps() makes. */
#define TN_MAX_STEPS 96

/* The bytes of each key's line as steps over the mapped keys: the keys from
 * start[i] up to start[i + 1] (the last step: up to the largest key) take len[i]
 * bytes each, the newline included; start[0] is 0. Returns the number of steps.
 * The text of sorted keys is then measured by ranks alone, without reading the
 * keys: the parallel merge lays its output out so. */
size_t tn_line_steps(const keymap_t *km, uint64_t *start, unsigned char *len);

/* Count LF bytes in buf[0..len). */
size_t tn_count_lines(const char *buf, size_t len);

/* The tokens (runs of bytes that are not white space) in buf[0..len): tn_scan()
 * writes at most this many keys for the block, exactly as many where it has no bad
 * token. So a block's keys can be placed before it is scanned. */
size_t tn_count_tokens(const char *buf, size_t len);

/* Offset in buf[0..len) of the start of token number idx (0-based), or len if the
 * block has fewer tokens. Used only to locate an error, so it may be slow. */
size_t tn_token_offset(const char *buf, size_t len, size_t idx);

#endif
