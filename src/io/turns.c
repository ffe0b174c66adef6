/* SPDX-License-Identifier: MIT */
/* turns.c: an output's pieces in their order (see turns.h). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/tuning.h"
#include "io/turns.h"

void turns_init(turns_t *t)
{
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->cond, NULL);
    turns_reset(t);
}

void turns_reset(turns_t *t)
{
    t->turn = 0;
    t->failed = 0;
    t->rc = GS_OK;
}

void turns_destroy(turns_t *t)
{
    pthread_mutex_destroy(&t->lock);
    pthread_cond_destroy(&t->cond);
}

int turns_wait(turns_t *t, size_t p)
{
    pthread_mutex_lock(&t->lock);
    while (t->turn != p && !t->failed)
        pthread_cond_wait(&t->cond, &t->lock);
    int failed = t->failed;
    pthread_mutex_unlock(&t->lock);
    return failed ? -1 : 0;
}

void turns_pass(turns_t *t, size_t p)
{
    pthread_mutex_lock(&t->lock);
    __atomic_store_n(&t->turn, p + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
}

void turns_fail(turns_t *t, int rc)
{
    pthread_mutex_lock(&t->lock);
    if (!t->failed) {
        t->rc = rc;
        __atomic_store_n(&t->failed, 1, __ATOMIC_RELEASE);
    }
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
}

int turns_rc(const turns_t *t)
{
    return t->failed ? t->rc : GS_OK;
}

/* ---- holds -------------------------------------------------------------------------- */

int turns_hold_init(turns_hold_t *h, turns_t *t, size_t cap, turns_put_fn put, void *ctx)
{
    *h = (turns_hold_t){ .t = t, .put = put, .ctx = ctx, .cap = cap ? cap : 1 };
    if (!(h->buf = malloc(h->cap)))
        return err_set(GS_ENOMEM, "out of memory");
    return GS_OK;
}

void turns_hold_free(turns_hold_t *h)
{
    free(h->buf);
    h->buf = NULL;
}

/* What is held handed on: the thread holds the piece's turn. */
static int hold_hand_on(turns_hold_t *h)
{
    size_t len = h->len;
    h->len = 0;
    return len ? h->put(h->ctx, h->buf, len) : GS_OK;
}

/* Wait for the piece's turn and hand on what is held. */
static int hold_wait_hand_on(turns_hold_t *h)
{
    if (turns_wait(h->t, h->piece))
        return GS_EIO;   /* another thread's error is the one reported */
    return hold_hand_on(h);
}

int turns_hold_room_for(turns_hold_t *h, size_t n)
{
    if (n > h->cap)
        return err_set(GS_EIO, "internal error: %zu bytes asked of a hold of %zu", n, h->cap);
    return h->cap - h->len >= n ? GS_OK : hold_wait_hand_on(h);
}

int turns_hold_added(turns_hold_t *h, size_t n)
{
    h->len += n;
    if (turns_mine(h->t, h->piece) && (h->len >= TURNS_STREAM || h->len >= h->cap / 2))
        return hold_hand_on(h);   /* our turn: while the bytes are in the cache */
    return GS_OK;
}

int turns_hold_put_long(turns_hold_t *h, const void *bytes, size_t len)
{
    if (len > h->cap) {   /* longer than the hold: as it is, on the turn */
        int rc = hold_wait_hand_on(h);
        return rc ? rc : h->put(h->ctx, bytes, len);
    }
    int rc = turns_hold_room_for(h, len);
    if (rc)
        return rc;
    memcpy(h->buf + h->len, bytes, len);
    return turns_hold_added(h, len);
}

int turns_hold_end(turns_hold_t *h)
{
    int rc = hold_wait_hand_on(h);
    if (rc == GS_OK)
        turns_pass(h->t, h->piece);
    return rc;
}
