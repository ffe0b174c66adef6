/* SPDX-License-Identifier: MIT */
/* gsrec.c: a seeded generator of records for gpusort's tests and benchmarks.
 *
 * Text records are lines of fields, one of them an integer key, in the shapes that
 * the contract's records section names: a one-byte separator or runs of blanks,
 * CRLF line ends, blanks around the key, leading zeros and "-0", a missing final
 * newline, NUL terminators. --bench writes the benchmark's `id,key,payload` lines.
 * Binary records are fixed-size, a key at an offset, the other bytes random.
 * Standalone, like gsgen: it shares no code with gpusort, and the same arguments
 * always give the same bytes (splitmix64, seeded by -s). Keys never carry a '+':
 * sort -n reads "+5" as no number, and sort is the tests' oracle.
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

typedef enum { T_I32, T_U32, T_I64, T_U64 } rtype_t;
typedef enum { D_UNIFORM, D_DUPS, D_EXTREMES } rdist_t;

#define SEP_BLANK (-1)   /* sep: fields are runs of blanks, as sort's default */

typedef struct {
    uint64_t n;             /* -n: records to write; default 1000 */
    uint64_t seed;          /* -s: default 1 */
    int sep;                /* -F: the separator byte, or SEP_BLANK; default ',' */
    unsigned fields;        /* -f: fields a line; default 3 */
    unsigned key;           /* -k: the key's field, 1-based; default 2 */
    rtype_t type;           /* -t: default i64 */
    rdist_t dist;           /* -d: default uniform */
    uint64_t range;         /* --range: distinct values of -d dups; default 10 */
    unsigned width;         /* -w: most bytes of a field other than the key; default 8 */
    int zeros;              /* --zeros: leading zeros and spelled-out zeros */
    int pad;                /* --pad: blanks around the key */
    int crlf;               /* --crlf: CR before each terminator */
    char term;              /* -z: '\0'; default '\n' */
    int no_final;           /* --no-final-newline */
    const char *header;     /* --header: a first line; NULL for none */
    int bench;              /* --bench: id,key,payload lines */
    int prices;             /* --prices: id,price,payload lines */
    int sortbench;          /* --sortbench: the Sort Benchmark's 100-byte records */
    unsigned skew;          /* --skew: percent of --sortbench keys sharing 8 bytes */
    int binary;             /* -b: fixed-size binary records */
    unsigned record_size;   /* --record-size: 0 for the key width */
    unsigned key_offset;    /* --key-offset: default 0 */
    int big_endian;         /* --endian=big; default little */
} ropts_t;

/* A type's width and the map between its raw bits and "ordered" values: the raw
 * two's complement bits with the sign bit flipped for signed types, so that the
 * unsigned order of ordered values is the type's own order. */
typedef struct {
    int width;           /* bytes per key: 4 or 8 */
    int is_signed;
    uint64_t sign_flip;  /* XOR between raw bits and ordered value */
    uint64_t all;        /* the largest ordered value: 2^(8*width) - 1 */
} tinfo_t;

static void die(const char *msg, const char *arg)
{
    if (arg)
        fprintf(stderr, "gsrec: %s: '%s'\n", msg, arg);
    else
        fprintf(stderr, "gsrec: %s\n", msg);
    exit(1);
}

