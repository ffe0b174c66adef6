/* SPDX-License-Identifier: MIT */
/* stats.c: per-stage totals for --stats (see stats.h). */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/stats.h"

static const char *const stage_names[ST_COUNT] = {
    "read", "parse", "transfer", "sort", "spill", "merge", "format", "write"
};

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t stage_bytes[ST_COUNT];     /* atomics: --progress reads them as they grow */
static double stage_seconds[ST_COUNT];     /* under stats_lock */
static char device_text[256] = "cpu";
static char plan_text[256];       /* the path the run took, and why (pipeline/plan.c) */
static char plan_fallback[128];   /* and what it fell back to, if it did */
static uint64_t runs_made, keys_merged, keys_to_merge;   /* atomics */
static uint64_t asides[2];   /* atomics: chunks, merge pieces sorted aside */
static uint64_t sm_pieces, sm_bytes;   /* merges by sort (stats_note_smerge): */
static double sm_wall, sm_gather, sm_sorter, sm_writer;
static uint64_t copied_bytes;   /* sorted chunks copied out of pinned buffers, */
static double copied_s;         /* and the seconds it took (under stats_lock) */
static uint64_t read_mapped;    /* text read mapped (under stats_lock) */
static uint64_t records_mapped; /* records' inputs mapped whole (under stats_lock) */
static int spill_files, spill_threads;   /* records spilled (under stats_lock), */
static double spill_pack_s, spill_write_s;   /* the threads' seconds packing, writing */
static uint64_t pass_before, pass_after;   /* records' runs merged in passes (under */
static int pass_fan;                       /*   stats_lock): from, to, a merge's runs */
static uint64_t rm_pieces, rm_stretch;     /* records' runs merged into the output */
static int rm_threads, rm_laid;            /*   (under stats_lock) */
static int order_chunks;        /* records ordered (under stats_lock): chunks, */
static double order_sort_s, order_settle_s;   /* their words sorted, equal words settled */
static uint64_t order_shared;   /* runs of equal words settled by the whole pool */
static uint64_t laid_bytes[2];  /* laid out, [1] written mapped, [0] at offsets
                                   (under stats_lock), */
static int laid_threads[2];     /* by this many threads */
static uint64_t ahead_bytes;    /* zeros written ahead (under stats_lock), */
static double ahead_s;          /* and the seconds it took */
#define STATS_MAX_PHASES 8
#define STATS_MIN_RATE_S 0.001   /* a stage timed shorter than this shows no rate */
static const char *phase_name[STATS_MAX_PHASES];   /* distinct, in order of first use */
static double phase_total[STATS_MAX_PHASES];
static int nphases, cur_phase = -1;
static double cur_since;

double stats_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void stats_add(stage_t stage, uint64_t bytes, double seconds)
{
    if (bytes)
        __atomic_add_fetch(&stage_bytes[stage], bytes, __ATOMIC_RELAXED);
    if (seconds != 0) {
        pthread_mutex_lock(&stats_lock);
        stage_seconds[stage] += seconds;
        pthread_mutex_unlock(&stats_lock);
    }
}

uint64_t stats_bytes(stage_t stage)
{
    return __atomic_load_n(&stage_bytes[stage], __ATOMIC_RELAXED);
}

void stats_note_run(void)
{
    __atomic_add_fetch(&runs_made, 1, __ATOMIC_RELAXED);
}

void stats_note_merge(uint64_t keys, uint64_t total)
{
    if (total) {
        /* A new merge (a pass, or the last one) starts from zero. */
        __atomic_store_n(&keys_to_merge, total, __ATOMIC_RELAXED);
        __atomic_store_n(&keys_merged, keys, __ATOMIC_RELAXED);
        return;
    }
    __atomic_add_fetch(&keys_merged, keys, __ATOMIC_RELAXED);
}

void stats_note_aside(int piece)
{
    __atomic_add_fetch(&asides[piece ? 1 : 0], 1, __ATOMIC_RELAXED);
}

