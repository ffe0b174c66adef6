/* SPDX-License-Identifier: MIT */
/* check_rkey.c: the records' normalized key (records/rkey.h).
 *  - g keys: gfloat_parse() against libc's strtod, the independent oracle, on
 *    random decimal texts (its own fast path and strtod's cases: long significands,
 *    far exponents, hex, inf, nan, junk);
 *  - the words of a key (rkey_word_at(), a depth at a time) order random lines as
 *    rkey_cmp() does, which compares the keys themselves, for 1 to 3 keys of text,
 *    n and g, reversed or not; depth 0 is rkey_word()'s word;
 *  - the words of whole-field keys against the normalized key written here from a
 *    split of the line, byte by byte as rkey.h defines it, at every depth; by
 *    rkey_word() and by rkey_word_line() with the line's separators given and
 *    bytes to spare after it (integers read at once), as the table gives them;
 *  - keys in fields far into a line (past the separators rkey.c keeps) where a
 *    split of the line finds them.
 */
#include <config.h>

#include <math.h>
#include <string.h>

#include "check_suites.h"
#include "core/settings.h"
#include "records/gfloat.h"
#include "records/rkey.h"

/* ---- g keys ------------------------------------------------------------------------ */

/* A random text of a number: a sign, digits, a point, digits, an exponent, each
 * there or not; sometimes one of strtod's other forms or junk. */
static size_t ck_float_text(uint64_t *rng, char *buf)
{
    static const char *const other[] = { "inf", "-Infinity", "nan", "0x1p3", "0x1.8p-2",
                                         "1e", "1e+", ".", "-.", "+-1", "1.2.3", "e5",
                                         "1e5x", " 7", "9007199254740993",
                                         "9007199254740992", "123456789012345678901",
                                         "1e22", "1e23", "1e-22", "1e-23", "4.9e-324",
                                         "1.7976931348623157e308", "00000000000000000000001.5" };
    if (ck_rng_below(rng, 10) == 0)
        return (size_t)sprintf(buf, "%s", other[ck_rng_below(rng, sizeof other / sizeof *other)]);
    size_t n = 0;
    int s = (int)ck_rng_below(rng, 4);
    if (s == 0)
        buf[n++] = '-';
    else if (s == 1)
        buf[n++] = '+';
    for (uint64_t i = ck_rng_below(rng, 21); i > 0; i--)
        buf[n++] = (char)('0' + ck_rng_below(rng, 10));
    if (ck_rng_below(rng, 2)) {
        buf[n++] = '.';
        for (uint64_t i = ck_rng_below(rng, 21); i > 0; i--)
            buf[n++] = (char)('0' + ck_rng_below(rng, 10));
    }
    if (ck_rng_below(rng, 3) == 0)
        n += (size_t)sprintf(buf + n, "e%d", (int)ck_rng_below(rng, 81) - 40);
    buf[n] = '\0';
    return n;
}

START_TEST(test_rkey_float_vs_strtod)
{
    uint64_t rng = 0xF10A7 + (uint64_t)_i;
    char buf[128];
    for (size_t t = 0; t < ck_scaled(200000, 20000); t++) {
        size_t n = ck_float_text(&rng, buf);
        char *end;
        double want = strtod(buf, &end), got = 0;
        int want_ok = n > 0 && end == buf + n &&
                      !(buf[0] == '+' && (buf[1] == '-' || buf[1] == '+'));
        int ok = gfloat_parse(buf, 0, n, &got);
        ck_expect(ok == want_ok, "'%s': %s, strtod %s", buf, ok ? "a number" : "refused",
                  want_ok ? "a number" : "refused");
        ck_expect(!ok || memcmp(&got, &want, sizeof got) == 0 || (isnan(got) && isnan(want)),
                  "'%s': %.17g, strtod %.17g", buf, got, want);
    }
}
END_TEST

/* ---- words against comparisons ---------------------------------------------------------- */

/* A random line of three comma-separated fields: text (bytes 0, 1, 'a', 'b' and 255,
 * so that escapes and equal prefixes are common), an integer, a decimal number. */
