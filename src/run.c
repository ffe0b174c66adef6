/* run.c: the one entry point behind main(): choose the engine, then sort, merge or
 * check.
 *
 * Sorting (for now in memory): every input is read into one array of mapped keys,
 * the chunk sorter sorts it, -u drops repeats, and the writer formats it. Nothing
 * is written before every input has been read, so an input error leaves no output
 * and -o may name an input.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cleanup.h"
#include "error.h"
#include "input.h"
#include "mem.h"
#include "merge.h"
#include "output.h"
#include "pmerge.h"
#include "progress.h"
#include "runs.h"
#include "run.h"
#include "sorter.h"
#include "stats.h"
#include "textnum.h"

/* Everything a run shares: built once from the options. */
typedef struct {
    const opts_t *o;
    keymap_t km;
    pool_t *pool;
    sorter_t *sorter;
} ctx_t;

static char *const stdin_name[] = { "-" };

static void run_inputs(const opts_t *o, char *const **files, int *n)
{
    if (o->nfiles == 0) {
        *files = stdin_name;
        *n = 1;
    } else {
        *files = o->files;
        *n = o->nfiles;
    }
}

static kreader_cfg_t run_reader_cfg(const ctx_t *c, size_t block)
{
    kreader_cfg_t cfg = {
        .km = &c->km,
        .binary = c->o->in_format == FMT_BINARY,
        .big_endian = c->o->big_endian,
        .pool = c->pool,
        .block_bytes = block,
    };
    return cfg;
}

static output_cfg_t run_output_cfg(const ctx_t *c)
{
    output_cfg_t cfg = {
        .path = c->o->output,
        .km = &c->km,
        .binary = c->o->out_format == FMT_BINARY,
        .big_endian = c->o->big_endian,
        .pool = c->pool,
    };
    return cfg;
}

/* Commit out if everything before went well (rc), else abort it; the result. */
static int run_finish(int rc, output_t *out)
{
    if (rc != GS_OK) {
        output_abort(out);
        return rc;
    }
    return output_commit(out);
}

/* ---- the engine ----------------------------------------------------------------------- */

/* Pick the chunk sorter. This build has no GPU backend: --device=auto and cpu use
 * the CPU; asking for a GPU by number or with all is an error. */
static int run_engine(ctx_t *c)
{
    const opts_t *o = c->o;
    if (o->device == DEV_LIST)
        return err_set(GS_EUSAGE, "--device=%d: no such GPU: this gpusort was built "
                       "without CUDA support", o->devices[0]);
    if (o->device == DEV_ALL)
        return err_set(GS_EUSAGE, "--device=all: no usable GPU: this gpusort was built "
                       "without CUDA support");
    int rc = sorter_cpu_create(&c->sorter, c->pool);
    if (rc)
        return rc;
    char text[160];
    snprintf(text, sizeof text, "cpu (%s, %d threads; --algorithm=%s applies to GPUs)",
             c->sorter->name, pool_size(c->pool),
             o->algorithm == ALGO_RADIX ? "radix" : "bitonic");
    stats_set_device(text);
    return GS_OK;
}

static int run_fan_in(void);
static const char *run_tmpdir(const opts_t *o);

/* ---- sort ---------------------------------------------------------------------------- */

/* The least -S that works: smaller values are raised to it, silently. */
#define RUN_MIN_BUDGET ((size_t)1 << 20)

/* A sort in progress: the chunk being filled and the runs made so far. */
typedef struct {
    ctx_t *c;
    size_t budget;           /* -S: bytes for chunks and runs in memory */
    runcfg_t rcfg;
    char *keys;              /* the chunk being filled */
    size_t n, cap;           /* its keys, and its room */
    size_t limit;            /* most keys this chunk may take */
    run_t **runs;
    int nruns, caprun;
    uint64_t mem_bytes;      /* bytes of the runs held in memory */
} sorting_t;

static size_t run_budget(const opts_t *o)
{
    uint64_t phys = opt_physical_memory();
    uint64_t b = opt_size_bytes(&o->buffer_size, phys, phys / 2);
    if (b < RUN_MIN_BUDGET)
        b = RUN_MIN_BUDGET;
    if (b > SIZE_MAX / 4)
        b = SIZE_MAX / 4;
    return (size_t)b;
}

