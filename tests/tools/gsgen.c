/* SPDX-License-Identifier: MIT */
/* gsgen.c: a fast, seeded generator of integer test data for gpusort.
 *
 * Standalone on purpose: it shares no code with gpusort, so the tests, the sample
 * and the benchmarks compare gpusort against data made independently. Output is
 * text (one canonical number per line) or raw fixed-width keys (-b). The same
 * arguments always give the same bytes (splitmix64, seeded by -s), and -d sorted
 * (or reversed) gives exactly the keys of -d random in order: with its own radix
 * sort, an independent oracle for inputs too big to check with sort(1) quickly.
 * --sum prints "COUNT SUM" of what would be written instead of the data (SUM: the
 * keys' values as 64-bit two's complement, added mod 2^64, as tests/tools/gscheck prints
 * them), and --distinct the same over the distinct keys: oracles for big binary
 * sorts, with and without -u.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------ */
/* Options                                                                         */
/* ------------------------------------------------------------------------------ */

typedef enum { T_I32, T_U32, T_I64, T_U64 } gtype_t;
typedef enum { D_RANDOM, D_SORTED, D_REVERSED, D_EQUAL, D_FEW } gdist_t;

typedef struct {
    uint64_t n;          /* -n: keys to write; default 1000000 */
    gtype_t type;        /* -t: default i64 */
    uint64_t seed;       /* -s: default 1 */
    gdist_t dist;        /* -d: default random */
    const char *min;     /* --min: NULL for the type's minimum */
    const char *max;     /* --max: NULL for the type's maximum */
    int binary;          /* -b: raw keys instead of text */
    int big_endian;      /* --endian=big; default little */
    int sum;             /* --sum: print COUNT SUM instead of the keys */
    int distinct;        /* --distinct: COUNT SUM of the distinct keys */
} gopts_t;

/* Everything about a type that generation needs. Values live in "ordered" space:
 * the raw two's complement bits with the sign bit flipped for signed types, so that
 * unsigned comparison of ordered values is the type's own order. */
typedef struct {
    int width;           /* bytes per key: 4 or 8 */
    int is_signed;
    uint64_t sign_flip;  /* XOR between raw bits and ordered value */
    uint64_t all;        /* the largest ordered value: 2^(8*width) - 1 */
} tinfo_t;

static const char *prog = "gsgen";

static void die(const char *msg, const char *arg)
{
    if (arg)
        fprintf(stderr, "%s: %s: '%s'\n", prog, msg, arg);
    else
        fprintf(stderr, "%s: %s\n", prog, msg);
    exit(1);
}

static void usage(FILE *f)
{
    fputs("Usage: gsgen [-n COUNT] [-t i32|u32|i64|u64] [-s SEED]\n"
          "             [-d random|sorted|reversed|equal|few] [--min=V] [--max=V]\n"
          "             [-b] [--endian=little|big] [--sum | --distinct]\n"
          "Write COUNT seeded pseudo-random integers (default 1000000, i64, seed 1,\n"
          "uniform over [min, max], by default the type's whole range): as text, one\n"
          "canonical number per line, or with -b as raw fixed-width keys.\n"
          "  sorted, reversed: the keys that random gives for the same arguments, in\n"
          "  order (an oracle for big tests); equal: one value COUNT times;\n"
          "  few: every value is one of 5 distinct values drawn at random.\n"
          "  --sum: print \"COUNT SUM\" of those keys instead (SUM: their values as\n"
          "  64-bit two's complement, added mod 2^64); --distinct: the same over the\n"
          "  distinct keys only.\n", f);
}

/* Parse an unsigned decimal count or seed, strictly. */
static uint64_t parse_u64(const char *s, const char *what)
{
    char *end;
    if (*s < '0' || *s > '9')
        die(what, s);
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        die(what, s);
    return v;
}

