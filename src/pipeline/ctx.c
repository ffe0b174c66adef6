/* SPDX-License-Identifier: MIT */
/* ctx.c: the helpers every mode shares (see ctx.h). */
#include <config.h>

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "core/error.h"
#include "pipeline/ctx.h"

void ctx_init(ctx_t *c)
{
    const settings_t *set = c->set;
    c->in_sized = 1;
    c->in_bytes = 0;
    for (int i = 0; i < set->nsources; i++) {
        uint64_t b;
        if (!source_bytes(&set->sources[i], &b)) {
            c->in_sized = 0;
            c->in_bytes = 0;
            break;
        }
        c->in_bytes += b;
    }
    c->rcfg = (kreader_cfg_t){
        .km = &c->km,
        .binary = set->in_format == FMT_BINARY,
        .big_endian = set->big_endian,
        .pool = c->pool,
        .zero_terminated = set->zero_terminated,
    };
    c->ocfg = (output_cfg_t){
        .path = set->output,
        .fd = set->output_fd,
        .name = set->output_name,
        .km = &c->km,
        .binary = set->out_format == FMT_BINARY,
        .big_endian = set->big_endian,
        .zero_terminated = set->zero_terminated,
        .pool = c->pool,
        .inputs = set->sources,
        .ninputs = set->nsources,
        .tmpdir = set->tmpdir,
    };
}

int ctx_keep_header(ctx_t *c, const kreader_t *r)
{
    size_t len;
    const char *h = kreader_header(r, &len);
    if (c->header || !h || !c->set->header)   /* kept, none, or not to be written
                                                 (gpusort-mpi's ranks past the first) */
        return GS_OK;
    char term = c->set->zero_terminated ? '\0' : '\n';
    int add = h[len - 1] != term;
    if (!(c->header = malloc(len + 1)))
        return err_set(GS_ENOMEM, "out of memory");
    memcpy(c->header, h, len);
    if (add)
        c->header[len] = term;
    c->header_len = len + (size_t)add;
    return GS_OK;
}

int ctx_write_header(const ctx_t *c, output_t *out)
{
    if (!c->header)
        return GS_OK;
    return output_write_bytes(out, c->header, c->header_len);
}

int ctx_finish(int rc, output_t *out)
{
    if (rc != GS_OK) {
        output_abort(out);
        return rc;
    }
    return output_commit(out);
}

/* Descriptors open now: /proc/self/fd where there is one, else 3 (the standard
 * streams). Libraries (CUDA's driver, say) hold some of their own. */
static long ctx_open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 3;
    long n = -1;   /* the directory's own descriptor */
    while (readdir(d))
        n++;
    closedir(d);
    return n - 2;  /* "." and ".." */
}

/* How many inputs one merge may hold open: the open-file limit less the descriptors
 * already open, less a reserve for the output, its temporary and a read-ahead. */
int ctx_fan_in(void)
{
    struct rlimit rl;
    long lim = 1024;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        lim = (long)rl.rlim_cur;
    long fan = lim - ctx_open_fds() - 6;
    if (fan > 1024)
        fan = 1024;
    return fan < 2 ? 2 : (int)fan;
}