static size_t ck_line(uint64_t *rng, char *buf)
{
    static const char text[] = { 0, 1, 'a', 'b', (char)0xFF };
    size_t n = 0;
    for (uint64_t i = ck_rng_below(rng, 14); i > 0; i--)
        buf[n++] = text[ck_rng_below(rng, sizeof text)];
    n += (size_t)sprintf(buf + n, ",%d,", (int)ck_rng_below(rng, 7) - 3);
    n += (size_t)sprintf(buf + n, "%d.%d", (int)ck_rng_below(rng, 5) - 2, (int)ck_rng_below(rng, 3));
    return n;
}

/* The sign of comparing a's and b's keys word by word, a depth at a time, until
 * they differ or one's key ends (the encodings are prefix-free: then both do). */
static int ck_words_cmp(const rkey_t *k, const char *a, size_t la, const char *b, size_t lb)
{
    for (size_t d = 0;; d++) {
        uint64_t wa, wb;
        int ma = rkey_word_at(k, a, la, d, &wa), mb = rkey_word_at(k, b, lb, d, &wb);
        if (wa != wb)
            return wa < wb ? -1 : 1;
        ck_expect(ma == mb, "equal words at depth %zu, one key going on", d);
        if (!ma)
            return 0;
    }
}

/* Settings for keys of comma-separated lines (-t, -s, --type=i64), no key yet. */
static void ck_csv_settings(settings_t *set)
{
    memset(set, 0, sizeof *set);
    set->type = KEY_I64;
    set->field_sep = ',';
    set->stable = 1;
}

START_TEST(test_rkey_words_order)
{
    uint64_t rng = 0x30BD + (uint64_t)_i;
    static settings_t set;
    ck_csv_settings(&set);
    set.nkeys = 1 + (int)ck_rng_below(&rng, 3);
    for (int i = 0; i < set.nkeys; i++) {
        int f = 1 + (int)ck_rng_below(&rng, 3);
        set.keys[i] = (keydef_t){ .sfield = f, .schar = 1, .efield = f,
                                  .reverse = (int)ck_rng_below(&rng, 2),
                                  .kind = f == 1 ? KD_TEXT : f == 2 ? KD_INT : KD_FLOAT };
    }
    rkey_t k;
    rkey_init(&k, &set);
    enum { LINES = 64 };
    char lines[LINES][64];
    size_t len[LINES];
    for (int i = 0; i < LINES; i++)
        len[i] = ck_line(&rng, lines[i]);
    for (int a = 0; a < LINES; a++) {
        uint64_t w0, wa;
        rkey_bad_t bad;
        ck_expect(rkey_word(&k, lines[a], len[a], &w0, &bad) == RKEY_OK, "line %d refused", a);
        rkey_word_at(&k, lines[a], len[a], 0, &wa);
        ck_expect(k.exact || w0 == wa, "depth 0 %016" PRIx64 ", rkey_word %016" PRIx64, wa, w0);
        for (int b = 0; b < LINES; b++) {
            int want = rkey_cmp(&k, lines[a], len[a], lines[b], len[b]);
            if (k.exact) {   /* the word is the key */
                uint64_t wb;
                rkey_word(&k, lines[b], len[b], &wb, &bad);
                want = (w0 > wb) - (w0 < wb);
                ck_expect(rkey_cmp(&k, lines[a], len[a], lines[b], len[b]) == 0,
                          "exact keys compared");
                continue;
            }
            int got = ck_words_cmp(&k, lines[a], len[a], lines[b], len[b]);
            ck_expect(got == want, "case %d, lines %d and %d: words %d, keys %d", _i, a, b,
                      got, want);
        }
    }
}
END_TEST

/* ---- words against the encoding ---------------------------------------------------- */

/* Appends byte c to the key being written, inverted where rev. */
static void ck_put(unsigned char *key, size_t *n, unsigned char c, int rev)
{
    key[(*n)++] = rev ? (unsigned char)~c : c;
}

/* The normalized key of line[0..len) for keys of whole comma-separated fields, every
 * field present: written from rkey.h's definition, not from rkey.c. */
