/* SPDX-License-Identifier: MIT */
/* progress.c: the --progress line (see progress.h). */
#include <config.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/job.h"
#include "core/progress.h"
#include "core/stats.h"

static job_t progress_job;       /* redraws the line until progress_stop() */
static int progress_running;
static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t progress_cond = PTHREAD_COND_INITIALIZER;
static int progress_quit;
static const char *progress_name = "reading";
static double progress_t0;
static int progress_tty;          /* stderr is a terminal: redraw in place */

static void progress_draw(int last)
{
    double secs = stats_now() - progress_t0;
    double in = (double)stats_bytes(ST_READ) / 1e6, out = (double)stats_bytes(ST_WRITE) / 1e6;
    uint64_t runs, merged, total;
    stats_progress(&runs, &merged, &total);
    fprintf(stderr, "%sgpusort: %-8s %9.1f MB in %5llu runs %3d%% merged %9.1f MB out "
            "%7.1f MB/s in %6.1f s%s", progress_tty ? "\r" : "", progress_name, in,
            (unsigned long long)runs, total ? (int)(100 * merged / total) : 0, out,
            secs > 0 ? in / secs : 0, secs, progress_tty && !last ? "" : "\n");
    fflush(stderr);
}

static void progress_main(void *arg)
{
    (void)arg;
    double every = progress_tty ? 0.25 : 1.0;
    pthread_mutex_lock(&progress_lock);
    while (!progress_quit) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)(every * 1e9);
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&progress_cond, &progress_lock, &ts);
        if (!progress_quit)
            progress_draw(0);
    }
    pthread_mutex_unlock(&progress_lock);
}

int progress_start(void)
{
    progress_t0 = stats_now();
    progress_tty = isatty(STDERR_FILENO);
    job_init(&progress_job);
    if (!job_try_post(&progress_job, progress_main, NULL)) {
        job_end(&progress_job);
        return err_set(GS_ENOMEM, "cannot create threads");
    }
    progress_running = 1;
    return GS_OK;
}

void progress_phase(const char *phase)
{
    stats_phase(phase);
    pthread_mutex_lock(&progress_lock);
    progress_name = phase;
    pthread_mutex_unlock(&progress_lock);
}

void progress_stop(int ok)
{
    if (!progress_running)
        return;
    pthread_mutex_lock(&progress_lock);
    progress_quit = 1;
    pthread_cond_signal(&progress_cond);
    pthread_mutex_unlock(&progress_lock);
    job_end(&progress_job);
    progress_running = 0;
    if (ok) {
        progress_name = "done";
        progress_draw(1);
    } else if (progress_tty) {
        fputc('\n', stderr);
    }
}
