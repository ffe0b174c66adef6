/* SPDX-License-Identifier: MIT */
/* local.c: the engine on a rank's own data (see local.h). */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster/local.h"
#include "cluster/scratch.h"
#include "core/error.h"
#include "pipeline/run.h"

/* The engine told to read the sources given and write into out from its position
 * (name: what its messages call it), quietly, no header written (place.c writes it
 * once). */
static int local_run(const settings_t *set, run_mode_t mode, const source_t *src, int n,
                     int out, const char *name)
{
    settings_t s = *set;
    s.mode = mode;
    s.sources = src;
    s.nsources = n;
    s.output = NULL;
    s.output_fd = out;
    s.output_name = name;
    s.header = 0;
    s.stats = 0;
    s.progress = 0;
    gs_error_t e = run(&s);
    return err_put(&e);   /* the step's outcome, reported (or not) as the rank agrees */
}

int local_resorts(const settings_t *set)
{
    return !settings_records(set) && !set->unique;
}

void local_scratch(const settings_t *set, settings_t *scratch)
{
    *scratch = *set;
    if (local_resorts(set))
        scratch->out_format = FMT_BINARY;
}

static int local_size(int fd, uint64_t *size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return err_sys(GS_EIO, errno, "cannot read a temporary file");
    *size = (uint64_t)st.st_size;
    return GS_OK;
}

int local_sort(const settings_t *set, const share_t *sh, int *fd, uint64_t *size)
{
    *size = 0;
    if ((*fd = scratch_open(set->tmpdir)) < 0)
        return GS_EIO;
    if (sh->nspans == 0)
        return GS_OK;
    source_t *src = malloc((size_t)sh->nspans * sizeof *src);
    int rc = src ? GS_OK : err_set(GS_ENOMEM, "out of memory"), opened = 0;
    for (; rc == GS_OK && opened < sh->nspans; opened++) {
        const span_t *sp = &sh->spans[opened];
        const char *path = set->sources[sp->input].path;
        src[opened] = (source_t){ .fd = open(path, O_RDONLY | O_CLOEXEC), .off = sp->off,
                                  .len = sp->len, .name = path, .header = sp->header };
        if (src[opened].fd < 0) {
            char *esc = err_escaped(path);
            rc = err_sys(GS_EIO, errno, "cannot read '%s'", esc ? esc : "?");
            free(esc);
            break;
        }
    }
    settings_t s;
    local_scratch(set, &s);
    if (rc == GS_OK)
        rc = local_run(&s, MODE_SORT, src, sh->nspans, *fd, set->tmpdir);
    for (int k = 0; k < opened; k++)
        close(src[k].fd);
    free(src);
    return rc ? rc : local_size(*fd, size);
}

int local_resort(const settings_t *set, const int *files, const uint64_t *offs,
                 const uint64_t *sizes, int n, int out, const char *name)
{
    source_t *src = malloc((size_t)n * sizeof *src);
    if (!src)
        return err_set(GS_ENOMEM, "out of memory");
    int m = 0;
    for (int i = 0; i < n; i++)
        if (files[i] >= 0)
            src[m++] = (source_t){ .fd = files[i], .off = offs[i], .len = sizes[i],
                                   .name = set->tmpdir };
    settings_t scratch, s = *set;
    local_scratch(set, &scratch);
    s.in_format = scratch.out_format;   /* the parts are as the local sort wrote them */
    int rc = m > 0 ? local_run(&s, MODE_SORT, src, m, out, name) : GS_OK;
    free(src);
    return rc;
}
