/* SPDX-License-Identifier: MIT */
/* settings.h: what the engine is told to do, resolved once from the command line.
 *
 * cli/ turns the user's words (options.h) into a settings_t: sizes in bytes, the
 * temporary directory and the GPUs chosen, every default applied. Nothing below cli/
 * sees an option; the engine reads settings and never changes them (its mutable
 * state lives in the pipeline's context, pipeline/ctx.h).
 */
#ifndef GS_SETTINGS_H
#define GS_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "core/keydef.h"
#include "core/keys.h"
#include "core/source.h"

typedef enum { FMT_TEXT, FMT_BINARY } format_t;
typedef enum { MODE_SORT, MODE_MERGE, MODE_CHECK, MODE_CHECK_QUIET } run_mode_t;
typedef enum { ALGO_RADIX, ALGO_BITONIC } algorithm_t;
typedef enum { COMPRESS_AUTO, COMPRESS_LZ4, COMPRESS_NONE } compress_t;

/* The most GPUs one run uses. */
#define GS_MAX_DEVICES 64

/* The most temporary directories (-T given several times). */
#define GS_MAX_TMPDIRS 64

/* settings_t.gpus: every GPU found, where they are faster than the CPU
 * (--device=auto), counted only once a chunk needs them. */
#define GS_GPUS_AUTO (-1)

/* settings_t.gpu_memory: no --gpu-memory given. */
#define GS_GPU_MEMORY_FREE UINT64_MAX

typedef struct {
    run_mode_t mode;            /* sort (default), -m, -c or -C */
    /* the keys */
    key_type_t type;            /* --type (default i64): bare keys and n keys take the
                                   integer types; binary records any */
    size_t key_bytes;           /* --type=bytesN: N */
    int reverse;                /* -r */
    int unique;                 /* -u */
    /* formats */
    format_t in_format;         /* text (default) or binary */
    format_t out_format;
    int big_endian;             /* byte order of binary keys (default little) */
    /* inputs and output */
    const source_t *sources;    /* the inputs, at least one (source.h): the
                                   operands ("-" is standard input), or gpusort-mpi's
                                   ranges of them */
    int nsources;
    const char *output;         /* -o FILE; NULL: standard output */
    int output_fd;              /* where output is NULL: the descriptor written from
                                   its position (0: standard output; gpusort-mpi's
                                   scratch files and ranges of its output) */
    const char *output_name;    /* where output is NULL: what messages call it (NULL:
                                   "standard output") */
    /* resources */
    size_t buffer_bytes;        /* -S in bytes: host memory for chunks and runs */
    int buffer_given;           /* 1: -S was given (else buffer_bytes is the default) */
    int threads;                /* CPU threads */
    const char *tmpdirs[GS_MAX_TMPDIRS]; /* where runs spill, each in turn (several -T,
                                   as sort spreads them); else $TMPDIR or /tmp */
    int ntmpdirs;               /* at least 1 */
    const char *tmpdir;         /* tmpdirs[0]: where a lone temporary goes */
    compress_t compress;        /* how spilled runs are stored */
    /* GPUs */
    int gpus;                   /* 0: the CPU only; GS_GPUS_AUTO; n > 0: devices[0..n) */
    int devices[GS_MAX_DEVICES];
    algorithm_t algorithm;      /* the GPUs' chunk sort */
    uint64_t gpu_memory;        /* bytes each GPU may use (raised to the least that
                                   works); GS_GPU_MEMORY_FREE: most of what is free */
    int gpu_memory_percent;     /* 0..100: instead, that share of each GPU's memory,
                                   which only the device knows; -1: bytes, as above */
    /* records (records/rkey.h): keys inside each line, or one in each binary record */
    keydef_t keys[GS_MAX_KEYS]; /* -k, in order, the global -b -r -n -g inherited by
                                   those without letters of their own */
    int nkeys;                  /* 0: bare numbers (or binary records) */
    int tokens;                 /* -g on bare numbers of text: each white-space-separated
                                   number is a record (records/loader.c makes them one
                                   a line), its one key g */
    int field_sep;              /* -t SEP: the separating byte; -1: sort's blank runs */
    int stable;                 /* -s: equal keys in input order, no last resort */
    int zero_terminated;        /* -z: lines end with NUL */
    int header;                 /* --header: the output starts with the first header
                                   line read (which sources' first lines are headers
                                   each source says: source_t.header) */
    size_t record_size;         /* --record-size: bytes a binary record; 0: bare keys */
    size_t key_offset;          /* --key-offset: the key's first byte in a record */
    /* reporting */
    int progress;               /* --progress */
    int stats;                  /* --stats */
} settings_t;

/* 1 where the inputs are records (a key inside each line or binary record), which
 * the records engine sorts, checks and merges (records/records.h). */
static inline int settings_records(const settings_t *s)
{
    return s->nkeys > 0 || s->record_size > 0;
}

#endif