/* Read blocks: an eighth of the budget, within 64 KiB .. 16 MiB. */
static size_t run_read_block(size_t budget)
{
    size_t b = budget / 8;
    if (b < ((size_t)64 << 10))
        b = (size_t)64 << 10;
    if (b > ((size_t)16 << 20))
        b = (size_t)16 << 20;
    return b;
}

/* Keys the next chunk may take: what the budget leaves after the runs in memory,
 * halved for the sort's scratch. Spills the largest memory runs first when that
 * would be under a quarter of a full chunk. */
static int sorting_next_limit(sorting_t *s)
{
    size_t w = (size_t)s->c->km.width;
    size_t full = s->budget / (2 * w), floor = full / 4;
    while ((s->budget - s->mem_bytes) / (2 * w) < floor) {
        int big = -1;
        for (int i = 0; i < s->nruns; i++)
            if (run_in_memory(s->runs[i]) && run_keys(s->runs[i]) > 0 &&
                (big < 0 || run_keys(s->runs[i]) > run_keys(s->runs[big])))
                big = i;
        if (big < 0)
            break;
        uint64_t bytes = run_key_bytes(s->runs[big]);
        int rc = run_spill(s->runs[big], &s->rcfg);
        if (rc)
            return rc;
        s->mem_bytes -= bytes;
    }
    s->limit = (s->budget - s->mem_bytes) / (2 * w);
    if (s->limit < floor)
        s->limit = floor;
    if (s->limit < 1024)
        s->limit = 1024;
    return GS_OK;
}

/* Sort keys[0..n) with the chunk sorter; *out is the buffer that holds the result
 * (the other one is freed). Applies -u. */
static int sorting_sort(ctx_t *c, void *keys, size_t *n, void **out)
{
    int width = c->km.width;
    *out = keys;
    if (*n > 1) {
        void *scratch = mem_alloc(*n * (size_t)width);
        if (!scratch)
            return err_set(GS_ENOMEM, "out of memory");
        void *sorted;
        int rc = c->sorter->sort(c->sorter, keys, scratch, *n, width, &sorted);
        if (rc) {
            free(scratch);
            return rc;
        }
        if (sorted == scratch) {
            free(keys);
            *out = scratch;
        } else {
            free(scratch);
        }
    }
    if (c->o->unique)
        *n = key_unique(*out, *n, width);
    return GS_OK;
}

/* Sort the chunk and keep it as a run; start an empty chunk. */
static int sorting_seal(sorting_t *s)
{
    void *sorted;
    size_t n = s->n;
    int rc = sorting_sort(s->c, s->keys, &n, &sorted);
    s->keys = NULL;
    s->n = s->cap = 0;
    if (rc) {
        free(sorted);
        return rc;
    }
    if (s->nruns == s->caprun) {
        int nc = s->caprun ? 2 * s->caprun : 16;
        run_t **nr = realloc(s->runs, sizeof *nr * (size_t)nc);
        if (!nr) {
            free(sorted);
            return err_set(GS_ENOMEM, "out of memory");
        }
        s->runs = nr;
        s->caprun = nc;
    }
    rc = run_from_memory(&s->runs[s->nruns], sorted, n, s->c->km.width);
    if (rc) {
        free(sorted);
        return rc;
    }
    s->nruns++;
    stats_note_run();
    s->mem_bytes += (uint64_t)n * (uint64_t)s->c->km.width;
    return sorting_next_limit(s);
}

/* Add keys[0..m) to the chunk, sealing it each time it reaches its limit. */
static int sorting_add(sorting_t *s, const char *keys, size_t m)
{
    size_t w = (size_t)s->c->km.width;
    while (m > 0) {
        if (s->n == s->limit) {
            int rc = sorting_seal(s);
            if (rc)
                return rc;
        }
        size_t take = s->limit - s->n < m ? s->limit - s->n : m;
        if (s->n + take > s->cap) {
            size_t ncap = s->cap ? 2 * s->cap : ((size_t)1 << 16);
            while (ncap < s->n + take)
                ncap *= 2;
            if (ncap > s->limit)
                ncap = s->limit;
            char *nk = mem_realloc(s->keys, ncap * w);
            if (!nk)
                return err_set(GS_ENOMEM, "out of memory");
            s->keys = nk;
            s->cap = ncap;
        }
        memcpy(s->keys + s->n * w, keys, take * w);
        s->n += take;
        keys += take * w;
        m -= take;
    }
    return GS_OK;
}

