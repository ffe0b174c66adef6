/* SPDX-License-Identifier: MIT */
/* progress.c: the --progress line (see progress.h).
 *
 * A job wakes every tick, samples the counters into a ring, and on a terminal
 * redraws the line (on a log, writes it every PROGRESS_LOG_MS). Rates and times
 * left come from the ring: the oldest sample of the last PROGRESS_WINDOW seconds
 * against the newest. Everything the pipeline touches is an atomic (the phase, the
 * total, stats.h's counters); the lock is the display's own, held only while waiting
 * and while writing to stderr.
 */
#include <config.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fdio.h"
#include "core/job.h"
#include "core/progress.h"
#include "core/stats.h"

#define PROGRESS_TICK_MS 250       /* a sample, and a redraw on a terminal */
#define PROGRESS_LOG_MS 5000       /* a line to a log */
#define PROGRESS_WINDOW 5.0        /* seconds that rates and times left look back */
#define PROGRESS_SAMPLES 32        /* the ring: the window at the tick, and more */
#define PROGRESS_MAX_WIDTH 80      /* columns, at most, on any terminal */
#define PROGRESS_FIELD 32          /* a field's buffer */
#define PROGRESS_LINE 256          /* a line's buffer: every field at once */
#define PROGRESS_MAX_LEFT (100.0 * 3600)   /* a time left beyond this is not shown */

typedef struct {
    double t;                      /* stats_now() */
    uint64_t in, out;              /* bytes read, bytes written */
    uint64_t spilled;              /* bytes spilled (runs and merge passes) */
    uint64_t merged, to_merge;     /* the merge's keys (stats_progress()) */
} progress_sample_t;

/* ---- state ------------------------------------------------------------------------ */

static job_t progress_job;           /* the display, until progress_stop() */
static int progress_running;         /* the caller's: 1 between start and stop */
static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;   /* quit, waits */
static pthread_cond_t progress_cond;   /* on CLOCK_MONOTONIC: progress_stop() wakes it */
static int progress_quit;            /* under progress_lock */
static const char *progress_name;    /* the phase (atomic) */
static uint64_t progress_in_total;   /* the inputs' bytes (atomic), */
static uint64_t progress_out_total;  /* the bytes the run expects to write (atomic), */
static int progress_in_known;        /* once this is 1 (atomic, release/acquire) */
static unsigned progress_pct_shown;  /* the display's: the highest percentage shown */
static int progress_tty;             /* stderr is a terminal: redraw in place */
static int progress_tick_ms, progress_log_ms;
static double progress_t0;
static progress_sample_t progress_ring[PROGRESS_SAMPLES];   /* the display's */
static int progress_nring, progress_head;                  /* samples; the next slot */

/* What is on the terminal: under progress_out_lock, which every write to stderr of
 * this module holds (the display's and progress_print()'s). */
static pthread_mutex_t progress_out_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t progress_shown;        /* columns of the line on screen (0: none) */
static char progress_last[PROGRESS_LINE];   /* that line */
static int progress_broken;          /* 1: stderr failed: nothing more is drawn */

/* ---- formatting ------------------------------------------------------------------- */

/* bytes as three digits and a unit of powers of 1000 ("850 MB", "1.23 GB", "0 B"). */
static void progress_fmt_size(char *dst, size_t cap, uint64_t bytes)
{
    static const char *const units[] = { "kB", "MB", "GB", "TB", "PB", "EB" };
    if (bytes < 1000) {
        snprintf(dst, cap, "%u B", (unsigned)bytes);
        return;
    }
    double v = (double)bytes;
    int u = -1;
    /* 999.5 and up would print as 1000: the next unit. */
    while (u < 5 && v >= 999.5) {
        v /= 1000;
        u++;
    }
    const char *f = v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s";
    snprintf(dst, cap, f, v, units[u]);
}