static void tinfo_init(tinfo_t *ti, gtype_t t)
{
    ti->width = (t == T_I32 || t == T_U32) ? 4 : 8;
    ti->is_signed = (t == T_I32 || t == T_I64);
    ti->all = ti->width == 4 ? UINT32_MAX : UINT64_MAX;
    ti->sign_flip = ti->is_signed ? (ti->width == 4 ? 0x80000000u : 0x8000000000000000u) : 0;
}

/* Parse a bound given as a decimal value of the type into ordered space. */
static uint64_t parse_bound(const char *s, const tinfo_t *ti)
{
    char *end;
    errno = 0;
    if (ti->is_signed) {
        long long v = strtoll(s, &end, 10);
        if (errno || *end || end == s)
            die("bad bound", s);
        if (ti->width == 4 && (v < INT32_MIN || v > INT32_MAX))
            die("bound out of range for the type", s);
        return ((uint64_t)v & ti->all) ^ ti->sign_flip;
    }
    if (strchr(s, '-'))
        die("bound out of range for the type", s);
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || end == s)
        die("bad bound", s);
    if (v > ti->all)
        die("bound out of range for the type", s);
    return v;
}

static void parse_options(int argc, char **argv, gopts_t *o)
{
    enum { OPT_MIN = 256, OPT_MAX, OPT_ENDIAN, OPT_SUM, OPT_DISTINCT, OPT_HELP };
    static const struct option longopts[] = {
        {"count", required_argument, NULL, 'n'},
        {"type", required_argument, NULL, 't'},
        {"seed", required_argument, NULL, 's'},
        {"distribution", required_argument, NULL, 'd'},
        {"binary", no_argument, NULL, 'b'},
        {"min", required_argument, NULL, OPT_MIN},
        {"max", required_argument, NULL, OPT_MAX},
        {"endian", required_argument, NULL, OPT_ENDIAN},
        {"sum", no_argument, NULL, OPT_SUM},
        {"distinct", no_argument, NULL, OPT_DISTINCT},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0}
    };
    *o = (gopts_t){.n = 1000000, .type = T_I64, .seed = 1, .dist = D_RANDOM};
    int c;
    while ((c = getopt_long(argc, argv, "n:t:s:d:b", longopts, NULL)) != -1) {
        switch (c) {
        case 'n': o->n = parse_u64(optarg, "bad count"); break;
        case 's': o->seed = parse_u64(optarg, "bad seed"); break;
        case 'b': o->binary = 1; break;
        case OPT_MIN: o->min = optarg; break;
        case OPT_MAX: o->max = optarg; break;
        case OPT_SUM: o->sum = 1; break;
        case OPT_DISTINCT: o->distinct = 1; break;
        case 't':
            if (!strcmp(optarg, "i32")) o->type = T_I32;
            else if (!strcmp(optarg, "u32")) o->type = T_U32;
            else if (!strcmp(optarg, "i64")) o->type = T_I64;
            else if (!strcmp(optarg, "u64")) o->type = T_U64;
            else die("bad type", optarg);
            break;
        case 'd':
            if (!strcmp(optarg, "random")) o->dist = D_RANDOM;
            else if (!strcmp(optarg, "sorted")) o->dist = D_SORTED;
            else if (!strcmp(optarg, "reversed")) o->dist = D_REVERSED;
            else if (!strcmp(optarg, "equal")) o->dist = D_EQUAL;
            else if (!strcmp(optarg, "few")) o->dist = D_FEW;
            else die("bad distribution", optarg);
            break;
        case OPT_ENDIAN:
            if (!strcmp(optarg, "little")) o->big_endian = 0;
            else if (!strcmp(optarg, "big")) o->big_endian = 1;
            else die("bad byte order", optarg);
            break;
        case OPT_HELP:
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            exit(1);
        }
    }
    if (optind != argc)
        die("unexpected operand", argv[optind]);
}

/* ------------------------------------------------------------------------------ */
/* Random numbers                                                                  */
/* ------------------------------------------------------------------------------ */

