/* SPDX-License-Identifier: MIT */
/* tempfile.c: the one maker of temporary files (see tempfile.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/tempfile.h"

int tempfile_make(int dirfd, const char *dir, const char *prefix, char **path, int *slot)
{
    *path = NULL;
    if (dirfd != AT_FDCWD)
        return cleanup_create(dirfd, prefix, path, slot);
    size_t len = strlen(dir) + strlen(prefix) + 2;
    char *full = malloc(len);
    if (!full) {
        *slot = -1;
        errno = ENOMEM;
        return -1;
    }
    snprintf(full, len, "%s/%s", dir, prefix);
    int fd = cleanup_create(AT_FDCWD, full, path, slot);
    int e = errno;
    free(full);
    errno = e;
    return fd;
}

const char *tempfile_dir(const char *const *dirs, int n)
{
    static unsigned next;   /* atomic */
    unsigned i = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
    return dirs[n > 1 ? i % (unsigned)n : 0];
}
