/* SPDX-License-Identifier: MIT */
/* outfile.c: the output's destination (see output.h): standard output, or -o FILE.
 *
 * FILE is written, where it can be, under a temporary name in its own directory and
 * swapped or renamed over it only by the commit, so that a failed run leaves an
 * existing FILE untouched and -o may name an input. As sort -o does, a symbolic link
 * is written through (its target replaced, the link kept); a FILE the user may not
 * write is refused; the temporary takes FILE's mode, owner and group where that is
 * permitted; and a FILE that is writable in a directory that is not is written in
 * place, from its start, once the first byte is ready (the sort complete: nothing is
 * written before every input has been read). A FILE that is not a regular file
 * (/dev/null, a FIFO, /dev/stdout on a pipe) is written directly.
 *
 * Where the bytes would go straight into a file that is also an input (FILE in
 * place, or standard output on the input's file), they are written aside first
 * (output_guard_inputs): records are copied out of an input's mapping while the
 * output is written, and an input cut short or overwritten then would lose them.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/error.h"
#include "core/fdio.h"
#include "core/stdfds.h"
#include "core/tempfile.h"
#include "core/tuning.h"
#include "io/output_impl.h"

/* Symbolic links followed, at most (as the kernel's own limit). */
#define OUT_MAX_LINKS 40

/* ---- where FILE is --------------------------------------------------------------- */

/* path with its symbolic links followed, the last one too where its target does not
 * exist (sort -o creates it): a malloc'ed path, or NULL with errno set. */
static char *output_follow(const char *path)
{
    char *p = strdup(path);
    for (int hops = 0; p && hops < OUT_MAX_LINKS; hops++) {
        struct stat st;
        if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
            return p;   /* not a link (or not there: created) */
        char target[PATH_MAX];
        ssize_t n = readlink(p, target, sizeof target - 1);
        if (n < 0) {
            int e = errno;
            free(p);
            errno = e;
            return NULL;
        }
        target[n] = '\0';
        char *next;
        const char *slash = strrchr(p, '/');
        if (target[0] == '/' || !slash) {
            next = strdup(target);
        } else {
            /* relative to the link's directory */
            size_t dlen = (size_t)(slash - p) + 1;
            next = malloc(dlen + (size_t)n + 1);
            if (next) {
                memcpy(next, p, dlen);
                memcpy(next + dlen, target, (size_t)n + 1);
            }
        }
        free(p);
        p = next;
    }
    if (p) {
        free(p);
        errno = ELOOP;
    }
    return NULL;
}

/* Split path into its directory (opened: *dirfd) and its last component (*base,
 * malloc'ed). GS_OK, or errno where the directory cannot be opened. */
static int output_dir_of(const char *path, int *dirfd, char **base)
{
    const char *slash = strrchr(path, '/');
    *dirfd = -1;
    *base = strdup(slash ? slash + 1 : path);
    if (!*base)
        return ENOMEM;
    if (!slash) {
        *dirfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } else {
        size_t len = slash == path ? 1 : (size_t)(slash - path);
        char *dir = malloc(len + 1);
        if (!dir)
            return ENOMEM;
        memcpy(dir, path, len);
        dir[len] = '\0';
        *dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        free(dir);
    }
    return *dirfd < 0 ? errno : 0;
}

/* The temporary beside FILE (o->dirfd, o->base) and, where FILE exists (st), its
 * mode, owner and group given to it, as far as permitted; else 0666 less the umask.
 * GS_OK, or the errno of the creation (the caller decides). */
static int output_make_temp(output_t *o, const struct stat *st)
{
    o->fd = tempfile_make(o->dirfd, NULL, ".gpusort-", &o->tmp_path, &o->slot);
    if (o->fd < 0)
        return errno;
    mode_t mode;
    if (st) {
        /* Owner and group first (root may give both; others their own groups), the
         * mode after: a change of owner clears the set-id bits. */
        if (fchown(o->fd, st->st_uid, st->st_gid) != 0 && fchown(o->fd, (uid_t)-1,
                                                               st->st_gid) != 0) {
            /* not permitted: the user's own, as any file they make */
        }
        mode = st->st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    fchmod(o->fd, mode);
    return 0;
}

/* Open -o FILE (o->name is set): see the top of the file. */
static int output_open_file(output_t *o, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* A device or FIFO, whatever links lead there (/dev/stdout on a pipe names
         * no file that a path could): nothing to replace atomically; written. */
        o->fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        return o->fd < 0 ? err_sys(GS_EIO, errno, "cannot write '%s'", o->name) : GS_OK;
    }
    char *target = output_follow(path);
    if (!target)
        return err_sys(GS_EIO, errno, "cannot write '%s'", o->name);
    int exists = stat(target, &st) == 0;
    if (exists && faccessat(AT_FDCWD, target, W_OK, AT_EACCESS) != 0) {
        /* sort refuses a file the user may not write, and so do we. */
        int e = errno;
        free(target);
        return err_sys(GS_EIO, e, "cannot write '%s'", o->name);
    }
    int e = output_dir_of(target, &o->dirfd, &o->base);
    if (e == 0)
        e = output_make_temp(o, exists ? &st : NULL);
    if (e && exists && (e == EACCES || e == EPERM || e == EROFS)) {
        /* The directory takes no temporary, but FILE is writable: written in place
         * (output_target_fd), once the output begins. */
        o->inplace = target;
        return GS_OK;
    }
    free(target);
    if (e)
        return err_sys(GS_EIO, e, "cannot write '%s'", o->name);
    return GS_OK;
}