/* splitmix64 (Steele, Lea, Flood 2014; public domain reference by Vigna). */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A value in [lo, hi] (ordered space), uniform: draws past the largest multiple of
 * the span's size are rejected, so the modulo has no bias. */
static uint64_t draw(uint64_t *state, uint64_t lo, uint64_t hi)
{
    uint64_t span = hi - lo;
    if (span == UINT64_MAX)
        return splitmix64(state);
    uint64_t size = span + 1;
    uint64_t limit = UINT64_MAX - UINT64_MAX % size;  /* a multiple of size */
    uint64_t r;
    do
        r = splitmix64(state);
    while (r >= limit);
    return lo + r % size;
}

/* ------------------------------------------------------------------------------ */
/* Output                                                                          */
/* ------------------------------------------------------------------------------ */

#define OUT_BUF (1u << 20)

typedef struct {
    char buf[OUT_BUF + 64];  /* room for one more formatted key past OUT_BUF */
    size_t len;
    const tinfo_t *ti;
    int binary;
    int big_endian;
    int sum;                 /* 1: count and add the keys instead of writing them */
    uint64_t count, total;   /* --sum: keys seen, and their values added mod 2^64 */
    uint64_t *keep;          /* --distinct: every key (ordered), to sort later */
    size_t nkeep;
} writer_t;

/* A key's value as 64-bit two's complement: i32 sign-extended, u32 zero-extended. */
static uint64_t value64(const tinfo_t *ti, uint64_t raw)
{
    if (ti->is_signed && ti->width == 4)
        return (uint64_t)(int64_t)(int32_t)(uint32_t)raw;
    return raw;
}

static void writer_flush(writer_t *w)
{
    if (w->len && fwrite(w->buf, 1, w->len, stdout) != w->len) {
        perror("gsgen: write error");
        exit(1);
    }
    w->len = 0;
}

static const char digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Write v in decimal at dst; return the length. */
static size_t fmt_u64(uint64_t v, char *dst)
{
    char tmp[24];
    char *p = tmp + sizeof tmp;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--p = digits2[d + 1];
        *--p = digits2[d];
    }
    if (v >= 10) {
        *--p = digits2[v * 2 + 1];
        *--p = digits2[v * 2];
    } else {
        *--p = (char)('0' + v);
    }
    size_t len = (size_t)(tmp + sizeof tmp - p);
    memcpy(dst, p, len);
    return len;
}

/* Append one key, given in ordered space. */
static void writer_put(writer_t *w, uint64_t ordered)
{
    const tinfo_t *ti = w->ti;
    uint64_t raw = (ordered ^ ti->sign_flip) & ti->all;
    if (w->keep) {
        w->keep[w->nkeep++] = ordered;
        return;
    }
    if (w->sum) {
        w->count++;
        w->total += value64(ti, raw);
        return;
    }
    char *dst = w->buf + w->len;
    if (w->binary) {
        for (int i = 0; i < ti->width; i++) {
            int shift = w->big_endian ? 8 * (ti->width - 1 - i) : 8 * i;
            dst[i] = (char)((raw >> shift) & 0xff);
        }
        w->len += (size_t)ti->width;
    } else {
        size_t len = 0;
        if (ti->is_signed) {
            int neg = ti->width == 4 ? (raw >> 31) & 1 : (raw >> 63) & 1;
            if (neg) {
                dst[len++] = '-';
                raw = (~raw + 1) & ti->all;  /* magnitude; fine for the minimum too */
            }
        }
        len += fmt_u64(raw, dst + len);
        dst[len++] = '\n';
        w->len += len;
    }
    if (w->len >= OUT_BUF)
        writer_flush(w);
}

/* ------------------------------------------------------------------------------ */
/* Sorting (for -d sorted and reversed): LSD radix sort on ordered values          */
/* ------------------------------------------------------------------------------ */

