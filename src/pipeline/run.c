/* run.c: the one entry point behind main(): build the context (key mapping, threads,
 * chunk sorter), then sort (sort.c), merge (mergefiles.c) or check (here).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "pipeline/ctx.h"
#ifdef HAVE_CUDA
#include "kernels.h"
#endif
#include "core/error.h"
#include "merge/streams.h"
#include "core/progress.h"
#include "pipeline/run.h"
#include "core/stats.h"
#include "io/textnum.h"

/* ---- the engine ----------------------------------------------------------------------- */

#ifdef HAVE_CUDA
/* Chunks below this many keys are sorted on the CPU even with a GPU: PCIe latency
 * and starting CUDA would cost more than the sort. */
#define RUN_GPU_MIN_KEYS ((size_t)1 << 20)

/* The GPUs the options ask for into devs; *n = 0 means the CPU, *n = -1 every GPU
 * there is (--device=auto: counted by the GPU backend when a chunk needs it, so that
 * small inputs and the CPU never pay for CUDA's start). */
static int run_pick_devices(const opts_t *o, int *devs, int *n)
{
    *n = 0;
    if (o->device == DEV_CPU)
        return GS_OK;
    if (o->device == DEV_AUTO) {
        *n = -1;
        return GS_OK;
    }
    sigset_t old;
    cleanup_block_signals(&old);   /* the driver may start threads: keep them out */
    int count = gk_device_count();
    cleanup_unblock(&old);
    if (o->device == DEV_ALL) {
        if (count == 0)
            return err_set(GS_EUSAGE, "--device=all: no usable GPU");
        for (int d = 0; d < count && d < OPT_MAX_DEVICES; d++)
            devs[(*n)++] = d;
        return GS_OK;
    }
    for (int i = 0; i < o->ndevices; i++) {
        if (o->devices[i] >= count)
            return err_set(GS_EUSAGE, "--device=%d: no such GPU (%d found)",
                           o->devices[i], count);
        devs[(*n)++] = o->devices[i];
    }
    return GS_OK;
}

/* With --device=auto, an input of known size with fewer keys than this many a CPU
 * thread is sorted on the CPU: there the parallel radix sort beats what the GPU
 * costs before and after its sort (set-up, transfers, the driver's teardown at
 * exit). On the H100 machine (16 threads; tests/bench/crossover.sh, RESULTS.md) the
 * GPU began to win between 200M and 400M keys of text, and at 400M binary keys was
 * within a few percent of the CPU either way. */
#define RUN_GPU_KEYS_PER_THREAD ((uint64_t)1 << 25)

/* The most keys the inputs' bytes can hold: binary keys fill their width, text keys
 * take at least a digit and a newline (the last may lack it). */
static size_t run_input_keys(const ctx_t *c, uint64_t bytes)
{
    int n;
    char *const *files;
    ctx_inputs(c, &files, &n);
    uint64_t keys = c->o->in_format == FMT_BINARY ? bytes / (uint64_t)c->km.width
                                                  : bytes / 2 + (uint64_t)n;
    return keys > SIZE_MAX ? SIZE_MAX : (size_t)keys;
}

/* About how many keys the inputs' bytes hold: binary, exactly; text, the bytes over
 * the bytes a line of the first 64 KiB of the first input takes. 0: unknown. */
static uint64_t run_estimate_keys(const ctx_t *c, uint64_t bytes)
{
    if (c->o->in_format == FMT_BINARY || bytes == 0)
        return bytes / (uint64_t)c->km.width;
    char *const *files;
    int n;
    ctx_inputs(c, &files, &n);
    int stdin_ = strcmp(files[0], "-") == 0;
    int fd = stdin_ ? 0 : open(files[0], O_RDONLY);
    if (fd < 0)
        return 0;
    char sample[64 << 10];
    ssize_t got = pread(fd, sample, sizeof sample, 0);   /* the offset stays */
    if (!stdin_)
        close(fd);
    if (got <= 0)
        return 0;
    uint64_t lines = 0;
    for (ssize_t i = 0; i < got; i++)
        lines += sample[i] == '\n';
    return lines ? (uint64_t)((unsigned __int128)bytes * lines / (uint64_t)got) : 1;
}
#endif