/* seconds as M:SS or H:MM:SS. */
static void progress_fmt_time(char *dst, size_t cap, double secs)
{
    unsigned long s = secs > 0 ? (unsigned long)(secs + 0.5) : 0;
    if (s >= 3600)
        snprintf(dst, cap, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(dst, cap, "%lu:%02lu", s / 60, s % 60);
}

/* The line's fields, in the order shown; rank: which go first where the width is
 * short (the highest), 0 never (the phase: cut where nothing else fits). */
enum { PF_PREFIX, PF_PHASE, PF_IN, PF_PCT, PF_OUT, PF_RATE, PF_LEFT, PF_COUNT };
static const int progress_rank[PF_COUNT] = { 6, 0, 1, 2, 4, 5, 3 };

/* The fields joined by spaces into dst, in at most cols bytes (the line is ASCII: a
 * byte is a column): the highest ranks dropped until it fits, and what still does not
 * cut. Its length. */
static size_t progress_join(char *dst, char field[PF_COUNT][PROGRESS_FIELD], size_t cols)
{
    int on[PF_COUNT];
    size_t len = 0;
    for (int f = 0; f < PF_COUNT; f++) {
        on[f] = field[f][0] != '\0';
        len += on[f] ? strlen(field[f]) + (len > 0) : 0;
    }
    for (int rank = 6; rank > 0 && len > cols; rank--)
        for (int f = 0; f < PF_COUNT; f++)
            if (on[f] && progress_rank[f] == rank) {
                on[f] = 0;
                len = 0;
                for (int g = 0; g < PF_COUNT; g++)
                    len += on[g] ? strlen(field[g]) + (len > 0) : 0;
            }
    size_t n = 0;
    for (int f = 0; f < PF_COUNT; f++) {
        if (!on[f])
            continue;
        n += (size_t)snprintf(dst + n, PROGRESS_LINE - n, "%s%s", n ? " " : "", field[f]);
    }
    if (n > cols)
        n = cols;
    dst[n] = '\0';
    return n;
}

/* ---- the samples ------------------------------------------------------------------ */

static progress_sample_t progress_sample(void)
{
    progress_sample_t s = { .t = stats_now(), .in = stats_bytes(ST_READ),
                            .out = stats_bytes(ST_WRITE), .spilled = stats_bytes(ST_SPILL) };
    uint64_t runs;
    stats_progress(&runs, &s.merged, &s.to_merge);
    return s;
}

static void progress_push(const progress_sample_t *s)
{
    progress_ring[progress_head] = *s;
    progress_head = (progress_head + 1) % PROGRESS_SAMPLES;
    if (progress_nring < PROGRESS_SAMPLES)
        progress_nring++;
}

/* The i-th sample from the oldest kept. */
static const progress_sample_t *progress_at(int i)
{
    return &progress_ring[(progress_head - progress_nring + i + PROGRESS_SAMPLES) %
                          PROGRESS_SAMPLES];
}

/* The oldest sample of the window before cur (the newest), or NULL where there is
 * none but cur. */
static const progress_sample_t *progress_oldest(const progress_sample_t *cur)
{
    for (int i = 0; i < progress_nring - 1; i++) {
        const progress_sample_t *s = progress_at(i);
        if (s->t >= cur->t - PROGRESS_WINDOW && s->t < cur->t)
            return s;
    }
    return NULL;
}

/* Seconds left of the merge under way, from its keys merged over the window; < 0
 * where it cannot be told (no merge under way, none merged in the window). */
static double progress_merge_left(const progress_sample_t *cur)
{
    if (cur->to_merge == 0 || cur->merged >= cur->to_merge)
        return -1;
    for (int i = 0; i < progress_nring - 1; i++) {
        const progress_sample_t *s = progress_at(i);
        /* The same merge: its total, and no more merged than now (a new merge may
         * have started with the same total). */
        if (s->t < cur->t - PROGRESS_WINDOW || s->t >= cur->t ||
            s->to_merge != cur->to_merge || s->merged > cur->merged)
            continue;
        if (s->merged == cur->merged)
            return -1;
        double rate = (double)(cur->merged - s->merged) / (cur->t - s->t);
        return (double)(cur->to_merge - cur->merged) / rate;
    }
    return -1;
}

/* The whole run's work, where the inputs' total is known: reading them, spilling
 * (and merging back) runs, writing the output; *done of it at sample x, *total all
 * of it as far as x tells. The output is expected to be as large as the run said
 * (progress_total), the spill to go on as it began: bytes spilled over bytes read,
 * for the bytes still to read. Each part counts no more than its expected total, so
 * done never passes total. */
static void progress_work(const progress_sample_t *x, uint64_t in_total, uint64_t out_total,
                          uint64_t *done, uint64_t *total)
{
    uint64_t in = x->in < in_total ? x->in : in_total;
    uint64_t out = x->out < out_total ? x->out : out_total;
    uint64_t spill = x->spilled;
    if (spill > 0 && in > 0 && in < in_total)
        spill += (uint64_t)((double)x->spilled * (double)(in_total - in) / (double)in);
    *done = in + out + x->spilled;
    *total = in_total + out_total + spill;
}

/* The percentage of the run's work done at cur: never more than 99 while it runs
 * (the output may be larger than expected), never less than one shown before (the
 * work expected grows where a spill begins). */
static unsigned progress_pct(const progress_sample_t *cur, uint64_t in_total,
                             uint64_t out_total)
{
    uint64_t done, total;
    progress_work(cur, in_total, out_total, &done, &total);
    unsigned pct = total == 0 ? 99 : (unsigned)((double)done * 100.0 / (double)total);
    if (pct > 99)
        pct = 99;
    if (pct < progress_pct_shown)
        pct = progress_pct_shown;
    progress_pct_shown = pct;
    return pct;
}

/* Seconds left of the run's work at cur, from the work done over the window since
 * old; < 0 where it cannot be told (nothing done in the window). */
static double progress_work_left(const progress_sample_t *cur, const progress_sample_t *old,
                                 uint64_t in_total, uint64_t out_total)
{
    uint64_t done, total, done0, total0;
    progress_work(cur, in_total, out_total, &done, &total);
    progress_work(old, in_total, out_total, &done0, &total0);
    if (done <= done0 || done >= total)
        return -1;
    return (double)(total - done) * (cur->t - old->t) / (double)(done - done0);
}

/* The line for the newest sample, in at most cols columns, into dst; its length. */
static size_t progress_line(char *dst, size_t cols)
{
    char field[PF_COUNT][PROGRESS_FIELD] = { { 0 } };
    const progress_sample_t *cur = progress_at(progress_nring - 1);
    const progress_sample_t *old = progress_oldest(cur);
    int known = __atomic_load_n(&progress_in_known, __ATOMIC_ACQUIRE);
    uint64_t total = known ? __atomic_load_n(&progress_in_total, __ATOMIC_RELAXED) : 0;
    uint64_t out_total = known ? __atomic_load_n(&progress_out_total, __ATOMIC_RELAXED) : 0;
    const char *phase = __atomic_load_n(&progress_name, __ATOMIC_RELAXED);
    char a[12], b[12];   /* a size ("1.23 GB"), a time ("99:59:59") */

    snprintf(field[PF_PREFIX], sizeof field[0], "gpusort:");
    snprintf(field[PF_PHASE], sizeof field[0], "%s", phase ? phase : "starting");
    progress_fmt_size(a, sizeof a, cur->in);
    if (known) {
        progress_fmt_size(b, sizeof b, total);
        const char *ua = strchr(a, ' '), *ub = strchr(b, ' ');
        if (strcmp(ua, ub) == 0)   /* one unit for both: "1.23/2.00 GB" */
            snprintf(field[PF_IN], sizeof field[0], "%.*s/%s", (int)(ua - a), a, b);
        else
            snprintf(field[PF_IN], sizeof field[0], "%s/%s", a, b);
        snprintf(field[PF_PCT], sizeof field[0], "%u%%", progress_pct(cur, total, out_total));
    } else {
        snprintf(field[PF_IN], sizeof field[0], "%s", a);
    }
    if (cur->out > 0) {
        progress_fmt_size(a, sizeof a, cur->out);
        snprintf(field[PF_OUT], sizeof field[0], "out %s", a);
    }
    double left = -1;
    if (old) {
        double dt = cur->t - old->t;
        uint64_t moved = (cur->in - old->in) + (cur->out - old->out);
        if (moved > 0) {
            progress_fmt_size(a, sizeof a, (uint64_t)(moved / dt));
            snprintf(field[PF_RATE], sizeof field[0], "%s/s", a);
        }
        if (known)
            left = progress_work_left(cur, old, total, out_total);
    }
    if (!known)
        left = progress_merge_left(cur);
    if (left >= 0 && left < PROGRESS_MAX_LEFT) {
        progress_fmt_time(a, sizeof a, left);
        snprintf(field[PF_LEFT], sizeof field[0], "%s left", a);
    }
    return progress_join(dst, field, cols);
}

/* ---- output ----------------------------------------------------------------------- */

/* Write buf[0..len) to stderr; under progress_out_lock. A failure stops the display
 * (stderr is gone: there is no one to tell). */
static void progress_write(const char *buf, size_t len)
{
    if (!progress_broken && fdio_write(STDERR_FILENO, buf, len, -1, NULL) != 0)
        progress_broken = 1;
}

/* Columns for the line on this terminal: its width less one, at most
 * PROGRESS_MAX_WIDTH less one (a terminal that does not say: 80). */
static size_t progress_cols(void)
{
    size_t width = PROGRESS_MAX_WIDTH;
    struct winsize ws;
    if (progress_tty && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 &&
        ws.ws_col < width)
        width = ws.ws_col;
    return width > 1 ? width - 1 : 1;
}

/* "\r", then n spaces, then "\r": the line on screen cleared. Under
 * progress_out_lock. */
static void progress_clear(size_t n)
{
    char buf[PROGRESS_LINE + 2];
    if (n == 0)
        return;
    if (n > PROGRESS_LINE - 1)
        n = PROGRESS_LINE - 1;
    buf[0] = '\r';
    memset(buf + 1, ' ', n);
    buf[n + 1] = '\r';
    progress_write(buf, n + 2);
}

/* On a terminal: "\r" and the line, padded with spaces over the longer one before
 * (within cols); nothing where it is the same line. */
static void progress_redraw(void)
{
    char line[PROGRESS_LINE], buf[PROGRESS_LINE + 2];
    size_t cols = progress_cols();
    size_t n = progress_line(line, cols);
    pthread_mutex_lock(&progress_out_lock);
    if (n == progress_shown && strcmp(line, progress_last) == 0) {
        pthread_mutex_unlock(&progress_out_lock);
        return;
    }
    size_t pad = progress_shown > n ? progress_shown - n : 0;
    if (n + pad > cols)
        pad = cols > n ? cols - n : 0;
    buf[0] = '\r';
    memcpy(buf + 1, line, n);
    memset(buf + 1 + n, ' ', pad);
    progress_write(buf, 1 + n + pad);
    progress_shown = n;
    memcpy(progress_last, line, n + 1);
    pthread_mutex_unlock(&progress_out_lock);
}

/* On a log: the line and a newline. */
static void progress_log(void)
{
    char line[PROGRESS_LINE];
    size_t n = progress_line(line, PROGRESS_MAX_WIDTH - 1);
    line[n++] = '\n';
    pthread_mutex_lock(&progress_out_lock);
    progress_write(line, n);
    pthread_mutex_unlock(&progress_out_lock);
}

/* ---- the display job -------------------------------------------------------------- */

static void progress_main(void *arg)
{
    (void)arg;
    double next_log = progress_t0 + progress_log_ms / 1000.0;
    pthread_mutex_lock(&progress_lock);
    while (!progress_quit) {
        /* From now, not from the last deadline: a draw that waited on stderr is not
         * followed by a burst of them. */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += (long)progress_tick_ms * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        while (!progress_quit && pthread_cond_timedwait(&progress_cond, &progress_lock, &ts) == 0)
            ;
        if (progress_quit)
            break;
        pthread_mutex_unlock(&progress_lock);
        progress_sample_t s = progress_sample();
        progress_push(&s);
        if (progress_tty) {
            progress_redraw();
        } else if (s.t >= next_log) {
            progress_log();
            next_log = s.t + progress_log_ms / 1000.0;
        }
        pthread_mutex_lock(&progress_lock);
    }
    pthread_mutex_unlock(&progress_lock);
}

/* GS_PROGRESS_INTERVAL_MS where set and valid (tests), else 0. */
static int progress_env_interval(void)
{
    const char *v = getenv("GS_PROGRESS_INTERVAL_MS");
    if (!v || !*v)
        return 0;
    char *end;
    long ms = strtol(v, &end, 10);
    return *end == '\0' && ms >= 1 && ms <= 60000 ? (int)ms : 0;
}

/* ---- the interface ---------------------------------------------------------------- */

int progress_start(void)
{
    int every = progress_env_interval();
    /* progress_print() may run on another thread meanwhile (a warning). */
    pthread_mutex_lock(&progress_out_lock);
    progress_tty = isatty(STDERR_FILENO);
    progress_shown = 0;
    progress_broken = 0;
    pthread_mutex_unlock(&progress_out_lock);
    progress_log_ms = every ? every : PROGRESS_LOG_MS;
    progress_tick_ms = every ? every : PROGRESS_TICK_MS;
    if (!progress_tty && progress_tick_ms > PROGRESS_TICK_MS)
        progress_tick_ms = PROGRESS_TICK_MS;
    progress_quit = 0;
    progress_nring = progress_head = 0;
    progress_pct_shown = 0;
    progress_sample_t s = progress_sample();
    progress_t0 = s.t;
    progress_push(&s);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&progress_cond, &ca);
    pthread_condattr_destroy(&ca);
    job_init(&progress_job);
    if (!job_try_post(&progress_job, progress_main, NULL)) {
        job_end(&progress_job);
        pthread_cond_destroy(&progress_cond);
        return err_set(GS_ENOMEM, "cannot create threads");
    }
    progress_running = 1;
    return GS_OK;
}

