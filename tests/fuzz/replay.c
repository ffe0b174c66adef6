/* SPDX-License-Identifier: MIT */
/* replay.c: a main() for the fuzz targets where libFuzzer is not used: it feeds the
 * target every file named (a directory: each file in it, in name order) and, with
 * -m N, N random mutants of each: bytes flipped, set, inserted or erased, the input
 * cut short or spliced with another. That is random testing, not coverage-guided
 * fuzzing, but it needs only a C compiler and runs under any sanitizer.
 *
 *   replay [-m MUTANTS] [-s SEED] [-t SECONDS] [-w FILE] PATH...
 *
 * -t stops making mutants after SECONDS (the corpus itself is always run whole); -w
 * writes each mutant to FILE before running it, so the one that failed is there to
 * replay. Prints one line of figures on stderr; a wrong result aborts in the target.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fuzz.h"

#define REPLAY_MAX_INPUT (1u << 20)

typedef struct {
    unsigned char *data;
    size_t len;
    char *name;
} input_t;

static input_t *inputs;
static size_t ninputs, capinputs;

static void add_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    unsigned char *buf = malloc(REPLAY_MAX_INPUT);
    if (!buf)
        fuzz_fail("out of memory");
    size_t len = fread(buf, 1, REPLAY_MAX_INPUT, f);
    fclose(f);
    if (ninputs == capinputs) {
        capinputs = capinputs ? 2 * capinputs : 64;
        inputs = realloc(inputs, capinputs * sizeof *inputs);
        if (!inputs)
            fuzz_fail("out of memory");
    }
    inputs[ninputs++] = (input_t){ buf, len, strdup(path) };
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        add_file(path);
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            names = realloc(names, cap * sizeof *names);
            if (!names)
                fuzz_fail("out of memory");
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n])
            fuzz_fail("out of memory");
        snprintf(names[n], len, "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        add_file(names[i]);
        free(names[i]);
    }
    free(names);
}

/* A mutant of in into out (room for REPLAY_MAX_INPUT bytes); its length. */
static size_t mutate(const input_t *in, unsigned char *out, uint64_t *rng)
{
    size_t len = in->len;
    memcpy(out, in->data, len);
    int edits = 1 + (int)(fuzz_rand(rng) % 8);
    for (int e = 0; e < edits; e++) {
        uint64_t r = fuzz_rand(rng);
        size_t at = len ? (size_t)(fuzz_rand(rng) % (len + 1)) : 0;
        switch (r % 6) {
        case 0:   /* flip a bit */
            if (at < len)
                out[at] ^= (unsigned char)(1u << (r >> 8) % 8);
            break;
        case 1:   /* set a byte: often one that matters to the parsers */
            if (at < len) {
                static const char special[] = "0123456789+- \n\t\r\v\f\xff\x80\x00";
                out[at] = (r >> 8) & 1 ? (unsigned char)special[(r >> 9) % (sizeof special - 1)]
                                       : (unsigned char)(r >> 16);
            }
            break;
        case 2:   /* insert a byte */
            if (len < REPLAY_MAX_INPUT) {
                memmove(out + at + 1, out + at, len - at);
                out[at] = (unsigned char)(r >> 8);
                len++;
            }
            break;
        case 3:   /* erase a byte */
            if (at < len) {
                memmove(out + at, out + at + 1, len - at - 1);
                len--;
            }
            break;
        case 4:   /* cut short */
            len = at;
            break;
        default: { /* splice: the tail of another input from here */
            const input_t *o = &inputs[fuzz_rand(rng) % ninputs];
            size_t from = o->len ? (size_t)(fuzz_rand(rng) % o->len) : 0;
            size_t k = o->len - from;
            if (at + k > REPLAY_MAX_INPUT)
                k = REPLAY_MAX_INPUT - at;
            memcpy(out + at, o->data + from, k);
            len = at + k;
            break;
        }
        }
    }
    return len;
}

/* Write data[0..len) to path, replacing it. */
static void save(const char *path, const unsigned char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        fuzz_fail("cannot write %s", path);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    unsigned long long mutants = 0, seed = 1;
    double seconds = 0;
    const char *keep = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (i + 1 >= argc)
            break;
        if (!strcmp(argv[i], "-m"))
            mutants = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-s"))
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-t"))
            seconds = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "-w"))
            keep = argv[++i];
        else
            break;
    }
    if (i >= argc) {
        fputs("usage: replay [-m MUTANTS] [-s SEED] [-t SECONDS] [-w FILE] PATH...\n", stderr);
        return 2;
    }
    for (; i < argc; i++)
        add_path(argv[i]);
    if (ninputs == 0) {
        fputs("replay: no inputs\n", stderr);
        return 2;
    }

    double t0 = now();
    for (size_t k = 0; k < ninputs; k++) {
        /* A copy of the exact size, so ASan sees a read past the end. */
        unsigned char *copy = malloc(inputs[k].len + 1);
        if (!copy)
            fuzz_fail("out of memory");
        memcpy(copy, inputs[k].data, inputs[k].len);
        LLVMFuzzerTestOneInput(copy, inputs[k].len);
        free(copy);
    }
    unsigned long long ran = 0;
    uint64_t rng = seed;
    unsigned char *buf = malloc(REPLAY_MAX_INPUT);
    if (!buf)
        fuzz_fail("out of memory");
    for (unsigned long long m = 0; m < mutants; m++) {
        if (seconds > 0 && now() - t0 > seconds)
            break;
        const input_t *in = &inputs[m % ninputs];
        size_t len = mutate(in, buf, &rng);
        if (keep)
            save(keep, buf, len);
        unsigned char *copy = malloc(len + 1);
        if (!copy)
            fuzz_fail("out of memory");
        memcpy(copy, buf, len);
        LLVMFuzzerTestOneInput(copy, len);
        free(copy);
        ran++;
    }
    fprintf(stderr, "replay: %zu inputs, %llu mutants (seed %llu) in %.1f s\n", ninputs, ran,
            seed, now() - t0);
    free(buf);
    for (size_t k = 0; k < ninputs; k++) {
        free(inputs[k].data);
        free(inputs[k].name);
    }
    free(inputs);
    return 0;
}
