/* SPDX-License-Identifier: MIT */
/* job.c: background jobs (see job.h).
 *
 * The thread takes one function at a time from j->fn, runs it with the lock released
 * and clears j->fn when it returns; job_post() and job_wait() wait for j->fn to be
 * clear. Cancellation is enabled only while a function runs, so that job_cancel()
 * never finds the thread inside pthread_cond_wait() holding the lock.
 */
#include <config.h>

#include "core/cleanup.h"
#include "core/job.h"

static void *job_main(void *arg)
{
    job_t *j = arg;
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    pthread_mutex_lock(&j->lock);
    for (;;) {
        while (!j->fn && !j->quit)
            pthread_cond_wait(&j->cond, &j->lock);
        if (!j->fn)
            break;
        void (*fn)(void *) = j->fn;
        void *a = j->arg;
        pthread_mutex_unlock(&j->lock);
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
        fn(a);
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
        pthread_mutex_lock(&j->lock);
        j->fn = NULL;
        pthread_cond_broadcast(&j->cond);
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

void job_init(job_t *j)
{
    j->fn = NULL;
    j->arg = NULL;
    j->started = j->failed = j->quit = 0;
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->cond, NULL);
}

void job_wait(job_t *j)
{
    if (!j->started)
        return;
    pthread_mutex_lock(&j->lock);
    while (j->fn)
        pthread_cond_wait(&j->cond, &j->lock);
    pthread_mutex_unlock(&j->lock);
}

int job_busy(job_t *j)
{
    if (!j->started)
        return 0;
    pthread_mutex_lock(&j->lock);
    int busy = j->fn != NULL;
    pthread_mutex_unlock(&j->lock);
    return busy;
}

/* Start the thread at the first post; 1 if it runs. */
static int job_start(job_t *j)
{
    if (!j->started && !j->failed) {
        if (cleanup_thread_create(&j->thread, job_main, j) == 0)
            j->started = 1;
        else
            j->failed = 1;
    }
    return j->started;
}

/* Hand the running thread fn(arg), after the function before. */
static void job_hand(job_t *j, void (*fn)(void *), void *arg)
{
    pthread_mutex_lock(&j->lock);
    while (j->fn)
        pthread_cond_wait(&j->cond, &j->lock);
    j->fn = fn;
    j->arg = arg;
    pthread_cond_broadcast(&j->cond);
    pthread_mutex_unlock(&j->lock);
}

void job_post(job_t *j, void (*fn)(void *), void *arg)
{
    if (job_start(j))
        job_hand(j, fn, arg);
    else
        fn(arg);
}

int job_try_post(job_t *j, void (*fn)(void *), void *arg)
{
    if (!job_start(j))
        return 0;
    job_hand(j, fn, arg);
    return 1;
}

/* Stop the thread (cancelled first with cancel), then free the rest. */
static void job_stop(job_t *j, int cancel)
{
    if (j->started) {
        if (cancel)
            pthread_cancel(j->thread);
        pthread_mutex_lock(&j->lock);
        j->quit = 1;
        pthread_cond_broadcast(&j->cond);
        pthread_mutex_unlock(&j->lock);
        pthread_join(j->thread, NULL);
        j->started = 0;
    }
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->cond);
}

void job_end(job_t *j)
{
    job_stop(j, 0);
}

void job_cancel(job_t *j)
{
    job_stop(j, 1);
}
