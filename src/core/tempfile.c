/* tempfile.c: the one maker of temporary files (see tempfile.h). */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/tempfile.h"

int tempfile_make(const char *dir, const char *prefix, char **path, int *slot)
{
    *slot = -1;
    size_t len = strlen(dir) + strlen(prefix) + sizeof "/XXXXXX";
    if (!(*path = malloc(len))) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(*path, len, "%s/%sXXXXXX", dir, prefix);
    int fd = cleanup_mkstemp(*path, slot);
    if (fd < 0) {
        int e = errno;
        free(*path);
        *path = NULL;
        errno = e;
    }
    return fd;
}
