/* stats.c: per-stage totals for --stats (see stats.h). */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "stats.h"

static const char *const stage_names[ST_COUNT] = {
    "read", "parse", "transfer", "sort", "spill", "merge", "format", "write"
};

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t stage_bytes[ST_COUNT];
static double stage_seconds[ST_COUNT];
static char device_text[256] = "cpu";

double stats_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void stats_add(stage_t stage, uint64_t bytes, double seconds)
{
    pthread_mutex_lock(&stats_lock);
    stage_bytes[stage] += bytes;
    stage_seconds[stage] += seconds;
    pthread_mutex_unlock(&stats_lock);
}

uint64_t stats_bytes(stage_t stage)
{
    pthread_mutex_lock(&stats_lock);
    uint64_t b = stage_bytes[stage];
    pthread_mutex_unlock(&stats_lock);
    return b;
}

void stats_set_device(const char *text)
{
    pthread_mutex_lock(&stats_lock);
    snprintf(device_text, sizeof device_text, "%s", text);
    pthread_mutex_unlock(&stats_lock);
}

void stats_print(double total)
{
    pthread_mutex_lock(&stats_lock);
    fprintf(stderr, "gpusort: stats: device %s\n", device_text);
    fprintf(stderr, "gpusort: stats: %-9s %16s %10s %10s\n", "stage", "bytes", "seconds", "MB/s");
    for (int s = 0; s < ST_COUNT; s++) {
        double mbps = stage_seconds[s] > 0 ? stage_bytes[s] / stage_seconds[s] / 1e6 : 0;
        fprintf(stderr, "gpusort: stats: %-9s %16llu %10.3f %10.0f\n", stage_names[s],
                (unsigned long long)stage_bytes[s], stage_seconds[s], mbps);
    }
    fprintf(stderr, "gpusort: stats: %-9s %16s %10.3f\n", "total", "", total);
    pthread_mutex_unlock(&stats_lock);
}
