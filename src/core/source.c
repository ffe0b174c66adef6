/* SPDX-License-Identifier: MIT */
/* source.c: inputs opened the one way (see source.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fdio.h"
#include "core/stdfds.h"
#include "core/source.h"

/* A range source's bytes [*start, *end) in a file of size bytes. */
static void source_range(const source_t *s, uint64_t size, uint64_t *start, uint64_t *end)
{
    *start = s->off < size ? s->off : size;
    *end = s->len == SOURCE_TO_END || s->len > size - *start ? size : *start + s->len;
}

int source_stdin(const source_t *s)
{
    return s->path && strcmp(s->path, "-") == 0;
}

int source_open(const source_t *s, source_file_t *f)
{
    *f = (source_file_t){ .fd = -1, .end = UINT64_MAX };
    f->name = err_escaped(s->path ? s->path : s->name);
    if (!f->name)
        return err_set(GS_ENOMEM, "out of memory");
    if (!s->path) {   /* the caller's: a descriptor of our own to it, to close */
        f->fd = fcntl(s->fd, F_DUPFD_CLOEXEC, 3);
        if (f->fd < 0)
            return err_sys(GS_EIO, errno, "cannot read '%s'", f->name);
        f->owned = 1;
    } else if (source_stdin(s)) {
        if (stdfds_was_closed(STDIN_FILENO))
            return err_sys(GS_EIO, EBADF, "read error on '-'");
        f->fd = STDIN_FILENO;
        f->stdin_ = 1;
    } else {
        f->fd = open(s->path, O_RDONLY | O_CLOEXEC);
        if (f->fd < 0)
            return err_sys(GS_EIO, errno, "cannot read '%s'", f->name);
        f->owned = 1;
    }
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return err_sys(GS_EIO, errno, "cannot read '%s'", f->name);
    if (S_ISDIR(st.st_mode))
        return err_sys(GS_EIO, EISDIR, "cannot read '%s'", f->name);
    f->regular = S_ISREG(st.st_mode);
    if (!f->regular)
        return GS_OK;
    uint64_t size = (uint64_t)st.st_size;
    if (!s->path) {
        source_range(s, size, &f->start, &f->end);
        return GS_OK;
    }
    off_t at = lseek(f->fd, 0, SEEK_CUR);   /* standard input: where it stands */
    f->start = at > 0 ? (uint64_t)at : 0;
    f->end = size > f->start ? size : f->start;
    return GS_OK;
}

void source_close(source_file_t *f)
{
    if (f->owned && f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    f->owned = 0;
    free(f->name);
    f->name = NULL;
}

int source_stat(const source_t *s, struct stat *st)
{
    if (!s->path)
        return fstat(s->fd, st);
    return source_stdin(s) ? fstat(STDIN_FILENO, st) : stat(s->path, st);
}

int source_bytes(const source_t *s, uint64_t *bytes)
{
    struct stat st;
    *bytes = 0;
    if (source_stat(s, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    uint64_t start = 0, end = (uint64_t)st.st_size;
    if (!s->path)
        source_range(s, end, &start, &end);
    *bytes = end - start;
    return 1;
}

int source_whole(const source_t *s)
{
    return s->path && !source_stdin(s);
}

uint64_t source_line(const source_t *s, char term, uint64_t line)
{
    if (s->path || s->off == 0)
        return line;
    char buf[1 << 16];
    uint64_t at = 0;
    while (at < s->off) {
        size_t want = s->off - at < sizeof buf ? (size_t)(s->off - at) : sizeof buf, got;
        if (fdio_read(s->fd, buf, want, (int64_t)at, &got) != 0 || got == 0)
            break;
        for (const char *p = buf, *q = buf + got; (p = memchr(p, term, (size_t)(q - p))); p++)
            line++;
        at += got;
    }
    return line;
}
