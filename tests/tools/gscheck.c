/* SPDX-License-Identifier: MIT */
/* gscheck.c: checks that binary keys are in order and prints "COUNT SUM" of them,
 * an oracle for sorts too big to compare with sort(1) quickly.
 *
 * Standalone on purpose, like gsgen: it shares no code with gpusort. SUM is the keys'
 * values as 64-bit two's complement (i32 sign-extended), added mod 2^64, printed as
 * an unsigned decimal: the same arithmetic as `gsgen --sum`, so a sort that lost,
 * duplicated or changed a key is caught with (almost) certainty.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int width;               /* -t: 4 or 8 bytes; default i64 */
    int is_signed;
    int big_endian;          /* --endian=big; default little */
    int reverse;             /* -r: descending */
    int strict;              /* -u: no two keys equal */
    const char *file;        /* the operand, or NULL for stdin */
} copts_t;

static void usage(FILE *f)
{
    fputs("Usage: gscheck [-t i32|u32|i64|u64] [--endian=little|big] [-r] [-u] [FILE]\n"
          "Read raw fixed-width keys (default i64, little-endian) from FILE or standard\n"
          "input, check that they ascend (-r: descend; -u: strictly), and print\n"
          "\"COUNT SUM\" (SUM: the values as 64-bit two's complement, added mod 2^64).\n"
          "Exit 0 if in order, 1 at the first disorder (with a message), 2 on error.\n",
          f);
}

static void die(const char *msg, const char *arg)
{
    if (arg)
        fprintf(stderr, "gscheck: %s: '%s'\n", msg, arg);
    else
        fprintf(stderr, "gscheck: %s\n", msg);
    exit(2);
}

static void parse_options(int argc, char **argv, copts_t *o)
{
    enum { OPT_ENDIAN = 256, OPT_HELP };
    static const struct option longopts[] = {
        {"type", required_argument, NULL, 't'},
        {"reverse", no_argument, NULL, 'r'},
        {"unique", no_argument, NULL, 'u'},
        {"endian", required_argument, NULL, OPT_ENDIAN},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0}
    };
    *o = (copts_t){.width = 8, .is_signed = 1};
    int c;
    while ((c = getopt_long(argc, argv, "t:ru", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (!strcmp(optarg, "i32")) { o->width = 4; o->is_signed = 1; }
            else if (!strcmp(optarg, "u32")) { o->width = 4; o->is_signed = 0; }
            else if (!strcmp(optarg, "i64")) { o->width = 8; o->is_signed = 1; }
            else if (!strcmp(optarg, "u64")) { o->width = 8; o->is_signed = 0; }
            else die("bad type", optarg);
            break;
        case 'r': o->reverse = 1; break;
        case 'u': o->strict = 1; break;
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
            exit(2);
        }
    }
    if (argc - optind > 1)
        die("more than one operand", argv[optind + 1]);
    if (optind < argc && strcmp(argv[optind], "-") != 0)
        o->file = argv[optind];
}

/* The key at p: its value as 64-bit two's complement. */
static uint64_t key_value(const copts_t *o, const unsigned char *p)
{
    uint64_t raw = 0;
    for (int i = 0; i < o->width; i++) {
        int shift = o->big_endian ? 8 * (o->width - 1 - i) : 8 * i;
        raw |= (uint64_t)p[i] << shift;
    }
    if (o->width == 4 && o->is_signed)
        return (uint64_t)(int64_t)(int32_t)(uint32_t)raw;
    return raw;
}

/* -1, 0 or 1 as a is below, equal to or above b in the type's order. */
static int key_cmp(const copts_t *o, uint64_t a, uint64_t b)
{
    if (o->is_signed)
        return (int64_t)a < (int64_t)b ? -1 : (int64_t)a > (int64_t)b;
    return a < b ? -1 : a > b;
}

static void print_value(FILE *f, const copts_t *o, uint64_t v)
{
    if (o->is_signed)
        fprintf(f, "%lld", (long long)(int64_t)v);
    else
        fprintf(f, "%llu", (unsigned long long)v);
}

#define BUF_BYTES (1u << 20)

int main(int argc, char **argv)
{
    copts_t o;
    parse_options(argc, argv, &o);
    const char *name = o.file ? o.file : "standard input";
    FILE *in = o.file ? fopen(o.file, "rb") : stdin;
    if (!in) {
        fprintf(stderr, "gscheck: %s: %s\n", name, strerror(errno));
        return 2;
    }
    static unsigned char buf[BUF_BYTES + 8];
    size_t have = 0;                 /* bytes of a partial key carried over */
    uint64_t count = 0, sum = 0, prev = 0;
    for (;;) {
        size_t got = fread(buf + have, 1, BUF_BYTES, in);
        size_t len = have + got;
        size_t whole = len - len % (size_t)o.width;
        for (size_t off = 0; off < whole; off += (size_t)o.width) {
            uint64_t v = key_value(&o, buf + off);
            if (count > 0) {
                int c = key_cmp(&o, prev, v);
                int bad = o.reverse ? (c < 0 || (o.strict && c == 0))
                                    : (c > 0 || (o.strict && c == 0));
                if (bad) {
                    fprintf(stderr, "gscheck: %s: key %llu: disorder: ", name,
                            (unsigned long long)count + 1);
                    print_value(stderr, &o, v);
                    fputs(" after ", stderr);
                    print_value(stderr, &o, prev);
                    fputc('\n', stderr);
                    return 1;
                }
            }
            prev = v;
            sum += v;
            count++;
        }
        have = len - whole;
        memmove(buf, buf + whole, have);
        if (got == 0)
            break;
    }
    if (ferror(in)) {
        fprintf(stderr, "gscheck: %s: read error\n", name);
        return 2;
    }
    if (have) {
        fprintf(stderr, "gscheck: %s: %zu bytes left over: not a whole number of "
                "%d-byte keys\n", name, have, o.width);
        return 2;
    }
    printf("%llu %llu\n", (unsigned long long)count, (unsigned long long)sum);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("gscheck: write error");
        return 2;
    }
    return 0;
}
