/* SPDX-License-Identifier: MIT */
/* settings.c: the user's words resolved into the engine's settings (options.h). */
#include <config.h>

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/options.h"
#include "core/error.h"
#include "core/machine.h"
#include "core/tuning.h"
#include "sorter/sorter.h"

/* -S in bytes: by default half of the memory gpusort may have (physical memory, as
 * sort takes, or less where a cgroup's limit is less), and at most a quarter of the
 * address space left under RLIMIT_AS (the chunks' reading, the threads and the
 * libraries take address space beside -S), raised to the least that works. */
static size_t opt_buffer_bytes(const opts_t *o)
{
    uint64_t phys = machine_physical_memory(), avail = phys;
    uint64_t cg = machine_cgroup_memory(), as = machine_address_space_left();
#ifdef M_ARENA_MAX
    /* Under an address-space limit, one malloc arena: glibc reserves 64 MiB of
     * address space for each arena a thread makes. */
    if (as != UINT64_MAX)
        mallopt(M_ARENA_MAX, 1);
#endif
    avail = cg < avail ? cg : avail;
    uint64_t dflt = avail / 2;
    if (as / 4 < dflt)
        dflt = as / 4;
    uint64_t b = opt_size_bytes(&o->buffer_size, phys, dflt);
    if (b < SORT_MIN_BUDGET)
        b = SORT_MIN_BUDGET;
    if (b > SIZE_MAX / 4)
        b = SIZE_MAX / 4;
    return (size_t)b;
}

/* --parallel (by default the CPUs gpusort may use: machine_cpus()), or fewer where
 * the threads' own buffers (THREAD_BYTES each) would take more than half of -S: -S
 * bounds the memory whatever --parallel says. Two threads are always allowed (12 MiB
 * at most past a small -S): one would serialise reading, sorting and writing, and
 * take the parallel paths out of every small-S run. */
static int opt_threads_for(int threads, size_t buffer_bytes)
{
    if (threads == 0) {
        threads = machine_cpus();
        if (threads > GS_MAX_THREADS)
            threads = GS_MAX_THREADS;
    }
    size_t most = buffer_bytes / (2 * THREAD_BYTES);
    if (most < 2)
        most = 2;
    return (size_t)threads > most ? (int)most : threads;
}

/* The -k keys, as sort resolves them: a key with no letters of its own takes the
 * global -b (on its start and its end), -r and -n or -g. */
static void opt_keys(const opts_t *o, settings_t *s)
{
    s->nkeys = o->nkeys;
    for (int i = 0; i < o->nkeys; i++) {
        keydef_t d = o->keys[i];
        if (o->key_plain[i]) {
            d.skip_sblanks = d.skip_eblanks = o->blanks;
            d.reverse = o->reverse;
            d.kind = o->kind;
        }
        s->keys[i] = d;
    }
}

/* -g without -k: the numbers of text are floats, each written back as it was read,
 * one a line: records of one number each (the loader splits the text at white
 * space), sorted by one g key, the whole record, that inherits -r; equal values by
 * their bytes (sort's last resort). Binary keys have a type instead. */
static void opt_tokens(const opts_t *o, settings_t *s)
{
    if (o->nkeys || o->kind != KD_FLOAT || o->in_format != FMT_TEXT)
        return;   /* binary: refused by options.c */
    s->tokens = 1;
    s->nkeys = 1;
    s->keys[0] = (keydef_t){ .sfield = 1, .schar = 1, .reverse = o->reverse,
                             .kind = KD_FLOAT };
}

/* Where temporary files go: every -T, else $TMPDIR, else /tmp. */
static void opt_tmpdirs(const opts_t *o, settings_t *s)
{
    s->ntmpdirs = o->ntmpdirs;
    for (int i = 0; i < o->ntmpdirs; i++)
        s->tmpdirs[i] = o->tmpdirs[i];
    if (s->ntmpdirs == 0) {
        const char *t = getenv("TMPDIR");
        s->tmpdirs[s->ntmpdirs++] = t && *t ? t : "/tmp";
    }
    s->tmpdir = s->tmpdirs[0];
}

