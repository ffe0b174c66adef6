/* SPDX-License-Identifier: MIT */
/* check_options.c: unit tests of cli/options.[ch]: SIZE parsing and resolution, and
 * opt_parse over argv arrays (defaults, every option, conflicts, bad values).
 * opt_parse uses getopt_long: optind is reset to 0 (glibc's full reset) before
 * every call. Usage errors may print to stderr; that is expected.
 */
#include <config.h>

#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <check.h>
#include "core/error.h"
#include "cli/options.h"
#include "check_suites.h"

/* ------------------------------------------------------------------------------ */
/* opt_parse_size                                                                  */

#define KiB UINT64_C(1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)
#define TiB (GiB * 1024)

struct size_case {
    const char *s;
    int percent;
    uint64_t value;
};

static const struct size_case good_sizes[] = {
    { "0", 0, 0 },
    { "1", 0, KiB },                       /* a bare number is KiB */
    { "10", 0, 10 * KiB },
    { "007", 0, 7 * KiB },
    { "0b", 0, 0 },
    { "1b", 0, 1 },
    { "12345b", 0, 12345 },
    { "0K", 0, 0 },
    { "1K", 0, KiB },
    { "1k", 0, KiB },
    { "3K", 0, 3 * KiB },
    { "1M", 0, MiB },
    { "1m", 0, MiB },
    { "300M", 0, 300 * MiB },
    { "1G", 0, GiB },
    { "1g", 0, GiB },
    { "5G", 0, 5 * GiB },
    { "1T", 0, TiB },
    { "1t", 0, TiB },
    { "2T", 0, 2 * TiB },
    { "0%", 1, 0 },
    { "1%", 1, 1 },
    { "50%", 1, 50 },
    { "100%", 1, 100 },
    /* just under 2^63 bytes with each suffix */
    { "9223372036854775807b", 0, UINT64_C(9223372036854775807) },
    { "9007199254740991K", 0, UINT64_C(9007199254740991) * KiB },
    { "9007199254740991", 0, UINT64_C(9007199254740991) * KiB },
    { "8796093022207M", 0, UINT64_C(8796093022207) * MiB },
    { "8589934591G", 0, UINT64_C(8589934591) * GiB },
    { "8388607T", 0, UINT64_C(8388607) * TiB },
};

START_TEST(test_options_parse_size_good)
{
    const struct size_case *c = &good_sizes[_i];
    size_arg_t out;
    memset(&out, 0xa5, sizeof out);
    ck_assert_msg(opt_parse_size(c->s, &out) == 0, "'%s' rejected", c->s);
    ck_assert_msg(out.set == 1, "'%s': set is %d", c->s, out.set);
    ck_assert_msg(out.percent == c->percent, "'%s': percent is %d", c->s, out.percent);
    ck_assert_msg(out.value == c->value, "'%s': value %llu, expected %llu", c->s,
                  (unsigned long long)out.value, (unsigned long long)c->value);
}
END_TEST

static const char *bad_sizes[] = {
    "", "abc", "K", "%", "b", "-1", "-1K", "-0%", "1.5", "1.5K", "10KB", "10Kb", "1KK",
    "1%%", "101%", "1000%", "18446744073709551616%", "1x", "1 ", "1 K", "0x10", "1e3",
    "1P", "1E",
    /* over 2^63 bytes */
    "9223372036854775809b", "18446744073709551615b", "18446744073709551616b",
    "99999999999999999999999999b", "9007199254740993K", "9007199254740993",
    "8796093022209M", "8589934593G", "8388609T", "16777216T", "18446744073709551615T",
    "99999999999999999999999999",
};

START_TEST(test_options_parse_size_bad)
{
    size_arg_t out;
    memset(&out, 0, sizeof out);
    ck_assert_msg(opt_parse_size(bad_sizes[_i], &out) == -1, "'%s' accepted (value %llu)",
                  bad_sizes[_i], (unsigned long long)out.value);
}
END_TEST

/* ------------------------------------------------------------------------------ */
/* opt_size_bytes                                                                  */