/* Standard output (or the descriptor out standing for it) that is a regular file
 * may be placed too (placed.c), from its current position, where it was not opened
 * to append and is not standard error's file as well (messages would land among
 * the placed bytes): mapping needs a descriptor open for reading and writing, which
 * a shell's "> FILE" does not give, so the file is opened again through
 * /proc/self/fd/OUT. That descriptor, or -1. */
static int output_stdout_map_fd(int out)
{
#ifdef __linux__
    struct stat st, other;
    int fl = fcntl(out, F_GETFL);
    if (fl < 0 || (fl & O_APPEND) || fstat(out, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    if (fstat(STDERR_FILENO, &other) == 0 && other.st_dev == st.st_dev &&
        other.st_ino == st.st_ino)
        return -1;
    char link[32];
    snprintf(link, sizeof link, "/proc/self/fd/%d", out);
    int fd = open(link, O_RDWR | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, &other) != 0 || other.st_dev != st.st_dev ||
                    other.st_ino != st.st_ino)) {
        close(fd);
        fd = -1;
    }
    return fd;
#else
    (void)out;
    return -1;
#endif
}

/* 1 where the file st describes is one of cfg's inputs. */
static int output_is_input(const output_cfg_t *cfg, const struct stat *st)
{
    for (int i = 0; i < cfg->ninputs; i++) {
        struct stat in;
        if (source_stat(&cfg->inputs[i], &in) == 0 && in.st_dev == st->st_dev &&
            in.st_ino == st->st_ino)
            return 1;
    }
    return 0;
}

/* Where the destination is a file written directly (FILE in place, or standard
 * output on a regular file) that is one of the inputs, a temporary under -T in its
 * stead (o->aside), copied into it by the commit (output_copy_back). */
static int output_guard_inputs(output_t *o)
{
    struct stat st;
    if (o->inplace ? stat(o->inplace, &st) != 0
                   : o->cfg.path || fstat(o->out, &st) != 0 || !S_ISREG(st.st_mode))
        return GS_OK;
    if (!output_is_input(&o->cfg, &st))
        return GS_OK;
    const char *dir = o->cfg.tmpdir ? o->cfg.tmpdir : "/tmp";
    o->fd = tempfile_make(AT_FDCWD, dir, "gpusort-out-", &o->tmp_path, &o->slot);
    if (o->fd < 0)
        return err_sys(GS_EIO, errno, "cannot create a temporary file in '%s'", dir);
    o->aside = 1;
    if (o->map_fd >= 0) {   /* the temporary is mapped instead */
        close(o->map_fd);
        o->map_fd = -1;
    }
    return GS_OK;
}

/* The commit of an output written aside: the temporary's bytes copied into the
 * destination, FILE from its start (its space reserved first where the file system
 * can, so that a full disk fails before FILE changes; then cut to their length),
 * standard output from its position. */
static int output_copy_back(output_t *o)
{
    struct stat st;
    if (fstat(o->fd, &st) != 0)
        return err_sys(GS_EIO, errno, "write error on '%s'", o->name);
    uint64_t len = (uint64_t)st.st_size;
    if (!o->inplace) {
        int e = fdio_copy(o->fd, 0, o->out, -1, len);
        return e ? err_sys(e == EPIPE ? GS_EPIPE : GS_EIO, e, "write error on '%s'", o->name)
                 : GS_OK;
    }
    int fd = open(o->inplace, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return err_sys(GS_EIO, errno, "cannot write '%s'", o->name);
    int e = 0;
    if (len > 0 && fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)len) != 0 &&
        (errno == ENOSPC || errno == EDQUOT))
        e = errno;
    if (e == 0)
        e = fdio_copy(o->fd, 0, fd, 0, len);
    if (e == 0 && ftruncate(fd, (off_t)len) != 0)
        e = errno;
    if (close(fd) != 0 && e == 0)
        e = errno;
    return e ? err_sys(GS_EIO, e, "write error on '%s'", o->name) : GS_OK;
}

