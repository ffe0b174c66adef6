/* SPDX-License-Identifier: MIT */
/* fdio.c: whole reads and writes on a descriptor (see fdio.h). */
#include <config.h>

#include <errno.h>
#include <unistd.h>

#include "core/fdio.h"

int fdio_write(int fd, const void *buf, size_t len, int64_t off, size_t *done)
{
    const char *p = buf;
    size_t got = 0;
    int e = 0;
    while (got < len) {
        ssize_t n = off < 0 ? write(fd, p + got, len - got)
                            : pwrite(fd, p + got, len - got, (off_t)(off + (int64_t)got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            e = errno;
            break;
        }
        got += (size_t)n;
    }
    if (done)
        *done = got;
    return e;
}

int fdio_read(int fd, void *buf, size_t len, int64_t off, size_t *got)
{
    char *p = buf;
    *got = 0;
    while (*got < len) {
        ssize_t n = off < 0 ? read(fd, p + *got, len - *got)
                            : pread(fd, p + *got, len - *got, (off_t)(off + (int64_t)*got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            break;   /* the end of the file */
        *got += (size_t)n;
    }
    return 0;
}