void stats_note_smerge(uint64_t pieces, uint64_t bytes, double wall, double gather,
                       double sorter, double writer)
{
    pthread_mutex_lock(&stats_lock);
    sm_pieces += pieces;
    sm_bytes += bytes;
    sm_wall += wall;
    sm_gather += gather;
    sm_sorter += sorter;
    sm_writer += writer;
    pthread_mutex_unlock(&stats_lock);
}

void stats_note_copy_out(uint64_t bytes, double seconds)
{
    pthread_mutex_lock(&stats_lock);
    copied_bytes += bytes;
    copied_s += seconds;
    pthread_mutex_unlock(&stats_lock);
}

void stats_note_read_mapped(uint64_t bytes)
{
    pthread_mutex_lock(&stats_lock);
    read_mapped += bytes;
    pthread_mutex_unlock(&stats_lock);
}

void stats_note_records_mapped(uint64_t bytes)
{
    pthread_mutex_lock(&stats_lock);
    records_mapped += bytes;
    pthread_mutex_unlock(&stats_lock);
}

void stats_note_records_spill(int files, int threads, double pack_s, double write_s)
{
    pthread_mutex_lock(&stats_lock);
    spill_files = files;
    spill_threads = threads;
    spill_pack_s += pack_s;
    spill_write_s += write_s;
    pthread_mutex_unlock(&stats_lock);
}

void stats_note_records_passes(uint64_t before, uint64_t after, int fan)
{
    pthread_mutex_lock(&stats_lock);
    pass_before = before;
    pass_after = after;
    pass_fan = fan;
    pthread_mutex_unlock(&stats_lock);
}

void stats_note_records_merge(uint64_t pieces, int threads, int laid, uint64_t stretch)
{
    pthread_mutex_lock(&stats_lock);
    rm_pieces = pieces;
    rm_threads = threads;
    rm_laid = laid;
    rm_stretch = stretch;
    pthread_mutex_unlock(&stats_lock);
}

void stats_note_records_order(double sort_s, double settle_s, uint64_t shared_runs)
{
    pthread_mutex_lock(&stats_lock);
    order_chunks++;
    order_sort_s += sort_s;
    order_settle_s += settle_s;
    order_shared += shared_runs;
    pthread_mutex_unlock(&stats_lock);
}

void stats_note_laid(int mapped, uint64_t bytes, int threads)
{
    pthread_mutex_lock(&stats_lock);
    laid_bytes[!!mapped] += bytes;
    laid_threads[!!mapped] = threads;
    pthread_mutex_unlock(&stats_lock);
}

void stats_note_ahead(uint64_t bytes, double seconds)
{
    pthread_mutex_lock(&stats_lock);
    ahead_bytes += bytes;
    ahead_s += seconds;
    pthread_mutex_unlock(&stats_lock);
}

void stats_progress(uint64_t *runs, uint64_t *merged, uint64_t *total)
{
    *runs = __atomic_load_n(&runs_made, __ATOMIC_RELAXED);
    *merged = __atomic_load_n(&keys_merged, __ATOMIC_RELAXED);
    *total = __atomic_load_n(&keys_to_merge, __ATOMIC_RELAXED);
}

void stats_set_plan(const char *text)
{
    pthread_mutex_lock(&stats_lock);
    snprintf(plan_text, sizeof plan_text, "%s", text);
    plan_fallback[0] = '\0';
    pthread_mutex_unlock(&stats_lock);
}

void stats_set_plan_fallback(const char *text)
{
    pthread_mutex_lock(&stats_lock);
    snprintf(plan_fallback, sizeof plan_fallback, "%s", text);
    pthread_mutex_unlock(&stats_lock);
}

void stats_set_device(const char *text)
{
    pthread_mutex_lock(&stats_lock);
    snprintf(device_text, sizeof device_text, "%s", text);
    pthread_mutex_unlock(&stats_lock);
}