START_TEST(test_options_size_bytes)
{
    size_arg_t s;

    memset(&s, 0, sizeof s);           /* not given: the default, whatever the total */
    ck_assert_uint_eq(opt_size_bytes(&s, 1000, 777), 777);
    ck_assert_uint_eq(opt_size_bytes(&s, 0, 5), 5);

    s.set = 1;                         /* bytes: the value, whatever the total */
    s.percent = 0;
    s.value = 4096;
    ck_assert_uint_eq(opt_size_bytes(&s, 100, 777), 4096);
    s.value = 0;
    ck_assert_uint_eq(opt_size_bytes(&s, 100, 777), 0);

    s.percent = 1;                     /* a percentage of the total */
    s.value = 50;
    ck_assert_uint_eq(opt_size_bytes(&s, 1000, 777), 500);
    s.value = 100;
    ck_assert_uint_eq(opt_size_bytes(&s, 1000, 777), 1000);
    s.value = 0;
    ck_assert_uint_eq(opt_size_bytes(&s, 1000, 777), 0);
    s.value = 1;
    ck_assert_uint_eq(opt_size_bytes(&s, 12345600, 777), 123456);
    s.value = 25;
    ck_assert_uint_eq(opt_size_bytes(&s, UINT64_C(1) << 40, 777), UINT64_C(1) << 38);
    s.value = 75;
    ck_assert_uint_eq(opt_size_bytes(&s, UINT64_C(128) * GiB, 777), UINT64_C(96) * GiB);
    /* no overflow in total * percent for a large total */
    s.value = 100;
    ck_assert_uint_eq(opt_size_bytes(&s, UINT64_C(1) << 62, 777), UINT64_C(1) << 62);
    s.value = 50;
    ck_assert_uint_eq(opt_size_bytes(&s, UINT64_C(1) << 62, 777), UINT64_C(1) << 61);
    /* exact (rounded down), also where a double would round: totals past 2^53 */
    s.value = 100;
    ck_assert_uint_eq(opt_size_bytes(&s, (UINT64_C(1) << 62) + 1, 777), (UINT64_C(1) << 62) + 1);
    s.value = 50;
    ck_assert_uint_eq(opt_size_bytes(&s, (UINT64_C(1) << 62) + 2, 777), (UINT64_C(1) << 61) + 1);
    s.value = 99;
    ck_assert_uint_eq(opt_size_bytes(&s, UINT64_C(100000000000000001), 777),
                      UINT64_C(99000000000000000));
}
END_TEST

/* ------------------------------------------------------------------------------ */
/* opt_parse                                                                       */

/* argv lives here because opts_t keeps pointers into it (files). */
static char *argv_store[80];

/* Parse "gpusort" followed by the NULL-terminated arguments. */
static int parse(opts_t *o, ...)
{
    va_list ap;
    int argc = 0;
    argv_store[argc++] = (char *)"gpusort";
    va_start(ap, o);
    for (char *a = va_arg(ap, char *); a != NULL; a = va_arg(ap, char *)) {
        ck_assert_int_lt(argc, 78);
        argv_store[argc++] = a;
    }
    va_end(ap);
    argv_store[argc] = NULL;
    memset(o, 0, sizeof *o);
    optind = 0;
    return opt_parse(argc, argv_store, o);
}

static void check_defaults(const opts_t *o)
{
    ck_assert_int_eq(o->type, KEY_I64);
    ck_assert_int_eq(o->in_format, FMT_TEXT);
    ck_assert_int_eq(o->out_format, FMT_TEXT);
    ck_assert_int_eq(o->big_endian, 0);
    ck_assert_int_eq(o->reverse, 0);
    ck_assert_int_eq(o->unique, 0);
    ck_assert_int_eq(o->mode, MODE_SORT);
    ck_assert_ptr_null(o->output);
    ck_assert_int_eq(o->algorithm, ALGO_RADIX);
    ck_assert_int_eq(o->device, DEV_AUTO);
    ck_assert_int_eq(o->gpu_memory.set, 0);
    ck_assert_int_eq(o->buffer_size.set, 0);
    ck_assert_int_eq(o->ntmpdirs, 0);
    ck_assert_int_eq(o->compress, COMPRESS_AUTO);
    ck_assert_int_eq(o->threads, 0);   /* the default, resolved by opt_settings() */
    ck_assert_int_eq(o->progress, 0);
    ck_assert_int_eq(o->stats, 0);
    ck_assert_int_eq(o->nfiles, 0);
    ck_assert_int_eq(o->nkeys, 0);
    ck_assert_int_eq(o->field_sep, -1);
    ck_assert_int_eq(o->zero_terminated, 0);
    ck_assert_int_eq(o->header, 0);
    ck_assert_int_eq(o->record_size, 0);
}

START_TEST(test_options_defaults)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, NULL), GS_OK);
    check_defaults(&o);
}
END_TEST

/* The defaults are set by opt_parse, not inherited from a zeroed struct. */
START_TEST(test_options_defaults_not_from_caller)
{
    opts_t o;
    char *argv[2] = { (char *)"gpusort", NULL };
    memset(&o, 0x5a, sizeof o);
    optind = 0;
    ck_assert_int_eq(opt_parse(1, argv, &o), GS_OK);
    check_defaults(&o);
}
END_TEST

