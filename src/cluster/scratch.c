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
#include "core/fdio.h"

#define SCRATCH_PIECE ((size_t)1 << 30)   /* bytes a copy_file_range asks for */
#define SCRATCH_BUF ((size_t)8 << 20)     /* the buffer's, where the kernel cannot */

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

int scratch_copy(int in, int out, int64_t at, uint64_t len)
{
    loff_t from = 0, to = at, *top = at < 0 ? NULL : &to;
    while ((uint64_t)from < len) {
        uint64_t left = len - (uint64_t)from;
        ssize_t n = copy_file_range(in, &from, out, top, left < SCRATCH_PIECE ? (size_t)left
                                                                              : SCRATCH_PIECE, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EXDEV && errno != EINVAL && errno != ENOSYS &&
            errno != EOPNOTSUPP)
            return errno;
        if (n == 0)
            return EIO;
        if (n > 0)
            continue;
        char *buf = malloc(SCRATCH_BUF);   /* not here: through a buffer */
        int e = buf ? 0 : ENOMEM;
        while (!e && (uint64_t)from < len) {
            left = len - (uint64_t)from;
            size_t got, want = left < SCRATCH_BUF ? (size_t)left : SCRATCH_BUF;
            e = fdio_read(in, buf, want, (int64_t)from, &got);
            if (!e && got != want)
                e = EIO;
            if (!e)
                e = fdio_write(out, buf, got, top ? (int64_t)to : -1, NULL);
            from += (loff_t)got;
            to += (loff_t)got;
        }
        free(buf);
        return e;
    }
    return 0;
}

void scratch_path(int fd, char *buf, int size)
{
    snprintf(buf, (size_t)size, "/proc/self/fd/%d", fd);
}
