/* SPDX-License-Identifier: MIT */
/* check_rmerge.c: records/rmerge.c, the one merge of records' runs, over a kind of
 * source of the test's own (sorted runs of lines in memory, rmerge.h's cursor
 * interface), into a file through io/output: against the lines ordered here,
 * every record of every run sorted by its word, then rkey_order(), then its run,
 * then its place in the run (-u: the first of each group of equal keys), for 1 to
 * 6 runs (some empty), the words cut into pieces at random splitters, by 1 to 3
 * threads, each plan (in order, measured by seeks, counted), small buffers (each
 * piece written in several goes, a thread waiting for its turn), with and without
 * -u and -s; by one thread, the same merge again through rmerge_write_to() (a
 * merge pass's way), whole records each call. The lines have few distinct keys, text and a number, whose first 8
 * bytes often tie: equal words of unequal keys, equal keys in several runs.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>

#include "check_suites.h"
#include "core/error.h"
#include "core/pool.h"
#include "core/settings.h"
#include "io/output.h"
#include "records/rkey.h"
#include "records/rmerge.h"

static char tdir[256];

static void tdir_setup(void)
{
    ck_tdir_make(tdir, sizeof tdir, "rmerge");
}

static void tdir_teardown(void)
{
    ck_remove_tree(tdir);
}

/* A record of a run: its line (terminator included) and its word. */
typedef struct {
    const char *p;
    size_t len;
    uint64_t word;
    size_t run, at;   /* its run and its place in the run's input */
} ck_rec_t;

/* The runs: run j is recs[first[j] .. first[j + 1]), in order. */
typedef struct {
    ck_rec_t *recs;
    size_t *first;
    uint64_t *size;   /* each run's bytes */
    size_t nrun;
} ck_runs_t;

static const rkey_t *ck_rk;   /* the order of qsort's comparisons */

/* Word, keys (with sort's last resort where rk has it), run, place. */
static int ck_rec_cmp(const void *x, const void *y)
{
    const ck_rec_t *a = x, *b = y;
    if (a->word != b->word)
        return a->word < b->word ? -1 : 1;
    int c = rkey_order(ck_rk, a->p, a->len - 1, b->p, b->len - 1);
    if (c)
        return c;
    if (a->run != b->run)
        return a->run < b->run ? -1 : 1;
    return (a->at > b->at) - (a->at < b->at);
}

/* The test's source: a run's record at hand. */
typedef struct {
    rcur_t c;
    size_t i, end;
} ck_cur_t;

static void ck_read(const ck_runs_t *r, ck_cur_t *c)
{
    if (c->i >= c->end) {
        c->c.rec = NULL;
        c->c.key = UINT64_MAX;
        return;
    }
    const ck_rec_t *e = &r->recs[c->i];
    c->c.rec = e->p;
    c->c.len = e->len;
    c->c.end = e->p + e->len;
    c->c.key = e->word;
}

static int ck_seek(void *ctx, void *own, rcur_t *cur, size_t j, uint64_t lo, int has_lo,
                   uint64_t *at)
{
    (void)own;
    const ck_runs_t *r = ctx;
    ck_cur_t *c = (ck_cur_t *)cur;
    size_t i = r->first[j];
    while (has_lo && i < r->first[j + 1] && r->recs[i].word < lo)   /* a walk: no search */
        i++;
    c->i = i;
    c->end = r->first[j + 1];
    if (at) {
        uint64_t b = 0;
        for (size_t k = r->first[j]; k < i; k++)
            b += r->recs[k].len;
        *at = b;
    }
    ck_read(r, c);
    return GS_OK;
}

static int ck_advance(void *ctx, void *own, rcur_t *cur)
{
    (void)own;
    ck_cur_t *c = (ck_cur_t *)cur;
    c->i++;
    ck_read(ctx, c);
    return GS_OK;
}

static const rmerge_src_t ck_source = {
    .cur_size = sizeof(ck_cur_t),
    .seek = ck_seek,
    .advance = ck_advance,
};

/* rmerge_write_to()'s callback: the bytes appended to a buffer, each call's ending
 * with a record's terminator (whole records). */
typedef struct {
    char *buf;
    size_t len, cap;
    int split;   /* 1: a call's bytes ended inside a record */
} ck_sink_t;

