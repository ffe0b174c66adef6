/* SPDX-License-Identifier: MIT */
/* output.h: the output: mapped keys -> text or binary, written in order to standard
 * output or, atomically, to -o FILE.
 *
 * With -o, keys go to a temporary file in FILE's directory that is renamed over FILE
 * only by output_commit(), so a failed run leaves an existing FILE untouched and -o
 * may name an input. A FILE that exists and is not a regular file (/dev/null, a
 * FIFO) is written directly. The parts: outfile.c (the destination, the commit),
 * writer.c (batches formatted by the pool and written by a job), layout.c (bytes
 * laid out ahead: the way they are written chosen, and the threads' windows),
 * placed.c (many keys placed; the file's mapping), spread.c (pwrite at offsets),
 * ahead.c (zeros written ahead).
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

/* 1 where output_write() can work without the pool (binary keys: encoding one
 * thread keeps up with any pipe or disk), so that another thread may call it while
 * the pool works elsewhere; then it does so from here on. Text needs the pool. */
int output_solo(output_t *o);

/* 1 where output_give() hands pages to a pipe: binary keys whose encoding is the
 * identity (unsigned, this host's byte order), to a pipe. */
int output_can_give(const output_t *o);

/* Write keys[0..n), which lie inside map (map_bytes from mem_map()), and unmap map:
 * the caller gives it up. Where output_can_give(), the pages themselves go into the
 * pipe by vmsplice(2) instead of copies of them, which the reader takes faster: the
 * pipe holds them until they are read, however long after, and since nothing
 * maps them any more, nothing can change them first. Else, or where vmsplice is
 * refused, plain writes. Not to be mixed with output_write() from another thread. */
int output_give(output_t *o, void *map, size_t map_bytes, const void *keys, size_t n);

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

/* Most bytes one key takes in the output format. */
size_t output_max_bytes(const output_t *o);

/* Format n mapped keys in the output format (text lines or binary) into dst, which
 * has room for n * output_max_bytes(o); return the bytes. Pure and thread-safe: the
 * parallel merge formats on its own threads. */
size_t output_format(const output_t *o, const void *keys, size_t n, void *dst);

/* Write len formatted bytes, in order, from the calling thread. Not to be mixed
 * with output_write() on one output. */
int output_write_bytes(output_t *o, const void *buf, size_t len);

/* The bytes of each key in the output, by its value, as steps: the keys from
 * start[i] (start[0] is 0) up to the next step take len[i] bytes each (text:
 * tn_line_steps; binary: one step, the width), so that a producer of keys in order
 * lays them out by ranks, without formatting them first. The steps' count. */
size_t output_line_steps(const output_t *o, uint64_t *start, unsigned char *len);

/* ---- bytes laid out ahead: the way to write them chosen here ------------------------ */

typedef enum {
    LAYOUT_IN_ORDER,         /* written in order (output_write_bytes, or the caller's
                                own in-order writer) */
    LAYOUT_MAPPED,           /* copied by any thread into the file's mapped pages at
                                their offsets (output_window_t) */
    LAYOUT_AT,               /* written by any thread at their offsets, through a
                                buffer of its own (output_window_t) */
} layout_how_t;

typedef struct {
    layout_how_t how;
    char *map;               /* mapped: the first byte after the header */
    int fd;                  /* at offsets: the descriptor, */
    uint64_t pos;            /*   the offset of the first byte after the header */
    char *base;              /* the output's own: the mapping, */
    uint64_t total;          /*   the bytes laid out, the header's included, */
    size_t hlen;             /*   the header's */
} output_layout_t;

/* The next total bytes (0: not known), a header of hlen bytes (NULL: none) their
 * first, laid out ahead by the caller: mapped where the file allows it, else
 * written at their offsets, else in order (L->how). Mapped or at offsets, each of
 * the caller's threads writes its stretches through windows (below), whichever the
 * way; in order, the caller writes with output_write_bytes(). The header goes out
 * here, whichever way is chosen. GS_OK or an error. */
int output_layout_begin(output_t *o, uint64_t total, const char *header, size_t hlen,
                        output_layout_t *L);

/* The laid-out bytes written (ok: the file goes on after them) or not (the caller
 * failed: a mapping only let go of). GS_OK or an error. */
int output_layout_end(output_t *o, output_layout_t *L, int ok);

/* A thread's stretch [off, off + len) of the laid-out bytes (offsets after the
 * header), written through a window: the caller puts its next bytes at p, with
 * room up to lim without a call (output_window_need), and may write over the bytes
 * up to end (a copy's overrun). Mapped, the window is the file's own pages, counted
 * and let go of as they fill; at offsets, a buffer of the thread's, written at its
 * offset as it fills. Any thread, several at once on stretches of their own. */
typedef struct {
    char *p;                 /* where the next bytes go */
    char *lim;               /* room without a call up to here */
    char *end;               /* bytes up to here may be written over */
    /* the output's own */
    const output_layout_t *L;
    char *mark;              /* mapped: counted up to here; at offsets: the buffer */
    char *released;          /* mapped: pages let go of up to here */
    char *stop;              /* mapped: the stretch's end */
    uint64_t off;            /* at offsets: the file offset of the buffer's first byte */
    uint64_t left;           /* at offsets: the stretch's bytes not yet written */
} output_window_t;

/* Open w on [off, off + len) of L (mapped or at offsets; at offsets with a buffer
 * of buf bytes, 0: WINDOW_BUF, grown only for one piece longer). GS_OK or
 * GS_ENOMEM. */
int output_window_open(const output_t *o, const output_layout_t *L, uint64_t off,
                       uint64_t len, size_t buf, output_window_t *w);

/* Room for n more bytes at w->p: what is before written out or counted. GS_OK; an
 * error writing; GS_EIO where the stretch holds fewer (laid out wrong: an internal
 * error, never a neighbour's bytes overwritten). */
int output_window_room(const output_t *o, output_window_t *w, size_t n);

static inline int output_window_need(const output_t *o, output_window_t *w, size_t n)
{
    return (size_t)(w->lim - w->p) >= n ? 0 : output_window_room(o, w, n);
}

/* Keys[0..n) (mapped keys, of the output's width) put at w->p in the output's
 * format (text lines, or binary), as many bytes as output_line_steps() says.
 * GS_OK, an error writing, or GS_EIO where the stretch holds fewer. */
int output_window_keys(const output_t *o, output_window_t *w, const void *keys, size_t n);

/* Bytes[0..len) put at w->p, a window's room at a time. GS_OK, an error writing,
 * or GS_EIO where the stretch holds fewer. */
int output_window_put(const output_t *o, output_window_t *w, const void *bytes, size_t len);

/* The rest written out; the stretch must be whole (else an internal error); w
 * freed either way. ok 0: the caller failed, nothing more written. */
int output_window_close(const output_t *o, output_window_t *w, int ok);

#endif