START_TEST(test_options_type)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "--type=u64", NULL), GS_OK);
    ck_assert_int_eq(o.type, KEY_U64);
    ck_assert_int_eq(parse(&o, "--type", "i64", NULL), GS_OK);
    ck_assert_int_eq(o.type, KEY_I64);
    ck_assert_int_eq(parse(&o, "--type=u32", "--type=i32", NULL), GS_OK);   /* last wins */
    ck_assert_int_eq(o.type, KEY_I32);
    ck_assert_int_eq(parse(&o, "--ty=u32", NULL), GS_OK);   /* an abbreviation */
    ck_assert_int_eq(o.type, KEY_U32);
    /* -t is sort's field separator, not the type: refused until records come */
    ck_assert_int_eq(parse(&o, "-t", "i32", NULL), GS_EUSAGE);
}
END_TEST

/* sort's global -b, -n and -g: kept for the keys that inherit them. */
START_TEST(test_options_sort_noops)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "-b", "-n", NULL), GS_OK);
    ck_assert(o.blanks == 1 && o.kind == KD_INT);
    ck_assert_int_eq(parse(&o, "-bn", NULL), GS_OK);
    ck_assert(o.blanks == 1 && o.kind == KD_INT);
    ck_assert_int_eq(parse(&o, "--numeric-sort", "--ignore-leading-blanks",
                           "--sort=numeric", NULL), GS_OK);
    ck_assert(o.blanks == 1 && o.kind == KD_INT);
    ck_assert_int_eq(parse(&o, "-g", NULL), GS_OK);
    ck_assert_int_eq(o.kind, KD_FLOAT);
    ck_assert_int_eq(parse(&o, "--sort=general-numeric", NULL), GS_OK);
    ck_assert_int_eq(o.kind, KD_FLOAT);
    ck_assert_int_eq(parse(&o, "--general-numeric-sort", NULL), GS_OK);
    ck_assert_int_eq(o.kind, KD_FLOAT);
    ck_assert_int_eq(parse(&o, "-bns", NULL), GS_OK);   /* -s: stable, for records */
    ck_assert_int_eq(o.stable, 1);
    ck_assert_int_eq(parse(&o, "--stable", NULL), GS_OK);
    ck_assert_int_eq(o.stable, 1);
}
END_TEST

/* -z and --header: on bare integers too; on binary keys, usage errors. */
START_TEST(test_options_lines)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "-z", NULL), GS_OK);
    ck_assert_int_eq(o.zero_terminated, 1);
    ck_assert_int_eq(parse(&o, "--header", "--zero-terminated", NULL), GS_OK);
    ck_assert_int_eq(o.header, 1);
    ck_assert_int_eq(o.zero_terminated, 1);
    ck_assert_int_eq(parse(&o, "-z", "--output-format=binary", NULL), GS_OK);  /* text in */
    ck_assert_int_eq(parse(&o, "-z", "-B", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "--header", "-B", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "--header", "--input-format=binary", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "--header", "--output-format=binary", NULL), GS_EUSAGE);
}
END_TEST

/* sort's other orderings, and records' letters alone: usage errors. */
static const char *refused_args[] = {
    "-d", "-f", "-h", "-i", "-M", "-R", "-V", "-t,",
    "--dictionary-order", "--ignore-case",
    "--human-numeric-sort", "--ignore-nonprinting", "--month-sort", "--random-sort",
    "--version-sort", "--random-source=x", "--field-separator=,",
    "--sort=month", "--sort=version", "--sort=random",
    "--sort=human-numeric", "--sort=bogus",
    "--p", "--st", "--ign",   /* ambiguous */
};

START_TEST(test_options_sort_refused)
{
    opts_t o;
    int rc = parse(&o, refused_args[_i], NULL);
    ck_assert_msg(rc == GS_EUSAGE, "'%s' gave %d, expected GS_EUSAGE", refused_args[_i], rc);
}
END_TEST

/* -k KEYDEF as sort reads it: F[.C][OPTS][,F2[.C2][OPTS]], the letters b (on the
 * start or the end), r, and n or g; plain: no letters at all. */
static const struct {
    const char *arg;
    keydef_t d;
    int plain;
} good_keys[] = {
    { "-k2", { 2, 1, 0, 0, 0, 0, 0, KD_TEXT }, 1 },
    { "-k2,2", { 2, 1, 2, 0, 0, 0, 0, KD_TEXT }, 1 },
    { "-k2,2n", { 2, 1, 2, 0, 0, 0, 0, KD_INT }, 0 },
    { "-k2n", { 2, 1, 0, 0, 0, 0, 0, KD_INT }, 0 },
    { "-k2,2bn", { 2, 1, 2, 0, 0, 1, 0, KD_INT }, 0 },
    { "-k2b,3", { 2, 1, 3, 0, 1, 0, 0, KD_TEXT }, 0 },
    { "-k2,2nr", { 2, 1, 2, 0, 0, 0, 1, KD_INT }, 0 },
    { "-k1gr", { 1, 1, 0, 0, 0, 0, 1, KD_FLOAT }, 0 },
    { "-k2.3,4.5", { 2, 3, 4, 5, 0, 0, 0, KD_TEXT }, 1 },
    { "-k2.3b,4.0", { 2, 3, 4, 0, 1, 0, 0, KD_TEXT }, 0 },
    { "-k3,2", { 3, 1, 2, 0, 0, 0, 0, KD_TEXT }, 1 },
    { "--key=12,12", { 12, 1, 12, 0, 0, 0, 0, KD_TEXT }, 1 },
    { "-k007", { 7, 1, 0, 0, 0, 0, 0, KD_TEXT }, 1 },
};