/* Close the current phase's interval at now. Under stats_lock. */
static void stats_phase_close(double now)
{
    if (cur_phase >= 0)
        phase_total[cur_phase] += now - cur_since;
}

void stats_phase(const char *name)
{
    double now = stats_now();
    pthread_mutex_lock(&stats_lock);
    stats_phase_close(now);
    int i = 0;
    while (i < nphases && strcmp(phase_name[i], name) != 0)
        i++;
    if (i == nphases && nphases < STATS_MAX_PHASES)
        phase_name[nphases++] = name;
    cur_phase = i < nphases ? i : -1;
    cur_since = now;
    pthread_mutex_unlock(&stats_lock);
}

/* One row of the table: the stage's bytes and seconds, and its rate where it means
 * something; where it does not, "-" and a note that says why (nothing done, the
 * time counted in another stage). untimed: of the bytes, those read mapped, whose
 * reading is timed in the parse that touches their pages; idle: the note of a stage
 * that did nothing. Under stats_lock. */
static void stats_row(int s, uint64_t untimed, const char *idle)
{
    uint64_t bytes = stats_bytes((stage_t)s);
    double secs = stage_seconds[s];
    uint64_t timed = bytes > untimed ? bytes - untimed : 0;
    char sec[32] = "-", rate[32] = "-", note[96] = "";
    if (bytes == 0 && secs == 0) {
        snprintf(note, sizeof note, "%s", idle);
    } else {
        snprintf(sec, sizeof sec, "%.3f", secs);
        if (timed > 0 && secs >= STATS_MIN_RATE_S)
            snprintf(rate, sizeof rate, "%.0f", timed / secs / 1e6);
        if (untimed && timed == 0) {
            snprintf(sec, sizeof sec, "-");   /* only the mapping's: the rest is the parse's */
            snprintf(note, sizeof note, "mapped: read in the parse");
        } else if (untimed) {
            snprintf(note, sizeof note, "%llu bytes of it mapped: read in the parse",
                     (unsigned long long)untimed);
        } else if (timed > 0 && secs < STATS_MIN_RATE_S) {
            snprintf(note, sizeof note, "under %.0f ms: no rate", STATS_MIN_RATE_S * 1e3);
        }
    }
    fprintf(stderr, "gpusort: stats: %-9s %16llu %10s %10s%s%s\n", stage_names[s],
            (unsigned long long)bytes, sec, rate, note[0] ? "  " : "", note);
}

