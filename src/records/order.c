/* SPDX-License-Identifier: MIT */
/* order.c: the order in which the records of a table are written (see order.h). */
#include <config.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "records/order.h"
#include "records/ties.h"
#include "sorter/sorter.h"

/* ---- records of equal words ------------------------------------------------------- */

/* Lines a and b of t as rkey.h takes them (text without its terminator). */
static void order_pair(const rtable_t *t, size_t a, size_t b, const char **pa, size_t *la,
                       const char **pb, size_t *lb)
{
    *pa = rtable_line(t, a, la);
    *pb = rtable_line(t, b, lb);
    if (!t->rsize) {
        (*la)--;
        (*lb)--;
    }
}

int rorder_tie(const rtable_t *t, size_t a, size_t b)
{
    if (t->rk.exact && !t->rk.last_resort)
        return 0;
    const char *pa, *pb;
    size_t la, lb;
    order_pair(t, a, b, &pa, &la, &pb, &lb);
    return rkey_order(&t->rk, pa, la, pb, lb);
}

/* 1 where lines a and b, of equal words, have keys that differ. */
static int order_keys_differ(const rtable_t *t, size_t a, size_t b)
{
    const char *pa, *pb;
    size_t la, lb;
    order_pair(t, a, b, &pa, &la, &pb, &lb);
    return rkey_cmp(&t->rk, pa, la, pb, lb) != 0;
}

/* The runs of equal keys in order[]: either line numbers, their keys in the table,
 * or packed words (bits > 0: key << bits | line), their keys in the words, which
 * saves a random read of the table a record. */
typedef struct {
    const rtable_t *t;
    uint64_t *order;
    size_t n;
    int bits;              /* 0: order[] holds lines; else packed words */
    uint64_t mask;         /* a word's line */
    int ties;              /* 1: runs of equal keys put in their order (ties.h) */
    int where;             /* 1: the records made where words, each share measured */
    size_t *cut;           /* nthreads + 1 positions, each the start of a run */
    uint64_t *bytes;       /* with where: each share's bytes */
    size_t shared_min;     /* runs this long are left for the whole pool */
    size_t (*longer)[3];   /* those: [start, end) and the share they are in */
    atomic_size_t nlonger;
    atomic_int failed;
} ties_job_t;

static inline uint64_t ties_key(const ties_job_t *j, size_t r)
{
    return j->bits ? j->order[r] >> j->bits : j->t->key[j->order[r]];
}

/* The end of the run of equal keys that holds r, by limit at most (the keys
 * ascend: a search; past limit, other threads' shares are moving). */
