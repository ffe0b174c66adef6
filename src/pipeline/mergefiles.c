/* SPDX-License-Identifier: MIT */
/* mergefiles.c: -m: merge inputs that are each sorted already, streaming.
 *
 * One loser-tree merge (streams.h) over all inputs when the open-file limit allows;
 * otherwise merge passes (passes.h): groups of inputs are merged into registered
 * temporaries under the temporary directory (binary, in mapped order), which are
 * merged in turn.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/tempfile.h"
#include "core/tuning.h"
#include "merge/streams.h"
#include "pipeline/ctx.h"
#include "merge/passes.h"

/* An input of a merge pass: a user's file, or a temporary made by an earlier pass. */
typedef struct {
    const source_t *user;    /* the user's input, or NULL: */
    char *path;              /*   a temporary's path, */
    int slot;                /*   its cleanup slot (-1: none) */
} minput_t;

/* Read blocks for the merge: the inputs share MERGEFILES_BLOCKS, each within
 * MERGEFILES_BLOCK_MIN and MERGEFILES_BLOCK_MAX. */
static size_t mf_block(int ninputs)
{
    size_t b = MERGEFILES_BLOCKS / (size_t)ninputs;
    if (b < MERGEFILES_BLOCK_MIN)
        b = MERGEFILES_BLOCK_MIN;
    if (b > MERGEFILES_BLOCK_MAX)
        b = MERGEFILES_BLOCK_MAX;
    return b;
}

/* Create an empty registered temporary under the temporary directory. */
static int mf_make_temp(const ctx_t *c, minput_t *m)
{
    const char *dir = tempfile_dir(c->set->tmpdirs, c->set->ntmpdirs);
    int fd = tempfile_make(AT_FDCWD, dir, "gpusort-", &m->path, &m->slot);
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

/* What a merge does once its inputs have each been read a block into: keep the
 * user's inputs' headers (--header), in input order; write the one kept first where
 * the output is the user's. */
typedef struct {
    ctx_t *c;
    const minput_t *inputs;
    kreader_t **readers;
    int n;
    output_t *out;
    int final;
} mf_start_t;

static int mf_start(void *arg)
{
    mf_start_t *st = arg;
    int rc = GS_OK;
    for (int i = 0; i < st->n && rc == GS_OK; i++)
        if (st->inputs[i].user)
            rc = ctx_keep_header(st->c, st->readers[i]);
    return rc == GS_OK && st->final ? ctx_write_header(st->c, st->out) : rc;
}

/* Merge inputs[0..n) into out (final: the user's output). User files are read in
 * the user's format; temporaries in binary, mapped order. */
static int mf_merge_into(ctx_t *c, const minput_t *inputs, int n, output_t *out, int final)
{
    kreader_t **readers = calloc((size_t)n, sizeof *readers);
    if (!readers)
        return err_set(GS_ENOMEM, "out of memory");
    kreader_cfg_t user = c->rcfg;
    user.block_bytes = mf_block(n);
    kreader_cfg_t temp = user;
    temp.binary = 1;
    temp.big_endian = 0;
    int rc = GS_OK;
    for (int i = 0; i < n && rc == GS_OK; i++) {
        source_t tsrc = { .path = inputs[i].path, .fd = -1 };
        rc = inputs[i].user ? kreader_open(&readers[i], inputs[i].user, &user)
                            : kreader_open(&readers[i], &tsrc, &temp);
    }
    if (rc == GS_OK)
        rc = merge_readers(readers, n, c->set->unique, &c->km, out, mf_start,
                           &(mf_start_t){ c, inputs, readers, n, out, final });
    for (int i = 0; i < n; i++)
        kreader_close(readers[i]);
    free(readers);
    return rc;
}

/* A merge pass's group (passes.h): inputs in[0..k) merged into a new temporary,
 * and dropped. */
static int mf_merge_group(void *self, void *group, int k, void *merged)
{
    ctx_t *c = self;
    minput_t *in = group, t = { NULL, NULL, -1 };
    output_t *out = NULL;
    int rc = mf_make_temp(c, &t);
    if (rc == GS_OK) {
        output_cfg_t ocfg = { .path = t.path, .km = &c->km, .binary = 1,
                              .big_endian = 0, .pool = c->pool };
        rc = output_open(&out, &ocfg);
    }
    if (rc == GS_OK)
        rc = ctx_finish(mf_merge_into(c, in, k, out, 0), out);
    if (rc != GS_OK) {
        mf_drop_input(&t);
        return rc;
    }
    for (int i = 0; i < k; i++)
        mf_drop_input(&in[i]);
    *(minput_t *)merged = t;
    return GS_OK;
}

int mergefiles_run(ctx_t *c)
{
    int n = c->set->nsources;
    minput_t *in = calloc((size_t)n, sizeof *in);
    if (!in)
        return err_set(GS_ENOMEM, "out of memory");
    int rc = GS_OK;
    for (int i = 0; i < n; i++)
        in[i] = (minput_t){ .user = &c->set->sources[i], .slot = -1 };
    progress_phase("merging");
    if (rc == GS_OK)
        rc = passes_reduce(in, sizeof *in, &n, ctx_fan_in(), mf_merge_group, c);
    output_t *out = NULL;
    if (rc == GS_OK) {
        output_cfg_t ocfg = c->ocfg;
        rc = output_open(&out, &ocfg);
    }
    if (rc == GS_OK)
        rc = ctx_finish(mf_merge_into(c, in, n, out, 1), out);
    else
        output_abort(out);
    for (int i = 0; i < n; i++)
        mf_drop_input(&in[i]);
    free(in);
    return rc;
}