static size_t ck_encode(const settings_t *set, const char *line, size_t len, unsigned char *key)
{
    size_t fb[16], fe[16], nf = 0, n = 0;
    fb[0] = 0;
    for (size_t p = 0; p <= len; p++) {
        if (p == len || line[p] == ',') {
            fe[nf++] = p;
            fb[nf] = p + 1;
        }
    }
    for (int i = 0; i < set->nkeys; i++) {
        const keydef_t *d = &set->keys[i];
        size_t b = fb[d->sfield - 1], e = fe[d->sfield - 1];
        if (d->kind == KD_TEXT) {
            for (size_t p = b; p < e; p++) {
                unsigned char c = (unsigned char)line[p];
                if (c <= 1) {
                    ck_put(key, &n, 1, d->reverse);
                    ck_put(key, &n, (unsigned char)(c + 1), d->reverse);
                } else {
                    ck_put(key, &n, c, d->reverse);
                }
            }
            ck_put(key, &n, 0, d->reverse);
            continue;
        }
        uint64_t u;
        char num[64];
        memcpy(num, line + b, e - b);
        num[e - b] = '\0';
        int width = 8;
        if (d->kind == KD_INT && set->type == KEY_I32) {   /* the sign flipped, 4 bytes */
            u = (uint32_t)strtol(num, NULL, 10) ^ (1u << 31);
            width = 4;
        } else if (d->kind == KD_INT) {
            u = (uint64_t)strtoll(num, NULL, 10) ^ (1ull << 63);
        } else {
            double v = strtod(num, NULL);
            memcpy(&u, &v, sizeof u);
            if (v != v)
                u = 0;                         /* NaN first */
            else if (v == 0)
                u = 1ull << 63;                /* -0 as 0 */
            else
                u = u >> 63 ? ~u : u | 1ull << 63;
        }
        for (int s = 8 * width - 8; s >= 0; s -= 8)
            ck_put(key, &n, (unsigned char)(u >> s), d->reverse);
    }
    return n;
}

/* Bytes [from, from + 8) of key[0..n) as a big-endian word, zeros past its end. */
static uint64_t ck_word_of(const unsigned char *key, size_t n, size_t from)
{
    uint64_t w = 0;
    for (size_t i = from; i < from + 8; i++)
        w = w << 8 | (i < n ? key[i] : 0);
    return w;
}

START_TEST(test_rkey_words_encoding)
{
    uint64_t rng = 0xE2C0 + (uint64_t)_i;
    static settings_t set;
    static const char text[] = { 0, 1, 'a', 'b', 'z', (char)0xFF };
    ck_csv_settings(&set);
    set.type = _i % 2 ? KEY_I32 : KEY_I64;   /* n keys of 4 bytes or 8 */
    /* fields: 1 to 3 text, 4 an integer, 5 a decimal number */
    set.nkeys = 1 + (int)ck_rng_below(&rng, 3);
    for (int i = 0; i < set.nkeys; i++) {
        int f = 1 + (int)ck_rng_below(&rng, 5);
        set.keys[i] = (keydef_t){ .sfield = f, .schar = 1, .efield = f,
                                  .reverse = (int)ck_rng_below(&rng, 2),
                                  .kind = f <= 3 ? KD_TEXT : f == 4 ? KD_INT : KD_FLOAT };
    }
    rkey_t k;
    rkey_init(&k, &set);
    int numbers = 0, width = 0;
    for (int i = 0; i < set.nkeys; i++) {
        numbers += set.keys[i].kind != KD_TEXT;
        width += set.keys[i].kind == KD_TEXT ? 0 : set.keys[i].kind == KD_INT && _i % 2 ? 4 : 8;
    }
    for (int t = 0; t < 200; t++) {
        char line[256];
        size_t len = 0;
        for (int f = 0; f < 3; f++) {   /* 0 to 20 bytes: shorter and longer than a word */
            size_t tl = ck_rng_below(&rng, 21);
            int escapes = (int)ck_rng_below(&rng, 2);   /* else letters alone */
            for (size_t i = 0; i < tl; i++)
                line[len++] = text[escapes ? ck_rng_below(&rng, sizeof text)
                                           : 2 + ck_rng_below(&rng, 3)];
            line[len++] = ',';
        }
        len += (size_t)sprintf(line + len, "%lld,%d.%03d",
                               (long long)(ck_rng_next(&rng) >>
                                           (ck_rng_below(&rng, 64) | (set.type == KEY_I32 ? 33 : 1))) *
                                   (ck_rng_below(&rng, 2) ? 1 : -1),
                               (int)ck_rng_below(&rng, 2001) - 1000, (int)ck_rng_below(&rng, 1000));
        unsigned char key[512];
        size_t n = ck_encode(&set, line, len, key);
        /* the word: the key itself where it is numbers of 8 bytes or fewer (exact),
         * else its first 8 bytes */
        int exact = numbers == set.nkeys && width <= 8;
        uint64_t want = ck_word_of(key, n, 0) >> (exact ? 8 * (8 - n) : 0), w1 = 0, w2 = 0;
        ck_assert(k.exact == exact);
        rkey_bad_t bad;
        ck_expect(rkey_word(&k, line, len, &w1, &bad) == RKEY_OK, "refused");
        rkey_line_t l;
        rkey_line_init(&l, line, len);
        for (size_t p = 0; p < len; p++)
            if (line[p] == ',')
                l.sep[l.nsep++] = p;
        l.end = 1;
        l.slack = 1;   /* line[] holds 16 bytes and more past the line, as the table's arena */
        ck_expect(rkey_word_line(&k, &l, &w2, &bad) == RKEY_OK, "refused, separators given");
        ck_expect(w1 == want && w2 == want,
                  "keys %d, line %d: word %016" PRIx64 ", with separators %016" PRIx64
                  ", encoded %016" PRIx64, set.nkeys, t, w1, w2, want);
        for (size_t d = 0; !k.exact && d * 8 <= n; d++) {
            uint64_t w;
            int more = rkey_word_at(&k, line, len, d, &w);
            ck_expect(w == ck_word_of(key, n, 8 * d) && more == (n > 8 * d + 8),
                      "depth %zu: %016" PRIx64 " (more %d), encoded %016" PRIx64
                      " of %zu bytes", d, w, more, ck_word_of(key, n, 8 * d), n);
        }
    }
}
END_TEST

