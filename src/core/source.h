/* SPDX-License-Identifier: MIT */
/* source.h: an input as every reader opens it.
 *
 * A source is a file named by a path ("-": standard input) or a descriptor the
 * caller holds open, and of a descriptor a byte range: gpusort-mpi hands each rank
 * its pieces of the inputs this way, with no copy. Whatever the source, its readers
 * (io/reader.c for bare keys, records/loader.c for records, the GPU's text stream)
 * open it here, read bytes [start, end) of it through source_read() (or a mapping
 * of it, mem_map_file()), name it in messages by its file's name, and number its
 * lines as its file does (source_line()).
 */
#ifndef GS_SOURCE_H
#define GS_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "core/pool.h"

/* source_t.len: the range goes on to the file's end. */
#define SOURCE_TO_END UINT64_MAX

typedef struct {
    const char *path;   /* the operand ("-": standard input); NULL: fd below */
    int fd;             /* path NULL: a regular file open for reading, the caller's */
    uint64_t off;       /* path NULL: its bytes from off, */
    uint64_t len;       /*   len of them (SOURCE_TO_END: to the end) */
    const char *name;   /* path NULL: what messages call it (its file's name) */
    int header;         /* its first line is a header, not data (--header) */
} source_t;

/* A source opened for reading. */
typedef struct {
    int fd;             /* the caller's descriptor duplicated, or one opened */
    int owned;          /* opened here (standard input is not): to close */
    int stdin_;         /* standard input: read from where it stands */
    int regular;        /* a regular file: bytes [start, end) */
    uint64_t start;     /* the first byte's offset (standard input, a regular file:
                           where it stood when opened) */
    uint64_t end;       /* regular: the range's end, at most the file's size when
                           opened; else UINT64_MAX */
    uint64_t size;      /* regular: the file's size when opened */
    int ranged;         /* a range of the caller's descriptor: read to end only */
    int quiet;          /* opened by source_try_open(): its failures set no message */
    char *name;         /* escaped for messages (malloc'ed) */
} source_file_t;

/* Open s: GS_OK, or GS_EIO / GS_ENOMEM with the message set (cannot be read, a
 * directory, standard input closed). source_close() either way. */
int source_open(const source_t *s, source_file_t *f);

/* As source_open(), but quiet, for a reader that may decline and leave the
 * reporting to another (the GPU's text stream): 0, or -1 with no message set.
 * source_close() either way. */
int source_try_open(const source_t *s, source_file_t *f);

void source_close(source_file_t *f);

/* Read up to len bytes of f into buf: *got of them, fewer only at its end. A regular
 * file is read at offset pos with pread(2) in pieces of piece bytes (0: one), by
 * pool's threads where pool is not NULL: a range to its end only, a whole file on
 * past the size it had when opened, as it grows; every byte that size promised
 * must come, fewer being a read error, "the file was cut short while being read",
 * as a mapping of it cut short is (mem_map_file), never a quiet end. Standard
 * input is read with read(2) from where it stands, so that it moves on as sort's
 * reading moves it and a second '-' reads only what is left (pos unused; its size
 * promises nothing, another '-' may have read it); but where f is quiet (a look
 * that a reader repeats: --device=auto's sample), by offset, leaving it where it
 * stood. Anything else (a pipe, a terminal): read(2), pos unused. The one way
 * every reader reads an input's bytes. GS_OK, or GS_EIO with the message set
 * (none where f is quiet). */
int source_read(const source_file_t *f, pool_t *pool, size_t piece, void *buf, size_t len,
                uint64_t pos, size_t *got);

/* The file behind s, as stat(2) tells it: 0, or -1 (errno set). */
int source_stat(const source_t *s, struct stat *st);

/* *bytes the bytes s holds where it is a regular file (its range's): 1; 0 where it
 * is not (a pipe, a terminal), or cannot be told. */
int source_bytes(const source_t *s, uint64_t *bytes);

/* 1 where s is standard input. */
int source_stdin(const source_t *s);

/* 1 where s is the whole of a file named by its path (not standard input, not a
 * range): what a reader may map from its start or measure by its size alone. */
int source_whole(const source_t *s);

/* The line of s's file that is line `line` (1-based) of s: for a range, the lines
 * ending with term before it are counted now (a message's cost, never a run's). */
uint64_t source_line(const source_t *s, char term, uint64_t line);

#endif
