/* SPDX-License-Identifier: MIT */
/* output.h: the output: mapped keys -> text or binary, written in order to standard
 * output or, atomically, to -o FILE.
 *
 * With -o, keys go to a temporary file in FILE's directory that is renamed over FILE
 * only by output_commit(), so a failed run leaves an existing FILE untouched and -o may
 * name an input. A FILE that exists and is not a regular file (/dev/null, a FIFO) is
 * written directly. The parts: outfile.c (the destination, the commit), writer.c
 * (batches formatted by the pool and written by a job), hand.c (pieces handed over in
 * buffers), placed.c (many keys placed; the file's mapping), spread.c (pwrite at
 * offsets), ahead.c (zeros written ahead); pieces.h (bytes made by many threads in
 * pieces, laid out ahead or in order: the way chosen there) is the output's other door.
 */
#ifndef GS_OUTPUT_H
#define GS_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "core/keys.h"
#include "core/pool.h"
#include "core/source.h"

typedef struct {
    const char *path;      /* -o FILE, or NULL for standard output */
    int fd;                /* where path is NULL: the descriptor written, from its
                              position, as standard output is (0: standard
                              output; gpusort-mpi's files) */
    const char *name;      /* where path is NULL: what messages call it (NULL:
                              "standard output") */
    const keymap_t *km;
    int binary;            /* 1: raw fixed-width keys */
    int big_endian;        /* binary byte order */
    int zero_terminated;   /* text: each line ended by NUL (-z), not LF */
    pool_t *pool;          /* threads for formatting */
    size_t map_release;    /* text placed: bytes each thread fills between two
                              releases of the pages filled (0: WRITE_RELEASE;
                              the tests ask for few) */
    const source_t *inputs;/* the run's inputs, never to be written before they are
                              read: see output_open() */
    int ninputs;
    const char *tmpdir;    /* where the output goes first when it would write into
                              one of them */
    uint64_t ahead_keys;   /* text of this many keys, at most ahead_bytes bytes, is */
    uint64_t ahead_bytes;  /* the whole output, known before it is ready (one chunk
                              about to be sorted); 0: not known. Where that pays
                              (-o, WRITE_AHEAD_MIN_THREADS threads or more, keys
                              enough to be placed), zeros are written ahead into the
                              temporary from its start while the caller works, so
                              that the file's pages are in the page cache, their
                              space reserved, before the text is placed into them
                              (ahead.c). The first write of anything, the commit or
                              the abort stops it; zeros no output overwrote are cut
                              off before the commit. */
} output_cfg_t;

typedef struct output output_t;

/* Open the destination. GS_OK, or GS_EIO with the message set.
 *
 * Where the bytes would go straight into a file that is one of cfg->inputs (same
 * device and inode: -o FILE written in place, standard output that is the input's
 * file, whatever name or link led there), they go to a temporary under cfg->tmpdir
 * instead, copied into that file by output_commit() once everything is written, so
 * that no input is overwritten or cut short while it is still read (sort copies
 * such an input aside; this copies the output instead, which is written once). */
int output_open(output_t **o, const output_cfg_t *cfg);

/* Format (in parallel) and write keys[0..n), mapped keys of km's width; binary keys
 * that are their own encoding (unsigned, this host's byte order) are written as
 * they are, from keys; much text to -o may be written mapped (output_bytes_mapped).
 * sorted 1: the keys are in order (mapped keys ascending, as a sort leaves them),
 * so much text is laid out by the ranks of a few keys (binary searches) rather than
 * by a pass over them all; keys out of order there are an internal error. */
int output_write(output_t *o, const void *keys, size_t n, int sorted);

/* How output_hand() takes a producer's pieces: what it plans its buffers by. */
typedef struct {
    int held;   /* 1: a piece is written by a job of the output's while the caller
                   goes on (binary), its buffer the output's until the next
                   output_hand() returns (or, kept, for good): one buffer more in
                   use at once keeps the caller busy */
    int kept;   /* 1: the buffers' pages themselves go into a pipe (binary keys that
                   are their own encoding, to a pipe): every buffer handed over comes
                   from mem_map(), unpinned, and is the output's from then on */
} output_hands_t;

output_hands_t output_hands(output_t *o);

/* Hand over keys[0..n), the next sorted piece, which lies in buf (bytes long), from
 * the one thread that hands pieces over; written as output_hands() says (text:
 * formatted by the pool and written before this returns). keys NULL: wait until
 * every piece handed over is written. GS_OK or the first error of any piece; with
 * kept, buf is the output's whatever the result. Not to be mixed with
 * output_write() on one output. */
int output_hand(output_t *o, void *buf, size_t bytes, const void *keys, size_t n);

/* The absolute path of -o's temporary (malloc'ed), for other processes to write
 * into before the commit (gpusort-mpi's ranks); NULL where there is none (standard
 * output, a device or FIFO, FILE written in place, a temporary to be copied back)
 * or it cannot be named. */
char *output_temp_path(const output_t *o);
/* Flush, close and, with -o, rename into place (or copy the temporary into the
 * input it stood in for: output_open()); frees o. GS_OK or an error (then the
 * temporary is removed and FILE is untouched, unless the copy into it failed). */
int output_commit(output_t *o);

/* Remove the temporary (if any) and free o; NULL is a no-op. */
void output_abort(output_t *o);

/* Most bytes one key takes in the output's format. */
size_t output_max_bytes(const output_t *o);

/* Write len bytes in the output's format, in order, from the calling thread (a
 * header; bytes made by threads in pieces go through io/pieces.h), never one of
 * the pool's (into a pipe the pool may copy them). Not to be mixed with
 * output_write() on one output. */
int output_write_bytes(output_t *o, const void *buf, size_t len);

/* The bytes of each key in the output, by its value, as steps: the keys from
 * start[i] (start[0] is 0) up to the next step take len[i] bytes each (text:
 * tn_line_steps; binary: one step, the width), so that a producer of keys in order
 * lays them out by ranks, without formatting them first. The steps' count. */
size_t output_line_steps(const output_t *o, uint64_t *start, unsigned char *len);

#endif