/* The GPUs asked for into s->gpus and s->devices: auto (counted later, by the GPU
 * backend, when a chunk needs them, so that small inputs and the CPU never pay for
 * CUDA's start), none, every one there is, or a list checked against the count. Only
 * a sort uses GPUs. */
static int opt_gpus(const opts_t *o, settings_t *s)
{
    s->gpus = 0;
#ifdef HAVE_CUDA
    if (o->mode != MODE_SORT || o->device == DEV_CPU)
        return GS_OK;
    if (o->device == DEV_AUTO) {
        s->gpus = GS_GPUS_AUTO;
        return GS_OK;
    }
    int count = sorter_gpu_count();
    if (o->device == DEV_ALL) {
        if (count == 0)
            return err_set(GS_EUSAGE, "--device=all: no usable GPU");
        for (int d = 0; d < count && d < GS_MAX_DEVICES; d++)
            s->devices[s->gpus++] = d;
        return GS_OK;
    }
    for (int i = 0; i < o->ndevices; i++) {
        if (o->devices[i] >= count)
            return err_set(GS_EUSAGE, "--device=%d: no such GPU (%d found)", o->devices[i],
                           count);
        s->devices[s->gpus++] = o->devices[i];
    }
    return GS_OK;
#else
    if (o->device == DEV_LIST)
        return err_set(GS_EUSAGE, "--device=%d: no such GPU: this gpusort was built "
                       "without CUDA support", o->devices[0]);
    if (o->device == DEV_ALL)
        return err_set(GS_EUSAGE, "--device=all: no usable GPU: this gpusort was built "
                       "without CUDA support");
    return GS_OK;
#endif
}

int opt_settings(const opts_t *o, settings_t *s)
{
    memset(s, 0, sizeof *s);
    s->mode = o->mode;
    s->type = o->type;
    s->reverse = o->reverse;
    s->unique = o->unique;
    s->in_format = o->in_format;
    s->out_format = o->out_format;
    s->big_endian = o->big_endian;
    s->nsources = o->nfiles ? o->nfiles : 1;
    source_t *src = calloc((size_t)s->nsources, sizeof *src);
    if (!src)
        return err_set(GS_ENOMEM, "out of memory");
    for (int i = 0; i < s->nsources; i++)
        src[i] = (source_t){ .path = o->nfiles ? o->files[i] : "-", .fd = -1,
                             .header = o->header };
    s->sources = src;
    s->output = o->output;
    s->buffer_bytes = opt_buffer_bytes(o);
    s->buffer_given = o->buffer_size.set;
    s->threads = opt_threads_for(o->threads, s->buffer_bytes);
    opt_tmpdirs(o, s);
    s->compress = o->compress;
    s->algorithm = o->algorithm;
    s->gpu_memory = GS_GPU_MEMORY_FREE;
    s->gpu_memory_percent = -1;
    if (o->gpu_memory.set && o->gpu_memory.percent)
        s->gpu_memory_percent = (int)o->gpu_memory.value;
    else if (o->gpu_memory.set)
        s->gpu_memory = o->gpu_memory.value;
    opt_keys(o, s);
    opt_tokens(o, s);
    s->key_bytes = o->key_bytes;
    s->field_sep = o->field_sep;
    s->stable = o->stable;
    s->zero_terminated = o->zero_terminated;
    s->header = o->header;
    s->record_size = (size_t)o->record_size;
    if (!key_type_is_int(o->type) && !o->record_size)
        s->record_size = key_type_width(o->type, o->key_bytes);   /* bare f32, f64, bytesN:
                                                                    records of one key */
    s->key_offset = (size_t)o->key_offset;
    s->progress = o->progress;
    s->stats = o->stats;
    return opt_gpus(o, s);
}

void opt_settings_free(settings_t *s)
{
    free((source_t *)s->sources);
    s->sources = NULL;
}
