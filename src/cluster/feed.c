/* SPDX-License-Identifier: MIT */
/* feed.c: a rank's share written into the engine's standard input (see feed.h). */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/feed.h"
#include "core/cleanup.h"
#include "core/error.h"
#include "core/fdio.h"

#define FEED_PIECE ((size_t)1 << 20)   /* bytes a splice (or read) at most */

struct feed {
    const settings_t *set;
    const share_t *sh;
    int wfd;                /* the pipe's write end (the thread's) */
    pthread_t thread;
    int rc;                 /* the thread's: GS_OK, GS_EPIPE (the reader stopped), an error */
    uint64_t *from, *to;    /* span k: the bytes [from, to) of its input written */
    int *owed;              /* span k: 1 where a line's end was written after them */
};

static char feed_term(const settings_t *set)
{
    return set->zero_terminated ? '\0' : '\n';
}

static int feed_error(const feed_t *f, int k, int e, const char *what)
{
    char *name = err_escaped(f->set->inputs[f->sh->spans[k].input]);
    int rc = err_sys(GS_EIO, e, "%s '%s'", what, name ? name : "?");
    free(name);
    return rc;
}

/* Write buf[0..len) into the pipe: GS_OK, GS_EPIPE (the reader is gone) or an error. */
static int feed_put(feed_t *f, const char *buf, size_t len)
{
    int e = fdio_write(f->wfd, buf, len, -1, NULL);
    if (e == EPIPE)
        return GS_EPIPE;
    return e ? err_sys(GS_EIO, e, "cannot feed the sort") : GS_OK;
}

/* Span k into the pipe, buf a FEED_PIECE bytes of room. */
static int feed_span(feed_t *f, int k, char *buf)
{
    const span_t *sp = &f->sh->spans[k];
    char term = feed_term(f->set);
    int fd = open(f->set->inputs[sp->input], O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return feed_error(f, k, errno, "cannot read");
    uint64_t off = sp->off, end = sp->off + sp->len;
    int rc = GS_OK, spliced = 1;
    while (rc == GS_OK && sp->header && off < end) {   /* the header line left out */
        size_t got;
        int e = fdio_read(fd, buf, end - off < FEED_PIECE ? end - off : FEED_PIECE,
                          (int64_t)off, &got);
        if (e)
            rc = feed_error(f, k, e, "read error on");
        if (rc || got == 0)
            break;
        const char *hit = memchr(buf, term, got);
        off += hit ? (uint64_t)(hit - buf) + 1 : got;
        if (hit)
            break;
    }
    f->from[k] = off;
    while (rc == GS_OK && off < end) {
        size_t want = end - off < FEED_PIECE ? end - off : FEED_PIECE;
        ssize_t n;
        if (spliced) {
            loff_t at = (loff_t)off;
            n = splice(fd, &at, f->wfd, NULL, want, SPLICE_F_MORE);
            if (n < 0 && (errno == EINVAL || errno == ENOSYS)) {   /* not here: copies */
                spliced = 0;
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                rc = errno == EPIPE ? GS_EPIPE : feed_error(f, k, errno, "read error on");
        } else {
            size_t got;
            int e = fdio_read(fd, buf, want, (int64_t)off, &got);
            if (e)
                rc = feed_error(f, k, e, "read error on");
            else
                rc = feed_put(f, buf, got);
            n = (ssize_t)got;
        }
        if (rc || n == 0)
            break;   /* an error, or the file shrank: what it holds is what is sorted */
        off += (uint64_t)n;
    }
    f->to[k] = off;
    if (rc == GS_OK && sp->at_end && off > f->from[k] && f->set->in_format == FMT_TEXT) {
        size_t got;
        int e = fdio_read(fd, buf, 1, (int64_t)off - 1, &got);
        if (e)
            rc = feed_error(f, k, e, "read error on");
        else if (got == 1 && buf[0] != term) {
            rc = feed_put(f, &term, 1);
            f->owed[k] = 1;
        }
    }
    close(fd);
    return rc;
}

static void *feed_main(void *arg)
{
    feed_t *f = arg;
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);   /* a reader gone is EPIPE here, not the end */
    pthread_sigmask(SIG_BLOCK, &pipe_only, NULL);
    char *buf = malloc(FEED_PIECE);
    f->rc = buf ? GS_OK : err_set(GS_ENOMEM, "out of memory");
    for (int k = 0; k < f->sh->nspans && f->rc == GS_OK; k++)
        f->rc = feed_span(f, k, buf);
    free(buf);
    close(f->wfd);
    f->wfd = -1;
    return NULL;
}

int feed_start(feed_t **out, const settings_t *set, const share_t *sh, int *fd)
{
    *out = NULL;
    feed_t *f = calloc(1, sizeof *f);
    size_t n = sh->nspans ? (size_t)sh->nspans : 1;
    if (!f || !(f->from = calloc(n, sizeof *f->from)) || !(f->to = calloc(n, sizeof *f->to)) ||
        !(f->owed = calloc(n, sizeof *f->owed))) {
        if (f) {
            free(f->from);
            free(f->to);
        }
        free(f);
        return err_set(GS_ENOMEM, "out of memory");
    }
    f->set = set;
    f->sh = sh;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        int e = errno;
        free(f->from);
        free(f->to);
        free(f->owed);
        free(f);
        return err_sys(GS_EIO, e, "cannot make a pipe");
    }
    f->wfd = p[1];
    int e = cleanup_thread_create(&f->thread, feed_main, f);
    if (e) {
        close(p[0]);
        close(p[1]);
        free(f->from);
        free(f->to);
        free(f->owed);
        free(f);
        return err_sys(GS_EIO, e, "cannot start a thread");
    }
    *fd = p[0];
    *out = f;
    return GS_OK;
}

