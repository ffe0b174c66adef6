/* SPDX-License-Identifier: MIT */
/* turns.h: an output's pieces go out in their order, whichever threads made them.
 *
 * Piece p's turn comes once pieces 0 to p - 1 are out: a thread that holds piece p
 * waits for it (turns_wait), hands its bytes on, and passes the turn to p + 1
 * (turns_pass). A thread that fails says so (turns_fail): the first error is kept,
 * and every wait ends. io/pieces.c holds a thread's bytes of a piece until its
 * turn: the one way bytes made in parallel go out in order.
 */
#ifndef GS_TURNS_H
#define GS_TURNS_H

#include <pthread.h>
#include <stddef.h>

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

/* Where a piece's bytes go on its turn (an output's in-order writes, a run's
 * append): GS_OK or an error. */
typedef int (*turns_put_fn)(void *ctx, const void *bytes, size_t len);

#endif
