/* SPDX-License-Identifier: MIT */
/* turns.h: an output's pieces go out in their order, whichever threads made them.
 *
 * Piece p's turn comes once pieces 0 to p - 1 are out: a thread that holds piece p
 * waits for it (turns_wait), hands its bytes on, and passes the turn to p + 1
 * (turns_pass). A thread that fails says so (turns_fail): the first error is kept,
 * and every wait ends. A hold (turns_hold_t, below) is a thread's bytes of its
 * piece, kept until the piece's turn and handed on then. The one way bytes made in
 * parallel go out in order: the merges' pieces (merge/pmerge.c, records/rmerge.c)
 * and records' one chunk written to a pipe (records/emit.c).
 */
#ifndef GS_TURNS_H
#define GS_TURNS_H

#include <pthread.h>
#include <stddef.h>
#include <string.h>

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    size_t turn;             /* the piece that may go out now */
    int failed;              /* 1: stop; the first error is in rc */
    int rc;
} turns_t;

/* Ready for piece 0, no error. turns_reset() starts again; turns_destroy() ends. */
void turns_init(turns_t *t);
void turns_reset(turns_t *t);
void turns_destroy(turns_t *t);

/* Wait for piece p's turn: 0, or -1 once a thread has failed (its error is the one
 * to report: turns_rc). */
int turns_wait(turns_t *t, size_t p);

/* Piece p is out: the turn passes to p + 1. */
void turns_pass(turns_t *t, size_t p);

/* Stop every piece: rc kept where it is the first error; every wait ends. */
void turns_fail(turns_t *t, int rc);

/* Whether a thread has failed, read without the lock (to stop early). */
static inline int turns_failed(turns_t *t)
{
    return __atomic_load_n(&t->failed, __ATOMIC_ACQUIRE);
}

/* Whether it is piece p's turn now, without the lock or a wait (to hand bytes on
 * early, while they are still in the cache). */
static inline int turns_mine(turns_t *t, size_t p)
{
    return __atomic_load_n(&t->turn, __ATOMIC_ACQUIRE) == p;
}

/* The first error, or GS_OK. */
int turns_rc(const turns_t *t);

/* ---- a thread's bytes of a piece, held until its turn ---------------------------------- */

/* Where a piece's bytes go on its turn (an output's in-order writes, a run's
 * append): GS_OK or an error. */
typedef int (*turns_put_fn)(void *ctx, const void *bytes, size_t len);

/* A thread fills buf with its piece's bytes. Where they would not fit, it waits for
 * the piece's turn and hands them on (so memory stays bounded, and the thread that
 * holds the turn never waits); on the turn, it hands them on as soon as they are
 * TURNS_STREAM bytes or half the buffer, while they are still in the cache. */
typedef struct {
    turns_t *t;
    turns_put_fn put;
    void *ctx;
    char *buf;               /* the bytes held: [buf, buf + len) */
    size_t len, cap;
    size_t piece;            /* the piece they are of */
} turns_hold_t;

/* A hold of cap bytes (at least 1) for t's pieces, handed on through put(ctx).
 * GS_OK or GS_ENOMEM (with the message set). turns_hold_free() ends it. */
int turns_hold_init(turns_hold_t *h, turns_t *t, size_t cap, turns_put_fn put, void *ctx);
void turns_hold_free(turns_hold_t *h);

/* Room for n more bytes at h->buf + h->len, where n is at most h->cap: what is held
 * handed on first (on the piece's turn, waited for) where they would not fit.
 * GS_OK, put's error, or GS_EIO where another thread failed (its error is the one
 * reported). */
int turns_hold_room_for(turns_hold_t *h, size_t n);

static inline int turns_hold_room(turns_hold_t *h, size_t n)
{
    return h->cap - h->len >= n ? 0 : turns_hold_room_for(h, n);
}

/* n bytes were added at h->buf + h->len: counted, and on the piece's turn handed
 * on where enough are held. GS_OK or an error, as turns_hold_room(). */
int turns_hold_added(turns_hold_t *h, size_t n);

/* bytes[0..len) held (a piece's bytes longer than the hold handed on as they are,
 * on its turn). GS_OK or an error, as turns_hold_room(). */
int turns_hold_put_long(turns_hold_t *h, const void *bytes, size_t len);

static inline int turns_hold_put(turns_hold_t *h, const void *bytes, size_t len)
{
    if (h->cap - h->len < len)
        return turns_hold_put_long(h, bytes, len);
    memcpy(h->buf + h->len, bytes, len);
    h->len += len;
    return 0;
}

/* The piece's end: its turn waited for, what is held handed on, and (all well)
 * the turn passed to the next piece. GS_OK or an error, as turns_hold_room(). */
int turns_hold_end(turns_hold_t *h);

/* The hold's next piece is p (nothing held). */
static inline void turns_hold_start(turns_hold_t *h, size_t p)
{
    h->piece = p;
    h->len = 0;
}

#endif
