/* SPDX-License-Identifier: MIT */
/* local.c: the engine on a rank's own data (see local.h). */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster/local.h"
#include "cluster/scratch.h"
#include "cluster/stage.h"
#include "core/error.h"
#include "pipeline/run.h"

/* The engine told to read in and write out what it is given, quietly. */
static settings_t local_settings(const settings_t *set, run_mode_t mode)
{
    settings_t s = *set;
    s.mode = mode;
    s.output = NULL;   /* a scratch file in -T, on standard output: */
    s.output_name = set->tmpdir;   /* where a full disk is, for its message */
    s.header = 0;      /* left out by the staging; written once, by place.c */
    s.stats = 0;
    s.progress = 0;
    return s;
}

int local_stdout(int out, int *save)
{
    *save = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (*save < 0 || dup2(out, STDOUT_FILENO) < 0) {
        int e = errno;
        if (*save >= 0)
            close(*save);
        *save = -1;
        return err_sys(GS_EIO, e, "cannot redirect the engine's output");
    }
    return GS_OK;
}

void local_stdout_back(int save)
{
    dup2(save, STDOUT_FILENO);
    close(save);
}

/* Run s with standard output out, put back after. */
static int local_run(const settings_t *s, int out)
{
    int save, rc = local_stdout(out, &save);
    if (rc == GS_OK) {
        rc = run(s);
        local_stdout_back(save);
    }
    return rc;
}

static int local_size(int fd, uint64_t *size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return err_sys(GS_EIO, errno, "cannot read a temporary file");
    *size = (uint64_t)st.st_size;
    return GS_OK;
}

int local_sort(const settings_t *set, const share_t *sh, int *fd, uint64_t *size,
               double *read_s)
{
    *size = 0;
    *read_s = 0;
    if ((*fd = scratch_open(set->tmpdir)) < 0)
        return GS_EIO;
    if (sh->nspans == 0)
        return GS_OK;
    stage_t *st;
    int in;
    double t0 = MPI_Wtime();
    int rc = stage_make(&st, set, sh, &in);
    *read_s = MPI_Wtime() - t0;
    char path[32];
    if (rc == GS_OK) {
        settings_t s = local_settings(set, MODE_SORT);
        scratch_path(in, path, sizeof path);
        char *one[] = { path };
        s.inputs = one;
        s.ninputs = 1;
        rc = local_run(&s, *fd);
        if (rc == GS_EINPUT)
            rc = stage_renumber(st, path, rc);
    }
    if (in >= 0)
        close(in);
    stage_free(st);
    return rc ? rc : local_size(*fd, size);
}

int local_resort(const settings_t *set, const int *files, int n, int out, const char *name)
{
    char (*paths)[32] = malloc((size_t)n * sizeof *paths);
    char **names = malloc((size_t)n * sizeof *names);
    int m = 0, rc = paths && names ? GS_OK : err_set(GS_ENOMEM, "out of memory");
    for (int i = 0; i < n && rc == GS_OK; i++)
        if (files[i] >= 0) {
            scratch_path(files[i], paths[m], sizeof paths[m]);
            names[m] = paths[m];
            m++;
        }
    if (rc == GS_OK && m > 0) {
        settings_t s = local_settings(set, MODE_SORT);
        s.in_format = set->out_format;
        s.output_name = name;
        s.inputs = names;
        s.ninputs = m;
        rc = local_run(&s, out);
    }
    free(paths);
    free(names);
    return rc;
}
