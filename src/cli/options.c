/* options.c: getopt_long over the contract's options, into an opts_t.
 *
 * Messages are our own (opterr = 0), so every usage error reads "gpusort: ..."
 * whatever argv[0] is. Values are checked here; what depends on the machine (a GPU
 * that does not exist, say) is checked by run().
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "cli/options.h"

/* Long-only options, numbered above CHAR_MAX. */
enum {
    OPT_INPUT_FORMAT = CHAR_MAX + 1,
    OPT_OUTPUT_FORMAT,
    OPT_ENDIAN,
    OPT_DEVICE,
    OPT_GPU_MEMORY,
    OPT_COMPRESS_TEMP,
    OPT_PARALLEL,
    OPT_PROGRESS,
    OPT_STATS,
    OPT_HELP,
    OPT_VERSION,
};

static const char short_options[] = "bt:o:rucCma:S:T:";

static const struct option long_options[] = {
    { "binary", no_argument, NULL, 'b' },
    { "input-format", required_argument, NULL, OPT_INPUT_FORMAT },
    { "output-format", required_argument, NULL, OPT_OUTPUT_FORMAT },
    { "type", required_argument, NULL, 't' },
    { "endian", required_argument, NULL, OPT_ENDIAN },
    { "output", required_argument, NULL, 'o' },
    { "reverse", no_argument, NULL, 'r' },
    { "unique", no_argument, NULL, 'u' },
    { "check", optional_argument, NULL, 'c' },
    { "merge", no_argument, NULL, 'm' },
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

/* ---- SIZE ------------------------------------------------------------------------ */

int opt_parse_size(const char *s, size_arg_t *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return -1;
    uint64_t mult;
    int percent = 0;
    switch (*end) {
    case '\0': mult = 1ull << 10; break;
    case 'b': mult = 1; break;
    case 'k': case 'K': mult = 1ull << 10; break;
    case 'm': case 'M': mult = 1ull << 20; break;
    case 'g': case 'G': mult = 1ull << 30; break;
    case 't': case 'T': mult = 1ull << 40; break;
    case '%': mult = 1; percent = 1; break;
    default: return -1;
    }
    if (*end && end[1] != '\0')
        return -1;
    if (percent && v > 100)
        return -1;
    if (!percent && v > (1ull << 63) / mult)
        return -1;
    out->set = 1;
    out->percent = percent;
    out->value = percent ? v : v * mult;
    return 0;
}

uint64_t opt_size_bytes(const size_arg_t *s, uint64_t total, uint64_t dflt)
{
    if (!s->set)
        return dflt;
    if (s->percent)
        return (uint64_t)((unsigned __int128)total * s->value / 100);
    return s->value;
}

uint64_t opt_physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return 1ull << 30;
    return (uint64_t)pages * (uint64_t)size;
}

/* ---- option values -------------------------------------------------------------- */

static int opt_bad(const char *option, const char *value)
{
    return err_set(GS_EUSAGE, "invalid argument '%s' for '%s'", value, option);
}

static int opt_format(const char *option, const char *v, format_t *f)
{
    if (strcmp(v, "text") == 0)
        *f = FMT_TEXT;
    else if (strcmp(v, "binary") == 0)
        *f = FMT_BINARY;
    else
        return opt_bad(option, v);
    return GS_OK;
}

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
            return opt_bad("--device", v);
        char *end;
        errno = 0;
        unsigned long d = strtoul(p, &end, 10);
        if (errno || d >= 1024)
            return opt_bad("--device", v);
        for (int i = 0; i < o->ndevices; i++)
            if (o->devices[i] == (int)d)
                return opt_bad("--device", v);
        o->devices[o->ndevices++] = (int)d;
        if (*end == '\0')
            return GS_OK;
        if (*end != ',')
            return opt_bad("--device", v);
        p = end + 1;
    }
}

static int opt_threads(const char *v, int *threads)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (*v < '0' || *v > '9' || *end || errno || n < 1 || n > 1024)
        return opt_bad("--parallel", v);
    *threads = (int)n;
    return GS_OK;
}

static void opt_defaults(opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->type = KEY_I64;
    o->in_format = o->out_format = FMT_TEXT;
    o->mode = MODE_SORT;
    o->algorithm = ALGO_RADIX;
    o->device = DEV_AUTO;
    o->compress = COMPRESS_AUTO;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = n < 1 ? 1 : (n > 1024 ? 1024 : (int)n);
}

/* One option. Returns GS_OK or GS_EUSAGE; GS_EXIT_OK for --help and --version. */
static int opt_one(int c, const char *arg, char **argv, opts_t *o)
{
    switch (c) {
    case 'b':
        o->in_format = o->out_format = FMT_BINARY;
        return GS_OK;
    case OPT_INPUT_FORMAT:
        return opt_format("--input-format", arg, &o->in_format);
    case OPT_OUTPUT_FORMAT:
        return opt_format("--output-format", arg, &o->out_format);
    case 't':
        return key_type_parse(arg, &o->type) == 0 ? GS_OK : opt_bad("--type", arg);
    case OPT_ENDIAN:
        if (strcmp(arg, "little") == 0)
            o->big_endian = 0;
        else if (strcmp(arg, "big") == 0)
            o->big_endian = 1;
        else
            return opt_bad("--endian", arg);
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
            return opt_bad("--check", arg);
        return GS_OK;
    case 'C':
        o->mode = MODE_CHECK_QUIET;
        return GS_OK;
    case 'm':
        o->mode = MODE_MERGE;
        return GS_OK;
    case 'a':
        if (strcmp(arg, "radix") == 0)
            o->algorithm = ALGO_RADIX;
        else if (strcmp(arg, "bitonic") == 0)
            o->algorithm = ALGO_BITONIC;
        else
            return opt_bad("--algorithm", arg);
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
        o->tmpdir = arg;
        return GS_OK;
    case OPT_COMPRESS_TEMP:
        if (strcmp(arg, "auto") == 0)
            o->compress = COMPRESS_AUTO;
        else if (strcmp(arg, "lz4") == 0)
            o->compress = COMPRESS_LZ4;
        else if (strcmp(arg, "none") == 0)
            o->compress = COMPRESS_NONE;
        else
            return opt_bad("--compress-temp", arg);
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
        opt_usage();
        return GS_EXIT_OK;
    case OPT_VERSION:
        opt_version();
        return GS_EXIT_OK;
    case ':':
        return err_set(GS_EUSAGE, "option '%s' requires an argument", argv[optind - 1]);
    default:
        if (strncmp(argv[optind - 1], "--", 2) != 0 && optopt && optopt <= CHAR_MAX)
            return err_set(GS_EUSAGE, "invalid option -- '%c'", optopt);
        return err_set(GS_EUSAGE, "unrecognized option '%s'", argv[optind - 1]);
    }
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

    int checking = o->mode == MODE_CHECK || o->mode == MODE_CHECK_QUIET;
    if (checking && o->output)
        return err_set(GS_EUSAGE, "options '-c' and '-o' are incompatible");
    if (checking && o->nfiles > 1)
        return err_set(GS_EUSAGE, "extra operand '%s' not allowed with -c", o->files[1]);
    return GS_OK;
}
