/* mergefiles.c: -m: merge inputs that are each sorted already, streaming.
 *
 * One loser-tree merge (merge.h) over all inputs when the open-file limit allows;
 * otherwise merge passes: groups of inputs are merged into registered temporaries
 * under the temporary directory (binary, in mapped order), which are merged in turn.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "pipeline/ctx.h"
#include "core/error.h"
#include "merge/streams.h"
#include "core/progress.h"

/* An input of a merge pass: a user's file, or a temporary made by an earlier pass. */
typedef struct {
    char *path;
    int slot;                /* cleanup slot of a temporary, or -1 for a user's file */
} minput_t;

/* Read blocks for the merge: the inputs share 64 MiB, within 64 KiB .. 16 MiB each. */
static size_t mf_block(int ninputs)
{
    size_t b = ((size_t)64 << 20) / (size_t)ninputs;
    if (b < ((size_t)64 << 10))
        b = (size_t)64 << 10;
    if (b > ((size_t)16 << 20))
        b = (size_t)16 << 20;
    return b;
}

/* Create an empty registered temporary under the temporary directory. */
static int mf_make_temp(const ctx_t *c, minput_t *m)
{
    const char *dir = ctx_tmpdir(c->o);
    size_t len = strlen(dir) + sizeof "/gpusort-XXXXXX";
    m->path = malloc(len);
    if (!m->path)
        return err_set(GS_ENOMEM, "out of memory");
    snprintf(m->path, len, "%s/gpusort-XXXXXX", dir);
    int fd = cleanup_mkstemp(m->path, &m->slot);
    if (fd < 0)
        return err_sys(GS_EIO, errno, "cannot create a temporary file in '%s'", dir);
    close(fd);
    return GS_OK;
}

static void mf_drop_input(minput_t *m)
{
    if (m->slot >= 0)
        cleanup_remove(m->slot);
    m->slot = -1;
    free(m->path);
    m->path = NULL;
}

/* Merge inputs[0..n) into out. User files are read in the user's format;
 * temporaries in binary, mapped order. */
static int mf_merge_into(ctx_t *c, const minput_t *inputs, int n, output_t *out)
{
    kreader_t **readers = calloc((size_t)n, sizeof *readers);
    if (!readers)
        return err_set(GS_ENOMEM, "out of memory");
    kreader_cfg_t user = ctx_reader_cfg(c, mf_block(n));
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
static int mf_pass(ctx_t *c, minput_t *in, int *n, int fan)
{
    int groups = 0, rc = GS_OK;
    for (int g = 0; g < *n && rc == GS_OK; g += fan) {
        int k = *n - g < fan ? *n - g : fan;
        minput_t t = { NULL, -1 };
        output_t *out = NULL;
        rc = mf_make_temp(c, &t);
        if (rc == GS_OK) {
            output_cfg_t ocfg = { .path = t.path, .km = &c->km, .binary = 1,
                                  .big_endian = 0, .pool = c->pool };
            rc = output_open(&out, &ocfg);
        }
        if (rc == GS_OK)
            rc = ctx_finish(mf_merge_into(c, in + g, k, out), out);
        for (int i = 0; i < k; i++)
            mf_drop_input(&in[g + i]);
        in[groups++] = t;
    }
    if (rc != GS_OK)
        return rc;
    *n = groups;
    return GS_OK;
}

int mergefiles_run(ctx_t *c)
{
    char *const *files;
    int n;
    ctx_inputs(c, &files, &n);
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
    int fan = ctx_fan_in();
    progress_phase("merging");
    while (rc == GS_OK && n > fan)
        rc = mf_pass(c, in, &n, fan);
    output_t *out = NULL;
    if (rc == GS_OK) {
        output_cfg_t ocfg = ctx_output_cfg(c);
        rc = output_open(&out, &ocfg);
    }
    if (rc == GS_OK)
        rc = ctx_finish(mf_merge_into(c, in, n, out), out);
    for (int i = 0; i < n; i++)
        mf_drop_input(&in[i]);
    free(in);
    return rc;
}

