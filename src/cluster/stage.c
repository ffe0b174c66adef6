/* SPDX-License-Identifier: MIT */
/* stage.c: a rank's share copied into one file for the engine (see stage.h). */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/scratch.h"
#include "cluster/stage.h"
#include "core/error.h"
#include "core/fdio.h"
#include "core/pool.h"
#include "core/tuning.h"

struct stage {
    const settings_t *set;
    const share_t *sh;
    uint64_t *from, *to;    /* span k: the bytes [from, to) of its input staged */
    uint64_t *at;           /* span k: where they start in the staged file */
    int *owed;              /* span k: 1 where a line's end follows them there */
};

static char stage_term(const settings_t *set)
{
    return set->zero_terminated ? '\0' : '\n';
}

static int stage_input_error(const stage_t *st, int k, int e, const char *what)
{
    char *name = err_escaped(st->set->inputs[st->sh->spans[k].input]);
    int rc = err_sys(GS_EIO, e, "%s '%s'", what, name ? name : "?");
    free(name);
    return rc;
}

/* Where span k's bytes start (after its header line) and whether a line's end is
 * owed after them: from[k], to[k], owed[k]. buf: STAGE_BUF bytes. */
static int stage_plan_span(stage_t *st, int k, char *buf)
{
    const span_t *sp = &st->sh->spans[k];
    char term = stage_term(st->set);
    uint64_t off = sp->off, end = sp->off + sp->len;
    int fd = open(st->set->inputs[sp->input], O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return stage_input_error(st, k, errno, "cannot read");
    int rc = GS_OK;
    while (sp->header && off < end) {   /* the header line left out */
        size_t got, want = end - off < STAGE_BUF ? (size_t)(end - off) : STAGE_BUF;
        int e = fdio_read(fd, buf, want, (int64_t)off, &got);
        if (e || got == 0) {
            rc = e ? stage_input_error(st, k, e, "read error on") : GS_OK;
            end = off;   /* cut short: nothing after what was read */
            break;
        }
        const char *hit = memchr(buf, term, got);
        off += hit ? (uint64_t)(hit - buf) + 1 : got;
        if (hit)
            break;
    }
    st->from[k] = off;
    st->to[k] = end;
    if (rc == GS_OK && sp->at_end && end > off && st->set->in_format == FMT_TEXT) {
        size_t got;
        int e = fdio_read(fd, buf, 1, (int64_t)end - 1, &got);
        if (e)
            rc = stage_input_error(st, k, e, "read error on");
        else
            st->owed[k] = got == 1 && buf[0] != term;
    }
    close(fd);
    return rc;
}

typedef struct {
    stage_t *st;
    int out;                /* the staged file */
    int *in;                /* each span's input, open */
    uint64_t npieces;       /* STAGE_PIECE pieces of the spans, in span order */
    uint64_t *first;        /* span k's first piece; first[nspans] = npieces */
    int rc;                 /* the first error (its message set) */
} stage_job_t;

/* Bytes [a, b) of span k's input to the staged file at dst, by the kernel where it
 * can, else through buf. GS_OK or an error. */
static int stage_copy(stage_job_t *j, int k, uint64_t a, uint64_t b, uint64_t dst, char *buf)
{
    int kernel = 1;
    while (a < b) {
        size_t want = b - a < STAGE_PIECE ? (size_t)(b - a) : (size_t)STAGE_PIECE;
        ssize_t n;
        if (kernel) {
            loff_t ia = (loff_t)a, oa = (loff_t)dst;
            n = copy_file_range(j->in[k], &ia, j->out, &oa, want, 0);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
                          errno == EOPNOTSUPP)) {
                kernel = 0;
                continue;
            }
            if (n < 0)
                return errno == ENOSPC || errno == EDQUOT || errno == EFBIG
                           ? err_sys(GS_EIO, errno, "write error on a temporary file in '%s'",
                                     j->st->set->tmpdir)
                           : stage_input_error(j->st, k, errno, "read error on");
        } else {
            size_t got;
            int e = fdio_read(j->in[k], buf, want < STAGE_BUF ? want : STAGE_BUF, (int64_t)a,
                              &got);
            if (e)
                return stage_input_error(j->st, k, e, "read error on");
            if (got && (e = fdio_write(j->out, buf, got, (int64_t)dst, NULL)) != 0)
                return err_sys(GS_EIO, e, "write error on a temporary file in '%s'",
                               j->st->set->tmpdir);
            n = (ssize_t)got;
        }
        if (n == 0)   /* the input shrank since it was measured */
            return stage_input_error(j->st, k, EIO, "read error on");
        a += (uint64_t)n;
        dst += (uint64_t)n;
    }
    return GS_OK;
}

