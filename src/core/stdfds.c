/* SPDX-License-Identifier: MIT */
/* stdfds.c: the standard descriptors gpusort started without (see stdfds.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "core/stdfds.h"

static int closed_mask;   /* bit fd: fd was closed at start */

int stdfds_open(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        /* The lowest free descriptor is fd: the ones below it are open. */
        int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (got < 0)
            return errno;
        if (got != fd) {
            close(got);
            return EBADF;
        }
        closed_mask |= 1 << fd;
    }
    return 0;
}

int stdfds_was_closed(int fd)
{
    return fd >= 0 && fd <= 2 && (closed_mask >> fd & 1);
}