static void radix_sort(uint64_t *a, size_t n, int width)
{
    uint64_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        die("out of memory", NULL);
    uint64_t *src = a, *dst = tmp;
    for (int shift = 0; shift < 8 * width; shift += 16) {
        static size_t count[65536 + 1];
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++)
            count[((src[i] >> shift) & 0xffff) + 1]++;
        for (size_t b = 1; b <= 65536; b++)
            count[b] += count[b - 1];
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & 0xffff]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    /* 2 or 4 passes: an even number, so the result is back in a. */
    free(tmp);
}

/* ------------------------------------------------------------------------------ */
/* main                                                                            */
/* ------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    gopts_t o;
    tinfo_t ti;
    parse_options(argc, argv, &o);
    tinfo_init(&ti, o.type);

    uint64_t lo = o.min ? parse_bound(o.min, &ti) : 0;
    uint64_t hi = o.max ? parse_bound(o.max, &ti) : ti.all;
    if (lo > hi)
        die("--min is above --max", NULL);

    static writer_t w;
    w.ti = &ti;
    w.binary = o.binary;
    w.big_endian = o.big_endian;
    w.sum = o.sum || o.distinct;
    if (o.distinct) {
        /* Keep every key; sorted below, repeats counted once. */
        if (o.n > SIZE_MAX / sizeof(uint64_t))
            die("count too large for --distinct", NULL);
        w.keep = malloc((o.n ? (size_t)o.n : 1) * sizeof *w.keep);
        if (!w.keep)
            die("out of memory", NULL);
    }

    uint64_t state = o.seed;
    switch (o.dist) {
    case D_RANDOM:
        for (uint64_t i = 0; i < o.n; i++)
            writer_put(&w, draw(&state, lo, hi));
        break;
    case D_EQUAL: {
        uint64_t v = draw(&state, lo, hi);
        for (uint64_t i = 0; i < o.n; i++)
            writer_put(&w, v);
        break;
    }
    case D_FEW: {
        /* Five distinct values (as many as the range holds, if fewer). */
        uint64_t few[5];
        for (int k = 0; k < 5; k++) {
            int dup;
            do {
                few[k] = draw(&state, lo, hi);
                dup = 0;
                for (int j = 0; j < k; j++)
                    dup |= few[j] == few[k];
            } while (dup && (uint64_t)k <= hi - lo);
        }
        for (uint64_t i = 0; i < o.n; i++)
            writer_put(&w, few[draw(&state, 0, 4)]);
        break;
    }
    case D_SORTED:
    case D_REVERSED: {
        if (o.n > SIZE_MAX / sizeof(uint64_t))
            die("count too large to sort", NULL);
        size_t n = (size_t)o.n;
        uint64_t *a = malloc((n ? n : 1) * sizeof *a);
        if (!a)
            die("out of memory", NULL);
        for (size_t i = 0; i < n; i++)
            a[i] = draw(&state, lo, hi);
        radix_sort(a, n, ti.width);
        if (o.dist == D_SORTED)
            for (size_t i = 0; i < n; i++)
                writer_put(&w, a[i]);
        else
            for (size_t i = n; i-- > 0;)
                writer_put(&w, a[i]);
        free(a);
        break;
    }
    }

    if (w.keep) {
        uint64_t *k = w.keep;
        size_t n = w.nkeep;
        w.keep = NULL;
        radix_sort(k, n, ti.width);
        for (size_t i = 0; i < n; i++)
            if (i == 0 || k[i] != k[i - 1])
                writer_put(&w, k[i]);
        free(k);
    }
    if (w.sum)
        printf("%llu %llu\n", (unsigned long long)w.count, (unsigned long long)w.total);
    writer_flush(&w);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("gsgen: write error");
        return 1;
    }
    if (fclose(stdout) != 0) {
        perror("gsgen: write error");
        return 1;
    }
    return 0;
}