static int ck_put_bytes_cb(void *ctx, const void *buf, size_t len)
{
    ck_sink_t *k = ctx;
    const char *bytes = buf;
    if (k->len + len > k->cap) {
        k->cap = (k->len + len) * 2;
        k->buf = realloc(k->buf, k->cap);
        if (!k->buf)
            return err_set(GS_ENOMEM, "out of memory");
    }
    memcpy(k->buf + k->len, bytes, len);
    k->len += len;
    k->split |= len > 0 && bytes[len - 1] != '\n';
    return GS_OK;
}

/* A line "TEXT,N,RUN.AT\n": TEXT 0 to 11 of 'a' and 'b' (its first 8 bytes often
 * those of another's), N from -2 to 2 (the keys); then, in no key, where the line
 * comes from, so that the order of equal keys shows in the bytes. */
static size_t ck_line(uint64_t *rng, char *buf, size_t run, size_t at)
{
    size_t n = 0;
    for (uint64_t i = ck_rng_below(rng, 12); i > 0; i--)
        buf[n++] = "ab"[ck_rng_below(rng, 2)];
    n += (size_t)sprintf(buf + n, ",%d,%zu.%zu\n", (int)ck_rng_below(rng, 5) - 2, run, at);
    return n;
}

/* _i: bits 0-1 the plan (in order, measured, counted; measured is refused under
 * -u, so -u counts there), bit 2 -u, bit 3 -s, the rest the seed and sizes. */