static void usage(FILE *f)
{
    fputs("Usage: gsrec [OPTION]...\n"
          "Write COUNT seeded pseudo-random records: the same options give the same bytes.\n"
          "Text records (the default) are lines of fields, one of them an integer key.\n"
          "  -n, --count=COUNT      records (default 1000)\n"
          "  -s, --seed=S           seed (default 1)\n"
          "  -F, --sep=SEP          field separator: one byte (not a digit, '-', CR, LF\n"
          "                         or NUL), 'tab', 'space', or 'blank': fields are runs\n"
          "                         of blanks, 0-3 spaces and tabs before the first\n"
          "                         field and 1-3 before the others (default ',')\n"
          "  -f, --fields=N         fields a line (default 3)\n"
          "  -k, --key=F            the key's field, 1-based (default 2)\n"
          "  -t, --type=TYPE        i32, u32, i64 (default) or u64\n"
          "  -d, --dist=DIST        uniform (default): over the whole type;\n"
          "                         dups: RANGE values around 0 (heavy duplicates);\n"
          "                         extremes: one key in four is the type's min, min+1,\n"
          "                         -1, 0, 1, max-1 or max (unsigned: 0, 1, 2^(w-1)-1,\n"
          "                         2^(w-1), max-1, max), the others uniform\n"
          "      --range=R          distinct keys of -d dups (default 10)\n"
          "  -w, --width=W          other fields: 0 to W random letters and digits\n"
          "                         (1 to W with -F blank; default 8)\n"
          "      --zeros            one key in 8 gets 1-3 leading zeros, and one in 16\n"
          "                         is a zero written 0 or 00 (signed types: also -0, -00)\n"
          "      --pad              0-2 blanks before and after the key (spaces and\n"
          "                         tabs, never the separator)\n"
          "      --crlf             a CR before each terminator\n"
          "  -z, --zero-terminated  end lines with NUL, not LF\n"
          "      --no-final-newline the last line without its terminator\n"
          "      --header=TEXT      a first line TEXT, as is (not one of the COUNT)\n"
          "      --bench            the benchmark's lines `id,key,payload`: id counts from\n"
          "                         1, key a uniform u32, payload 10-40 random letters\n"
          "                         (only -n, -s, -z, --crlf, --header and\n"
          "                         --no-final-newline apply)\n"
          "      --prices           as --bench, with a price for the key: a decimal of\n"
          "                         1 to 5 digits and 0 to 6 places, one in four\n"
          "                         negative, one in sixteen with a '+', one in eight\n"
          "                         with an exponent (e-20 to e+20); never -0\n"
          "Binary records:\n"
          "  -b, --binary           fixed-size records: a key of --type at --key-offset,\n"
          "                         in --endian order (-d as for text), the other bytes\n"
          "                         random\n"
          "      --record-size=N    bytes a record (default: the key's width)\n"
          "      --key-offset=O     the key's first byte in a record (default 0)\n"
          "      --endian=ORDER     little (default) or big\n"
          "      --sortbench        the Sort Benchmark's records: 100 bytes, a key of 10\n"
          "                         random bytes first (sorted as --type=bytes10)\n"
          "      --skew=P           with --sortbench: P percent of the keys share their\n"
          "                         first 8 bytes, told apart by the last 2 (default 0)\n", f);
}

/* Parse an unsigned decimal number, strictly, at most max. */
static uint64_t parse_u64(const char *s, const char *what, uint64_t max)
{
    char *end;
    if (*s < '0' || *s > '9')
        die(what, s);
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        die(what, s);
    return v;
}

static int parse_sep(const char *s)
{
    if (!strcmp(s, "blank"))
        return SEP_BLANK;
    if (!strcmp(s, "tab") || !strcmp(s, "\\t"))
        return '\t';
    if (!strcmp(s, "space"))
        return ' ';
    if (strlen(s) != 1 || (*s >= '0' && *s <= '9') || *s == '-' || *s == '\r' || *s == '\n')
        die("bad separator (one byte, not a digit, '-', CR or LF; or tab, space, blank)", s);
    return (unsigned char)*s;
}

