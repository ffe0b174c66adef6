/* SPDX-License-Identifier: MIT */
/* options.c: getopt_long over the contract's options, into an opts_t.
 *
 * Messages are our own (opterr = 0), so every usage error reads "gpusort: ..."
 * whatever argv[0] is. Values are checked here; what depends on the machine (a GPU
 * that does not exist, say) is checked by run(). The keys' options (-k, -t) are
 * parsed by keyopt.c, SIZE arguments by size.c.
 */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "cli/options.h"
#include "cli/options_impl.h"

/* Long-only options, numbered above CHAR_MAX. */
enum {
    OPT_INPUT_FORMAT = CHAR_MAX + 1,
    OPT_OUTPUT_FORMAT,
    OPT_TYPE,
    OPT_ENDIAN,
    OPT_DEVICE,
    OPT_GPU_MEMORY,
    OPT_COMPRESS_TEMP,
    OPT_PARALLEL,
    OPT_PROGRESS,
    OPT_STATS,
    OPT_SORT,
    OPT_RANDOM_SOURCE,
    OPT_HEADER,
    OPT_RECORD_SIZE,
    OPT_KEY_OFFSET,
    OPT_HELP,
    OPT_VERSION,
};

/* sort's letters keep sort's meaning: -b, -n and -s are accepted (integers have no
 * leading blanks that count, compare only numerically, and equal keys print alike);
 * the orderings of other things than integers are refused; -k, -t and -z (records)
 * are refused until records are supported. */
static const char short_options[] = "BbnsrucCmo:a:S:T:dfghiMRVk:t:z";

static const struct option long_options[] = {
    { "binary", no_argument, NULL, 'B' },
    { "input-format", required_argument, NULL, OPT_INPUT_FORMAT },
    { "output-format", required_argument, NULL, OPT_OUTPUT_FORMAT },
    { "type", required_argument, NULL, OPT_TYPE },
    { "endian", required_argument, NULL, OPT_ENDIAN },
    { "output", required_argument, NULL, 'o' },
    { "reverse", no_argument, NULL, 'r' },
    { "unique", no_argument, NULL, 'u' },
    { "check", optional_argument, NULL, 'c' },
    { "merge", no_argument, NULL, 'm' },
    { "numeric-sort", no_argument, NULL, 'n' },
    { "ignore-leading-blanks", no_argument, NULL, 'b' },
    { "stable", no_argument, NULL, 's' },
    { "sort", required_argument, NULL, OPT_SORT },
    { "dictionary-order", no_argument, NULL, 'd' },
    { "ignore-case", no_argument, NULL, 'f' },
    { "general-numeric-sort", no_argument, NULL, 'g' },
    { "human-numeric-sort", no_argument, NULL, 'h' },
    { "ignore-nonprinting", no_argument, NULL, 'i' },
    { "month-sort", no_argument, NULL, 'M' },
    { "random-sort", no_argument, NULL, 'R' },
    { "random-source", required_argument, NULL, OPT_RANDOM_SOURCE },
    { "version-sort", no_argument, NULL, 'V' },
    { "key", required_argument, NULL, 'k' },
    { "field-separator", required_argument, NULL, 't' },
    { "zero-terminated", no_argument, NULL, 'z' },
    { "header", no_argument, NULL, OPT_HEADER },
    { "record-size", required_argument, NULL, OPT_RECORD_SIZE },
    { "key-offset", required_argument, NULL, OPT_KEY_OFFSET },
    { "algorithm", required_argument, NULL, 'a' },
    { "device", required_argument, NULL, OPT_DEVICE },
    { "gpu-memory", required_argument, NULL, OPT_GPU_MEMORY },
    { "buffer-size", required_argument, NULL, 'S' },
    { "temporary-directory", required_argument, NULL, 'T' },
    { "compress-temp", required_argument, NULL, OPT_COMPRESS_TEMP },
    { "parallel", required_argument, NULL, OPT_PARALLEL },
    { "progress", no_argument, NULL, OPT_PROGRESS },
    { "stats", no_argument, NULL, OPT_STATS },
    { "help", no_argument, NULL, OPT_HELP },
    { "version", no_argument, NULL, OPT_VERSION },
    { NULL, 0, NULL, 0 },
};