/* Read every input into chunks and runs. */
static int sorting_read(sorting_t *s)
{
    ctx_t *c = s->c;
    char *const *files;
    int nfiles;
    run_inputs(c->o, &files, &nfiles);
    carry_t carry = { .n = 0 };
    kreader_cfg_t cfg = run_reader_cfg(c, run_read_block(s->budget));
    cfg.carry = &carry;
    const char *last_name = NULL;
    uint64_t last_bytes = 0;
    int rc = GS_OK;
    for (int f = 0; f < nfiles && rc == GS_OK; f++) {
        kreader_t *r;
        rc = kreader_open(&r, files[f], &cfg);
        if (rc)
            break;
        for (;;) {
            const void *blk;
            size_t m;
            rc = kreader_next(r, &blk, &m);
            if (rc || m == 0)
                break;
            rc = sorting_add(s, blk, m);
            if (rc)
                break;
        }
        last_name = files[f];
        last_bytes = kreader_bytes(r);
        kreader_close(r);
    }
    if (rc == GS_OK && carry.n)
        rc = err_set(GS_EINPUT, "%s: %llu bytes: not a whole number of %d-byte keys",
                     last_name, (unsigned long long)last_bytes, c->km.width);
    return rc;
}

/* The merge's sinks: formatted output, or a new run. */
static size_t run_sink_format(void *self, const void *keys, size_t n, void *dst)
{
    return output_format(self, keys, n, dst);
}

static int run_sink_write(void *self, const void *bytes, size_t len)
{
    return output_write_bytes(self, bytes, len);
}

typedef struct {
    int width;
    run_writer_t *w;
} run_sink_t;

static size_t run_sink_copy(void *self, const void *keys, size_t n, void *dst)
{
    size_t len = n * (size_t)((run_sink_t *)self)->width;
    memcpy(dst, keys, len);
    return len;
}

static int run_sink_append(void *self, const void *bytes, size_t len)
{
    run_sink_t *rs = self;
    return run_writer_add(rs->w, bytes, len / (size_t)rs->width);
}

/* How many runs one merge takes: the open-file limit, and the cursor buffers that
 * half the budget pays for. */
static int sorting_fan_in(const sorting_t *s)
{
    int fan = run_fan_in();
    size_t per = (size_t)pool_size(s->c->pool) * run_cursor_bytes(s->c->km.width);
    size_t mem = (s->budget / 2) / per;
    if ((size_t)fan > mem)
        fan = (int)mem;
    return fan < 2 ? 2 : fan;
}

static int sorting_merge_into(sorting_t *s, run_t **runs, int n, const pmerge_sink_t *sink)
{
    int rc = GS_OK, opened = 0;
    for (; opened < n && rc == GS_OK; opened++)
        rc = run_open(runs[opened]);
    size_t budget = s->budget > s->mem_bytes ? s->budget - s->mem_bytes : 0;
    if (budget < s->budget / 4)
        budget = s->budget / 4;
    if (rc == GS_OK)
        rc = pmerge_runs(runs, n, s->c->km.width, s->c->o->unique, s->c->pool, budget, sink);
    for (int i = 0; i < opened; i++)
        run_close(runs[i]);
    return rc;
}

/* Merge passes: while there are more runs than one merge takes, merge the first
 * fan-in runs into one on disk. */
static int sorting_passes(sorting_t *s)
{
    int fan = sorting_fan_in(s);
    while (s->nruns > fan) {
        run_sink_t rs = { .width = s->c->km.width };
        int rc = run_writer_open(&rs.w, &s->rcfg);
        if (rc)
            return rc;
        pmerge_sink_t sink = { run_sink_copy, run_sink_append, (size_t)rs.width, &rs };
        rc = sorting_merge_into(s, s->runs, fan, &sink);
        run_t *merged = NULL;
        if (rc == GS_OK)
            rc = run_writer_close(rs.w, &merged);
        else
            run_writer_abort(rs.w);
        if (rc)
            return rc;
        for (int i = 0; i < fan; i++) {
            if (run_in_memory(s->runs[i]))
                s->mem_bytes -= run_key_bytes(s->runs[i]);
            run_free(s->runs[i]);
        }
        s->runs[0] = merged;
        memmove(s->runs + 1, s->runs + fan, sizeof *s->runs * (size_t)(s->nruns - fan));
        s->nruns -= fan - 1;
    }
    return GS_OK;
}

