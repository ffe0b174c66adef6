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
#include "progress.h"
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

/* ---- sort ---------------------------------------------------------------------------- */

/* Append every key of every input to *keys (grown with realloc). */
static int run_read_all(const ctx_t *c, void **keys, size_t *n)
{
    char *const *files;
    int nfiles;
    run_inputs(c->o, &files, &nfiles);
    size_t width = (size_t)c->km.width, cap = 0, count = 0;
    char *arr = NULL;
    carry_t carry = { .n = 0 };
    kreader_cfg_t cfg = run_reader_cfg(c, 0);
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
            if (count + m > cap) {
                size_t ncap = cap ? cap * 2 : (1u << 20);
                while (ncap < count + m)
                    ncap *= 2;
                char *na = mem_realloc(arr, ncap * width);
                if (!na) {
                    rc = err_set(GS_ENOMEM, "out of memory");
                    break;
                }
                arr = na;
                cap = ncap;
            }
            memcpy(arr + count * width, blk, m * width);
            count += m;
        }
        last_name = files[f];
        last_bytes = kreader_bytes(r);
        kreader_close(r);
    }
    if (rc == GS_OK && carry.n)
        rc = err_set(GS_EINPUT, "%s: %llu bytes: not a whole number of %zu-byte keys",
                     last_name, (unsigned long long)last_bytes, width);
    if (rc) {
        free(arr);
        return rc;
    }
    *keys = arr;
    *n = count;
    return GS_OK;
}

static int run_sort(ctx_t *c)
{
    void *keys = NULL, *sorted = NULL;
    size_t n = 0;
    int width = c->km.width;
    progress_phase("reading");
    int rc = run_read_all(c, &keys, &n);
    if (rc)
        return rc;
    progress_phase("sorting");
    if (n > 1) {
        void *scratch = mem_alloc(n * (size_t)width);
        if (!scratch) {
            free(keys);
            return err_set(GS_ENOMEM, "out of memory");
        }
        rc = c->sorter->sort(c->sorter, keys, scratch, n, width, &sorted);
        /* Keep the buffer that holds the result; free the other before writing. */
        if (rc == GS_OK && sorted == scratch) {
            free(keys);
            keys = scratch;
        } else {
            free(scratch);
        }
    }
    if (rc == GS_OK && c->o->unique)
        n = key_unique(keys, n, width);
    output_t *out = NULL;
    progress_phase("writing");
    if (rc == GS_OK) {
        output_cfg_t ocfg = run_output_cfg(c);
        rc = output_open(&out, &ocfg);
    }
    if (rc == GS_OK)
        rc = run_finish(output_write(out, keys, n), out);
    free(keys);
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
