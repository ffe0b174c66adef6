/* SPDX-License-Identifier: MIT */
/* pipebw.c: the ceiling of a pipe between two processes, for the scale benchmarks:
 * how fast bytes cross a pipe for a given write size, read size and pipe buffer.
 *   pipebw write TOTAL CHUNK   write TOTAL bytes to standard output, CHUNK at a time
 *   pipebw vwrite TOTAL CHUNK  the same by vmsplice(2) (the pages, not copies)
 *   pipebw read CHUNK          read standard input to its end, CHUNK at a time, and
 *                              print "BYTES SECONDS GB/s" (from the first byte)
 * Both ends cycle through a 64 MiB buffer, faulted in first, as a sort's reader and
 * writer do. PIPE (bytes, default 1 MiB) is the pipe buffer each end asks for.
 */
#define _GNU_SOURCE   /* F_SETPIPE_SZ */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define PB_BUF ((size_t)64 << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
    fprintf(stderr, "pipebw: %s: %s\n", what, strerror(errno));
    exit(2);
}

int main(int argc, char **argv)
{
    int splicing = argc > 1 && !strcmp(argv[1], "vwrite");
    int writing = argc > 1 && (!strcmp(argv[1], "write") || splicing);
    if (argc < 3 || (!writing && strcmp(argv[1], "read")) || (writing && argc < 4)) {
        fprintf(stderr, "usage: pipebw write|vwrite TOTAL CHUNK | pipebw read CHUNK\n");
        return 2;
    }
    size_t total = writing ? strtoull(argv[2], NULL, 10) : 0;
    size_t chunk = strtoull(argv[writing ? 3 : 2], NULL, 10);
    if (chunk == 0 || chunk > PB_BUF)
        chunk = PB_BUF;
    const char *ps = getenv("PIPE");
    int pipe_bytes = ps ? atoi(ps) : 1 << 20;
    char *buf = aligned_alloc(4096, PB_BUF);
    if (!buf)
        die("malloc");
    memset(buf, 0x5a, PB_BUF);
    int fd = writing ? STDOUT_FILENO : STDIN_FILENO;
    if (pipe_bytes > 0 && fcntl(fd, F_SETPIPE_SZ, pipe_bytes) < 0)
        fprintf(stderr, "pipebw: F_SETPIPE_SZ %d: %s\n", pipe_bytes, strerror(errno));
    size_t off = 0, done = 0;
    double t0 = 0;
    for (;;) {
        if (writing && done >= total)
            break;
        size_t len = chunk;
        if (off + len > PB_BUF)
            off = 0;
        if (writing && total - done < len)
            len = total - done;
        struct iovec iov = { buf + off, len };
        ssize_t n = splicing  ? vmsplice(fd, &iov, 1, 0)
                    : writing ? write(fd, buf + off, len)
                              : read(fd, buf + off, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            die(writing ? "write" : "read");
        if (n == 0)
            break;
        if (!writing && done == 0)
            t0 = now();
        done += (size_t)n;
        off += (size_t)n;
    }
    if (!writing) {
        double t = now() - t0;
        printf("%zu %.3f %.2f\n", done, t, done / t / 1e9);
    }
    return 0;
}
