/* ctx.c: the helpers every mode shares (see ctx.h). */
#include <config.h>

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "pipeline/ctx.h"
#include "core/error.h"

static char *const stdin_name[] = { "-" };

void ctx_inputs(const ctx_t *c, char *const **files, int *n)
{
    const opts_t *o = c->o;
    if (o->nfiles == 0) {
        *files = stdin_name;
        *n = 1;
    } else {
        *files = o->files;
        *n = o->nfiles;
    }
}

int ctx_input_bytes(const ctx_t *c, uint64_t *bytes)
{
    char *const *files;
    int n;
    ctx_inputs(c, &files, &n);
    *bytes = 0;
    for (int i = 0; i < n; i++) {
        struct stat st;
        int r = strcmp(files[i], "-") == 0 ? fstat(0, &st) : stat(files[i], &st);
        if (r != 0 || !S_ISREG(st.st_mode))
            return 0;
        *bytes += (uint64_t)st.st_size;
    }
    return 1;
}

kreader_cfg_t ctx_reader_cfg(const ctx_t *c, size_t block)
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

output_cfg_t ctx_output_cfg(const ctx_t *c)
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

const char *ctx_tmpdir(const opts_t *o)
{
    if (o->tmpdir)
        return o->tmpdir;
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