START_TEST(test_options_key_good)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, good_keys[_i].arg, NULL), GS_OK);
    ck_assert_int_eq(o.nkeys, 1);
    const keydef_t *d = &o.keys[0], *w = &good_keys[_i].d;
    ck_assert_msg(d->sfield == w->sfield && d->schar == w->schar && d->efield == w->efield &&
                  d->echar == w->echar && d->skip_sblanks == w->skip_sblanks &&
                  d->skip_eblanks == w->skip_eblanks && d->reverse == w->reverse &&
                  d->kind == w->kind, "%s: parsed as %d.%d,%d.%d b%d/%d r%d kind %d",
                  good_keys[_i].arg, d->sfield, d->schar, d->efield, d->echar,
                  d->skip_sblanks, d->skip_eblanks, d->reverse, (int)d->kind);
    ck_assert_int_eq(o.key_plain[0], good_keys[_i].plain);
}
END_TEST

/* Several keys, in order; the global -b -r -n -g inherited by the plain ones only
 * (opt_settings). */
START_TEST(test_options_keys_inherit)
{
    opts_t o;
    settings_t s;
    ck_assert_int_eq(parse(&o, "-r", "-b", "-n", "-k3", "-k1,1r", "-k2g", NULL), GS_OK);
    ck_assert_int_eq(o.nkeys, 3);
    ck_assert_int_eq(opt_settings(&o, &s), GS_OK);
    ck_assert_int_eq(s.nkeys, 3);
    ck_assert(s.keys[0].reverse && s.keys[0].skip_sblanks && s.keys[0].skip_eblanks &&
              s.keys[0].kind == KD_INT);
    ck_assert(s.keys[1].reverse && !s.keys[1].skip_sblanks && s.keys[1].kind == KD_TEXT);
    ck_assert(!s.keys[2].reverse && !s.keys[2].skip_sblanks && s.keys[2].kind == KD_FLOAT);
    ck_assert_int_eq(s.reverse, 1);   /* the last resort's */
    opt_settings_free(&s);
    ck_assert_int_eq(parse(&o, "-g", "-k1", NULL), GS_OK);
    ck_assert_int_eq(opt_settings(&o, &s), GS_OK);
    ck_assert_int_eq(s.keys[0].kind, KD_FLOAT);
    opt_settings_free(&s);
}
END_TEST

static const char *bad_keys[] = {
    "-k0", "-k", "-kx", "-k2,", "-k2,0", "-k2.0", "-k2.", "-k2,2.", "-k2,2f", "-k2,2x",
    "-k2,2nq", "-k2,2,2", "-k99999999999", "-k2ng", "-k2g,2n", "-n -g", "-k2,2M",
};

START_TEST(test_options_key_bad)
{
    opts_t o;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", bad_keys[_i]);
    char *space = strchr(buf, ' ');
    int rc;
    if (space) {   /* two options */
        *space = '\0';
        rc = parse(&o, buf, space + 1, NULL);
    } else {
        rc = parse(&o, buf, NULL);
    }
    ck_assert_msg(rc == GS_EUSAGE, "'%s' gave %d, expected GS_EUSAGE", bad_keys[_i], rc);
}
END_TEST

/* -t, -z, --header with -k; binary records with -B. */
START_TEST(test_options_records)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "-t,", "-k2", NULL), GS_OK);
    ck_assert_int_eq(o.field_sep, ',');
    ck_assert_int_eq(parse(&o, "-t", "\\0", "-k2", NULL), GS_OK);
    ck_assert_int_eq(o.field_sep, 0);
    ck_assert_int_eq(parse(&o, "-z", "--header", "-k1", NULL), GS_OK);
    ck_assert_int_eq(o.zero_terminated, 1);
    ck_assert_int_eq(o.header, 1);
    ck_assert_int_eq(parse(&o, "-t", "", "-k2", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "-t", "ab", "-k2", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "-t", "u32", "-k2", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "-B", "-k2", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "-B", "--record-size=16", "--key-offset=8", NULL), GS_OK);
    ck_assert_int_eq(o.record_size, 16);
    ck_assert_int_eq(o.key_offset, 8);
    ck_assert_int_eq(parse(&o, "-B", "--record-size=16", "--key-offset=9", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "-B", "--type=u32", "--record-size=16", "--key-offset=12",
                           NULL), GS_OK);
    ck_assert_int_eq(parse(&o, "-B", "--record-size=0", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "-B", "--record-size=x", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "--record-size=16", NULL), GS_EUSAGE);   /* text */
    ck_assert_int_eq(parse(&o, "-B", "--output-format=text", "--record-size=16", NULL),
                     GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "-B", "--key-offset=0", NULL), GS_EUSAGE);
}
END_TEST