/* Keys in fields 1 to 45 of lines of 0 to 44 separators, as -kF,F and -kF,Fn find
 * them: the field's bytes from a split of the line written here, past the
 * separators rkey.h keeps (RKEY_SEPS, 32) too. */
START_TEST(test_rkey_far_fields)
{
    uint64_t rng = 0xFA2 + (uint64_t)_i;
    static settings_t set;
    ck_csv_settings(&set);
    set.nkeys = 1;
    char line[512];
    size_t starts[64], ends[64];
    for (int t = 0; t < 200; t++) {
        int nf = 1 + (int)ck_rng_below(&rng, 45);
        size_t n = 0;
        for (int f = 0; f < nf; f++) {
            if (f)
                line[n++] = ',';
            starts[f] = n;
            n += (size_t)sprintf(line + n, "%d", (int)ck_rng_below(&rng, 2000) - 1000);
            ends[f] = n;
        }
        int f = 1 + (int)ck_rng_below(&rng, 46);
        for (int kind = 0; kind < 2; kind++) {
            set.keys[0] = (keydef_t){ .sfield = f, .schar = 1, .efield = f,
                                      .kind = kind ? KD_INT : KD_TEXT };
            rkey_t k;
            rkey_init(&k, &set);
            size_t b, e;
            rkey_span(&k, 0, line, n, &b, &e);
            size_t wb = f <= nf ? starts[f - 1] : n, we = f <= nf ? ends[f - 1] : n;
            ck_expect(b == wb && e == we, "field %d of %d: [%zu, %zu), not [%zu, %zu)", f, nf,
                      b, e, wb, we);
            if (!kind)
                continue;
            uint64_t w;
            rkey_bad_t bad;
            int rc = rkey_word(&k, line, n, &w, &bad);
            ck_expect(rc == (f <= nf ? RKEY_OK : RKEY_BAD), "field %d of %d: %s", f, nf,
                      rc == RKEY_OK ? "a number" : "refused");
            if (rc == RKEY_OK) {
                int64_t v = strtoll(line + starts[f - 1], NULL, 10);
                ck_expect(w == ((uint64_t)v ^ (1ull << 63)), "field %d: %016" PRIx64, f, w);
            }
        }
    }
}
END_TEST

Suite *make_rkey_suite(void)
{
    Suite *s = suite_create("rkey");
    TCase *tc = ck_tcase("float");
    tcase_add_loop_test(tc, test_rkey_float_vs_strtod, 0, 4);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    tc = ck_tcase("words");
    tcase_add_loop_test(tc, test_rkey_words_order, 0, (int)ck_scaled(400, 40));
    tcase_add_loop_test(tc, test_rkey_words_encoding, 0, (int)ck_scaled(300, 30));
    tcase_add_loop_test(tc, test_rkey_far_fields, 0, 8);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