/* ---- option values -------------------------------------------------------------- */

static int opt_bad(const char *option, const char *value)
{
    return err_set(GS_EUSAGE, "invalid argument '%s' for '%s'", value, option);
}

/* opt_bad for an option that takes one of a few words: the message lists them
 * (valid, e.g. "little, big"), on the same line. */
static int opt_bad_word(const char *option, const char *value, const char *valid)
{
    return err_set(GS_EUSAGE, "invalid argument '%s' for '%s'; valid arguments: %s", value,
                   option, valid);
}

static int opt_format(const char *option, const char *v, format_t *f)
{
    if (strcmp(v, "text") == 0)
        *f = FMT_TEXT;
    else if (strcmp(v, "binary") == 0)
        *f = FMT_BINARY;
    else
        return opt_bad_word(option, v, "text, binary");
    return GS_OK;
}

/* --device's words, for its message. */
#define OPT_DEVICE_VALID "auto, cpu, all, or distinct GPU numbers N[,N...]"

/* "auto", "cpu", "all", or a comma-separated list of distinct device numbers. */
static int opt_device(const char *v, opts_t *o)
{
    if (strcmp(v, "auto") == 0) {
        o->device = DEV_AUTO;
        return GS_OK;
    }
    if (strcmp(v, "cpu") == 0) {
        o->device = DEV_CPU;
        return GS_OK;
    }
    if (strcmp(v, "all") == 0) {
        o->device = DEV_ALL;
        return GS_OK;
    }
    o->device = DEV_LIST;
    o->ndevices = 0;
    const char *p = v;
    for (;;) {
        if (*p < '0' || *p > '9' || o->ndevices == GS_MAX_DEVICES)
            return opt_bad_word("--device", v, OPT_DEVICE_VALID);
        char *end;
        errno = 0;
        unsigned long d = strtoul(p, &end, 10);
        if (errno || d >= 1024)
            return opt_bad_word("--device", v, OPT_DEVICE_VALID);
        for (int i = 0; i < o->ndevices; i++)
            if (o->devices[i] == (int)d)
                return opt_bad_word("--device", v, OPT_DEVICE_VALID);
        o->devices[o->ndevices++] = (int)d;
        if (*end == '\0')
            return GS_OK;
        if (*end != ',')
            return opt_bad_word("--device", v, OPT_DEVICE_VALID);
        p = end + 1;
    }
}

static int opt_threads(const char *v, int *threads)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (*v < '0' || *v > '9' || *end || errno || n < 1 || n > GS_MAX_THREADS)
        return opt_bad("--parallel", v);
    *threads = (int)n;
    return GS_OK;
}

/* sort's options that order other things than integers: each refused with a message
 * naming both spellings (opt_refused_t, options_impl.h). */
const opt_refused_t opt_refused[] = {
    { 'd', "-d (--dictionary-order)", "compares text by its letters and blanks only" },
    { 'f', "-f (--ignore-case)", "folds lower case to upper" },
    { 'h', "-h (--human-numeric-sort)", "compares sizes such as 2K and 1G" },
    { 'i', "-i (--ignore-nonprinting)", "compares text by its printable bytes only" },
    { 'M', "-M (--month-sort)", "compares month names" },
    { 'R', "-R (--random-sort)", "shuffles" },
    { OPT_RANDOM_SOURCE, "--random-source", "shuffles" },
    { 'V', "-V (--version-sort)", "compares version strings" },
};
const size_t opt_nrefused = sizeof opt_refused / sizeof opt_refused[0];

/* The refusal of c, or GS_OK where c is not refused. */
static int opt_refuse(int c)
{
    for (size_t i = 0; i < sizeof opt_refused / sizeof opt_refused[0]; i++)
        if (opt_refused[i].c == c)
            return err_set(GS_EUSAGE, "%s %s: gpusort compares text bytewise, integers and "
                           "floating-point numbers; use sort(1)", opt_refused[i].name,
                           opt_refused[i].why);
    return GS_OK;
}