START_TEST(test_options_formats)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "-B", NULL), GS_OK);
    ck_assert_int_eq(o.in_format, FMT_BINARY);
    ck_assert_int_eq(o.out_format, FMT_BINARY);
    ck_assert_int_eq(parse(&o, "--binary", NULL), GS_OK);
    ck_assert_int_eq(o.in_format, FMT_BINARY);
    ck_assert_int_eq(o.out_format, FMT_BINARY);

    ck_assert_int_eq(parse(&o, "--input-format=binary", NULL), GS_OK);
    ck_assert_int_eq(o.in_format, FMT_BINARY);
    ck_assert_int_eq(o.out_format, FMT_TEXT);
    ck_assert_int_eq(parse(&o, "--output-format=binary", NULL), GS_OK);
    ck_assert_int_eq(o.in_format, FMT_TEXT);
    ck_assert_int_eq(o.out_format, FMT_BINARY);

    /* an explicit side after -B overrides that side only */
    ck_assert_int_eq(parse(&o, "-B", "--input-format=text", NULL), GS_OK);
    ck_assert_int_eq(o.in_format, FMT_TEXT);
    ck_assert_int_eq(o.out_format, FMT_BINARY);
    ck_assert_int_eq(parse(&o, "-B", "--output-format=text", NULL), GS_OK);
    ck_assert_int_eq(o.in_format, FMT_BINARY);
    ck_assert_int_eq(o.out_format, FMT_TEXT);
    ck_assert_int_eq(parse(&o, "--binary", "--output-format", "text", NULL), GS_OK);
    ck_assert_int_eq(o.in_format, FMT_BINARY);
    ck_assert_int_eq(o.out_format, FMT_TEXT);
}
END_TEST

START_TEST(test_options_endian)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "--endian=big", NULL), GS_OK);
    ck_assert_int_eq(o.big_endian, 1);
    ck_assert_int_eq(parse(&o, "--endian=little", NULL), GS_OK);
    ck_assert_int_eq(o.big_endian, 0);
    ck_assert_int_eq(parse(&o, "--endian=big", "--endian=little", NULL), GS_OK);
    ck_assert_int_eq(o.big_endian, 0);
}
END_TEST

START_TEST(test_options_flags)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "-r", NULL), GS_OK);
    ck_assert_int_eq(o.reverse, 1);
    ck_assert_int_eq(o.unique, 0);
    ck_assert_int_eq(parse(&o, "--reverse", NULL), GS_OK);
    ck_assert_int_eq(o.reverse, 1);
    ck_assert_int_eq(parse(&o, "-u", NULL), GS_OK);
    ck_assert_int_eq(o.unique, 1);
    ck_assert_int_eq(o.reverse, 0);
    ck_assert_int_eq(parse(&o, "--unique", NULL), GS_OK);
    ck_assert_int_eq(o.unique, 1);
    ck_assert_int_eq(parse(&o, "-ru", NULL), GS_OK);
    ck_assert_int_eq(o.reverse, 1);
    ck_assert_int_eq(o.unique, 1);
    ck_assert_int_eq(parse(&o, "--progress", NULL), GS_OK);
    ck_assert_int_eq(o.progress, 1);
    ck_assert_int_eq(o.stats, 0);
    ck_assert_int_eq(parse(&o, "--stats", NULL), GS_OK);
    ck_assert_int_eq(o.stats, 1);
    ck_assert_int_eq(o.progress, 0);
}
END_TEST

