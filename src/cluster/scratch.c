/* SPDX-License-Identifier: MIT */
/* scratch.c: unnamed working files (see scratch.h). */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cluster/scratch.h"
#include "core/error.h"

int scratch_open(const char *dir)
{
    int fd = -1;
#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    if (fd < 0) {   /* no O_TMPFILE there: a name for an instant */
        int n = snprintf(NULL, 0, "%s/gpusort-mpi-XXXXXX", dir);
        char *path = n > 0 ? malloc((size_t)n + 1) : NULL;
        if (!path)
            return err_set(GS_ENOMEM, "out of memory"), -1;
        snprintf(path, (size_t)n + 1, "%s/gpusort-mpi-XXXXXX", dir);
        fd = mkostemp(path, O_CLOEXEC);
        if (fd >= 0)
            unlink(path);
        free(path);
    }
    if (fd < 0) {
        char *name = err_escaped(dir);
        err_sys(GS_EIO, errno, "cannot create a temporary file in '%s'", name ? name : "?");
        free(name);
    }
    return fd;
}