int feed_end(feed_t *f)
{
    if (!f)
        return GS_OK;
    pthread_join(f->thread, NULL);
    int rc = f->rc == GS_EPIPE ? GS_OK : f->rc;
    free(f->from);
    free(f->to);
    free(f->owed);
    free(f);
    return rc;
}

/* The line ends (term bytes) in bytes [from, to) of input path, into *n. */
static int feed_count(const char *path, uint64_t from, uint64_t to, char term, uint64_t *n)
{
    *n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char *buf = fd >= 0 ? malloc(FEED_PIECE) : NULL;
    int e = fd < 0 ? errno : buf ? 0 : ENOMEM;
    while (!e && from < to) {
        size_t got;
        e = fdio_read(fd, buf, to - from < FEED_PIECE ? to - from : FEED_PIECE,
                      (int64_t)from, &got);
        if (e || got == 0)
            break;
        for (const char *p = buf, *q = buf + got; (p = memchr(p, term, (size_t)(q - p)));
             p++)
            (*n)++;
        from += got;
    }
    free(buf);
    if (fd >= 0)
        close(fd);
    return e;
}

int feed_renumber(feed_t *f, int code)
{
    const char *m = err_message();
    char *end;
    if (!f || !m || strncmp(m, "-:", 2) != 0 || m[2] < '0' || m[2] > '9')
        return code;
    unsigned long long line = strtoull(m + 2, &end, 10), before = 0;
    if (*end != ':')
        return code;
    char term = feed_term(f->set);
    for (int k = 0; k < f->sh->nspans; k++) {
        const char *path = f->set->inputs[f->sh->spans[k].input];
        uint64_t lines, base;
        if (feed_count(path, f->from[k], f->to[k], term, &lines) != 0)
            return code;
        lines += (uint64_t)f->owed[k];
        if (line > before + lines) {
            before += lines;
            continue;
        }
        if (feed_count(path, 0, f->from[k], term, &base) != 0)
            return code;
        char *name = err_escaped(path), *rest = strdup(end);
        if (name && rest) {
            err_clear();
            err_set(code, "%s:%llu%s", name, (unsigned long long)(base + line - before), rest);
        }
        free(name);
        free(rest);
        return code;
    }
    return code;
}