void progress_total(uint64_t bytes, uint64_t out)
{
    __atomic_store_n(&progress_in_total, bytes, __ATOMIC_RELAXED);
    __atomic_store_n(&progress_out_total, out, __ATOMIC_RELAXED);
    __atomic_store_n(&progress_in_known, 1, __ATOMIC_RELEASE);
}

void progress_phase(const char *phase)
{
    stats_phase(phase);
    __atomic_store_n(&progress_name, phase, __ATOMIC_RELAXED);
}

/* "gpusort: ", msg, bytes[0..len) as they are, and a newline on stderr, the line
 * (if shown) cleared first. Through stdio, as every message: written whether or
 * not the line could be. */
static void progress_say(const char *msg, const char *bytes, size_t len)
{
    pthread_mutex_lock(&progress_out_lock);
    if (progress_tty) {
        progress_clear(progress_shown);
        progress_shown = 0;
        progress_last[0] = '\0';
    }
    fprintf(stderr, "gpusort: %s", msg);
    if (len)
        fwrite(bytes, 1, len, stderr);
    fputc('\n', stderr);
    pthread_mutex_unlock(&progress_out_lock);
}

void progress_print(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    progress_say(msg ? msg : "out of memory", NULL, 0);
    free(msg);
}

void progress_print_raw(const char *head, const char *bytes, size_t len)
{
    progress_say(head, bytes, len);
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
    pthread_cond_destroy(&progress_cond);
    progress_running = 0;
    pthread_mutex_lock(&progress_out_lock);
    if (progress_tty) {
        progress_clear(progress_shown);
        progress_shown = 0;
    } else if (ok) {
        progress_sample_t s = progress_sample();
        char in[24], out[24], time[24], line[PROGRESS_LINE];
        progress_fmt_size(in, sizeof in, s.in);
        progress_fmt_size(out, sizeof out, s.out);
        progress_fmt_time(time, sizeof time, s.t - progress_t0);
        int n = snprintf(line, sizeof line, "gpusort: done: %s in%s%s%s, %s\n", in,
                         s.out ? ", " : "", s.out ? out : "", s.out ? " out" : "", time);
        progress_write(line, (size_t)n);
    }
    pthread_mutex_unlock(&progress_out_lock);
}
