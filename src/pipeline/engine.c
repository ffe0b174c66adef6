/* SPDX-License-Identifier: MIT */
/* engine.c: the chunk sorter for a sort: the GPUs the settings ask for (auto: every
 * GPU there is, where the input is large enough for them to win), or the CPU.
 */
#include <config.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "pipeline/ctx.h"

#ifdef HAVE_CUDA
/* The bytes a binary key or record takes. */
static uint64_t engine_binary_width(const ctx_t *c)
{
    return c->set->record_size ? c->set->record_size : (uint64_t)c->km.width;
}

/* The most keys the inputs' bytes can hold: binary keys fill their width (records,
 * their size), text keys take at least a digit and a newline (the last may lack
 * it). */
static size_t engine_input_keys(const ctx_t *c, uint64_t bytes)
{
    uint64_t keys = c->set->in_format == FMT_BINARY ? bytes / engine_binary_width(c)
                                                    : bytes / 2 + (uint64_t)c->set->nsources;
    /* Records' wide keys are sorted with their indices, 24 bytes a key on the device
     * where a packed word takes 16 (sorter_sort_index): room for them as words. */
    if (settings_records(c->set))
        keys += keys / 2;
    return keys > SIZE_MAX ? SIZE_MAX : (size_t)keys;
}

/* About how many keys the inputs' bytes hold: binary, exactly; text, the bytes over
 * the bytes a line of the first 64 KiB of the first input takes. 0: unknown. */
static uint64_t engine_estimate_keys(const ctx_t *c, uint64_t bytes)
{
    if (c->set->in_format == FMT_BINARY || bytes == 0)
        return bytes / engine_binary_width(c);
    source_file_t f;
    char sample[64 << 10];
    ssize_t got = -1;
    size_t n = 0;
    /* Quietly: what fails here, the readers meet again and report. */
    if (source_try_open(&c->set->sources[0], &f) == 0 && f.regular) {
        size_t want = f.end - f.start < sizeof sample ? (size_t)(f.end - f.start) : sizeof sample;
        if (source_read(&f, NULL, 0, sample, want, f.start, &n) == GS_OK)
            got = (ssize_t)n;
    }
    source_close(&f);
    if (got <= 0)
        return 0;
    uint64_t lines = 0;
    char term = c->set->zero_terminated ? '\0' : '\n';
    for (ssize_t i = 0; i < got; i++)
        lines += sample[i] == term;
    return lines ? (uint64_t)((unsigned __int128)bytes * lines / (uint64_t)got) : 1;
}

/* The GPU backend, where the settings ask for GPUs and (--device=auto) the input
 * is not known to be small enough for the CPU to win: 1 and c->sorter; 0 where the
 * CPU is to sort (*cpu_faster: auto chose it by the input's size). */
static int engine_gpus(ctx_t *c, int text_streams, int *made, int *cpu_faster)
{
    const settings_t *set = c->set;
    *made = *cpu_faster = 0;
    if (set->gpus == 0)
        return GS_OK;
    uint64_t bytes = c->in_bytes;
    int sized = c->in_sized;
    if (set->gpus == GS_GPUS_AUTO && sized) {
        uint64_t est = engine_estimate_keys(c, bytes);
        uint64_t per = settings_records(set) ? RECORDS_GPU_KEYS_A_THREAD
                       : text_streams ? TEXT_GPU_KEYS_A_THREAD
                                                : SORT_GPU_KEYS_A_THREAD;
        if (est > 0 && est < per * (uint64_t)pool_size(c->pool)) {
            *cpu_faster = 1;   /* the CPU is the faster here */
            return GS_OK;
        }
    }
    sorter_cuda_cfg_t cfg = {
        .devices = set->devices,
        .ndevices = set->gpus < 0 ? 0 : set->gpus,
        .quiet = set->gpus == GS_GPUS_AUTO,
        .width = settings_records(set) ? 8 : c->km.width,   /* records: key and line */
        .algorithm = set->algorithm,
        .gpu_memory = set->gpu_memory,
        .gpu_memory_percent = set->gpu_memory_percent,
        .min_keys = SORT_GPU_MIN_KEYS,
        .input_keys = sized ? engine_input_keys(c, bytes) : 0,
    };
    int rc = sorter_cuda_create(&c->sorter, c->pool, &cfg);
    if (rc)
        return rc;
    *made = 1;
    return GS_OK;
}
#endif

/* --stats' device line where the CPU sorted: its sort and threads, and why (why
 * names the option or the finding that kept the GPUs out). */
static void engine_cpu_line(const ctx_t *c, const char *why)
{
    char text[400];
    snprintf(text, sizeof text, "cpu (cpu radix, %d threads; %s; --algorithm=%s applies to "
             "GPUs)", pool_size(c->pool), why,
             c->set->algorithm == ALGO_RADIX ? "radix" : "bitonic");
    stats_set_device(text);
}

int engine_create(ctx_t *c, int text_streams)
{
    /* Only a sort uses GPUs (settings.c); without CUDA, none is ever asked for. */
    const char *why = c->set->mode == MODE_MERGE ? "-m merges on the CPU"
                      : c->set->mode != MODE_SORT ? "-c checks on the CPU"
                      : "this build has no GPU support";
#ifdef HAVE_CUDA
    if (c->set->mode == MODE_SORT && c->set->gpus == 0)
        why = "--device=cpu";
    int made = 0, cpu_faster = 0;
    int rc = engine_gpus(c, text_streams, &made, &cpu_faster);
    if (rc || made)
        return rc;   /* the device line waits for the run's end: engine_note_device */
    if (cpu_faster)
        why = "--device=auto: the CPU is faster for this many keys";
#else
    (void)text_streams;
#endif
    int rc2 = sorter_cpu_create(&c->sorter, c->pool);
    if (rc2)
        return rc2;
    engine_cpu_line(c, why);
    return GS_OK;
}

void engine_note_device(const ctx_t *c)
{
    sorter_use_t u;
    if (!c->sorter || !sorter_use(c->sorter, &u))
        return;   /* the CPU's backend: its line was set when it was made */
    char why[300];
    const settings_t *set = c->set;
    if (u.gpus_used > 0) {
        snprintf(why, sizeof why, "%s (--algorithm=%s; chunks under %zu keys on the CPU)",
                 sorter_name(c->sorter), set->algorithm == ALGO_RADIX ? "radix" : "bitonic",
                 u.min_keys);
        stats_set_device(why);
        return;
    }
    int n = u.gpus_found;
    const char *s = n == 1 ? "" : "s";
    if (n == 0)
        snprintf(why, sizeof why, "no GPU found");
    else if (u.failed)
        snprintf(why, sizeof why, "the GPUs could not be used: %s", u.failed);
    else if (settings_records(set) && set->gpus == GS_GPUS_AUTO && !u.small)
        snprintf(why, sizeof why, "%d GPU%s found, unused: --device=auto sorts records' keys "
                 "on the CPU", n, s);
    else if (u.small)
        snprintf(why, sizeof why, "%d GPU%s found, unused: every chunk was small enough for "
                 "the CPU (under %zu keys)", n, s, u.min_keys);
    else
        snprintf(why, sizeof why, "%d GPU%s found, unused: no sort was sent to them", n, s);
    engine_cpu_line(c, why);
}
