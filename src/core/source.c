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

/* source_open()'s work, quiet: 0, or the errno of what failed (ENOMEM: no name;
 * EISDIR: a directory; EBADF from standard input that was closed). */
static int source_open_errno(const source_t *s, source_file_t *f)
{
    *f = (source_file_t){ .fd = -1, .end = UINT64_MAX };
    f->name = err_escaped(s->path ? s->path : s->name);
    if (!f->name)
        return ENOMEM;
    if (!s->path) {   /* the caller's: a descriptor of our own to it, to close */
        f->fd = fcntl(s->fd, F_DUPFD_CLOEXEC, 3);
        if (f->fd < 0)
            return errno;
        f->owned = 1;
    } else if (source_stdin(s)) {
        if (stdfds_was_closed(STDIN_FILENO))
            return EBADF;
        f->fd = STDIN_FILENO;
        f->stdin_ = 1;
    } else {
        f->fd = open(s->path, O_RDONLY | O_CLOEXEC);
        if (f->fd < 0)
            return errno;
        f->owned = 1;
    }
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    f->regular = S_ISREG(st.st_mode);
    f->size = (uint64_t)st.st_size;
    if (!f->regular)
        return 0;
    if (!s->path) {
        source_range(s, f->size, &f->start, &f->end);
        f->ranged = 1;
        return 0;
    }
    off_t at = lseek(f->fd, 0, SEEK_CUR);   /* standard input: where it stands */
    f->start = at > 0 ? (uint64_t)at : 0;
    f->end = f->size > f->start ? f->size : f->start;
    return 0;
}

int source_open(const source_t *s, source_file_t *f)
{
    int e = source_open_errno(s, f);
    if (e == 0)
        return GS_OK;
    if (!f->name)
        return err_set(GS_ENOMEM, "out of memory");
    if (source_stdin(s) && !f->stdin_)   /* closed before gpusort began */
        return err_sys(GS_EIO, e, "read error on '-'");
    return err_sys(GS_EIO, e, "cannot read '%s'", f->name);
}

int source_try_open(const source_t *s, source_file_t *f)
{
    int e = source_open_errno(s, f);
    f->quiet = 1;
    return e == 0 ? 0 : -1;
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

int source_read(const source_file_t *f, pool_t *pool, size_t piece, void *buf, size_t len,
                uint64_t pos, size_t *got)
{
    uint64_t promised = f->regular && f->end > pos ? f->end - pos : 0;
    int e;
    if (!f->regular || (f->stdin_ && !f->quiet)) {
        /* A pipe, a terminal, standard input: from where it stands, which moves on
         * as sort's reading moves it (a second '-' then reads what is left; with
         * -m, two share it): no size to hold it to. */
        e = fdio_read(f->fd, buf, len, -1, got);
        promised = 0;
    } else {
        if (f->ranged && len > promised)
            len = (size_t)promised;
        /* In pieces even on one thread: a kernel file that says its size is 0
         * (/proc/sys) refuses a read of some MiB at once (ENOMEM). */
        e = fdio_read_pool(pool, f->fd, buf, len, (int64_t)pos, piece ? piece : len, got);
    }
    if (e)
        return f->quiet ? GS_EIO : err_sys(GS_EIO, e, "read error on '%s'", f->name);
    if (*got < len && *got < promised)
        return f->quiet ? GS_EIO
                        : err_set(GS_EIO, "read error on '%s': the file was cut short while "
                                  "being read", f->name);
    return GS_OK;
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
