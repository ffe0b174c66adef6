/* SPDX-License-Identifier: MIT */
/* job.h: background jobs: functions run in order on a thread of their own while the
 * caller goes on. Every background stage of gpusort is one: reading ahead, writing
 * formatted batches, writing spilled blocks, writing a merge's pieces, zeros written
 * ahead, a GPU's set-up and its sorts aside.
 *
 * job_post() waits for the function posted before, then hands the thread the next:
 * a caller with two buffers fills one while the job drains the other. The thread is
 * made at the first post (cleanup_thread_create); where no thread can be had,
 * job_post() runs the function itself, on the caller's thread: slower, never wrong.
 * A job_t is embedded in its owner, set up by job_init() and ended by job_end().
 */
#ifndef GS_JOB_H
#define GS_JOB_H

#include <pthread.h>

typedef struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    void (*fn)(void *arg);   /* the function posted, until it has returned */
    void *arg;
    int started;             /* 1: the thread runs */
    int failed;              /* 1: it could not be made; functions run inline */
    int quit;                /* 1: the thread exits once idle */
} job_t;

/* Ready j; no thread is made yet. */
void job_init(job_t *j);

/* Run fn(arg) on j's thread, after the function posted before has returned. */
void job_post(job_t *j, void (*fn)(void *arg), void *arg);

/* As job_post(), but where no thread can be had, run nothing and return 0 (for work
 * worth doing only aside); 1 when posted. */
int job_try_post(job_t *j, void (*fn)(void *arg), void *arg);

/* Wait until the function posted last has returned. */
void job_wait(job_t *j);

/* 1 while a function posted has not returned (a hint: it may return meanwhile). */
int job_busy(job_t *j);

/* Wait for the last function, stop the thread and free what job_init() set up. */
void job_end(job_t *j);

/* As job_end(), but a function still running is cancelled at its next cancellation
 * point (read(2) on a pipe, say) rather than waited for: for a reader whose data is
 * no longer wanted. Only functions that hold no lock and leave nothing half-done
 * across a cancellation point may be posted to a job that is cancelled. */
void job_cancel(job_t *j);

#endif
