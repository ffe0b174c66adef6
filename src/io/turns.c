/* SPDX-License-Identifier: MIT */
/* turns.c: an output's pieces in their order (see turns.h). */
#include <config.h>

#include "core/error.h"
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
