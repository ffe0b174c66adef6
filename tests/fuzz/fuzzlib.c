/* SPDX-License-Identifier: MIT */
/* fuzzlib.c: the helpers every fuzz target links (see fuzz.h). */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

const char *fuzz_memfile(const void *data, size_t len)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("gpusort-fuzz", MFD_CLOEXEC);
        if (fd < 0)
            fuzz_fail("memfd_create failed");
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0)
        fuzz_fail("ftruncate failed");
    const char *p = data;
    size_t done = 0;
    while (done < len) {
        ssize_t w = pwrite(fd, p + done, len - done, (off_t)done);
        if (w <= 0)
            fuzz_fail("pwrite to the memory file failed");
        done += (size_t)w;
    }
    return path;
}