static size_t ties_run_end(const ties_job_t *j, size_t r, size_t limit)
{
    uint64_t v = ties_key(j, r);
    size_t a = r + 1, b = limit;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (ties_key(j, m) == v)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* order[a..b) made where words (with where; the lines' starts asked for ahead, as
 * emit.c does, up to order[ahead], the end of what the caller goes on to: a run is
 * often one record long) or lines (packed words); their bytes (where). */
static uint64_t order_lines_of(const ties_job_t *j, size_t a, size_t b, size_t ahead)
{
    /* The arrays in locals: stores into order[] could change the table's fields. */
    uint64_t *o = j->order, mask = j->mask, sum = 0;
    const uint64_t *start = j->t->start;
    if (j->where) {
        for (size_t r = a; r < b; r++) {
            if (r + 2 * RTABLE_AHEAD < ahead)
                __builtin_prefetch(&start[o[r + 2 * RTABLE_AHEAD] & mask]);
            size_t l = (size_t)(o[r] & mask), len = (size_t)(start[l + 1] - start[l]);
            o[r] = rtable_where_at(start[l], len);
            sum += len;
        }
    } else if (j->bits) {
        for (size_t r = a; r < b; r++)
            o[r] &= mask;
    }
    return sum;
}

/* Thread i's share, settled in one pass: its runs of equal keys each put in order
 * (ties; a run of shared_min or more is left for the pool), packed words made their
 * lines, and those made where words (where), the share's bytes summed: the passes
 * that emit.c's measure and an unpacking would make, saved. */
static void order_settle_part(void *arg, int i, int n)
{
    (void)n;
    ties_job_t *j = arg;
    size_t a = j->cut[i], end = j->cut[i + 1];
    rties_t c = { .t = j->t, .mask = j->mask };
    rties_mem_t mem = { 0 };
    uint64_t sum = 0;
    while (a < end) {
        size_t b = a + 1;
        if (j->ties) {
            uint64_t k = ties_key(j, a);
            while (b < end && b - a < j->shared_min && ties_key(j, b) == k)
                b++;
            if (!j->bits && b + 2 * RTABLE_AHEAD < end)   /* the keys ahead asked for */
                __builtin_prefetch(&j->t->key[j->order[b + 2 * RTABLE_AHEAD]]);
            if (b - a >= j->shared_min && b < end && ties_key(j, b) == k) {
                b = ties_run_end(j, a, end);   /* the pool's, later */
                size_t at = atomic_fetch_add(&j->nlonger, 1);
                j->longer[at][0] = a;
                j->longer[at][1] = b;
                j->longer[at][2] = (size_t)i;
                a = b;
                continue;
            }
            if (b - a > 1 && rties_settle(&c, &mem, j->order + a, b - a) != GS_OK)
                atomic_store(&j->failed, 1);
        }
        sum += order_lines_of(j, a, b, end);
        a = b;
    }
    rties_mem_free(&mem);
    if (j->where)
        j->bytes[i] += sum;
}

/* A long run's lines made (order_lines_of), by the pool's threads. */
typedef struct {
    const ties_job_t *j;
    size_t a, b;
    uint64_t *sum;
} lines_job_t;

static void order_lines_part(void *arg, int i, int nt)
{
    lines_job_t *l = arg;
    size_t lo, hi;
    pool_share(l->b - l->a, i, nt, &lo, &hi);
    l->sum[i] = order_lines_of(l->j, l->a + lo, l->a + hi, l->a + hi);
}

/* Even shares of where words measured again (the runs settled by the whole pool
 * made their shares' owners' far longer). */
static void order_measure_part(void *arg, int i, int nt)
{
    ties_job_t *j = arg;
    (void)nt;
    uint64_t sum = 0;
    size_t len;
    for (size_t r = j->cut[i]; r < j->cut[i + 1]; r++) {
        rtable_record(j->t, j->order, 1, r, &len);
        sum += len;
    }
    j->bytes[i] = sum;
}

/* The runs left for the pool settled by it, their lines made. */
static int order_settle_longer(pool_t *pool, ties_job_t *j)
{
    int nt = pool_size(pool);
    uint64_t *sum = calloc((size_t)nt, sizeof *sum);
    if (!sum)
        return err_set(GS_ENOMEM, "out of memory");
    rties_t c = { .t = j->t, .mask = j->mask };
    int rc = GS_OK;
    for (size_t k = 0; k < j->nlonger && rc == GS_OK; k++) {
        lines_job_t l = { .j = j, .a = j->longer[k][0], .b = j->longer[k][1], .sum = sum };
        rc = rties_settle_shared(&c, pool, j->order + l.a, l.b - l.a, j->n);
        if (rc)
            break;
        pool_run(pool, order_lines_part, &l);
        for (int i = 0; i < nt && j->where; i++)
            j->bytes[j->longer[k][2]] += sum[i];
    }
    free(sum);
    return rc;
}

/* Settle order[0..n) (ties_job_t's steps that j asks for) by the pool's threads,
 * each a share that starts at a run of equal keys; with where, the shares are
 * handed to *sh. */
static int order_settle(pool_t *pool, ties_job_t *j, rorder_shares_t *sh)
{
    int nt = pool_size(pool);
    size_t n = j->n;
    int parallel = nt > 1 && n >= ORDER_PARALLEL_MIN;
    j->mask = j->bits == 0 || j->bits == 64 ? ~0ull : (1ull << j->bits) - 1;
    j->shared_min = parallel ? rties_shared_min(pool, n) : SIZE_MAX;
    j->cut = malloc(sizeof(size_t) * ((size_t)nt + 1));
    j->bytes = j->where ? calloc((size_t)nt, sizeof(uint64_t)) : NULL;
    j->longer = parallel && j->ties ? malloc(sizeof *j->longer * (n / j->shared_min + 1)) : NULL;
    atomic_init(&j->nlonger, 0);
    atomic_init(&j->failed, 0);
    if (!j->cut || (j->where && !j->bytes) || (parallel && j->ties && !j->longer)) {
        free(j->cut);
        free(j->bytes);
        free(j->longer);
        return err_set(GS_ENOMEM, "out of memory");
    }
    /* Even shares, each start moved forward to the start of a run of equal keys. */
    j->cut[0] = 0;
    for (int i = 1; i <= nt; i++) {
        size_t c = i == nt ? n : n * (size_t)i / (size_t)nt;
        if (c < j->cut[i - 1])
            c = j->cut[i - 1];
        if (j->ties && c > 0 && c < n && ties_key(j, c) == ties_key(j, c - 1))
            c = ties_run_end(j, c, n);
        j->cut[i] = c;
    }
    if (parallel)
        pool_run(pool, order_settle_part, j);
    else
        for (int i = 0; i < nt; i++)
            order_settle_part(j, i, nt);
    int rc = atomic_load(&j->failed) ? err_set(GS_ENOMEM, "out of memory") : GS_OK;
    if (rc == GS_OK && j->nlonger) {
        rc = order_settle_longer(pool, j);
        if (rc == GS_OK && j->where) {
            for (int i = 0; i <= nt; i++)
                j->cut[i] = n * (size_t)i / (size_t)nt;
            pool_run(pool, order_measure_part, j);
        }
    }
    free(j->longer);
    if (j->where && rc == GS_OK) {
        sh->n = nt;
        sh->cut = j->cut;
        sh->bytes = j->bytes;
    } else {
        free(j->cut);
        free(j->bytes);
    }
    return rc;
}

/* -u: the first record of each run of equal keys (the line numbers ascend within
 * a run, as do packed words). Where words are not whole keys (full), order[] holds
 * lines whose runs of equal words are in key order already, and records of equal
 * words are compared. The new count. */
static size_t order_unique(const rtable_t *t, uint64_t *order, size_t n, int bits, int full)
{
    ties_job_t j = { .t = t, .order = order, .bits = bits };
    size_t m = 0;
    for (size_t r = 0; r < n; r++)
        if (m == 0 || ties_key(&j, r) != ties_key(&j, m - 1) ||
            (full && order_keys_differ(t, (size_t)order[m - 1], (size_t)order[r])))
            order[m++] = order[r];
    return m;
}

/* Equal words' records in the order the options ask for: their keys compared in
 * full where words are not whole keys; then -u keeps the first of each run of equal
 * keys, -s and binary records keep input order, else sort's last resort (the whole
 * lines, bytewise); and packed words (bits > 0) made their lines, or, where sh asks
 * and the table allows, where words with the shares' bytes. *n the new count. */
static int order_equal_keys(const rtable_t *t, pool_t *pool, uint64_t *order, size_t *n,
                            int bits, rorder_shares_t *sh, size_t *shared)
{
    int full = !t->rk.exact, unique = t->set->unique;
    if (unique && !full)
        *n = order_unique(t, order, *n, bits, 0);
    ties_job_t j = { .t = t, .order = order, .n = *n, .bits = bits,
                     .ties = full || t->rk.last_resort,
                     .where = sh && rtable_can_where(t) && !(unique && full) };
    if (!j.ties && !j.where && bits == 0)
        return GS_OK;   /* lines already, in their order */
    int rc = order_settle(pool, &j, j.where ? sh : NULL);
    *shared = j.nlonger;
    if (rc || !(unique && full))
        return rc;
    /* -u of keys compared in full: the runs in key order first, then the firsts. */
    *n = order_unique(t, order, *n, 0, 1);
    ties_job_t w = { .t = t, .order = order, .n = *n, .where = sh && rtable_can_where(t) };
    return w.where ? order_settle(pool, &w, sh) : GS_OK;
}

/* ---- keys with their line numbers ---------------------------------------------------- */

/* What each thread does to its share of order[] (pack_job_t.step). */
enum { PACK_LINES, PACK_WORDS, PACK_LINE_WORDS };

typedef struct {
    const rtable_t *t;
    uint64_t *order;
    size_t n;
    int step, bits;
} pack_job_t;

static void order_pack_part(void *arg, int i, int nt)
{
    pack_job_t *j = arg;
    size_t lo, hi;
    pool_share(j->n, i, nt, &lo, &hi);
    uint64_t *o = j->order, kmin = j->t->kmin;
    const uint64_t *key = j->t->key;
    if (j->step == PACK_LINES)
        for (size_t k = lo; k < hi; k++)
            o[k] = k;
    else if (j->step == PACK_WORDS)
        for (size_t k = lo; k < hi; k++)
            o[k] = (key[o[k]] - kmin) << j->bits | o[k];
    else   /* PACK_LINE_WORDS: the two above in one pass */
        for (size_t k = lo; k < hi; k++)
            o[k] = (key[k] - kmin) << j->bits | k;
}

/* One step over order[0..n), shared by the pool's threads where n is large. */
static void order_pack_step(pool_t *pool, pack_job_t *j, int step)
{
    j->step = step;
    if (j->n >= ORDER_PARALLEL_MIN && pool_size(pool) > 1)
        pool_run(pool, order_pack_part, j);
    else
        order_pack_part(j, 0, 1);
}

/* The records' lines in input order (the headers left out) into order[0..nrec). */
static void order_lines(const rtable_t *t, pool_t *pool, uint64_t *order)
{
    if (t->nrec == t->n) {   /* no header: every line */
        pack_job_t j = { .t = t, .order = order, .n = t->n };
        order_pack_step(pool, &j, PACK_LINES);
        return;
    }
    size_t j = 0;
    for (size_t l = 0; l < t->n; l++)
        if (!rtable_is_header(t, l))
            order[j++] = l;
}

/* The records (*orderp: room for them, tmp: as much scratch) sorted as one word
 * each: (key - kmin) << bits | line, by the chunk sorter (a GPU's where the run has
 * one, and the words fit it at once; else the CPU's). *orderp may move to the
 * scratch the result is in. */
static int order_packed(const rtable_t *t, pool_t *pool, sorter_t *sorter, uint64_t **orderp,
                        uint64_t *tmp, int bits)
{
    uint64_t *order = *orderp;
    size_t n = t->nrec;
    pack_job_t pj = { .t = t, .order = order, .n = n, .bits = bits };
    if (t->nrec == t->n) {   /* no header: every line, made a word at once */
        order_pack_step(pool, &pj, PACK_LINE_WORDS);
    } else {
        order_lines(t, pool, order);
        order_pack_step(pool, &pj, PACK_WORDS);
    }
    uint64_t *res = NULL;
    const sorter_caps_t *caps = sorter ? sorter_caps(sorter) : NULL;
    if (caps && (caps->max_keys == 0 || n <= caps->max_keys)) {
        sort_job_t job = { .keys = order, .scratch = tmp, .n = n, .width = 8 };
        int rc = caps->grow_at && n > caps->grow_at ? sorter_grow(sorter, n) : GS_OK;
        if (rc == GS_OK)
            rc = sorter_sort(sorter, &job);
        if (rc)
            return rc;
        res = sort_job_result(&job);
    } else {
        /* The words are in line order: sorted stably on their keys alone, they come
         * out as sorted on the whole words, with no passes over the lines' bits. */
        if (!(res = radix_sort_cpu_from(pool, order, tmp, n, 8, bits)))
            return err_set(GS_ENOMEM, "out of memory");
    }
    *orderp = res;   /* the order, or the scratch where the result is */
    return GS_OK;
}

/* The pairs sorted by the chunk sorter where it takes them (a GPU's): the keys in
 * order[]'s order (the table's own where order[] is every line), their indices
 * sorted, and order[] permuted by them into new memory, then copied back. *done 0
 * where it does not take them. */
typedef struct {
    const uint64_t *order;   /* order[] before; NULL: every line, order[r] is r */
    const uint32_t *perm;
    uint64_t *dst;
    const uint64_t *key;
    size_t n;
} index_job_t;

static void index_gather(void *arg, int i, int nt)
{
    index_job_t *j = arg;
    size_t lo, hi;
    pool_share(j->n, i, nt, &lo, &hi);
    for (size_t r = lo; r < hi; r++)
        j->dst[r] = j->key[j->order[r]];
}

static void index_permute(void *arg, int i, int nt)
{
    index_job_t *j = arg;
    size_t lo, hi;
    pool_share(j->n, i, nt, &lo, &hi);
    if (j->order)
        for (size_t r = lo; r < hi; r++)
            j->dst[r] = j->order[j->perm[r]];
    else
        for (size_t r = lo; r < hi; r++)
            j->dst[r] = j->perm[r];
}

static void order_run(pool_t *pool, size_t n, void (*fn)(void *, int, int), void *arg)
{
    if (n >= ORDER_PARALLEL_MIN && pool_size(pool) > 1)
        pool_run(pool, fn, arg);
    else
        fn(arg, 0, 1);
}

static int order_pairs_sorter(const rtable_t *t, pool_t *pool, sorter_t *sorter,
                              uint64_t *order, int *done)
{
    size_t n = t->nrec;
    int headers = n != t->n;   /* the records' keys gathered, and order[] permuted aside */
    *done = 0;
    uint32_t *perm = mem_alloc(sizeof *perm * n);
    uint64_t *tmp = headers ? mem_alloc(sizeof *tmp * n) : NULL;
    if (!perm || (headers && !tmp)) {
        free(perm);
        free(tmp);
        return err_set(GS_ENOMEM, "out of memory");
    }
    /* Every line a record: the sorted indices are the order, widened in place. */
    index_job_t j = { .order = headers ? order : NULL, .key = t->key,
                      .dst = headers ? tmp : order, .n = n };
    const uint64_t *keys = t->key;
    if (headers) {
        order_run(pool, n, index_gather, &j);
        keys = tmp;
    }
    int rc = sorter_sort_index(sorter, keys, perm, n, done);
    if (rc == GS_OK && *done) {
        j.perm = perm;
        order_run(pool, n, index_permute, &j);
        if (headers)
            mem_copy(pool, order, tmp, sizeof *order * n);
    }
    free(perm);
    free(tmp);
    return rc;
}

/* Sort the lines by key as pairs (key, line), stably (radix_sort_cpu_pairs), by the
 * chunk sorter where it takes them, else by the pool: for keys whose range leaves
 * no room for the line numbers in one word. */
static int order_pairs(const rtable_t *t, pool_t *pool, sorter_t *sorter, uint64_t *order)
{
    size_t n = t->nrec;
    int done = 0;
    int rc = sorter && n <= UINT32_MAX ? order_pairs_sorter(t, pool, sorter, order, &done)
                                       : GS_OK;
    if (rc || done)
        return rc;
    uint64_t *block = mem_alloc(sizeof *block * n * 3);
    if (!block)
        return err_set(GS_ENOMEM, "out of memory");
    index_job_t j = { .order = order, .key = t->key, .dst = block, .n = n };
    order_run(pool, n, index_gather, &j);
    void *res = radix_sort_cpu_pairs(pool, block, order, block + n, block + 2 * n, n, 8, 0);
    if (res == block + n)
        mem_copy(pool, order, block + 2 * n, sizeof *order * n);
    free(block);
    return res ? GS_OK : err_set(GS_ENOMEM, "out of memory");
}

void rorder_shares_free(rorder_shares_t *sh)
{
    free(sh->cut);
    free(sh->bytes);
    *sh = (rorder_shares_t){ 0 };
}

/* Room in mem for n words in a, and in b too where both: GS_OK or GS_ENOMEM. An
 * array too small is made anew an eighth larger than asked, where it had room
 * before (a later chunk with more records than the first). */
static int order_room(rorder_mem_t *mem, size_t n, int both)
{
    if (n > mem->cap) {
        size_t cap = mem->cap ? n + n / 8 : n;
        free(mem->a);
        free(mem->b);
        *mem = (rorder_mem_t){ .a = mem_alloc(sizeof *mem->a * cap), .cap = cap };
        if (!mem->a) {
            mem->cap = 0;
            return err_set(GS_ENOMEM, "out of memory");
        }
    }
    if (both && !mem->b && !(mem->b = mem_alloc(sizeof *mem->b * mem->cap)))
        return err_set(GS_ENOMEM, "out of memory");
    return GS_OK;
}

int rorder_sort(const rtable_t *t, pool_t *pool, sorter_t *words, sorter_t *pairs,
                rorder_mem_t *mem, uint64_t **out, size_t *nout, rorder_shares_t *sh)
{
    if (sh)
        *sh = (rorder_shares_t){ 0 };
    size_t n = t->nrec;
    double t0 = stats_now();
    int bits = t->n > 1 ? 64 - __builtin_clzll((unsigned long long)(t->n - 1)) : 1;
    uint64_t range = t->kmax - t->kmin;
    int kbits = range ? 64 - __builtin_clzll(range) : 0;
    int packed = n >= 2 && kbits + bits <= 64;   /* equal keys settled on the words */
    int rc = order_room(mem, n ? n : 1, packed);
    uint64_t *order = mem->a;
    if (rc == GS_OK && packed) {
        rc = order_packed(t, pool, words, &order, mem->b, bits);
    } else if (rc == GS_OK) {
        order_lines(t, pool, order);
        bits = 0;
        if (n >= 2)
            rc = order_pairs(t, pool, pairs, order);
    }
    double t1 = stats_now();
    size_t shared = 0;
    if (rc == GS_OK && (packed || n >= 2))
        rc = order_equal_keys(t, pool, order, &n, bits, sh, &shared);
    double t2 = stats_now();
    stats_add(ST_SORT, t->nrec * sizeof(uint64_t), t2 - t0);   /* a key a record */
    stats_note_records_order(t1 - t0, t2 - t1, shared);
    if (rc)
        return rc;
    *out = order;
    *nout = n;
    return GS_OK;
}

void rorder_mem_keep(rorder_mem_t *mem, const uint64_t *order)
{
    mem->cap = 0;   /* a sort after this makes both anew */
    if (mem->a != order) {
        free(mem->a);
        mem->a = NULL;
    }
    if (mem->b != order) {
        free(mem->b);
        mem->b = NULL;
    }
}

void rorder_mem_free(rorder_mem_t *mem)
{
    free(mem->a);
    free(mem->b);
    *mem = (rorder_mem_t){ 0 };
}