void stats_print(double total)
{
    double now = stats_now();
    pthread_mutex_lock(&stats_lock);
    if (plan_text[0])
        fprintf(stderr, "gpusort: stats: plan %s\n", plan_text);
    if (plan_fallback[0])
        fprintf(stderr, "gpusort: stats: plan fell back: %s\n", plan_fallback);
    fprintf(stderr, "gpusort: stats: device %s\n", device_text);
    fprintf(stderr, "gpusort: stats: %-9s %16s %10s %10s\n", "stage", "bytes", "seconds", "MB/s");
    for (int s = 0; s < ST_COUNT; s++) {
        /* Text placed in the file mapped is formatted there, records are copied there
         * (or gathered for pwrite): the write's row holds that work. */
        const char *idle = s == ST_FORMAT && stats_bytes(ST_WRITE) ? "in the write" : "not used";
        stats_row(s, s == ST_READ ? read_mapped + records_mapped : 0, idle);
    }
    fprintf(stderr, "gpusort: stats: %-9s %16s %10.3f\n", "total", "", total);
    if (nphases > 0) {
        stats_phase_close(now);
        cur_since = now;
        fprintf(stderr, "gpusort: stats: phases (wall clock):");
        for (int i = 0; i < nphases; i++)
            fprintf(stderr, "%s %s %.3f s", i ? "," : "", phase_name[i], phase_total[i]);
        fputc('\n', stderr);
    }
    uint64_t ac = __atomic_load_n(&asides[0], __ATOMIC_RELAXED);
    uint64_t ap = __atomic_load_n(&asides[1], __ATOMIC_RELAXED);
    if (ac)
        fprintf(stderr, "gpusort: stats: %llu chunks sorted aside while the next was read\n",
                (unsigned long long)ac);
    if (ap)
        fprintf(stderr, "gpusort: stats: %llu merge pieces sorted aside while the next was "
                "gathered\n", (unsigned long long)ap);
    if (sm_pieces) {
        const char *bound = sm_gather >= sm_sorter && sm_gather >= sm_writer ? "gathering"
                            : sm_sorter >= sm_writer ? "the sorter" : "the writer";
        fprintf(stderr, "gpusort: stats: merge by sort %.3f s, %llu pieces: gathering %.3f s "
                "(%.2f GB/s), waiting for the sorter %.3f s, for the writer %.3f s; bound by "
                "%s\n", sm_wall, (unsigned long long)sm_pieces, sm_gather,
                sm_gather > 0 ? sm_bytes / sm_gather / 1e9 : 0.0, sm_sorter, sm_writer, bound);
    }
    if (copied_bytes)
        fprintf(stderr, "gpusort: stats: %llu bytes of sorted chunks copied out of pinned "
                "buffers in %.3f s\n", (unsigned long long)copied_bytes, copied_s);
    if (read_mapped)
        fprintf(stderr, "gpusort: stats: %llu bytes of text read mapped, scanned in place "
                "(their reading is in the parse)\n", (unsigned long long)read_mapped);
    if (records_mapped)
        fprintf(stderr, "gpusort: stats: %llu bytes of records read mapped, indexed in place "
                "(no copy)\n", (unsigned long long)records_mapped);
    if (spill_files)
        fprintf(stderr, "gpusort: stats: records spilled to %d files by %d threads, each "
                "packing blocks and writing them: %.3f s packing, %.3f s writing, the threads' "
                "times added up\n", spill_files, spill_threads, spill_pack_s, spill_write_s);
    if (pass_before)
        fprintf(stderr, "gpusort: stats: records' runs merged in passes, %llu runs to %llu, "
                "%d at a time (the runs -S lets one merge read)\n",
                (unsigned long long)pass_before, (unsigned long long)pass_after, pass_fan);
    if (rm_pieces && rm_laid)
        fprintf(stderr, "gpusort: stats: records' runs merged in %llu pieces of their keys by "
                "%d threads, laid out: a thread merges %llu at a time as one range, at its "
                "offset\n", (unsigned long long)rm_pieces, rm_threads,
                (unsigned long long)rm_stretch);
    else if (rm_pieces)
        fprintf(stderr, "gpusort: stats: records' runs merged in %llu pieces of their keys by "
                "%d threads, in order: each piece written on its turn\n",
                (unsigned long long)rm_pieces, rm_threads);
    if (order_chunks)
        fprintf(stderr, "gpusort: stats: records ordered in %d chunks: words sorted %.3f s, "
                "equal words settled and lines made %.3f s (%llu runs of equal words by the "
                "whole pool)\n", order_chunks, order_sort_s, order_settle_s,
                (unsigned long long)order_shared);
    if (laid_bytes[1])
        fprintf(stderr, "gpusort: stats: %llu bytes written mapped, placed by %d "
                "threads\n", (unsigned long long)laid_bytes[1], laid_threads[1]);
    if (laid_bytes[0])
        fprintf(stderr, "gpusort: stats: %llu bytes written at their offsets, by %d "
                "threads\n", (unsigned long long)laid_bytes[0], laid_threads[0]);
    if (ahead_bytes)
        fprintf(stderr, "gpusort: stats: %llu bytes of zeros written ahead into the output's "
                "temporary in %.3f s, on a thread of its own\n", (unsigned long long)ahead_bytes,
                ahead_s);
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        fprintf(stderr, "gpusort: stats: peak RSS %ld KiB\n", ru.ru_maxrss);
    pthread_mutex_unlock(&stats_lock);
}
