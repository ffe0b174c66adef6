/* SPDX-License-Identifier: MIT */
/* fuzz_text.c: the text parser (io/textnum.h, and io/reader.h's text reader)
 * against a slow reference parser written here from the contract alone.
 *
 * Input: byte 0 picks the key type (bits 0-1), -r (bit 2) and the reader's block
 * size (bits 3-7); the rest is the text. Checked, for every input:
 *   - tn_scan, with the line scan and without it: the same keys, status, line count
 *     and bad token (offset, length) as the reference;
 *   - tn_format_keys of those keys: the reference's lines;
 *   - tn_format: each key back as the reference's canonical decimal, and tn_parse
 *     of that gives the key again;
 *   - tn_count_tokens: the reference's count of tokens, good and bad;
 *   - the reader (kreader over a memory file, blocks of 1 byte to 8 KiB), by
 *     kreader_next and by kreader_next_into (room given, and refused at every third
 *     block): the same keys, each with the reference's line, then GS_EINPUT exactly
 *     where the reference has a bad token, else the end.
 */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fuzz.h"
#include "io/reader.h"
#include "core/keys.h"
#include "core/pool.h"
#include "io/textnum.h"

/* ---- the reference --------------------------------------------------------------- */

typedef struct {
    int status;              /* TN_OK, TN_NOT_INT or TN_RANGE */
    size_t nkeys;
    size_t nlines;           /* LF bytes before the bad token, or in all */
    size_t err_off, err_len;
    uint64_t *raw;           /* [nkeys] two's complement bits, the type's width */
    uint64_t *line;          /* [nkeys] 1-based line of each key */
} ref_t;