START_TEST(test_options_modes)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "-m", NULL), GS_OK);
    ck_assert_int_eq(o.mode, MODE_MERGE);
    ck_assert_int_eq(parse(&o, "--merge", "a", "b", "c", NULL), GS_OK);
    ck_assert_int_eq(o.mode, MODE_MERGE);
    ck_assert_int_eq(o.nfiles, 3);
    ck_assert_int_eq(parse(&o, "-c", NULL), GS_OK);
    ck_assert_int_eq(o.mode, MODE_CHECK);
    ck_assert_int_eq(parse(&o, "--check", "f", NULL), GS_OK);
    ck_assert_int_eq(o.mode, MODE_CHECK);
    ck_assert_int_eq(o.nfiles, 1);
    ck_assert_int_eq(parse(&o, "-C", NULL), GS_OK);
    ck_assert_int_eq(o.mode, MODE_CHECK_QUIET);
    ck_assert_int_eq(parse(&o, "--check=quiet", NULL), GS_OK);
    ck_assert_int_eq(o.mode, MODE_CHECK_QUIET);
    ck_assert_int_eq(parse(&o, "-C", "-", NULL), GS_OK);
    ck_assert_int_eq(o.mode, MODE_CHECK_QUIET);
    ck_assert_int_eq(o.nfiles, 1);
}
END_TEST

START_TEST(test_options_check_conflicts)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "-c", "-o", "out", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "-o", "out", "--check", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "-C", "--output=out", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "-c", "a", "b", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "-C", "a", "b", NULL), GS_EUSAGE);
    ck_assert_int_eq(parse(&o, "--check=quiet", "a", "-", NULL), GS_EUSAGE);
}
END_TEST

START_TEST(test_options_output_and_tmpdir)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "-o", "out.txt", NULL), GS_OK);
    ck_assert_str_eq(o.output, "out.txt");
    ck_assert_int_eq(parse(&o, "--output=o2", NULL), GS_OK);
    ck_assert_str_eq(o.output, "o2");
    ck_assert_int_eq(parse(&o, "-oo3", NULL), GS_OK);
    ck_assert_str_eq(o.output, "o3");
    ck_assert_int_eq(parse(&o, "-T", "/var/tmp", NULL), GS_OK);
    ck_assert_int_eq(o.ntmpdirs, 1);
    ck_assert_str_eq(o.tmpdirs[0], "/var/tmp");
    ck_assert_int_eq(parse(&o, "--temporary-directory=/x/y", NULL), GS_OK);
    ck_assert_str_eq(o.tmpdirs[0], "/x/y");
    /* several -T: every one kept, in order (the runs are spread over them) */
    ck_assert_int_eq(parse(&o, "-T", "/a", "-T/b", "--temporary-directory=/c", NULL), GS_OK);
    ck_assert_int_eq(o.ntmpdirs, 3);
    ck_assert_str_eq(o.tmpdirs[0], "/a");
    ck_assert_str_eq(o.tmpdirs[1], "/b");
    ck_assert_str_eq(o.tmpdirs[2], "/c");
}
END_TEST

START_TEST(test_options_algorithm)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "-a", "bitonic", NULL), GS_OK);
    ck_assert_int_eq(o.algorithm, ALGO_BITONIC);
    ck_assert_int_eq(parse(&o, "--algorithm=radix", NULL), GS_OK);
    ck_assert_int_eq(o.algorithm, ALGO_RADIX);
    ck_assert_int_eq(parse(&o, "--algorithm=bitonic", NULL), GS_OK);
    ck_assert_int_eq(o.algorithm, ALGO_BITONIC);
}
END_TEST

START_TEST(test_options_device)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "--device=cpu", NULL), GS_OK);
    ck_assert_int_eq(o.device, DEV_CPU);
    ck_assert_int_eq(parse(&o, "--device=all", NULL), GS_OK);
    ck_assert_int_eq(o.device, DEV_ALL);
    ck_assert_int_eq(parse(&o, "--device=cpu", "--device=auto", NULL), GS_OK);
    ck_assert_int_eq(o.device, DEV_AUTO);

    ck_assert_int_eq(parse(&o, "--device=0,2", NULL), GS_OK);
    ck_assert_int_eq(o.device, DEV_LIST);
    ck_assert_int_eq(o.ndevices, 2);
    ck_assert_int_eq(o.devices[0], 0);
    ck_assert_int_eq(o.devices[1], 2);

    ck_assert_int_eq(parse(&o, "--device", "3", NULL), GS_OK);
    ck_assert_int_eq(o.device, DEV_LIST);
    ck_assert_int_eq(o.ndevices, 1);
    ck_assert_int_eq(o.devices[0], 3);

    ck_assert_int_eq(parse(&o, "--device=7,1,12", NULL), GS_OK);
    ck_assert_int_eq(o.device, DEV_LIST);
    ck_assert_int_eq(o.ndevices, 3);
    ck_assert_int_eq(o.devices[0], 7);
    ck_assert_int_eq(o.devices[1], 1);
    ck_assert_int_eq(o.devices[2], 12);
}
END_TEST

