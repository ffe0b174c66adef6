/* SPDX-License-Identifier: MIT */
/* text.c: the GPU's text parse (gk_parse_text) against the host's (tn_scan), on
 * seeded random texts (a test program without Check, like sorter.c). Exits 77 where
 * there is no GPU.
 *
 * Each text is drawn from pieces: keys of the type (its extremes among them), with
 * '+' or leading zeros, or a sign alone, a run of zeros that crosses the device's
 * tiles, a value one past the type's range, stray letters, NUL and bytes over 127,
 * between runs of every kind of white space. For every type, with and without -r's
 * mapping, the GPU must flag a bad token exactly where the host's scan stops at one,
 * and otherwise give the same keys, byte for byte, and their count; with the keys'
 * room one short, it must say the room is full. Keys past the count must be left
 * as they were. Sizes from empty to a few MB, most small.
 * Usage: tests/gpu/text [CASES]   (default 3000). Prints "gpu/text: N passed, N failed".
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GT_SEED 0x9E3779B97F4A7C15ull
#include "gputest.h"
#include "kernels.h"
#include "core/keys.h"
#include "io/textnum.h"

#define MAX_TEXT ((size_t)4 << 20)
#define GUARD 64                      /* keys after the count that must stay as they were */
#define GUARD_BYTE 0xA5

static const char *const type_name[] = { "i32", "u32", "i64", "u64" };

/* Append one piece of text to buf at *len (room for 64 more bytes at least): a
 * token, good or (1 in bad_odds) bad, then white space. */
static void piece(char *buf, size_t *len, key_type_t type, unsigned bad_odds)
{
    uint64_t pos_max, neg_max, r = splitmix();
    tn_range(type, &pos_max, &neg_max);
    char *p = buf + *len;
    if (bad_odds && r % bad_odds == 0) {
        static const char *const bad[] = { "x", "12a", "-", "+", "+-5", "--1", "1-2", "\x80",
                                           "0x10", "1e5", "7\xff", "+\t" };
        switch ((r >> 8) % 4) {
        case 0:
            p += sprintf(p, "%s", bad[(r >> 16) % (sizeof bad / sizeof *bad)]);
            break;
        case 1:   /* one past the type's range, either way */
            if (neg_max && (r >> 16) % 2)
                p += sprintf(p, "-%llu", (unsigned long long)neg_max + 1);
            else if (pos_max == ~0ull)
                p += sprintf(p, "18446744073709551616");
            else
                p += sprintf(p, "%llu", (unsigned long long)pos_max + 1);
            break;
        case 2:   /* a NUL in a token */
            *p++ = '1';
            *p++ = '\0';
            *p++ = '2';
            break;
        default:  /* a negative value of an unsigned type, or 20 digits too many */
            p += sprintf(p, neg_max ? "99999999999999999999" : "-1");
        }
    } else {
        uint64_t v;
        int neg = 0;
        switch ((r >> 8) % 8) {
        case 0: v = pos_max; break;
        case 1: v = neg_max; neg = neg_max != 0; break;
        case 2: v = 0; neg = (r >> 16) % 2; break;   /* -0 too */
        default:
            v = splitmix() % (pos_max == ~0ull ? ~0ull : pos_max + 1);
            neg = neg_max && (r >> 16) % 2 && v <= neg_max;
        }
        if (neg)
            *p++ = '-';
        else if ((r >> 20) % 5 == 0)
            *p++ = '+';
        for (unsigned z = (r >> 24) % 7 == 0 ? (unsigned)((r >> 28) % 4) : 0; z; z--)
            *p++ = '0';
        p += sprintf(p, "%llu", (unsigned long long)v);
    }
    static const char *const space[] = { "\n", "\n", " ", "\t", "\r\n", "  \n\n", "\v", "\f",
                                         "\r", " \t " };
    p += sprintf(p, "%s", space[(r >> 32) % (sizeof space / sizeof *space)]);
    *len = (size_t)(p - buf);
}

typedef struct {
    gk_stream_t stream;
    void *d_text, *d_keys, *d_scratch;
    size_t scratch_bytes;
    uint64_t *h_res;
    char *want, *got;
    int passed, failed;
} test_t;

/* buf[0..len) parsed by both with the keys' room cap (0: as many as the text may
 * hold); compared. */