int output_open(output_t **out, const output_cfg_t *cfg)
{
    output_t *o = calloc(1, sizeof *o);
    if (!o)
        return err_set(GS_ENOMEM, "out of memory");
    o->cfg = *cfg;
    o->fd = -1;
    o->dirfd = -1;
    o->slot = -1;
    o->map_fd = -1;
    o->threads = pool_size(cfg->pool);
    long page = sysconf(_SC_PAGESIZE);
    o->page = page > 0 ? (size_t)page : 4096;
    job_init(&o->writer);
    job_init(&o->ahead);
    job_init(&o->hand);
    int rc = GS_OK;
    o->out = cfg->path || !cfg->fd ? STDOUT_FILENO : cfg->fd;
    if (!cfg->path) {
        o->fd = o->out;
        o->name = cfg->name ? err_escaped(cfg->name) : strdup("standard output");
        if (o->name && !cfg->fd && stdfds_was_closed(STDOUT_FILENO))
            rc = err_sys(GS_EIO, EBADF, "write error on 'standard output'");
#ifdef F_SETPIPE_SZ
        (void)fcntl(o->fd, F_SETPIPE_SZ, PIPE_BYTES);   /* as for standard input */
#endif
        o->map_fd = output_stdout_map_fd(o->out);
    } else {
        o->name = err_escaped(cfg->path);
    }
    if (!o->name)
        rc = err_set(GS_ENOMEM, "out of memory");
    else if (cfg->path && rc == GS_OK)
        rc = output_open_file(o, cfg->path);
    if (rc == GS_OK)
        rc = output_guard_inputs(o);
    if (rc != GS_OK) {
        output_abort(o);
        return rc;
    }
    output_ahead_start(o);
    *out = o;
    return GS_OK;
}

char *output_temp_path(const output_t *o)
{
#ifdef __linux__
    if (!o->tmp_path || o->dirfd < 0 || o->aside)
        return NULL;
    char link[64], dir[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", o->dirfd);
    ssize_t n = readlink(link, dir, sizeof dir - 1);
    if (n <= 0 || dir[0] != '/')
        return NULL;
    dir[n] = '\0';
    size_t dl = (size_t)n, tl = strlen(o->tmp_path);
    char *p = malloc(dl + 1 + tl + 1);
    if (!p)
        return NULL;
    memcpy(p, dir, dl);
    if (dl > 1)
        p[dl++] = '/';
    memcpy(p + dl, o->tmp_path, tl + 1);
    return p;
#else
    (void)o;
    return NULL;
#endif
}

int output_target_fd(output_t *o)
{
    if (o->fd >= 0 || !o->inplace)
        return GS_OK;
    o->fd = open(o->inplace, O_WRONLY | O_TRUNC | O_CLOEXEC);
    return o->fd < 0 ? err_sys(GS_EIO, errno, "cannot write '%s'", o->name) : GS_OK;
}

/* ---- finishing ------------------------------------------------------------------------ */

static void output_free(output_t *o)
{
    output_ahead_end(o);
    job_end(&o->ahead);
    job_end(&o->hand);
    output_drain(o);
    output_writer_free(o);
    if (o->map_fd >= 0)
        close(o->map_fd);
    if (o->dirfd >= 0)
        close(o->dirfd);
    free(o->tmp_path);
    free(o->base);
    free(o->inplace);
    free(o->name);
    free(o);
}

int output_commit(output_t *o)
{
    output_ahead_end(o);   /* before anything closes the descriptor it writes to */
    int rc = output_hand(o, NULL, 0, NULL, 0);   /* everything handed over written */
    if (rc == GS_OK)
        rc = output_target_fd(o);   /* in place and empty: FILE still truncated */
    if (rc == GS_OK && o->tmp_path)
        rc = output_ahead_cut(o);
    if (rc == GS_OK && o->aside)
        rc = output_copy_back(o);
    if (o->fd != o->out && o->fd >= 0) {
        if (close(o->fd) != 0 && rc == GS_OK)
            rc = err_sys(GS_EIO, errno, "write error on '%s'", o->name);
        o->fd = -1;
    }
    if (rc == GS_OK && o->aside) {
        cleanup_remove(o->slot);
        free(o->tmp_path);
        o->tmp_path = NULL;
    } else if (rc == GS_OK && o->tmp_path) {
        int e = cleanup_rename_over(o->slot, o->base);
        if (e)
            rc = err_sys(GS_EIO, e, "cannot write '%s'", o->name);
        else {
            free(o->tmp_path);
            o->tmp_path = NULL;
        }
    }
    if (rc != GS_OK) {
        output_abort(o);
        return rc;
    }
    output_free(o);
    return GS_OK;
}

void output_abort(output_t *o)
{
    if (!o)
        return;
    output_ahead_end(o);   /* before the descriptor it writes to is closed */
    output_hand(o, NULL, 0, NULL, 0);   /* the jobs done with the descriptor */
    if (o->fd != o->out && o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    if (o->tmp_path)
        cleanup_remove(o->slot);
    output_free(o);
}

unsigned long long output_bytes(const output_t *o)
{
    return o->bytes;
}

unsigned long long output_bytes_mapped(const output_t *o)
{
    return o->mapped;
}