START_TEST(test_rmerge_vs_sorted)
{
    uint64_t rng = 0x3E26E + (uint64_t)_i;
    int how = _i % 3, unique = _i >> 2 & 1, stable = _i >> 3 & 1;
    if (unique && how == RMERGE_MEASURE)
        how = RMERGE_COUNT;
    static settings_t set;
    memset(&set, 0, sizeof set);
    set.type = KEY_I64;
    set.field_sep = ',';
    set.stable = stable;
    set.unique = unique;
    set.nkeys = 2;
    set.keys[0] = (keydef_t){ .sfield = 1, .schar = 1, .efield = 1, .kind = KD_TEXT };
    set.keys[1] = (keydef_t){ .sfield = 2, .schar = 1, .efield = 2, .kind = KD_INT,
                              .reverse = (int)ck_rng_below(&rng, 2) };
    rkey_t rk;
    rkey_init(&rk, &set);
    ck_rk = &rk;

    /* The runs: each line generated, the run sorted; under -u each run holds the
     * first of its equal keys alone, as a spilled run of -u does. */
    size_t nrun = 1 + ck_rng_below(&rng, 6), total = 0, cap = 16;
    ck_runs_t r = { .recs = malloc(cap * sizeof *r.recs),   /* never NULL, for libc's sake */
                    .first = calloc(nrun + 1, sizeof(size_t)),
                    .size = calloc(nrun, sizeof(uint64_t)), .nrun = nrun };
    char *text = malloc(nrun * 400 * 32);
    size_t tlen = 0;
    ck_assert(r.recs && r.first && r.size && text);
    for (size_t j = 0; j < nrun; j++) {
        size_t m = ck_rng_below(&rng, 6) == 0 ? 0 : ck_rng_below(&rng, 400);
        if (total + m > cap) {
            cap = (total + m) * 2;
            r.recs = realloc(r.recs, cap * sizeof *r.recs);
            ck_assert(r.recs);
        }
        r.first[j] = total;
        for (size_t i = 0; i < m; i++) {
            ck_rec_t *e = &r.recs[total + i];
            e->p = text + tlen;
            e->len = ck_line(&rng, text + tlen, j, i);
            tlen += e->len;
            rkey_bad_t bad;
            ck_assert(rkey_word(&rk, e->p, e->len - 1, &e->word, &bad) == RKEY_OK);
            e->run = j;
            e->at = i;
        }
        qsort(r.recs + total, m, sizeof *r.recs, ck_rec_cmp);
        size_t kept = m;
        if (unique) {
            kept = 0;
            for (size_t i = 0; i < m; i++) {
                const ck_rec_t *e = &r.recs[total + i], *last = &r.recs[total + kept - 1];
                if (kept && e->word == last->word &&
                    rkey_cmp(&rk, e->p, e->len - 1, last->p, last->len - 1) == 0)
                    continue;
                r.recs[total + kept++] = *e;
            }
        }
        for (size_t i = 0; i < kept; i++)
            r.size[j] += r.recs[total + i].len;
        total += kept;
    }
    r.first[nrun] = total;

    /* What the merge must write: every record ordered here, -u the first of equal
     * keys (the lowest run's). */
    ck_rec_t *all = malloc((total ? total : 1) * sizeof *all);
    char *want = malloc(tlen + 1);
    ck_assert(all && want);
    memcpy(all, r.recs, total * sizeof *all);
    qsort(all, total, sizeof *all, ck_rec_cmp);
    size_t wlen = 0;
    const ck_rec_t *last = NULL;
    for (size_t i = 0; i < total; i++) {
        if (unique && last && all[i].word == last->word &&
            rkey_cmp(&rk, all[i].p, all[i].len - 1, last->p, last->len - 1) == 0)
            continue;
        memcpy(want + wlen, all[i].p, all[i].len);
        wlen += all[i].len;
        last = &all[i];
    }

    /* Pieces cut at 0 to 47 words of the records, increasing: more pieces than the
     * threads' stretches (nthreads x MERGE_PIECES), so that laid out a thread
     * merges several as one range. */
    uint64_t split[48];
    size_t nsplit = 0;
    for (uint64_t k = total ? ck_rng_below(&rng, 48) : 0; k > 0; k--) {
        uint64_t w = all[ck_rng_below(&rng, total)].word;
        size_t at = 0;
        while (at < nsplit && split[at] < w)
            at++;
        if (at < nsplit && split[at] == w)
            continue;
        memmove(split + at + 1, split + at, (nsplit - at) * sizeof *split);
        split[at] = w;
        nsplit++;
    }

    int threads = 1 + (int)ck_rng_below(&rng, 3);
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, threads), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/out-%d", tdir, _i);
    keymap_t km;
    key_map_init(&km, KEY_I64, 0);
    output_cfg_t ocfg = { .path = path, .km = &km, .pool = pool };
    output_t *out = NULL;
    ck_assert_int_eq(output_open(&out, &ocfg), GS_OK);
    rmerge_cfg_t cfg = { .src = &ck_source, .ctx = &r, .nsrc = nrun, .size = r.size,
                         .rk = &rk, .unique = unique, .text = 1, .split = split,
                         .npieces = nsplit + 1, .pool = pool, .nthreads = threads,
                         .outcap = 64 + ck_rng_below(&rng, 256) };
    rmerge_t *m = NULL;
    uint64_t bytes = 0;
    ck_assert_int_eq(rmerge_plan(&cfg, how, &m, &bytes), GS_OK);
    ck_expect(how == RMERGE_IN_ORDER || bytes == wlen, "planned %llu bytes, %zu to come",
              (unsigned long long)bytes, wlen);
    ck_assert_int_eq(rmerge_write(m, out, NULL, 0), GS_OK);
    ck_assert_int_eq(output_commit(out), GS_OK);
    /* The same merge handed to a callback (a merge pass's way), by one thread. */
    if (threads == 1) {
        ck_sink_t k = { 0 };
        ck_assert_int_eq(rmerge_write_to(m, ck_put_bytes_cb, &k), GS_OK);
        ck_expect(k.len == wlen && (wlen == 0 || memcmp(k.buf, want, wlen) == 0) && !k.split,
                  "case %d: rmerge_write_to: %zu bytes%s, %zu wanted", _i, k.len,
                  k.split ? " (a record in parts)" : "", wlen);
        free(k.buf);
    }
    rmerge_free(m);

    FILE *f = fopen(path, "rb");
    ck_assert(f);
    char *got = malloc(wlen + 2);
    ck_assert(got);
    size_t glen = fread(got, 1, wlen + 1, f);
    fclose(f);
    size_t d = 0;
    while (d < glen && d < wlen && got[d] == want[d])
        d++;
    ck_expect(glen == wlen && d == wlen,
              "case %d (plan %d, -u %d, -s %d, %zu runs, %zu pieces, %d threads): %zu bytes "
              "written, %zu wanted, the first difference at %zu",
              _i, how, unique, stable, nrun, nsplit + 1, threads, glen, wlen, d);
    remove(path);
    free(got);
    pool_destroy(pool);
    free(all);
    free(want);
    free(text);
    free(r.recs);
    free(r.first);
    free(r.size);
}
END_TEST

Suite *make_rmerge_suite(void)
{
    Suite *s = suite_create("rmerge");
    TCase *tc = ck_tcase("merge");
    tcase_add_unchecked_fixture(tc, tdir_setup, tdir_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_rmerge_vs_sorted, 0, (int)ck_scaled(160, 32));
    suite_add_tcase(s, tc);
    return s;
}