START_TEST(test_options_sizes)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "-S", "1G", NULL), GS_OK);
    ck_assert_int_eq(o.buffer_size.set, 1);
    ck_assert_int_eq(o.buffer_size.percent, 0);
    ck_assert_uint_eq(o.buffer_size.value, GiB);
    ck_assert_int_eq(o.gpu_memory.set, 0);

    ck_assert_int_eq(parse(&o, "--buffer-size=50%", NULL), GS_OK);
    ck_assert_int_eq(o.buffer_size.set, 1);
    ck_assert_int_eq(o.buffer_size.percent, 1);
    ck_assert_uint_eq(o.buffer_size.value, 50);

    ck_assert_int_eq(parse(&o, "-S100", NULL), GS_OK);
    ck_assert_uint_eq(o.buffer_size.value, 100 * KiB);

    ck_assert_int_eq(parse(&o, "--gpu-memory=512M", NULL), GS_OK);
    ck_assert_int_eq(o.gpu_memory.set, 1);
    ck_assert_int_eq(o.gpu_memory.percent, 0);
    ck_assert_uint_eq(o.gpu_memory.value, 512 * MiB);
    ck_assert_int_eq(o.buffer_size.set, 0);

    ck_assert_int_eq(parse(&o, "--gpu-memory", "90%", NULL), GS_OK);
    ck_assert_int_eq(o.gpu_memory.set, 1);
    ck_assert_int_eq(o.gpu_memory.percent, 1);
    ck_assert_uint_eq(o.gpu_memory.value, 90);
}
END_TEST

START_TEST(test_options_compress_and_parallel)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "--compress-temp=lz4", NULL), GS_OK);
    ck_assert_int_eq(o.compress, COMPRESS_LZ4);
    ck_assert_int_eq(parse(&o, "--compress-temp=none", NULL), GS_OK);
    ck_assert_int_eq(o.compress, COMPRESS_NONE);
    ck_assert_int_eq(parse(&o, "--compress-temp=none", "--compress-temp=auto", NULL), GS_OK);
    ck_assert_int_eq(o.compress, COMPRESS_AUTO);

    ck_assert_int_eq(parse(&o, "--parallel=1", NULL), GS_OK);
    ck_assert_int_eq(o.threads, 1);
    ck_assert_int_eq(parse(&o, "--parallel=3", NULL), GS_OK);
    ck_assert_int_eq(o.threads, 3);
    ck_assert_int_eq(parse(&o, "--parallel", "64", NULL), GS_OK);
    ck_assert_int_eq(o.threads, 64);
}
END_TEST

START_TEST(test_options_files)
{
    opts_t o;
    ck_assert_int_eq(parse(&o, "a", "-", "b", NULL), GS_OK);
    ck_assert_int_eq(o.nfiles, 3);
    ck_assert_str_eq(o.files[0], "a");
    ck_assert_str_eq(o.files[1], "-");
    ck_assert_str_eq(o.files[2], "b");

    /* options after operands (GNU permutation) */
    ck_assert_int_eq(parse(&o, "a", "-r", "b", NULL), GS_OK);
    ck_assert_int_eq(o.reverse, 1);
    ck_assert_int_eq(o.nfiles, 2);
    ck_assert_str_eq(o.files[0], "a");
    ck_assert_str_eq(o.files[1], "b");

    /* "--" ends the options */
    ck_assert_int_eq(parse(&o, "--", "-r", NULL), GS_OK);
    ck_assert_int_eq(o.reverse, 0);
    ck_assert_int_eq(o.nfiles, 1);
    ck_assert_str_eq(o.files[0], "-r");
}
END_TEST

/* Every bad option value, and unknown options: GS_EUSAGE. */
static const char *bad_args[][3] = {
    { "--type=x", NULL, NULL },
    { "--type=i16", NULL, NULL },
    { "--type=", NULL, NULL },
    { "--type", "u128", NULL },
    { "--endian=middle", NULL, NULL },
    { "--endian=", NULL, NULL },
    { "--algorithm=quick", NULL, NULL },
    { "-a", "x", NULL },
    { "--device=x", NULL, NULL },
    { "--device=-1", NULL, NULL },
    { "--device=0,,1", NULL, NULL },
    { "--device=", NULL, NULL },
    { "--device=0,", NULL, NULL },
    { "--device=,0", NULL, NULL },
    { "--device=1a", NULL, NULL },
    { "--device=cpu,0", NULL, NULL },
    { "--device=0,-2", NULL, NULL },
    { "--device=99999999999999999999", NULL, NULL },
    { "--compress-temp=zstd", NULL, NULL },
    { "--compress-temp=", NULL, NULL },
    { "--parallel=0", NULL, NULL },
    { "--parallel=-1", NULL, NULL },
    { "--parallel=abc", NULL, NULL },
    { "--parallel=", NULL, NULL },
    { "--parallel=2x", NULL, NULL },
    { "--parallel=99999999999999999999", NULL, NULL },
    { "-S", "", NULL },
    { "-S", "abc", NULL },
    { "-S", "-5", NULL },
    { "-S", "1.5G", NULL },
    { "-S", "10KB", NULL },
    { "--buffer-size=101%", NULL, NULL },
    { "--gpu-memory=x", NULL, NULL },
    { "--gpu-memory=", NULL, NULL },
    { "--gpu-memory=200%", NULL, NULL },
    { "--gpu-memory=9999999999999999999999", NULL, NULL },
    { "--input-format=csv", NULL, NULL },
    { "--output-format=", NULL, NULL },
    { "--check=bogus", NULL, NULL },
    { "--frobnicate", NULL, NULL },
    { "-Z", NULL, NULL },
    { "--reverse=yes", NULL, NULL },
    { "-S", NULL, NULL },          /* missing argument */
    { "-o", NULL, NULL },
    { "--type", NULL, NULL },
};