/* A byte count for --record-size or --key-offset: digits only. */
static int opt_bytes(const char *name, const char *arg, uint64_t min, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(arg, &end, 10);
    if (!isdigit((unsigned char)arg[0]) || *end || errno || n < min || n > (1ull << 30))
        return opt_bad(name, arg);
    *v = n;
    return GS_OK;
}

/* The global kind: -n (KD_INT) or -g (KD_FLOAT), not both, as sort says. */
static int opt_kind(opts_t *o, kd_kind_t kind)
{
    if (o->kind != KD_TEXT && o->kind != kind)
        return err_set(GS_EUSAGE, "options '-gn' are incompatible");
    o->kind = kind;
    return GS_OK;
}

/* --sort=WORD: numeric (-n) or general-numeric (-g); sort's other words are refused
 * as their letters are. */
static int opt_sort_word(const char *v, opts_t *o)
{
    static const struct { const char *word; int c; } words[] = {
        { "human-numeric", 'h' }, { "month", 'M' }, { "random", 'R' }, { "version", 'V' },
    };
    if (strcmp(v, "numeric") == 0)
        return opt_kind(o, KD_INT);
    if (strcmp(v, "general-numeric") == 0)
        return opt_kind(o, KD_FLOAT);
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(v, words[i].word) == 0)
            return opt_refuse(words[i].c);
    return opt_bad("--sort", v);
}

/* An abbreviated long option that getopt_long() found ambiguous (it returns '?' for
 * that as for an unknown one): the GNU message, with the candidates. GS_OK where arg
 * is not an ambiguous abbreviation. */
static int opt_ambiguous(const char *arg)
{
    if (strncmp(arg, "--", 2) != 0)
        return GS_OK;
    const char *name = arg + 2;
    size_t len = strcspn(name, "=");
    int matches = 0;
    char list[1024] = "";
    for (const struct option *l = long_options; l->name; l++) {
        if (strncmp(l->name, name, len) != 0)
            continue;
        if (strlen(l->name) == len)
            return GS_OK;   /* an exact match is never ambiguous */
        matches++;
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, " '--%s'", l->name);
    }
    if (matches < 2)
        return GS_OK;
    return err_set(GS_EUSAGE, "option '--%.*s' is ambiguous; possibilities:%s", (int)len,
                   name, list);
}

static void opt_defaults(opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->type = KEY_I64;
    o->type_name = "i64";
    o->in_format = o->out_format = FMT_TEXT;
    o->mode = MODE_SORT;
    o->algorithm = ALGO_RADIX;
    o->device = DEV_AUTO;
    o->compress = COMPRESS_AUTO;
    o->field_sep = -1;
}

/* What --help and --version print (opt_serve_with). */
static void (*opt_usage_fn)(void) = opt_usage;
static void (*opt_version_fn)(void) = opt_version;

void opt_serve_with(void (*usage)(void), void (*version)(void))
{
    opt_usage_fn = usage;
    opt_version_fn = version;
}

