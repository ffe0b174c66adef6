/* SPDX-License-Identifier: MIT */
/* options.h: the command line: parsed into the user's words (opts_t), then resolved
 * into what the engine is told (settings_t, core/settings.h).
 *
 * opt_parse() validates everything the contract names and fills an opts_t (SIZE
 * arguments are parsed strictly here); opt_settings() applies the defaults and
 * resolves sizes, the temporary directory and the GPUs asked for. main() is the only
 * consumer: nothing below cli/ sees an opts_t.
 */
#ifndef GS_OPTIONS_H
#define GS_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "core/keys.h"
#include "core/settings.h"

/* The most threads --parallel may ask for (and the default may be). */
#define GS_MAX_THREADS 1024

typedef enum { DEV_AUTO, DEV_CPU, DEV_ALL, DEV_LIST } device_mode_t;

/* A SIZE as given: bytes, or a percentage of a total known only later. */
typedef struct {
    int set;             /* 0: not given, use the default */
    int percent;         /* 1: value is a percentage (0..100) */
    uint64_t value;      /* bytes, or the percentage */
} size_arg_t;

typedef struct {
    key_type_t type;          /* -t; default KEY_I64 */
    format_t in_format;       /* default FMT_TEXT; -b sets both */
    format_t out_format;
    int big_endian;           /* --endian=big; default little */
    int reverse;              /* -r */
    int unique;               /* -u */
    run_mode_t mode;          /* -m, -c, -C; default MODE_SORT */
    const char *output;       /* -o FILE; NULL: standard output */
    algorithm_t algorithm;    /* -a; default ALGO_RADIX */
    device_mode_t device;     /* --device; default DEV_AUTO */
    int devices[GS_MAX_DEVICES]; /* with DEV_LIST: the device numbers */
    int ndevices;
    size_arg_t gpu_memory;    /* --gpu-memory; default: most of the free memory */
    size_arg_t buffer_size;   /* -S; default: a share of physical memory */
    const char *tmpdirs[GS_MAX_TMPDIRS]; /* -T, each given; none: $TMPDIR, else /tmp */
    int ntmpdirs;
    compress_t compress;      /* --compress-temp; default COMPRESS_AUTO */
    int threads;              /* --parallel; 0: the default, the CPUs gpusort may use */
    keydef_t keys[GS_MAX_KEYS]; /* -k, in order, as given (inheritance: settings.c) */
    unsigned char key_plain[GS_MAX_KEYS]; /* 1: key k has no letters: it inherits the
                                 global -b -r -n -g */
    int nkeys;
    int blanks;               /* -b */
    kd_kind_t kind;           /* -n (KD_INT), -g (KD_FLOAT), neither (KD_TEXT) */
    size_t key_bytes;         /* --type=bytesN: N */
    const char *type_name;    /* --type's word, for messages */
    int field_sep;            /* -t SEP; -1: none (blank runs) */
    int stable;               /* -s */
    int zero_terminated;      /* -z */
    int header;               /* --header */
    uint64_t record_size;     /* --record-size; 0: none */
    uint64_t key_offset;      /* --key-offset */
    int key_offset_set;       /* --key-offset given */
    int progress;             /* --progress */
    int stats;                /* --stats */
    char **files;             /* the FILE operands; "-" is standard input */
    int nfiles;               /* 0: standard input */
} opts_t;

/* Parse argv into o. Returns GS_OK; GS_EXIT_OK after printing --help or --version;
 * or GS_EUSAGE with the message set. Keeps pointers into argv. */
int opt_parse(int argc, char **argv, opts_t *o);

/* Parse a SIZE: digits, then an optional suffix b (bytes), K, M, G, T (powers of
 * 1024, either case) or %; a bare number is KiB. Returns 0, or -1 if malformed or
 * out of range (over 2^63 bytes, or over 100%). */
int opt_parse_size(const char *s, size_arg_t *out);

/* Resolve a SIZE against the total that a percentage refers to; dflt when not set. */
uint64_t opt_size_bytes(const size_arg_t *s, uint64_t total, uint64_t dflt);

/* Resolve o into s (settings.c): the defaults applied, -S in bytes (raised to the
 * least that works), the temporary directory, and with --device=all or a list the
 * GPUs checked to exist (sort mode only: -m and -c use none). GS_OK or GS_EUSAGE
 * with the message set; opt_settings_free() either way. s->sources name the
 * operands in o, which must outlive s. */
int opt_settings(const opts_t *o, settings_t *s);
void opt_settings_free(settings_t *s);

/* --help and --version (usage.c), on standard output. */
void opt_usage(void);
void opt_version(void);

/* What opt_parse() calls for --help and --version instead of the two above (another
 * program on the same options: gpusort-mpi). */
void opt_serve_with(void (*usage)(void), void (*version)(void));

#endif
