/* SPDX-License-Identifier: MIT */
/* pieces.h: bytes made in pieces by many threads at once, each piece written where
 * it belongs, the way chosen here: the one way the parallel producers (the merges,
 * records written out) hand their bytes to an output or a run.
 *
 * A producer begins the pieces with what it knows: its output and the bytes it will
 * write (pieces_begin), or only where its bytes go in order (pieces_begin_put: a
 * run being written). Where the total is known and the output is a file, the bytes
 * are laid out ahead: each piece lands at its offset, copied into the file's mapped
 * pages (placed.c) or written there by pwrite (spread.c), every thread at once, with
 * nothing held and no turn to wait for. Elsewhere (a pipe, the total unknown, a
 * run) they go out in their order: a thread's bytes of a piece are held until the
 * piece's turn (turns.h) and handed on then; the thread whose turn it is hands them
 * on as it makes them, while they are still in the cache. Into a pipe, on
 * WRITE_GIVE_MIN_THREADS threads or more, a window is fresh pages, filled once and
 * given to the pipe as they are handed on (vmsplice): the reader's copy is then the
 * only one, where write(2) would copy every byte on the thread with the turn.
 *
 * Each thread has a window (piece_t): it starts a piece (its index, its offset and
 * length), puts its bytes (or keys, in the output's format) at w->p with room up to
 * w->lim, and ends it; the same calls whichever way. Where the bytes are laid out,
 * a piece must fill exactly the stretch it was given, else an internal error (never
 * a neighbour's bytes overwritten). The model is zstd's write pool: producers say
 * what they know, the pieces say how to write.
 */
#ifndef GS_PIECES_H
#define GS_PIECES_H

#include <stddef.h>
#include <stdint.h>
#include "io/output.h"
#include "io/turns.h"

typedef enum {
    PIECES_IN_ORDER,         /* in their order, each on its turn */
    PIECES_MAPPED,           /* copied into the file's mapped pages at their offsets */
    PIECES_AT,               /* written at their offsets (pwrite), from a buffer a thread */
} pieces_how_t;

typedef struct {
    pieces_how_t how;
    turns_t turns;           /* in order: the piece whose bytes go out now; every way:
                                the first error, which stops every thread */
    output_t *out;           /* the output (the keys' format); NULL: a put's */
    turns_put_fn put;        /* in order: where the bytes go, */
    int give;                /*   or 1: the output is a pipe given the windows'
                                pages (output_give), fresh pages written once */
    void *ctx;
    size_t width;            /* no output: the keys' width (written as they are) */
    /* laid out: the output's */
    char *map;               /* mapped: the first byte after the header */
    int fd;                  /* at offsets: the descriptor, */
    uint64_t pos;            /*   the offset of the first byte after the header */
    char *base;              /* mapped: the mapping, */
    uint64_t total;          /*   the bytes laid out, the header's included, */
    size_t hlen;             /*   the header's */
} pieces_t;

/* Pieces of out's next total bytes (0: not known), a header of hlen bytes (NULL:
 * none) their first, which goes out here: laid out where the file allows it, else
 * in order. P is ready for pieces_end() whatever the result. GS_OK or an error. */
int pieces_begin(pieces_t *P, output_t *out, uint64_t total, const char *header, size_t hlen);

/* Pieces in order through put(ctx) (a run being written), keys of width bytes
 * written as they are. */
void pieces_begin_put(pieces_t *P, turns_put_fn put, void *ctx, size_t width);

/* The end: rc, the producer's result, or else the first error of a thread
 * (pieces_fail), or else the laid-out bytes' end (mapped pages written back, the
 * file's length); a failure leaves the output to its abort. Returns that. */
int pieces_end(pieces_t *P, int rc);

/* A thread failed: rc kept where it is the first error; every thread stops (waits
 * for a turn end, pieces_failed says so). */
static inline void pieces_fail(pieces_t *P, int rc)
{
    turns_fail(&P->turns, rc);
}

static inline int pieces_failed(pieces_t *P)
{
    return turns_failed(&P->turns);
}

/* 1 where the bytes are laid out (pieces of known offsets, any thread, any order). */
static inline int pieces_laid_out(const pieces_t *P)
{
    return P->how != PIECES_IN_ORDER;
}

/* ---- a thread's window -------------------------------------------------------------- */

typedef struct {
    char *p;                 /* where the next bytes go */
    char *lim;               /* room without a call up to here */
    char *end;               /* bytes up to here may be written over (a copy's overrun) */
    /* the pieces' own */
    pieces_t *P;
    char *buf;               /* at offsets, in order: the thread's buffer, */
    size_t cap, cap0;        /*   its bytes, and as first allocated (a piece that
                                grew it gives the rest back at its end); given: a
                                mapping, and the most bytes held */
    char *held;              /* in order: the first byte not yet handed on (buf;
                                given, the bytes before it are the pipe's) */
    char *mark;              /* mapped: counted as placed up to here */
    char *released;          /* mapped: pages let go of up to here */
    char *stop;              /* mapped: the piece's end */
    uint64_t off;            /* at offsets: the file offset of buf's first byte, */
    uint64_t left;           /*   the piece's bytes not yet written */
    size_t index;            /* in order: the piece */
} piece_t;

/* A thread's window on P, holding up to hold bytes of a piece in order before its
 * turn (0: a default; at offsets, a buffer of at most WINDOW_BUF). GS_OK or
 * GS_ENOMEM. piece_free() ends it. */
int piece_init(pieces_t *P, size_t hold, piece_t *w);
void piece_free(piece_t *w);

/* The next piece: index (in order: its turn) at [off, off + len) of the bytes after
 * the header (laid out). */
void piece_start(piece_t *w, size_t index, uint64_t off, uint64_t len);

/* Room for n more bytes at w->p: what is before written out, counted or handed on
 * (in order: on the piece's turn, waited for where the hold is full); a buffer
 * shorter than n grown until the piece's end. GS_OK; an error writing; GS_ENOMEM;
 * GS_EIO where another thread failed (its error is the one reported) or where the
 * piece's stretch holds fewer (laid out wrong). */
int piece_room(piece_t *w, size_t n);

static inline int piece_need(piece_t *w, size_t n)
{
    return (size_t)(w->lim - w->p) >= n ? 0 : piece_room(w, n);
}

/* Keys[0..n) put at w->p in the output's format (text lines, or binary; a put's:
 * as they are), as many bytes as output_line_steps() says. Errors as piece_room(). */
int piece_keys(piece_t *w, const void *keys, size_t n);

/* Bytes[0..len) put at w->p, a window's room at a time. Errors as piece_room().
 * In order, bytes are handed on only from piece_room() and piece_end(): a producer
 * that asks room (piece_need) for each whole unit before putting it hands on whole
 * units (a run being written counts them), as piece_keys() does with keys;
 * piece_put() may cut its bytes where a hand-on falls. */
int piece_put(piece_t *w, const void *bytes, size_t len);

/* The piece ends: laid out, the rest written out, the stretch whole (else an
 * internal error); in order, its turn waited for, the rest handed on and the turn
 * passed. ok 0: the thread failed, nothing more written (pieces_fail it). GS_OK or
 * an error, as piece_room(). */
int piece_end(piece_t *w, int ok);

#endif
