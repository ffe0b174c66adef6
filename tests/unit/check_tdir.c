/* SPDX-License-Identifier: MIT */
/* check_tdir.c: files for the unit tests that touch them: temporary directories
 * made under $TMPDIR (else /tmp) and removed with everything in them, whole files
 * written and read with every step checked, whether a directory's file system
 * gives space by fallocate(2), and a FIFO's reader that keeps the pages it reads. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "check_suites.h"
#include "core/tuning.h"

void ck_tdir_make(char *dir, size_t len, const char *tag)
{
    const char *base = getenv("TMPDIR");
    snprintf(dir, len, "%s/gs-check-%s-XXXXXX", base && *base ? base : "/tmp", tag);
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        abort();
    }
}

void ck_remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[1024];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
                ck_remove_tree(path);
            else
                unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

void ck_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot create %s", path);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

char *ck_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    ck_assert_ptr_nonnull(buf);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            ck_assert_ptr_nonnull(buf);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    ck_assert_int_eq(ferror(f), 0);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

int ck_can_fallocate(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/probe", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    int ok = fallocate(fd, 0, 0, 4096) == 0;
    close(fd);
    unlink(path);
    return ok;
}

void *ck_fifo_keep(void *arg)
{
    ck_fifo_t *f = arg;
    int fd = open(f->path, O_RDONLY);
    if (fd < 0) {
        f->err = errno;
        return NULL;
    }
    for (;;) {
        struct pollfd in = { .fd = fd, .events = POLLIN };
        if (poll(&in, 1, -1) < 0 && errno != EINTR)
            break;
        ssize_t m;
        int kept = 0;
        struct pollfd out = { .fd = f->nkeep ? f->keep[f->nkeep - 1][1] : -1, .events = POLLOUT };
        if (f->nkeep && poll(&out, 1, 0) == 1) {   /* room in the last pipe kept */
            m = splice(fd, NULL, out.fd, NULL, PIPE_BYTES, SPLICE_F_NONBLOCK);
            kept = 1;
        } else if (f->nkeep < CK_KEEP_PIPES && pipe(f->keep[f->nkeep]) == 0) {
            (void)fcntl(f->keep[f->nkeep][1], F_SETPIPE_SZ, PIPE_BYTES);   /* if it may */
            f->at[f->nkeep++] = f->len;
            continue;
        } else {   /* the rest read as it comes */
            m = read(fd, f->buf + f->len, f->cap - f->len);
        }
        if (m == 0)
            break;
        if (m < 0 && errno != EAGAIN && errno != EINTR) {
            f->err = errno;
            break;
        }
        f->len += m > 0 ? (size_t)m : 0;
        if (kept)
            f->kept = f->len;
        if (f->len >= f->cap) {
            f->err = EFBIG;
            break;
        }
    }
    close(fd);
    return NULL;
}

size_t ck_fifo_kept(ck_fifo_t *f)
{
    for (int i = 0; i < f->nkeep; i++) {
        close(f->keep[i][1]);
        size_t at = f->at[i], end = i + 1 < f->nkeep ? f->at[i + 1] : f->kept;
        for (ssize_t n; at < end && (n = read(f->keep[i][0], f->buf + at, end - at)) > 0;)
            at += (size_t)n;
        if (at != end && !f->err)
            f->err = EIO;
        close(f->keep[i][0]);
    }
    f->nkeep = 0;
    return f->len;
}

void ck_fifo_expect(ck_fifo_t *f, pthread_t reader, const void *want, size_t len)
{
    pthread_join(reader, NULL);
    size_t got = ck_fifo_kept(f);
    ck_assert_int_eq(f->err, 0);
    ck_assert_uint_eq(got, len);
    ck_assert(memcmp(f->buf, want, len) == 0);
}