/* One option. Returns GS_OK or GS_EUSAGE; GS_EXIT_OK for --help and --version. */
static int opt_one(int c, const char *arg, char **argv, opts_t *o)
{
    switch (c) {
    case 'B':
        o->in_format = o->out_format = FMT_BINARY;
        return GS_OK;
    case 'b':
        o->blanks = 1;
        return GS_OK;
    case 'n':
        return opt_kind(o, KD_INT);
    case 'g':
        return opt_kind(o, KD_FLOAT);
    case 's':
        o->stable = 1;
        return GS_OK;
    case 'k':
        return opt_key(arg, o);
    case 't':
        return opt_separator(arg, o);
    case 'z':
        o->zero_terminated = 1;
        return GS_OK;
    case OPT_HEADER:
        o->header = 1;
        return GS_OK;
    case OPT_RECORD_SIZE:
        return opt_bytes("--record-size", arg, 1, &o->record_size);
    case OPT_KEY_OFFSET:
        o->key_offset_set = 1;
        return opt_bytes("--key-offset", arg, 0, &o->key_offset);
    case OPT_SORT:
        return opt_sort_word(arg, o);
    case 'd': case 'f': case 'h': case 'i': case 'M': case 'R': case 'V':
    case OPT_RANDOM_SOURCE:
        return opt_refuse(c);
    case OPT_INPUT_FORMAT:
        return opt_format("--input-format", arg, &o->in_format);
    case OPT_OUTPUT_FORMAT:
        return opt_format("--output-format", arg, &o->out_format);
    case OPT_TYPE:
        o->type_name = arg;
        return key_type_parse_any(arg, &o->type, &o->key_bytes) == 0
                   ? GS_OK : opt_bad_word("--type", arg, key_type_names());
    case OPT_ENDIAN:
        if (strcmp(arg, "little") == 0)
            o->big_endian = 0;
        else if (strcmp(arg, "big") == 0)
            o->big_endian = 1;
        else
            return opt_bad_word("--endian", arg, "little, big");
        return GS_OK;
    case 'o':
        if (!*arg)
            return opt_bad("--output", arg);
        o->output = arg;
        return GS_OK;
    case 'r':
        o->reverse = 1;
        return GS_OK;
    case 'u':
        o->unique = 1;
        return GS_OK;
    case 'c':
        if (!arg || strcmp(arg, "diagnose-first") == 0)
            o->mode = MODE_CHECK;
        else if (strcmp(arg, "quiet") == 0 || strcmp(arg, "silent") == 0)
            o->mode = MODE_CHECK_QUIET;
        else
            return opt_bad_word("--check", arg, "diagnose-first, quiet, silent");
        return GS_OK;
    case 'C':
        o->mode = MODE_CHECK_QUIET;
        return GS_OK;
    case 'm':
        if (o->mode == MODE_SORT)   /* -c or -C wins, before or after, as in sort */
            o->mode = MODE_MERGE;
        return GS_OK;
    case 'a':
        if (strcmp(arg, "radix") == 0)
            o->algorithm = ALGO_RADIX;
        else if (strcmp(arg, "bitonic") == 0)
            o->algorithm = ALGO_BITONIC;
        else
            return opt_bad_word("--algorithm", arg, "radix, bitonic");
        return GS_OK;
    case OPT_DEVICE:
        return opt_device(arg, o);
    case OPT_GPU_MEMORY:
        return opt_parse_size(arg, &o->gpu_memory) == 0 ? GS_OK : opt_bad("--gpu-memory", arg);
    case 'S':
        return opt_parse_size(arg, &o->buffer_size) == 0 ? GS_OK : opt_bad("--buffer-size", arg);
    case 'T':
        if (!*arg)
            return opt_bad("--temporary-directory", arg);
        if (o->ntmpdirs == GS_MAX_TMPDIRS)
            return err_set(GS_EUSAGE, "more than %d temporary directories (-T)", GS_MAX_TMPDIRS);
        o->tmpdirs[o->ntmpdirs++] = arg;
        return GS_OK;
    case OPT_COMPRESS_TEMP:
        if (strcmp(arg, "auto") == 0)
            o->compress = COMPRESS_AUTO;
        else if (strcmp(arg, "lz4") == 0)
            o->compress = COMPRESS_LZ4;
        else if (strcmp(arg, "none") == 0)
            o->compress = COMPRESS_NONE;
        else
            return opt_bad_word("--compress-temp", arg, "auto, lz4, none");
        return GS_OK;
    case OPT_PARALLEL:
        return opt_threads(arg, &o->threads);
    case OPT_PROGRESS:
        o->progress = 1;
        return GS_OK;
    case OPT_STATS:
        o->stats = 1;
        return GS_OK;
    case OPT_HELP:
        opt_usage_fn();
        return GS_EXIT_OK;
    case OPT_VERSION:
        opt_version_fn();
        return GS_EXIT_OK;
    case ':':
        return err_set(GS_EUSAGE, "option '%s' requires an argument", argv[optind - 1]);
    default:
        if (strncmp(argv[optind - 1], "--", 2) != 0 && optopt && optopt <= CHAR_MAX)
            return err_set(GS_EUSAGE, "invalid option -- '%c'", optopt);
        if (opt_ambiguous(argv[optind - 1]) != GS_OK)
            return GS_EUSAGE;
        return err_set(GS_EUSAGE, "unrecognized option '%s'", argv[optind - 1]);
    }
}