static void sorting_free(sorting_t *s)
{
    free(s->keys);
    for (int i = 0; i < s->nruns; i++)
        run_free(s->runs[i]);
    free(s->runs);
}

static int run_sort(ctx_t *c)
{
    sorting_t s = { .c = c };
    s.budget = run_budget(c->o);
    s.rcfg = (runcfg_t){ .tmpdir = run_tmpdir(c->o), .compress = c->o->compress,
                         .width = c->km.width, .pool = c->pool };
    int rc = sorting_next_limit(&s);
    progress_phase("reading");
    if (rc == GS_OK)
        rc = sorting_read(&s);
    output_t *out = NULL;
    if (rc == GS_OK && s.nruns == 0) {
        /* One chunk in total: sort it and write it; no run store, no merge. */
        progress_phase("sorting");
        void *sorted = NULL;
        size_t n = s.n;
        rc = sorting_sort(c, s.keys, &n, &sorted);
        s.keys = sorted;
        progress_phase("writing");
        if (rc == GS_OK) {
            output_cfg_t ocfg = run_output_cfg(c);
            rc = output_open(&out, &ocfg);
        }
        if (rc == GS_OK)
            rc = run_finish(output_write(out, s.keys, n), out);
        sorting_free(&s);
        return rc;
    }
    if (rc == GS_OK && s.n > 0)
        rc = sorting_seal(&s);
    progress_phase("merging");
    if (rc == GS_OK)
        rc = sorting_passes(&s);
    if (rc == GS_OK) {
        output_cfg_t ocfg = run_output_cfg(c);
        rc = output_open(&out, &ocfg);
    }
    if (rc == GS_OK) {
        pmerge_sink_t sink = { run_sink_format, run_sink_write, output_max_bytes(out), out };
        rc = run_finish(sorting_merge_into(&s, s.runs, s.nruns, &sink), out);
    }
    sorting_free(&s);
    return rc;
}

/* ---- merge ----------------------------------------------------------------------------- */

/* An input of a merge pass: a user's file, or a temporary made by an earlier pass. */
typedef struct {
    char *path;
    int slot;                /* cleanup slot of a temporary, or -1 for a user's file */
} minput_t;

/* Read blocks for the merge: the inputs share 64 MiB, within 64 KiB .. 16 MiB each. */
static size_t run_merge_block(int ninputs)
{
    size_t b = ((size_t)64 << 20) / (size_t)ninputs;
    if (b < ((size_t)64 << 10))
        b = (size_t)64 << 10;
    if (b > ((size_t)16 << 20))
        b = (size_t)16 << 20;
    return b;
}

/* How many inputs one merge may hold open: the open-file limit less a reserve for
 * standard streams, the output and its temporary. */
static int run_fan_in(void)
{
    struct rlimit rl;
    long lim = 1024;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        lim = (long)rl.rlim_cur;
    long fan = lim - 8;
    if (fan > 1024)
        fan = 1024;
    return fan < 2 ? 2 : (int)fan;
}