static void check(test_t *t, const char *buf, size_t len, key_type_t type, int reverse,
                  size_t cap, const char *what)
{
    keymap_t km;
    key_map_init(&km, type, reverse);
    size_t w = (size_t)km.width, most = tn_max_keys(len);
    tn_scan_t res;
    tn_scan(buf, len, &km, t->want, &res);
    int full = cap && res.status == TN_OK && res.nkeys > cap;
    if (!cap)
        cap = most;
    size_t scratch;
    GK(gk_text_scratch(len, &scratch));
    if (scratch > t->scratch_bytes) {
        printf("FAIL: the test's scratch is too small\n");
        exit(1);
    }
    memset(t->got, GUARD_BYTE, (most + GUARD) * w);
    GK(gk_copy_h2d(t->d_keys, t->got, (most + GUARD) * w, t->stream));
    GK(gk_copy_h2d(t->d_text, buf, len, t->stream));
    uint64_t pos_max, neg_max;
    tn_range(type, &pos_max, &neg_max);
    GK(gk_parse_text(t->d_text, len, (int)w, pos_max, neg_max, km.mask, t->d_keys, cap,
                     t->d_scratch, t->scratch_bytes, t->h_res, t->stream));
    GK(gk_copy_d2h(t->got, t->d_keys, (most + GUARD) * w, t->stream));
    GK(gk_stream_sync(t->stream));
    uint64_t count = t->h_res[0], flags = t->h_res[1];
    const char *why = NULL;
    if (res.status != TN_OK) {
        if (!(flags & GK_TEXT_BAD))
            why = "the host found a bad token, the GPU none";
    } else if (full) {
        if (flags != GK_TEXT_FULL)
            why = "the keys' room one short: not said full";
    } else if (flags) {
        why = flags & GK_TEXT_BAD ? "the GPU found a bad token, the host none"
                                  : "said full with room enough";
    } else if (count != res.nkeys) {
        why = "another count";
    } else if (memcmp(t->got, t->want, count * w) != 0) {
        why = "other keys";
    } else {
        for (size_t i = count * w; i < (most + GUARD) * w && !why; i++)
            if ((unsigned char)t->got[i] != GUARD_BYTE)
                why = "a key written past the count";
    }
    if (why) {
        printf("FAIL: %s%s, %s, %zu bytes: %s (host %zu keys, status %d; GPU %llu keys, "
               "flags %llu)\n", type_name[type], reverse ? " -r" : "", what, len, why,
               res.nkeys, res.status, (unsigned long long)count, (unsigned long long)flags);
        t->failed++;
        return;
    }
    t->passed++;
}

int main(int argc, char **argv)
{
    if (gk_device_count() == 0) {
        puts("gpu/text: no GPU here: skipped");
        return 77;
    }
    long cases = argc > 1 ? strtol(argv[1], NULL, 10) : 3000;
    test_t t = { 0 };
    size_t most = tn_max_keys(MAX_TEXT + 4096) + GUARD;
    GK(gk_set_device(0));
    GK(gk_stream_create(&t.stream));
    GK(gk_text_scratch(MAX_TEXT + 4096, &t.scratch_bytes));
    GK(gk_malloc(&t.d_text, MAX_TEXT + 4096));
    GK(gk_malloc(&t.d_keys, most * 8));
    GK(gk_malloc(&t.d_scratch, t.scratch_bytes));
    GK(gk_host_alloc((void **)&t.h_res, 16));
    char *buf = malloc(MAX_TEXT + 4096);
    t.want = malloc(most * 8);
    t.got = malloc(most * 8);
    if (!buf || !t.want || !t.got)
        return 99;
    for (long c = 0; c < cases; c++) {
        key_type_t type = (key_type_t)(c % 4);
        int reverse = (int)((c / 4) % 2);
        /* Most texts small; one in 50 up to MAX_TEXT; one in 10 with a run of zeros
         * across a tile (4096 bytes) before a key. */
        size_t target = c % 50 == 49 ? splitmix() % MAX_TEXT : splitmix() % 600;
        unsigned bad_odds = c % 3 == 0 ? 0 : c % 3 == 1 ? 2000 : 40;
        size_t len = 0;
        if (c % 10 == 7) {
            size_t z = 3000 + splitmix() % 3000;
            memset(buf, '0', z);
            len = z;
        }
        while (len < target)
            piece(buf, &len, type, bad_odds);
        if (len && splitmix() % 4 == 0)
            len--;   /* the last token without its white space, or cut short */
        check(&t, buf, len, type, reverse, 0, "random");
        if (c % 5 == 0) {
            keymap_t km;
            tn_scan_t res;
            key_map_init(&km, type, reverse);
            tn_scan(buf, len, &km, t.want, &res);
            if (res.status == TN_OK && res.nkeys > 1)
                check(&t, buf, len, type, reverse, res.nkeys - 1, "room one short");
        }
    }
    printf("gpu/text: %d passed, %d failed\n", t.passed, t.failed);
    gk_free(t.d_text);
    gk_free(t.d_keys);
    gk_free(t.d_scratch);
    gk_host_free(t.h_res);
    free(buf);
    free(t.want);
    free(t.got);
    return t.failed ? 1 : 0;
}
