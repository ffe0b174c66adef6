/* SPDX-License-Identifier: MIT */
/* run_writer.c: a new spilled run written as a stream of keys in order (the merge
 * passes' output; see runs.h): keys gathered into a block, each full block encoded
 * and appended to the run's file, its index grown as it goes.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/keys.h"
#include "core/stats.h"
#include "store/run_impl.h"

struct run_writer {
    runcfg_t cfg;
    run_t *r;
    void *block;             /* keys of the block being filled */
    size_t fill;             /* keys in it */
    size_t cap_blocks;       /* room in the index */
    void *enc, *scratch;
    int chose;               /* 1 once the codec is chosen */
};

int run_writer_open(run_writer_t **out, const runcfg_t *cfg)
{
    run_writer_t *w = calloc(1, sizeof *w);
    run_t *r = calloc(1, sizeof *r);
    if (!w || !r) {
        free(w);
        free(r);
        return err_set(GS_ENOMEM, "out of memory");
    }
    w->cfg = *cfg;
    w->r = r;
    r->width = cfg->width;
    r->fd = -1;
    r->slot = -1;
    size_t wb = (size_t)cfg->width;
    w->block = malloc(RUN_BLOCK_KEYS * wb);
    w->enc = malloc(codec_bound(RUN_BLOCK_KEYS, cfg->width));
    w->scratch = malloc(RUN_BLOCK_KEYS * wb);
    w->cap_blocks = 64;
    r->first = malloc(sizeof *r->first * w->cap_blocks);
    r->offset = malloc(sizeof *r->offset * (w->cap_blocks + 1));
    int rc = GS_OK;
    if (!w->block || !w->enc || !w->scratch || !r->first || !r->offset)
        rc = err_set(GS_ENOMEM, "out of memory");
    else
        rc = run_create_file(r, cfg);
    if (rc != GS_OK) {
        run_writer_abort(w);
        return rc;
    }
    r->offset[0] = 0;
    *out = w;
    return GS_OK;
}

/* Encode and write the block being filled. */
static int run_writer_flush(run_writer_t *w)
{
    run_t *r = w->r;
    if (w->fill == 0)
        return GS_OK;
    if (!w->chose) {
        r->codec = run_choose_codec(w->cfg.compress, w->block, w->fill, r->width);
        w->chose = 1;
    }
    if (r->nblocks == w->cap_blocks) {
        size_t nc = w->cap_blocks * 2;
        uint64_t *f = realloc(r->first, sizeof *f * nc);
        if (f)
            r->first = f;
        uint64_t *o = realloc(r->offset, sizeof *o * (nc + 1));
        if (o)
            r->offset = o;
        if (!f || !o)
            return err_set(GS_ENOMEM, "out of memory");
        w->cap_blocks = nc;
    }
    size_t len = codec_encode(r->codec, w->block, w->fill, r->width, w->enc,
                              codec_bound(RUN_BLOCK_KEYS, r->width), w->scratch);
    if (!len)
        return err_set(GS_EIO, "cannot encode a run for '%s'", r->path);
    int rc = run_write_all(r, w->enc, len);
    if (rc)
        return rc;
    stats_add(ST_SPILL, len, 0);
    r->first[r->nblocks] = key_get(w->block, 0, r->width);
    r->offset[r->nblocks + 1] = r->offset[r->nblocks] + len;
    r->nblocks++;
    r->n += w->fill;
    w->fill = 0;
    return GS_OK;
}

int run_writer_add(run_writer_t *w, const run_batch_t *b)
{
    size_t wb = (size_t)w->r->width, n = b->n;
    const char *p = b->keys;
    while (n > 0) {
        size_t take = RUN_BLOCK_KEYS - w->fill < n ? RUN_BLOCK_KEYS - w->fill : n;
        memcpy((char *)w->block + w->fill * wb, p, take * wb);
        w->fill += take;
        p += take * wb;
        n -= take;
        if (w->fill == RUN_BLOCK_KEYS) {
            int rc = run_writer_flush(w);
            if (rc)
                return rc;
        }
    }
    return GS_OK;
}

static void run_writer_free(run_writer_t *w)
{
    free(w->block);
    free(w->enc);
    free(w->scratch);
    free(w);
}

int run_writer_close(run_writer_t *w, run_t **out)
{
    int rc = run_writer_flush(w);
    if (rc) {
        run_writer_abort(w);
        return rc;
    }
    run_t *r = w->r;
    close(r->fd);
    r->fd = -1;
    run_writer_free(w);
    *out = r;
    return GS_OK;
}

void run_writer_abort(run_writer_t *w)
{
    if (!w)
        return;
    run_free(w->r);
    run_writer_free(w);
}