/* Pick the chunk sorter: the GPUs asked for (auto: every GPU there is), or the CPU. */
static int run_engine(ctx_t *c)
{
    const opts_t *o = c->o;
    char text[200];
    uint64_t est = 0;   /* --device=auto: the keys estimated, where that chose the CPU */
#ifdef HAVE_CUDA
    int devs[OPT_MAX_DEVICES], n = 0;
    int rc = o->mode == MODE_SORT ? run_pick_devices(o, devs, &n) : GS_OK;   /* -m, -c: no GPU */
    if (rc)
        return rc;
    uint64_t bytes = 0;
    int sized = n != 0 && o->mode == MODE_SORT && ctx_input_bytes(c, &bytes);
    if (n < 0 && sized) {
        est = run_estimate_keys(c, bytes);
        if (est > 0 && est < RUN_GPU_KEYS_PER_THREAD * (uint64_t)pool_size(c->pool))
            n = 0;   /* the CPU is the faster here */
        else
            est = 0;
    }
    if (n != 0 && o->mode == MODE_SORT) {
        rc = sorter_cuda_create(&c->sorter, c->pool, devs, n < 0 ? 0 : n, c->km.width,
                                o->algorithm, &o->gpu_memory, RUN_GPU_MIN_KEYS,
                                o->device == DEV_AUTO);
        if (rc)
            return rc;
        c->sorter->input_keys = sized ? run_input_keys(c, bytes) : 0;
        snprintf(text, sizeof text, "%s (--algorithm=%s; chunks under 1 Mi keys on the CPU)",
                 c->sorter->name, o->algorithm == ALGO_RADIX ? "radix" : "bitonic");
        stats_set_device(text);
        return GS_OK;
    }
#else
    if (o->device == DEV_LIST)
        return err_set(GS_EUSAGE, "--device=%d: no such GPU: this gpusort was built "
                       "without CUDA support", o->devices[0]);
    if (o->device == DEV_ALL)
        return err_set(GS_EUSAGE, "--device=all: no usable GPU: this gpusort was built "
                       "without CUDA support");
#endif
    int rc2 = sorter_cpu_create(&c->sorter, c->pool);
    if (rc2)
        return rc2;
    snprintf(text, sizeof text, "cpu (%s, %d threads; --algorithm=%s applies to GPUs%s)",
             c->sorter->name, pool_size(c->pool),
             o->algorithm == ALGO_RADIX ? "radix" : "bitonic",
             est ? "; --device=auto: the CPU is faster for this many keys" : "");
    stats_set_device(text);
    return GS_OK;
}

void run_describe_engines(void)
{
#ifdef HAVE_CUDA
    int v = gk_runtime_version(), count = gk_device_count();
    printf("CUDA support: built in (CUDA runtime %d.%d, linked statically)\n", v / 1000,
           v % 1000 / 10);
    puts("GPU chunk sort (--algorithm): radix (CUB's DeviceRadixSort, the default) or "
         "bitonic (gpusort's own kernels)");
    if (count == 0)
        puts("GPUs: none usable (no driver or no device): sorting on the CPU");
    for (int d = 0; d < count; d++) {
        gk_device_t info;
        if (gk_device_info(d, &info) == GK_OK)
            printf("GPU %d: %s, %.1f GiB, compute capability %d.%d\n", d, info.name,
                   info.total_bytes / (double)(1u << 30), info.major, info.minor);
    }
#else
    puts("CUDA support: not built in (this build sorts on the CPU)");
#endif
}

/* ---- check ------------------------------------------------------------------------------- */

static int run_check(ctx_t *c)
{
    const char *path = c->o->nfiles ? c->o->files[0] : "-";
    kreader_cfg_t cfg = ctx_reader_cfg(c, 0);
    kreader_t *r;
    progress_phase("checking");
    int rc = kreader_open(&r, path, &cfg);
    if (rc)
        return rc;
    uint64_t pos = 0, key = 0;
    rc = merge_check(r, c->km.width, c->o->unique, &pos, &key);
    if (rc == GS_EDISORDER && c->o->mode == MODE_CHECK) {
        char v[TN_MAX_LINE + 1];
        v[tn_format(key_map(&c->km, key), c->km.type, v)] = '\0';
        fprintf(stderr, "gpusort: %s:%llu: disorder: %s\n", kreader_name(r),
                (unsigned long long)pos, v);
    }
    kreader_close(r);
    return rc;
}

/* ---- the entry point ----------------------------------------------------------------------- */

int run(const opts_t *o)
{
    double t0 = stats_now();
    ctx_t c = { .o = o };
    key_map_init(&c.km, o->type, o->reverse);
    int rc = pool_create(&c.pool, o->threads);
    if (rc == GS_OK)
        rc = run_engine(&c);
    if (rc == GS_OK && o->progress)
        rc = progress_start();
    if (rc == GS_OK) {
        switch (o->mode) {
        case MODE_SORT:
            rc = sort_run(&c);
            break;
        case MODE_MERGE:
            rc = mergefiles_run(&c);
            break;
        default:
            rc = run_check(&c);
            break;
        }
    }
    progress_stop(rc == GS_OK || rc == GS_EDISORDER);
    if (o->stats && (rc == GS_OK || rc == GS_EDISORDER)) {
        stats_print(stats_now() - t0);
        if (c.sorter && c.sorter->report)
            c.sorter->report(c.sorter);
    }
    if (c.sorter)
        c.sorter->destroy(c.sorter);
    pool_destroy(c.pool);
    return rc;
}