static const char *run_tmpdir(const opts_t *o)
{
    if (o->tmpdir)
        return o->tmpdir;
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

/* Create an empty registered temporary under the temporary directory. */
static int run_make_temp(const ctx_t *c, minput_t *m)
{
    const char *dir = run_tmpdir(c->o);
    size_t len = strlen(dir) + sizeof "/gpusort-XXXXXX";
    m->path = malloc(len);
    if (!m->path)
        return err_set(GS_ENOMEM, "out of memory");
    snprintf(m->path, len, "%s/gpusort-XXXXXX", dir);
    int fd = mkstemp(m->path);
    if (fd < 0)
        return err_sys(GS_EIO, errno, "cannot create a temporary file in '%s'", dir);
    close(fd);
    m->slot = cleanup_register(m->path);
    if (m->slot < 0) {
        unlink(m->path);
        return GS_EIO;
    }
    return GS_OK;
}

static void run_drop_input(minput_t *m)
{
    if (m->slot >= 0)
        cleanup_remove(m->slot);
    m->slot = -1;
    free(m->path);
    m->path = NULL;
}

/* Merge inputs[0..n) into out. User files are read in the user's format;
 * temporaries in binary, mapped order. */
static int run_merge_into(ctx_t *c, const minput_t *inputs, int n, output_t *out)
{
    kreader_t **readers = calloc((size_t)n, sizeof *readers);
    if (!readers)
        return err_set(GS_ENOMEM, "out of memory");
    kreader_cfg_t user = run_reader_cfg(c, run_merge_block(n));
    kreader_cfg_t temp = user;
    temp.binary = 1;
    temp.big_endian = 0;
    int rc = GS_OK;
    for (int i = 0; i < n && rc == GS_OK; i++)
        rc = kreader_open(&readers[i], inputs[i].path, inputs[i].slot >= 0 ? &temp : &user);
    if (rc == GS_OK)
        rc = merge_readers(readers, n, c->o->unique, &c->km, out);
    for (int i = 0; i < n; i++)
        kreader_close(readers[i]);
    free(readers);
    return rc;
}

/* One pass: merge groups of at most fan inputs into temporaries; *n shrinks. */
static int run_merge_pass(ctx_t *c, minput_t *in, int *n, int fan)
{
    int groups = 0, rc = GS_OK;
    for (int g = 0; g < *n && rc == GS_OK; g += fan) {
        int k = *n - g < fan ? *n - g : fan;
        minput_t t = { NULL, -1 };
        output_t *out = NULL;
        rc = run_make_temp(c, &t);
        if (rc == GS_OK) {
            output_cfg_t ocfg = { .path = t.path, .km = &c->km, .binary = 1,
                                  .big_endian = 0, .pool = c->pool };
            rc = output_open(&out, &ocfg);
        }
        if (rc == GS_OK)
            rc = run_finish(run_merge_into(c, in + g, k, out), out);
        for (int i = 0; i < k; i++)
            run_drop_input(&in[g + i]);
        in[groups++] = t;
    }
    if (rc != GS_OK)
        return rc;
    *n = groups;
    return GS_OK;
}

static int run_merge(ctx_t *c)
{
    char *const *files;
    int n;
    run_inputs(c->o, &files, &n);
    minput_t *in = calloc((size_t)n, sizeof *in);
    if (!in)
        return err_set(GS_ENOMEM, "out of memory");
    int rc = GS_OK;
    for (int i = 0; i < n && rc == GS_OK; i++) {
        in[i].slot = -1;
        in[i].path = strdup(files[i]);
        if (!in[i].path)
            rc = err_set(GS_ENOMEM, "out of memory");
    }
    int fan = run_fan_in();
    progress_phase("merging");
    while (rc == GS_OK && n > fan)
        rc = run_merge_pass(c, in, &n, fan);
    output_t *out = NULL;
    if (rc == GS_OK) {
        output_cfg_t ocfg = run_output_cfg(c);
        rc = output_open(&out, &ocfg);
    }
    if (rc == GS_OK)
        rc = run_finish(run_merge_into(c, in, n, out), out);
    for (int i = 0; i < n; i++)
        run_drop_input(&in[i]);
    free(in);
    return rc;
}

/* ---- check ------------------------------------------------------------------------------- */

static int run_check(ctx_t *c)
{
    const char *path = c->o->nfiles ? c->o->files[0] : "-";
    kreader_cfg_t cfg = run_reader_cfg(c, 0);
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
            rc = run_sort(&c);
            break;
        case MODE_MERGE:
            rc = run_merge(&c);
            break;
        default:
            rc = run_check(&c);
            break;
        }
    }
    progress_stop(rc == GS_OK || rc == GS_EDISORDER);
    if (c.sorter)
        c.sorter->destroy(c.sorter);
    pool_destroy(c.pool);
    if (o->stats && (rc == GS_OK || rc == GS_EDISORDER))
        stats_print(stats_now() - t0);
    return rc;
}