static void parse_options(int argc, char **argv, ropts_t *o)
{
    enum {
        OPT_RANGE = 256, OPT_ZEROS, OPT_PAD, OPT_CRLF, OPT_NO_FINAL, OPT_HEADER,
        OPT_BENCH, OPT_PRICES, OPT_SORTBENCH, OPT_SKEW, OPT_RECORD_SIZE, OPT_KEY_OFFSET, OPT_ENDIAN, OPT_HELP
    };
    static const struct option longopts[] = {
        {"count", required_argument, NULL, 'n'},
        {"seed", required_argument, NULL, 's'},
        {"sep", required_argument, NULL, 'F'},
        {"fields", required_argument, NULL, 'f'},
        {"key", required_argument, NULL, 'k'},
        {"type", required_argument, NULL, 't'},
        {"dist", required_argument, NULL, 'd'},
        {"range", required_argument, NULL, OPT_RANGE},
        {"width", required_argument, NULL, 'w'},
        {"zeros", no_argument, NULL, OPT_ZEROS},
        {"pad", no_argument, NULL, OPT_PAD},
        {"crlf", no_argument, NULL, OPT_CRLF},
        {"zero-terminated", no_argument, NULL, 'z'},
        {"no-final-newline", no_argument, NULL, OPT_NO_FINAL},
        {"header", required_argument, NULL, OPT_HEADER},
        {"bench", no_argument, NULL, OPT_BENCH},
        {"prices", no_argument, NULL, OPT_PRICES},
        {"sortbench", no_argument, NULL, OPT_SORTBENCH},
        {"skew", required_argument, NULL, OPT_SKEW},
        {"binary", no_argument, NULL, 'b'},
        {"record-size", required_argument, NULL, OPT_RECORD_SIZE},
        {"key-offset", required_argument, NULL, OPT_KEY_OFFSET},
        {"endian", required_argument, NULL, OPT_ENDIAN},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0}
    };
    *o = (ropts_t){.n = 1000, .seed = 1, .sep = ',', .fields = 3, .key = 2,
                   .type = T_I64, .dist = D_UNIFORM, .range = 10, .width = 8,
                   .term = '\n'};
    int c;
    while ((c = getopt_long(argc, argv, "n:s:F:f:k:t:d:w:zb", longopts, NULL)) != -1) {
        switch (c) {
        case 'n': o->n = parse_u64(optarg, "bad count", UINT64_MAX); break;
        case 's': o->seed = parse_u64(optarg, "bad seed", UINT64_MAX); break;
        case 'F': o->sep = parse_sep(optarg); break;
        case 'f': o->fields = (unsigned)parse_u64(optarg, "bad field count", 1000); break;
        case 'k': o->key = (unsigned)parse_u64(optarg, "bad key field", 1000); break;
        case 'w': o->width = (unsigned)parse_u64(optarg, "bad width", 100000); break;
        case 'z': o->term = '\0'; break;
        case 'b': o->binary = 1; break;
        case OPT_RANGE: o->range = parse_u64(optarg, "bad range", UINT64_MAX); break;
        case OPT_ZEROS: o->zeros = 1; break;
        case OPT_PAD: o->pad = 1; break;
        case OPT_CRLF: o->crlf = 1; break;
        case OPT_NO_FINAL: o->no_final = 1; break;
        case OPT_HEADER: o->header = optarg; break;
        case OPT_BENCH: o->bench = 1; break;
        case OPT_PRICES: o->bench = o->prices = 1; break;
        case OPT_SORTBENCH: o->binary = o->sortbench = 1; o->record_size = 100; break;
        case OPT_SKEW: o->skew = (unsigned)parse_u64(optarg, "bad skew (0 to 100)", 100); break;
        case OPT_RECORD_SIZE:
            o->record_size = (unsigned)parse_u64(optarg, "bad record size", 1u << 20);
            break;
        case OPT_KEY_OFFSET:
            o->key_offset = (unsigned)parse_u64(optarg, "bad key offset", 1u << 20);
            break;
        case 't':
            if (!strcmp(optarg, "i32")) o->type = T_I32;
            else if (!strcmp(optarg, "u32")) o->type = T_U32;
            else if (!strcmp(optarg, "i64")) o->type = T_I64;
            else if (!strcmp(optarg, "u64")) o->type = T_U64;
            else die("bad type", optarg);
            break;
        case 'd':
            if (!strcmp(optarg, "uniform")) o->dist = D_UNIFORM;
            else if (!strcmp(optarg, "dups")) o->dist = D_DUPS;
            else if (!strcmp(optarg, "extremes")) o->dist = D_EXTREMES;
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
    if (o->fields < 1 || o->key < 1 || o->key > o->fields)
        die("the key field must be within 1..--fields", NULL);
    if (o->sep == SEP_BLANK && o->width < 1)
        die("-F blank needs --width of 1 or more (an empty field would vanish)", NULL);
    if (o->range < 1)
        die("--range must be 1 or more", NULL);
    if (o->binary && o->bench)
        die("--binary and --bench exclude each other", NULL);
    if (o->skew && !o->sortbench)
        die("--skew needs --sortbench", NULL);
}

static void tinfo_init(tinfo_t *ti, rtype_t t)
{
    ti->width = (t == T_I32 || t == T_U32) ? 4 : 8;
    ti->is_signed = (t == T_I32 || t == T_I64);
    ti->all = ti->width == 4 ? UINT32_MAX : UINT64_MAX;
    ti->sign_flip = ti->is_signed ? (ti->width == 4 ? 0x80000000u : 0x8000000000000000u) : 0;
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

/* A value in [lo, hi], uniform (draws past the largest multiple of the span's size
 * are rejected, so the modulo has no bias). */
static uint64_t draw(uint64_t *state, uint64_t lo, uint64_t hi)
{
    uint64_t span = hi - lo;
    if (span == UINT64_MAX)
        return splitmix64(state);
    uint64_t size = span + 1;
    uint64_t limit = UINT64_MAX - UINT64_MAX % size;
    uint64_t r;
    do
        r = splitmix64(state);
    while (r >= limit);
    return lo + r % size;
}

/* One key of the distribution, as the type's raw bits (two's complement). */
static uint64_t draw_key(uint64_t *state, const ropts_t *o, const tinfo_t *ti)
{
    uint64_t ordered;
    switch (o->dist) {
    case D_DUPS: {
        /* range values around 0: [-range/2, range/2) for signed, [0, range) else. */
        uint64_t span = o->range - 1 > ti->all ? ti->all : o->range - 1;
        uint64_t lo = ti->is_signed ? ti->sign_flip - (span + 1) / 2 : 0;
        ordered = draw(state, lo, lo + span);
        break;
    }
    case D_EXTREMES:
        if (draw(state, 0, 3) == 0) {
            /* In raw bits: the ends of the type, its middle, and either side of 0. */
            uint64_t half = ti->all >> 1;   /* the signed maximum */
            const uint64_t sext[] = {half + 1, half + 2, ti->all, 0, 1, half - 1, half};
            const uint64_t uext[] = {0, 1, half, half + 1, ti->all - 1, ti->all};
            if (ti->is_signed)
                return sext[draw(state, 0, 6)];
            return uext[draw(state, 0, 5)];
        }
        ordered = draw(state, 0, ti->all);
        break;
    default:
        ordered = draw(state, 0, ti->all);
        break;
    }
    return (ordered ^ ti->sign_flip) & ti->all;
}

/* ------------------------------------------------------------------------------ */
/* Output                                                                          */
/* ------------------------------------------------------------------------------ */

#define OUT_BUF (1u << 20)

typedef struct {
    char *buf;      /* OUT_BUF plus room for the longest record */
    size_t len;
} out_t;

static void out_flush(out_t *w)
{
    if (w->len && fwrite(w->buf, 1, w->len, stdout) != w->len) {
        perror("gsrec: write error");
        exit(1);
    }
    w->len = 0;
}

static void out_byte(out_t *w, char c)
{
    w->buf[w->len++] = c;
}

static void out_bytes(out_t *w, const char *p, size_t n)
{
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

/* Write v in decimal. */
static void out_u64(out_t *w, uint64_t v)
{
    char tmp[24];
    char *p = tmp + sizeof tmp;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    out_bytes(w, p, (size_t)(tmp + sizeof tmp - p));
}

/* The key as text: sign and magnitude, never a '+'; with --zeros some keys get
 * leading zeros, and some are a zero spelled 0, 00, -0 or -00 (signed types). */
static void out_key(out_t *w, uint64_t *state, const ropts_t *o, const tinfo_t *ti,
                    uint64_t raw)
{
    if (o->zeros && draw(state, 0, 15) == 0) {
        static const char *const forms[] = {"0", "00", "-0", "-00"};
        const char *z = forms[draw(state, 0, ti->is_signed ? 3 : 1)];
        out_bytes(w, z, strlen(z));
        return;
    }
    uint64_t mag = raw;
    if (ti->is_signed && (raw & ti->sign_flip)) {
        out_byte(w, '-');
        mag = (~raw + 1) & ti->all;   /* the magnitude; right for the minimum too */
    }
    if (o->zeros && draw(state, 0, 7) == 0)
        for (uint64_t i = draw(state, 1, 3); i > 0; i--)
            out_byte(w, '0');
    out_u64(w, mag);
}

/* The bytes a field other than the key is made of: letters and digits, less the
 * separator. */
typedef struct {
    char c[62];
    unsigned n;
} alphabet_t;

static void alphabet_init(alphabet_t *a, int sep, int letters_only)
{
    static const char all[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    a->n = 0;
    for (const char *p = all; *p; p++) {
        if (*p == sep || (letters_only && *p >= '0' && *p <= '9'))
            continue;
        a->c[a->n++] = *p;
    }
}

static void out_random(out_t *w, uint64_t *state, const alphabet_t *a, uint64_t lo,
                       uint64_t hi)
{
    for (uint64_t i = draw(state, lo, hi); i > 0; i--)
        out_byte(w, a->c[draw(state, 0, a->n - 1)]);
}

/* 0-2 blanks of the padding set (spaces and tabs, less the separator). */
static void out_pad(out_t *w, uint64_t *state, const char *pads)
{
    size_t np = strlen(pads);
    for (uint64_t i = draw(state, 0, 2); i > 0; i--)
        out_byte(w, pads[draw(state, 0, np - 1)]);
}

/* The end of a line: CR first with --crlf; no terminator after the last line with
 * --no-final-newline. */
static void out_end(out_t *w, const ropts_t *o, int last)
{
    if (o->crlf)
        out_byte(w, '\r');
    if (!(last && o->no_final))
        out_byte(w, o->term);
    if (w->len >= OUT_BUF)
        out_flush(w);
}

/* One text line of --fields fields with the key in field --key. */
static void text_line(out_t *w, uint64_t *state, const ropts_t *o, const tinfo_t *ti,
                      const alphabet_t *a, const char *pads)
{
    for (unsigned f = 1; f <= o->fields; f++) {
        if (o->sep == SEP_BLANK) {
            for (uint64_t i = draw(state, f == 1 ? 0 : 1, 3); i > 0; i--)
                out_byte(w, draw(state, 0, 1) ? ' ' : '\t');
        } else if (f > 1) {
            out_byte(w, (char)o->sep);
        }
        if (f != o->key) {
            out_random(w, state, a, o->sep == SEP_BLANK ? 1 : 0, o->width);
            continue;
        }
        if (o->pad)
            out_pad(w, state, pads);
        out_key(w, state, o, ti, draw_key(state, o, ti));
        if (o->pad)
            out_pad(w, state, pads);
    }
}

/* A price: [-+]D[.DDDDDD][e[-+]X] (never a zero with a sign: -0 and 0 are equal to
 * sort -g, and the peers need not agree on their order). */
static void out_price(out_t *w, uint64_t *state)
{
    uint64_t whole = draw(state, 0, 99999), places = draw(state, 0, 6);
    uint64_t frac = places ? draw(state, 0, 999999) % (uint64_t)(places == 6 ? 1000000 :
                    places == 5 ? 100000 : places == 4 ? 10000 : places == 3 ? 1000 :
                    places == 2 ? 100 : 10) : 0;
    uint64_t sign = draw(state, 0, 15);
    if (whole || frac) {
        if (sign < 4)
            out_byte(w, '-');
        else if (sign == 4)
            out_byte(w, '+');
    }
    out_u64(w, whole);
    if (places) {
        char digits[8];
        for (uint64_t i = places; i > 0; i--, frac /= 10)
            digits[i - 1] = (char)('0' + frac % 10);
        out_byte(w, '.');
        out_bytes(w, digits, places);
    }
    if (draw(state, 0, 7) == 0) {
        int64_t e = (int64_t)draw(state, 0, 40) - 20;
        out_byte(w, 'e');
        if (e < 0)
            out_byte(w, '-');
        else if (draw(state, 0, 1))
            out_byte(w, '+');
        out_u64(w, (uint64_t)(e < 0 ? -e : e));
    }
}

/* One line of the benchmark's shape: id,key,payload (--prices: id,price,payload). */
static void bench_line(out_t *w, uint64_t *state, const alphabet_t *letters, uint64_t id,
                       int prices)
{
    out_u64(w, id);
    out_byte(w, ',');
    if (prices)
        out_price(w, state);
    else
        out_u64(w, draw(state, 0, UINT32_MAX));
    out_byte(w, ',');
    out_random(w, state, letters, 10, 40);
}

/* One binary record: random bytes, then the key over them at --key-offset. */
static void binary_record(out_t *w, uint64_t *state, const ropts_t *o, const tinfo_t *ti,
                          unsigned size)
{
    char *rec = w->buf + w->len;
    for (unsigned i = 0; i < size; i += 8) {
        uint64_t r = splitmix64(state);
        for (unsigned j = 0; j < 8 && i + j < size; j++)
            rec[i + j] = (char)(r >> (8 * j));
    }
    if (o->sortbench) {
        /* The key: 10 random bytes; --skew of them begin with one 8 bytes. */
        static const char shared[8] = {'S', 'K', 'E', 'W', 'E', 'D', 0x00, (char)0xff};
        if (o->skew && draw(state, 0, 99) < o->skew)
            memcpy(rec, shared, sizeof shared);
        w->len += size;
        if (w->len >= OUT_BUF)
            out_flush(w);
        return;
    }
    uint64_t raw = draw_key(state, o, ti);
    for (int i = 0; i < ti->width; i++) {
        int shift = o->big_endian ? 8 * (ti->width - 1 - i) : 8 * i;
        rec[o->key_offset + (unsigned)i] = (char)((raw >> shift) & 0xff);
    }
    w->len += size;
    if (w->len >= OUT_BUF)
        out_flush(w);
}

/* ------------------------------------------------------------------------------ */
/* main                                                                            */
/* ------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    ropts_t o;
    tinfo_t ti;
    parse_options(argc, argv, &o);
    tinfo_init(&ti, o.bench ? T_U32 : o.type);

    unsigned size = o.record_size ? o.record_size : (unsigned)ti.width;
    if (o.binary && (size < (unsigned)ti.width || o.key_offset > size - (unsigned)ti.width))
        die("the key must lie inside the record (--key-offset + key width <= --record-size)",
            NULL);

    /* The longest record: every field at its widest, blanks and padding included. */
    size_t most = o.binary ? size
                           : (size_t)o.fields * (o.width + 4) + 64 + (o.bench ? 64 : 0);
    size_t header = o.header ? strlen(o.header) + 2 : 0;
    out_t w = {.buf = malloc(OUT_BUF + most + header), .len = 0};
    if (!w.buf)
        die("out of memory", NULL);

    alphabet_t a;
    alphabet_init(&a, o.bench ? ',' : o.sep, o.bench);
    const char *pads = o.sep == ' ' ? "\t" : o.sep == '\t' ? " " : " \t";
    uint64_t state = o.seed;

    if (o.header && !o.binary) {
        out_bytes(&w, o.header, strlen(o.header));
        out_end(&w, &o, o.n == 0);
    }
    for (uint64_t i = 0; i < o.n; i++) {
        if (o.binary) {
            binary_record(&w, &state, &o, &ti, size);
            continue;
        }
        if (o.bench)
            bench_line(&w, &state, &a, i + 1, o.prices);
        else
            text_line(&w, &state, &o, &ti, &a, pads);
        out_end(&w, &o, i + 1 == o.n);
    }
    out_flush(&w);
    free(w.buf);
    if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
        perror("gsrec: write error");
        return 1;
    }
    return 0;
}