/* The records' options together: a key in text lines (-k, -t) or in binary records
 * (--record-size, --key-offset), and lines' options (--header, -z), each where it
 * means something. */
static int opt_records_check(const opts_t *o)
{
    int binary = o->in_format == FMT_BINARY || o->out_format == FMT_BINARY;
    if (o->nkeys && binary)
        return err_set(GS_EUSAGE, "-k takes fields of text lines; binary records take "
                       "--record-size and --key-offset");
    if (!key_type_is_int(o->type) && (o->in_format != FMT_BINARY || o->out_format != FMT_BINARY))
        return err_set(GS_EUSAGE, "--type=%s takes binary keys and records (-B); text takes "
                       "integers of i32, u32, i64 or u64, and -g for floating-point numbers",
                       o->type_name);
    if (o->kind == KD_FLOAT && !o->nkeys && binary)
        return err_set(GS_EUSAGE, "-g reads and writes numbers as text; binary "
                       "floating-point keys are --type=f32 or --type=f64");
    if (o->field_sep >= 0 && !o->nkeys)
        return err_set(GS_EUSAGE, "-t (--field-separator) needs -k (--key): without a key, "
                       "gpusort sorts bare numbers");
    if (o->header && binary)
        return err_set(GS_EUSAGE, "--header takes text input and output: binary keys and "
                       "records have no header line");
    if (o->zero_terminated && o->in_format == FMT_BINARY && o->out_format == FMT_BINARY)
        return err_set(GS_EUSAGE, "-z (--zero-terminated) takes text: binary keys and "
                       "records have no lines");
    if (o->key_offset_set && !o->record_size)
        return err_set(GS_EUSAGE, "--key-offset needs --record-size");
    if (o->record_size) {
        if (o->in_format != FMT_BINARY || o->out_format != FMT_BINARY)
            return err_set(GS_EUSAGE, "--record-size needs binary input and output (-B): "
                           "records are written back as they are read");
        uint64_t width = key_type_width(o->type, o->key_bytes);
        if (width > o->record_size)
            return err_set(GS_EUSAGE, "--record-size=%llu: a record is smaller than its key "
                           "(--type=%s takes %llu bytes)", (unsigned long long)o->record_size,
                           o->type_name, (unsigned long long)width);
        if (o->key_offset + width > o->record_size)
            return err_set(GS_EUSAGE, "--key-offset=%llu: a key of %llu bytes there does not "
                           "fit in a record of %llu bytes", (unsigned long long)o->key_offset,
                           (unsigned long long)width, (unsigned long long)o->record_size);
    }
    return GS_OK;
}

int opt_parse(int argc, char **argv, opts_t *o)
{
    opt_defaults(o);
    opterr = 0;
    int c;
    /* A leading ':' makes a missing argument return ':' instead of '?'. */
    static char spec[sizeof short_options + 1];
    spec[0] = ':';
    memcpy(spec + 1, short_options, sizeof short_options);
    while ((c = getopt_long(argc, argv, spec, long_options, NULL)) != -1) {
        int rc = opt_one(c, optarg, argv, o);
        if (rc != GS_OK)
            return rc;
    }
    o->files = argv + optind;
    o->nfiles = argc - optind;

    int rc = opt_records_check(o);
    if (rc != GS_OK)
        return rc;

    int checking = o->mode == MODE_CHECK || o->mode == MODE_CHECK_QUIET;
    if (checking && o->output)
        return err_set(GS_EUSAGE, "options '-c' and '-o' are incompatible");
    if (checking && o->nfiles > 1)
        return err_set(GS_EUSAGE, "extra operand '%s' not allowed with -c", o->files[1]);
    return GS_OK;
}
