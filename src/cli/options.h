/* options.h: the command line, parsed into one struct.
 *
 * opt_parse() validates everything the contract names and fills an opts_t; run()
 * (run.h) is the only consumer. SIZE arguments are parsed strictly here.
 */
#ifndef GS_OPTIONS_H
#define GS_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include "core/keys.h"

typedef enum { FMT_TEXT, FMT_BINARY } format_t;
typedef enum { MODE_SORT, MODE_MERGE, MODE_CHECK, MODE_CHECK_QUIET } run_mode_t;
typedef enum { ALGO_RADIX, ALGO_BITONIC } algorithm_t;
typedef enum { DEV_AUTO, DEV_CPU, DEV_ALL, DEV_LIST } device_mode_t;
typedef enum { COMPRESS_AUTO, COMPRESS_LZ4, COMPRESS_NONE } compress_t;

#define OPT_MAX_DEVICES 64

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
    int devices[OPT_MAX_DEVICES]; /* with DEV_LIST: the device numbers */
    int ndevices;
    size_arg_t gpu_memory;    /* --gpu-memory; default: most of the free memory */
    size_arg_t buffer_size;   /* -S; default: a share of physical memory */
    const char *tmpdir;       /* -T; default $TMPDIR, else /tmp */
    compress_t compress;      /* --compress-temp; default COMPRESS_AUTO */
    int threads;              /* --parallel; default: online CPUs */
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

/* Physical memory in bytes (for -S N% and the default). */
uint64_t opt_physical_memory(void);

#endif