/* Thread t's pieces: every nt-th, from the t-th. */
static void stage_share(void *arg, int t, int nt)
{
    stage_job_t *j = arg;
    stage_t *st = j->st;
    char *buf = malloc(STAGE_BUF);
    int k = 0;
    for (uint64_t p = (uint64_t)t; p < j->npieces && buf; p += (uint64_t)nt) {
        if (__atomic_load_n(&j->rc, __ATOMIC_RELAXED))
            break;
        while (j->first[k + 1] <= p)
            k++;
        uint64_t a = st->from[k] + (p - j->first[k]) * STAGE_PIECE;
        uint64_t b = a + STAGE_PIECE < st->to[k] ? a + STAGE_PIECE : st->to[k];
        int rc = stage_copy(j, k, a, b, st->at[k] + (a - st->from[k]), buf);
        if (rc) {
            int none = 0;
            __atomic_compare_exchange_n(&j->rc, &none, rc, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED);
        }
    }
    if (!buf) {
        int none = 0;
        __atomic_compare_exchange_n(&j->rc, &none, err_set(GS_ENOMEM, "out of memory"), 0,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
    free(buf);
}

int stage_make(stage_t **out, const settings_t *set, const share_t *sh, int *fd)
{
    *fd = -1;
    stage_t *st = calloc(1, sizeof *st);
    *out = st;
    size_t n = (size_t)sh->nspans + 1;
    if (!st || !(st->from = calloc(n, sizeof *st->from)) || !(st->to = calloc(n, sizeof *st->to)) ||
        !(st->at = calloc(n, sizeof *st->at)) || !(st->owed = calloc(n, sizeof *st->owed)))
        return err_set(GS_ENOMEM, "out of memory");
    st->set = set;
    st->sh = sh;
    stage_job_t j = { .st = st };
    char *buf = malloc(STAGE_BUF);
    int rc = buf ? GS_OK : err_set(GS_ENOMEM, "out of memory");
    uint64_t at = 0;
    for (int k = 0; k < sh->nspans && rc == GS_OK; k++) {
        rc = stage_plan_span(st, k, buf);
        st->at[k] = at;
        at += st->to[k] - st->from[k] + (uint64_t)st->owed[k];
    }
    if (rc == GS_OK && (*fd = scratch_open(set->tmpdir)) < 0)
        rc = GS_EIO;
    j.out = *fd;
    j.in = calloc(n, sizeof *j.in);
    j.first = calloc(n, sizeof *j.first);
    if (rc == GS_OK && (!j.in || !j.first))
        rc = err_set(GS_ENOMEM, "out of memory");
    for (int k = 0; rc == GS_OK && k < sh->nspans; k++) {
        if ((j.in[k] = open(set->inputs[sh->spans[k].input], O_RDONLY | O_CLOEXEC)) < 0)
            rc = stage_input_error(st, k, errno, "cannot read");
        j.first[k + 1] = j.first[k] + (st->to[k] - st->from[k] + STAGE_PIECE - 1) / STAGE_PIECE;
    }
    j.npieces = rc == GS_OK ? j.first[sh->nspans] : 0;
    pool_t *pool = NULL;
    int threads = set->threads > 0 ? set->threads : 1;
    if (rc == GS_OK && j.npieces > 1 && threads > 1 &&
        pool_create(&pool, threads < (int)j.npieces ? threads : (int)j.npieces) == GS_OK)
        pool_run(pool, stage_share, &j);
    else if (rc == GS_OK)
        stage_share(&j, 0, 1);
    if (pool)
        pool_destroy(pool);
    if (rc == GS_OK)
        rc = j.rc;
    char term = stage_term(set);
    for (int k = 0; rc == GS_OK && k < sh->nspans; k++)
        if (st->owed[k]) {
            int e = fdio_write(*fd, &term, 1, (int64_t)(st->at[k] + st->to[k] - st->from[k]),
                               NULL);
            if (e)
                rc = err_sys(GS_EIO, e, "write error on a temporary file in '%s'",
                             set->tmpdir);
        }
    for (int k = 0; j.in && k < sh->nspans; k++)
        if (j.in[k] > 0)
            close(j.in[k]);
    free(j.in);
    free(j.first);
    free(buf);
    return rc;
}

/* The line ends (term bytes) in bytes [from, to) of input path, into *n. */
static int stage_count(const char *path, uint64_t from, uint64_t to, char term, uint64_t *n)
{
    *n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char *buf = fd >= 0 ? malloc(STAGE_BUF) : NULL;
    int e = fd < 0 ? errno : buf ? 0 : ENOMEM;
    while (!e && from < to) {
        size_t got;
        e = fdio_read(fd, buf, to - from < STAGE_BUF ? (size_t)(to - from) : STAGE_BUF,
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

int stage_renumber(const stage_t *st, const char *name, int code)
{
    const char *m = err_message();
    size_t nl = strlen(name);
    char *end;
    if (!st || !m || strncmp(m, name, nl) != 0 || m[nl] != ':' || m[nl + 1] < '0' ||
        m[nl + 1] > '9')
        return code;
    unsigned long long line = strtoull(m + nl + 1, &end, 10), before = 0;
    if (*end != ':')
        return code;
    char term = stage_term(st->set);
    for (int k = 0; k < st->sh->nspans; k++) {
        const char *path = st->set->inputs[st->sh->spans[k].input];
        uint64_t lines, base;
        if (stage_count(path, st->from[k], st->to[k], term, &lines) != 0)
            return code;
        lines += (uint64_t)st->owed[k];
        if (line > before + lines) {
            before += lines;
            continue;
        }
        if (stage_count(path, 0, st->from[k], term, &base) != 0)
            return code;
        char *esc = err_escaped(path), *rest = strdup(end);
        if (esc && rest) {
            err_clear();
            err_set(code, "%s:%llu%s", esc, (unsigned long long)(base + line - before), rest);
        }
        free(esc);
        free(rest);
        return code;
    }
    return code;
}

void stage_free(stage_t *st)
{
    if (!st)
        return;
    free(st->from);
    free(st->to);
    free(st->at);
    free(st->owed);
    free(st);
}
