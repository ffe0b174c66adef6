/* SPDX-License-Identifier: MIT */
/* pool.c: a fixed pool of threads running one data-parallel job at a time.
 *
 * The workers wait on a generation counter; pool_run() publishes a job, runs index 0
 * itself and waits until every worker has reported done.
 */
#include <config.h>

#include <pthread.h>
#include <stdlib.h>

#include "core/cleanup.h"
#include "core/error.h"
#include "core/pool.h"

typedef struct {
    pool_t *pool;
    int index;                    /* this worker's job index (1..n-1) */
} worker_t;

struct pool {
    int n;                        /* threads, the caller included */
    pthread_t *threads;           /* n - 1 workers */
    worker_t *workers;
    pthread_mutex_t lock;
    pthread_cond_t start;         /* signalled when a job (or shutdown) is published */
    pthread_cond_t done;          /* signalled when the last worker finishes a job */
    unsigned long generation;     /* bumped for every job */
    int pending;                  /* workers still running the current job */
    int quit;                     /* 1: workers exit */
    pool_fn_t fn;                 /* the current job */
    void *arg;
};

static void *pool_worker(void *p)
{
    worker_t *w = p;
    pool_t *pool = w->pool;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        while (pool->generation == seen && !pool->quit)
            pthread_cond_wait(&pool->start, &pool->lock);
        if (pool->quit) {
            pthread_mutex_unlock(&pool->lock);
            return NULL;
        }
        seen = pool->generation;
        pool_fn_t fn = pool->fn;
        void *arg = pool->arg;
        pthread_mutex_unlock(&pool->lock);

        fn(arg, w->index, pool->n);

        pthread_mutex_lock(&pool->lock);
        if (--pool->pending == 0)
            pthread_cond_signal(&pool->done);
        pthread_mutex_unlock(&pool->lock);
    }
}

int pool_create(pool_t **out, int nthreads)
{
    pool_t *p = calloc(1, sizeof *p);
    if (!p)
        return err_set(GS_ENOMEM, "out of memory");
    p->n = nthreads < 1 ? 1 : nthreads;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->done, NULL);
    p->threads = calloc(p->n, sizeof *p->threads);
    p->workers = calloc(p->n, sizeof *p->workers);
    if (!p->threads || !p->workers) {
        p->n = 1;   /* no worker was started */
        pool_destroy(p);
        return err_set(GS_ENOMEM, "out of memory");
    }
    for (int i = 1; i < p->n; i++) {
        p->workers[i].pool = p;
        p->workers[i].index = i;
        if (cleanup_thread_create(&p->threads[i], pool_worker, &p->workers[i]) != 0) {
            p->n = i;   /* join only the ones that started */
            pool_destroy(p);
            return err_set(GS_ENOMEM, "cannot create threads");
        }
    }
    *out = p;
    return GS_OK;
}

int pool_size(const pool_t *p)
{
    return p->n;
}

void pool_run(pool_t *p, pool_fn_t fn, void *arg)
{
    if (p->n == 1) {
        fn(arg, 0, 1);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->arg = arg;
    p->pending = p->n - 1;
    p->generation++;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->lock);

    fn(arg, 0, p->n);

    pthread_mutex_lock(&p->lock);
    while (p->pending > 0)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

void pool_destroy(pool_t *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->lock);
    for (int i = 1; i < p->n; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
    free(p->threads);
    free(p->workers);
    free(p);
}
