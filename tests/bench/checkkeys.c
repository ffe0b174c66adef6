/* SPDX-License-Identifier: MIT */
/* checkkeys.c: the checker of the big benchmarks: reads binary unsigned keys (u32
 * or u64, this host's byte order) from standard input and checks that they are in
 * ascending order; prints "COUNT SUM" (SUM the keys added mod 2^64), the arithmetic
 * of genkeys --sum and tests/tools/gscheck. tests/tools/gscheck checks every key type and order
 * but at a key at a time; this one keeps up with a pipe of several GB/s, so the
 * 100 GiB run is bound by gpusort, not by its checker.
 * Usage: checkkeys [-t u32|u64]   Exit 0 in order, 1 out of order, 2 on an error.
 */
#define _GNU_SOURCE   /* F_SETPIPE_SZ */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CK_BUF_BYTES ((size_t)4 << 20)
#define CK_PIPE_BYTES (1 << 20)

/* Fold keys[0..n) into *sum; the count of keys below their predecessor (*prev
 * first); *prev becomes the last key. Branch-free, so the compiler vectorises it. */
#define CK_SCAN(T)                                                                      \
    static uint64_t ck_scan_##T(const T *k, size_t n, uint64_t *prev, uint64_t *sum)   \
    {                                                                                   \
        uint64_t bad = 0, s = 0;                                                        \
        T p = (T)*prev;                                                                 \
        if (n == 0)                                                                     \
            return 0;                                                                   \
        bad += k[0] < p;                                                                \
        for (size_t i = 0; i < n; i++) {                                                \
            s += k[i];                                                                  \
            if (i > 0)                                                                  \
                bad += k[i] < k[i - 1];                                                 \
        }                                                                               \
        *prev = k[n - 1];                                                               \
        *sum += s;                                                                      \
        return bad;                                                                     \
    }
CK_SCAN(uint32_t)
CK_SCAN(uint64_t)

int main(int argc, char **argv)
{
    int width = 4;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc) {
            i++;
            width = !strcmp(argv[i], "u64") ? 8 : !strcmp(argv[i], "u32") ? 4 : 0;
        } else {
            width = 0;
        }
        if (!width) {
            fprintf(stderr, "usage: checkkeys [-t u32|u64]\n");
            return 2;
        }
    }
    (void)fcntl(STDIN_FILENO, F_SETPIPE_SZ, CK_PIPE_BYTES);   /* fewer switches; a file ignores it */
    unsigned char *buf = aligned_alloc(64, CK_BUF_BYTES);
    if (!buf) {
        fprintf(stderr, "checkkeys: out of memory\n");
        return 2;
    }
    size_t have = 0;
    uint64_t count = 0, sum = 0, prev = 0, bad = 0;
    for (;;) {
        ssize_t got = read(STDIN_FILENO, buf + have, CK_BUF_BYTES - have);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            fprintf(stderr, "checkkeys: read error: %s\n", strerror(errno));
            return 2;
        }
        have += (size_t)got;
        if (got > 0 && have < CK_BUF_BYTES)
            continue;   /* scan whole buffers: a pipe hands over 1 MiB or less at a time */
        size_t n = have / (size_t)width;
        if (width == 4)
            bad += ck_scan_uint32_t((const uint32_t *)buf, n, &prev, &sum);
        else
            bad += ck_scan_uint64_t((const uint64_t *)buf, n, &prev, &sum);
        count += n;
        size_t left = have - n * (size_t)width;
        memmove(buf, buf + n * (size_t)width, left);
        have = left;
        if (got == 0)
            break;
    }
    if (have) {
        fprintf(stderr, "checkkeys: %zu bytes left over: not a whole number of %d-byte keys\n",
                have, width);
        return 2;
    }
    printf("%llu %llu\n", (unsigned long long)count, (unsigned long long)sum);
    if (bad) {
        fprintf(stderr, "checkkeys: %llu keys below the key before them\n",
                (unsigned long long)bad);
        return 1;
    }
    return fflush(stdout) == 0 ? 0 : 2;
}