static int ref_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* One token: [+-]?[0-9]+ within the type's range. */
static int ref_token(const uint8_t *t, size_t len, key_type_t type, uint64_t *raw)
{
    size_t i = 0;
    int neg = 0;
    if (t[0] == '+' || t[0] == '-') {
        neg = t[0] == '-';
        i = 1;
    }
    if (i == len)
        return TN_NOT_INT;
    for (size_t j = i; j < len; j++)
        if (t[j] < '0' || t[j] > '9')
            return TN_NOT_INT;
    unsigned __int128 mag = 0;
    for (; i < len; i++) {
        mag = mag * 10 + (unsigned)(t[i] - '0');
        if (mag > ((unsigned __int128)1 << 64))
            mag = ((unsigned __int128)1 << 64) + 1;   /* saturate: out of every range */
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
        return TN_RANGE;
    uint64_t bits = (uint64_t)v;
    *raw = (type == KEY_I32 || type == KEY_U32) ? bits & 0xFFFFFFFFu : bits;
    return TN_OK;
}

static void ref_scan(const uint8_t *p, size_t len, key_type_t type, ref_t *res)
{
    size_t i = 0, nl = 0;
    res->status = TN_OK;
    res->nkeys = 0;
    for (;;) {
        while (i < len && ref_space(p[i])) {
            nl += p[i] == '\n';
            i++;
        }
        if (i == len)
            break;
        size_t start = i;
        while (i < len && !ref_space(p[i]))
            i++;
        uint64_t raw = 0;
        int st = ref_token(p + start, i - start, type, &raw);
        if (st != TN_OK) {
            res->status = st;
            res->err_off = start;
            res->err_len = i - start;
            break;
        }
        res->raw[res->nkeys] = raw;
        res->line[res->nkeys] = nl + 1;
        res->nkeys++;
    }
    res->nlines = nl;
}

/* The canonical decimal of raw (two's complement bits of type). */
static void ref_format(uint64_t raw, key_type_t type, char *dst, size_t room)
{
    switch (type) {
    case KEY_I32: snprintf(dst, room, "%" PRId32, (int32_t)(uint32_t)raw); break;
    case KEY_U32: snprintf(dst, room, "%" PRIu32, (uint32_t)raw); break;
    case KEY_I64: snprintf(dst, room, "%" PRId64, (int64_t)raw); break;
    default: snprintf(dst, room, "%" PRIu64, raw); break;
    }
}

/* ---- the checks -------------------------------------------------------------------- */

static uint64_t get_key(const void *keys, size_t i, int width)
{
    uint64_t v;
    if (width == 4) {
        uint32_t k;
        memcpy(&k, (const char *)keys + 4 * i, 4);
        v = k;
    } else {
        memcpy(&v, (const char *)keys + 8 * i, 8);
    }
    return v;
}

/* tn_format_keys of keys[0..n) is the reference's lines, one after another. */
static void check_format_keys(const void *keys, size_t n, const keymap_t *km)
{
    char *got = malloc(n * TN_MAX_LINE + 1);
    char *want = malloc(n * TN_MAX_LINE + 1);
    if (!got || !want)
        fuzz_fail("out of memory");
    size_t glen = tn_format_keys(keys, n, km, got), wlen = 0;
    for (size_t i = 0; i < n; i++) {
        char line[32];
        ref_format(key_map(km, get_key(keys, i, km->width)), km->type, line, sizeof line);
        size_t l = strlen(line);
        memcpy(want + wlen, line, l);
        wlen += l;
        want[wlen++] = '\n';
    }
    if (glen != wlen || memcmp(got, want, wlen) != 0)
        fuzz_fail("tn_format_keys: %zu bytes unlike the reference's %zu lines", glen, n);
    free(got);
    free(want);
}

static void check_scan(const uint8_t *text, size_t len, const keymap_t *km, const ref_t *ref)
{
    size_t room = tn_max_keys(len) * (size_t)km->width;
    void *out = malloc(room), *words = malloc(room);
    if (!out || !words)
        fuzz_fail("out of memory");
    tn_scan_t res;
    /* Without the line scan (lines 0, into words) and with it where the CPU has it
     * (1, last, into out): the keys of both are compared below. */
    for (int lines = 0; lines < 2; lines++) {
        tn_scan_with((const char *)text, len, km, lines ? out : words, &res, lines);
        if (res.status != ref->status || res.nkeys != ref->nkeys || res.nlines != ref->nlines)
            fuzz_fail("tn_scan (lines %d): status %d, %zu keys, %zu lines; the reference: %d, "
                      "%zu, %zu", lines, res.status, res.nkeys, res.nlines, ref->status,
                      ref->nkeys, ref->nlines);
        if (res.status != TN_OK && (res.err_off != ref->err_off || res.err_len != ref->err_len))
            fuzz_fail("tn_scan (lines %d): bad token at %zu+%zu; the reference: %zu+%zu", lines,
                      res.err_off, res.err_len, ref->err_off, ref->err_len);
    }
    if (memcmp(out, words, res.nkeys * (size_t)km->width) != 0)
        fuzz_fail("tn_scan: the keys with the line scan differ from those without it");
    free(words);
    check_format_keys(out, res.nkeys, km);
    for (size_t i = 0; i < res.nkeys; i++) {
        uint64_t raw = key_map(km, get_key(out, i, km->width));
        if (raw != ref->raw[i])
            fuzz_fail("tn_scan: key %zu is %#" PRIx64 ", the reference %#" PRIx64, i, raw,
                      ref->raw[i]);
        char got[TN_MAX_LINE + 1], want[32];
        size_t n = tn_format(raw, km->type, got);
        got[n] = '\0';
        ref_format(raw, km->type, want, sizeof want);
        if (strcmp(got, want) != 0)
            fuzz_fail("tn_format: '%s', the reference '%s'", got, want);
        uint64_t back;
        if (tn_parse(got, n, km->type, &back) != TN_OK || back != raw)
            fuzz_fail("tn_parse('%s') does not give the key back", got);
    }
    free(out);
}

/* kreader_next_into's room: one buffer, refused at every third call. */
typedef struct {
    void *buf;
    size_t cap;      /* keys */
    size_t asked;
    unsigned calls;
} room_t;

static void *fuzz_room(void *arg, size_t m)
{
    room_t *rm = arg;
    if (++rm->calls % 3 == 0)
        return NULL;
    if (m > rm->cap) {
        free(rm->buf);
        rm->buf = malloc(m * 8);
        if (!rm->buf)
            fuzz_fail("out of memory");
        rm->cap = m;
    }
    rm->asked = m;
    return rm->buf;
}

/* The reader with kreader_next (into == 0) or kreader_next_into (1). */
static void check_reader(const uint8_t *text, size_t len, const keymap_t *km, size_t block,
                         const ref_t *ref, int into)
{
    room_t rm = { 0 };
    static pool_t *pool;
    if (!pool && pool_create(&pool, 1) != GS_OK)
        fuzz_fail("pool_create failed");
    kreader_cfg_t cfg = { .km = km, .pool = pool, .block_bytes = block };
    kreader_t *r;
    source_t src = { .path = fuzz_memfile(text, len), .fd = -1 };
    if (kreader_open(&r, &src, &cfg) != GS_OK)
        fuzz_fail("kreader_open failed");
    size_t seen = 0;
    int rc;
    for (;;) {
        const void *keys;
        size_t n;
        if (into) {
            rm.asked = 0;
            rc = kreader_next_into(r, fuzz_room, &rm, &keys, &n);
            if (rc == GS_OK && n > 0 && !keys) {
                if (n > rm.asked)
                    fuzz_fail("reader: %zu keys placed in room for %zu", n, rm.asked);
                keys = rm.buf;
            }
        } else {
            rc = kreader_next(r, &keys, &n);
        }
        if (rc != GS_OK || n == 0)
            break;
        for (size_t i = 0; i < n; i++, seen++) {
            if (seen >= ref->nkeys)
                fuzz_fail("reader: more keys than the reference's %zu", ref->nkeys);
            uint64_t raw = key_map(km, get_key(keys, i, km->width));
            if (raw != ref->raw[seen])
                fuzz_fail("reader: key %zu is %#" PRIx64 ", the reference %#" PRIx64, seen,
                          raw, ref->raw[seen]);
            uint64_t line = kreader_position(r, i);
            if (line != ref->line[seen])
                fuzz_fail("reader: key %zu on line %" PRIu64 ", the reference %" PRIu64,
                          seen, line, ref->line[seen]);
        }
    }
    kreader_close(r);
    free(rm.buf);
    if (seen != ref->nkeys)
        fuzz_fail("reader: %zu keys, the reference %zu (block %zu)", seen, ref->nkeys, block);
    int want = ref->status == TN_OK ? GS_OK : GS_EINPUT;
    if (rc != want)
        fuzz_fail("reader: ended with %d, %d expected (block %zu)", rc, want, block);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    keymap_t km;
    key_map_init(&km, (key_type_t)(data[0] & 3), (data[0] >> 2) & 1);
    static const size_t blocks[32] = { 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 20, 21, 22, 23,
                                       24, 31, 32, 33, 40, 63, 64, 65, 100, 127, 128, 255,
                                       256, 1000, 1024, 4096, 8192 };
    size_t block = blocks[data[0] >> 3];
    const uint8_t *text = data + 1;
    size_t len = size - 1;

    ref_t ref;
    ref.raw = malloc(sizeof *ref.raw * (len / 2 + 1));
    ref.line = malloc(sizeof *ref.line * (len / 2 + 1));
    if (!ref.raw || !ref.line)
        fuzz_fail("out of memory");
    ref_scan(text, len, km.type, &ref);
    check_scan(text, len, &km, &ref);
    size_t tokens = 0;
    for (size_t i = 0; i < len; i++)
        tokens += !ref_space(text[i]) && (i == 0 || ref_space(text[i - 1]));
    if (tn_count_tokens((const char *)text, len) != tokens)
        fuzz_fail("tn_count_tokens: %zu, the reference %zu",
                  tn_count_tokens((const char *)text, len), tokens);
    check_reader(text, len, &km, block, &ref, 0);
    check_reader(text, len, &km, block, &ref, 1);
    free(ref.raw);
    free(ref.line);
    return 0;
}
