/* SPDX-License-Identifier: MIT */
/* sbcheck.c: the benchmarks' checker of fixed-size records sorted by a key of their
 * first K bytes (memcmp order), such as the Sort Benchmark's (100 bytes, K 10).
 * Reads standard input as records of SIZE bytes; checks that each record's key is
 * not below the one before it; prints "COUNT SUM", SUM an order-free digest of the
 * records (each record's bytes hashed, the hashes added mod 2^64), so that an input
 * and its sorted output print the same line whatever their order. Standalone: it
 * shares no code with gpusort.
 * Usage: sbcheck SIZE K    Exit 0 in order, 1 out of order, 2 on an error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SB_BUF_RECORDS 65536

/* A record's hash: its bytes as 64-bit lanes (the tail zero-padded), each lane
 * mixed by the splitmix64 finalizer with its position, the results added. */
static uint64_t sb_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t sb_hash(const unsigned char *r, size_t size)
{
    uint64_t h = 0;
    for (size_t i = 0; i < size; i += 8) {
        uint64_t lane = 0;
        memcpy(&lane, r + i, size - i < 8 ? size - i : 8);
        h += sb_mix(lane + 0x9e3779b97f4a7c15u * (i / 8 + 1));
    }
    return h;
}

static size_t sb_read(unsigned char *buf, size_t want)
{
    size_t got = 0;
    while (got < want) {
        ssize_t n = read(0, buf + got, want - got);
        if (n < 0) {
            perror("sbcheck: read");
            exit(2);
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return got;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: sbcheck SIZE K\n", stderr);
        return 2;
    }
    size_t size = strtoul(argv[1], NULL, 10), k = strtoul(argv[2], NULL, 10);
    if (size == 0 || k == 0 || k > size) {
        fputs("sbcheck: SIZE and K must be 1 or more, K at most SIZE\n", stderr);
        return 2;
    }
    unsigned char *buf = malloc(size * (SB_BUF_RECORDS + 1));
    if (!buf) {
        fputs("sbcheck: out of memory\n", stderr);
        return 2;
    }
    unsigned char *prev = buf;        /* the last record of the buffer before */
    unsigned char *recs = buf + size;
    uint64_t count = 0, sum = 0, bad = 0;
    for (;;) {
        size_t got = sb_read(recs, size * SB_BUF_RECORDS);
        if (got % size) {
            fprintf(stderr, "sbcheck: %zu bytes after the last whole record\n", got % size);
            return 2;
        }
        size_t n = got / size;
        for (size_t i = 0; i < n; i++) {
            const unsigned char *r = recs + i * size;
            const unsigned char *before = i ? r - size : prev;
            if ((count || i) && memcmp(before, r, k) > 0)
                bad++;
            sum += sb_hash(r, size);
        }
        if (n)
            memcpy(prev, recs + (n - 1) * size, size);
        count += n;
        if (got < size * SB_BUF_RECORDS)
            break;
    }
    printf("%llu %llu\n", (unsigned long long)count, (unsigned long long)sum);
    if (bad)
        fprintf(stderr, "sbcheck: %llu records below the one before\n", (unsigned long long)bad);
    free(buf);
    return bad ? 1 : 0;
}