START_TEST(test_options_bad_values)
{
    opts_t o;
    const char *const *a = bad_args[_i];
    int rc = parse(&o, a[0], a[1], a[2], NULL);
    ck_assert_msg(rc == GS_EUSAGE, "'%s %s' gave %d, expected GS_EUSAGE", a[0],
                  a[1] ? a[1] : "", rc);
}
END_TEST

/* More device numbers than opts_t can hold: an error, not an overflow. */
START_TEST(test_options_device_list_too_long)
{
    opts_t o;
    char list[8 * (GS_MAX_DEVICES + 2)] = "--device=";
    for (int d = 0; d <= GS_MAX_DEVICES; d++) {
        char num[16];
        snprintf(num, sizeof num, d ? ",%d" : "%d", d);
        strcat(list, num);
    }
    ck_assert_int_eq(parse(&o, list, NULL), GS_EUSAGE);
}
END_TEST

/* --help and --version: GS_EXIT_OK (their text on stdout, sent to /dev/null here). */
START_TEST(test_options_help_version)
{
    opts_t o;
    int saved = dup(STDOUT_FILENO);
    int null = open("/dev/null", O_WRONLY);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_ge(null, 0);
    fflush(stdout);
    dup2(null, STDOUT_FILENO);
    int rc_help = parse(&o, "--help", NULL);
    int rc_version = parse(&o, "--version", NULL);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(null);
    close(saved);
    ck_assert_int_eq(rc_help, GS_EXIT_OK);
    ck_assert_int_eq(rc_version, GS_EXIT_OK);
}
END_TEST

Suite *make_options_suite(void)
{
    Suite *s = suite_create("options");
    TCase *tc = ck_tcase("size");
    tcase_add_loop_test(tc, test_options_parse_size_good, 0,
                        (int)(sizeof good_sizes / sizeof good_sizes[0]));
    tcase_add_loop_test(tc, test_options_parse_size_bad, 0,
                        (int)(sizeof bad_sizes / sizeof bad_sizes[0]));
    tcase_add_test(tc, test_options_size_bytes);
    suite_add_tcase(s, tc);

    tc = ck_tcase("parse");
    tcase_add_test(tc, test_options_defaults);
    tcase_add_test(tc, test_options_defaults_not_from_caller);
    tcase_add_test(tc, test_options_type);
    tcase_add_test(tc, test_options_sort_noops);
    tcase_add_test(tc, test_options_lines);
    tcase_add_loop_test(tc, test_options_sort_refused, 0,
                        (int)(sizeof refused_args / sizeof refused_args[0]));
    tcase_add_loop_test(tc, test_options_key_good, 0,
                        (int)(sizeof good_keys / sizeof good_keys[0]));
    tcase_add_test(tc, test_options_keys_inherit);
    tcase_add_loop_test(tc, test_options_key_bad, 0,
                        (int)(sizeof bad_keys / sizeof bad_keys[0]));
    tcase_add_test(tc, test_options_records);
    tcase_add_test(tc, test_options_formats);
    tcase_add_test(tc, test_options_endian);
    tcase_add_test(tc, test_options_flags);
    tcase_add_test(tc, test_options_modes);
    tcase_add_test(tc, test_options_check_conflicts);
    tcase_add_test(tc, test_options_output_and_tmpdir);
    tcase_add_test(tc, test_options_algorithm);
    tcase_add_test(tc, test_options_device);
    tcase_add_test(tc, test_options_sizes);
    tcase_add_test(tc, test_options_compress_and_parallel);
    tcase_add_test(tc, test_options_files);
    tcase_add_loop_test(tc, test_options_bad_values, 0,
                        (int)(sizeof bad_args / sizeof bad_args[0]));
    tcase_add_test(tc, test_options_device_list_too_long);
    tcase_add_test(tc, test_options_help_version);
    suite_add_tcase(s, tc);
    return s;
}
