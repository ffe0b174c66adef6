/* outfile.c: the output's destination (see output.h): standard output, or -o FILE
 * written under a temporary name beside it and renamed over it only by the commit,
 * so that a failed run leaves an existing FILE untouched and -o may name an input.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/error.h"
#include "core/tempfile.h"
#include "core/tuning.h"
#include "io/output_impl.h"

/* ---- opening ---------------------------------------------------------------------- */

/* Create a temporary beside path (its directory, symbolic links followed) and set
 * its mode to that of the file it will replace, or to 0666 less the umask. */
static int output_make_temp(output_t *o, const char *path)
{
    struct stat st;
    int exists = stat(path, &st) == 0;
    char *target = exists ? realpath(path, NULL) : strdup(path);
    if (!target)
        return err_sys(GS_EIO, errno, "cannot write '%s'", path);
    char *dircopy = strdup(target);
    if (!dircopy) {
        free(target);
        return err_set(GS_ENOMEM, "out of memory");
    }
    o->final_path = target;
    o->fd = tempfile_make(dirname(dircopy), ".gpusort-", &o->tmp_path, &o->slot);
    int e = errno;
    free(dircopy);
    if (o->fd < 0)
        return err_sys(GS_EIO, e, "cannot write '%s'", path);
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    fchmod(o->fd, mode);
    return GS_OK;
}

/* Standard output that is a regular file may be placed too (placed.c), from its
 * current position, where it was not opened to append and is not standard error's
 * file as well (messages would land among the placed bytes): mapping needs a
 * descriptor open for reading and writing, which a shell's "> FILE" does not give,
 * so the file is opened again through /proc/self/fd/1. That descriptor, or -1. */
static int output_stdout_map_fd(void)
{
#ifdef __linux__
    struct stat st, other;
    int fl = fcntl(STDOUT_FILENO, F_GETFL);
    if (fl < 0 || (fl & O_APPEND) || fstat(STDOUT_FILENO, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    if (fstat(STDERR_FILENO, &other) == 0 && other.st_dev == st.st_dev &&
        other.st_ino == st.st_ino)
        return -1;
    int fd = open("/proc/self/fd/1", O_RDWR | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, &other) != 0 || other.st_dev != st.st_dev ||
                    other.st_ino != st.st_ino)) {
        close(fd);
        fd = -1;
    }
    return fd;
#else
    return -1;
#endif
}

int output_open(output_t **out, const output_cfg_t *cfg)
{
    output_t *o = calloc(1, sizeof *o);
    if (!o)
        return err_set(GS_ENOMEM, "out of memory");
    o->cfg = *cfg;
    o->fd = -1;
    o->slot = -1;
    o->map_fd = -1;
    o->threads = pool_size(cfg->pool);
    long page = sysconf(_SC_PAGESIZE);
    o->page = page > 0 ? (size_t)page : 4096;
    job_init(&o->writer);
    job_init(&o->ahead);
    int rc = GS_OK;
    if (!cfg->path) {
        o->fd = STDOUT_FILENO;
        o->name = "standard output";
#ifdef F_SETPIPE_SZ
        (void)fcntl(o->fd, F_SETPIPE_SZ, PIPE_BYTES);   /* as for standard input */
#endif
        o->map_fd = output_stdout_map_fd();
    } else {
        o->name = cfg->path;
        struct stat st;
        if (stat(cfg->path, &st) == 0 && !S_ISREG(st.st_mode)) {
            /* A device or FIFO: nothing to replace atomically; write to it. */
            o->fd = open(cfg->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
            if (o->fd < 0)
                rc = err_sys(GS_EIO, errno, "cannot write '%s'", cfg->path);
        } else {
            rc = output_make_temp(o, cfg->path);
        }
    }
    if (rc != GS_OK) {
        output_abort(o);
        return rc;
    }
    *out = o;
    return GS_OK;
}

/* ---- finishing ------------------------------------------------------------------------ */

static void output_free(output_t *o)
{
    output_ahead_end(o);
    job_end(&o->ahead);
    output_drain(o);
    output_writer_free(o);
    if (o->map_fd >= 0)
        close(o->map_fd);
    free(o->tmp_path);
    free(o->final_path);
    free(o);
}

/* Where FILE exists, swap it with the temporary in one step (renameat2 with
 * RENAME_EXCHANGE): FILE is the old file or the new one at every moment, as with
 * rename(), and ext4 does not write the new file out first, which it does when a
 * rename replaces a file (its auto_da_alloc). 1 when swapped; 0 where FILE does not
 * exist or the call is not supported (the caller renames). */
static int output_exchange(output_t *o)
{
#if defined(SYS_renameat2) && defined(RENAME_EXCHANGE)
    struct stat st;
    if (lstat(o->final_path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    return syscall(SYS_renameat2, AT_FDCWD, o->tmp_path, AT_FDCWD, o->final_path,
                   RENAME_EXCHANGE) == 0;
#else
    (void)o;
    return 0;
#endif
}

int output_commit(output_t *o)
{
    output_ahead_end(o);   /* before anything closes the descriptor it writes to */
    int rc = output_drain(o);
    if (rc == GS_OK && o->tmp_path)
        rc = output_ahead_cut(o);
    if (o->fd != STDOUT_FILENO && o->fd >= 0) {
        if (close(o->fd) != 0 && rc == GS_OK)
            rc = err_sys(GS_EIO, errno, "write error on '%s'", o->name);
        o->fd = -1;
    }
    if (rc == GS_OK && o->tmp_path) {
        if (output_exchange(o)) {
            /* The old FILE now has the temporary's name: the registry removes it. */
            cleanup_remove(o->slot);
            free(o->tmp_path);
            o->tmp_path = NULL;
        } else if (rename(o->tmp_path, o->final_path) != 0) {
            rc = err_sys(GS_EIO, errno, "cannot write '%s'", o->name);
        } else {
            cleanup_forget(o->slot);
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
    output_drain(o);
    if (o->fd != STDOUT_FILENO && o->fd >= 0)
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
