/* SPDX-License-Identifier: MIT */
/* fuzz_runs.c: the spilled-run reader (store/runs.h, store/codec.h): a damaged or
 * truncated temporary file must give an error, never a crash and never wrong keys.
 *
 * Input: byte 0 picks the key width (bit 0), --compress-temp (bits 1-2: auto, lz4,
 * none), how the run is made (bit 3: run_spill of a memory run, or the streaming
 * run_writer of the merge passes), the key distribution (bits 4-5) and whether the
 * bytes are instead given to codec_decode as they are (bit 7); bytes 1-2 the number
 * of keys; bytes 3-10 a seed; byte 11 where a cursor starts; the rest, five bytes
 * each, changes to make to the run's file (flip, set or insert a byte, truncate).
 * The run is written for real under a private temporary directory, changed, and
 * read back by a cursor from the chosen key: the cursor must return exactly the
 * run's keys from there, or fail where the file was changed. A change that leaves
 * the keys that are read as they were is allowed to go unnoticed.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/codec.h"
#include "core/error.h"
#include "fuzz.h"
#include "core/keys.h"
#include "cli/options.h"
#include "core/pool.h"
#include "store/runs.h"

/* Most keys in a run: a little over two blocks. */
#define FUZZ_MAX_KEYS (2 * RUN_BLOCK_KEYS + 100)
/* Most changes applied to one file. */
#define FUZZ_MAX_EDITS 16

static char fuzz_dir[2048];

static void fuzz_dir_remove(void)
{
    rmdir(fuzz_dir);
}

/* The private directory the runs go to, made once: under GS_FUZZ_TMPDIR, else
 * /dev/shm where there is one (every input writes a file: memory is faster), else
 * $TMPDIR or /tmp. */
static const char *fuzz_tmpdir(void)
{
    if (!fuzz_dir[0]) {
        const char *t = getenv("GS_FUZZ_TMPDIR");
        if (!t || !*t)
            t = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
        snprintf(fuzz_dir, sizeof fuzz_dir, "%s/gpusort-fuzz-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(fuzz_dir))
            fuzz_fail("mkdtemp(%s) failed", fuzz_dir);
        atexit(fuzz_dir_remove);
    }
    return fuzz_dir;
}

/* The path of the one file in the private directory. */
static void fuzz_run_path(char *path, size_t room)
{
    DIR *d = opendir(fuzz_tmpdir());
    if (!d)
        fuzz_fail("opendir failed");
    struct dirent *e;
    int found = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (found++)
            fuzz_fail("more than one file in %s", fuzz_dir);
        snprintf(path, room, "%s/%s", fuzz_dir, e->d_name);
    }
    closedir(d);
    if (!found)
        fuzz_fail("the run left no file in %s", fuzz_dir);
}

static uint64_t get_key(const void *keys, size_t i, int width)
{
    uint64_t v;
    if (width == 4) {
        uint32_t k;
        memcpy(&k, (const char *)keys + 4 * i, 4);
        v = k;
    } else {
        memcpy(&v, (const char *)keys + 8 * i, 8);
    }
    return v;
}

/* n ascending keys of width bytes from seed, made in order (no sort: this runs for
 * every input): 0 random steps that span the whole range, 1 a small range (many
 * repeats; LZ4 wins), 2 small steps up from a random start, 3 one value. */
static void *make_keys(size_t n, int width, int dist, uint64_t seed)
{
    void *keys = malloc(n * (size_t)width + 1);
    if (!keys)
        fuzz_fail("out of memory");
    uint64_t s = seed, all = width == 4 ? 0xFFFFFFFFu : UINT64_MAX;
    /* dist 0's steps: uniform in [0, span], about all / n on average */
    uint64_t span = n > 2 ? all / n * 2 : all;
    uint64_t v = dist == 1 ? 0 : fuzz_rand(&s) & all;
    for (size_t i = 0; i < n; i++) {
        uint64_t step, r = fuzz_rand(&s);
        switch (dist) {
        case 0: step = span == UINT64_MAX ? r : r % (span + 1); break;
        case 1: step = r % 16 == 0; break;
        case 2: step = r % 5; break;
        default: step = 0; break;
        }
        if (i > 0)
            v = all - v < step ? all : v + step;   /* saturate at the largest key */
        if (width == 4)
            ((uint32_t *)keys)[i] = (uint32_t)v;
        else
            ((uint64_t *)keys)[i] = v;
    }
    return keys;
}

/* Read a whole file into a new buffer; *len its size. */
static unsigned char *slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        fuzz_fail("cannot read %s", path);
    *len = (size_t)st.st_size;
    unsigned char *buf = malloc(*len + 1);
    if (!buf || (*len && pread(fd, buf, *len, 0) != (ssize_t)*len))
        fuzz_fail("cannot read %s", path);
    close(fd);
    return buf;
}

/* Apply the changes in ed[0..len) to the file; 1 if its bytes differ afterwards. */
static int damage(const char *path, const uint8_t *ed, size_t len)
{
    size_t before_len, nedits = len / 5;
    unsigned char *before = slurp(path, &before_len);
    if (nedits > FUZZ_MAX_EDITS)
        nedits = FUZZ_MAX_EDITS;
    int fd = open(path, O_RDWR);
    if (fd < 0)
        fuzz_fail("cannot open %s", path);
    for (size_t i = 0; i < nedits; i++) {
        const uint8_t *e = ed + 5 * i;
        struct stat st;
        if (fstat(fd, &st) != 0)
            fuzz_fail("fstat failed");
        size_t size = (size_t)st.st_size;
        size_t off = ((size_t)e[1] | (size_t)e[2] << 8 | (size_t)e[3] << 16) % (size + 1);
        unsigned char b;
        switch (e[0] % 4) {
        case 0:   /* flip bits of a byte */
        case 1:   /* set a byte */
            if (off == size)
                break;
            if (pread(fd, &b, 1, (off_t)off) != 1)
                fuzz_fail("pread failed");
            b = e[0] % 4 == 0 ? b ^ (e[4] ? e[4] : 1) : e[4];
            if (pwrite(fd, &b, 1, (off_t)off) != 1)
                fuzz_fail("pwrite failed");
            break;
        case 2: { /* insert a byte: the rest moves up by one */
            unsigned char *rest = malloc(size - off + 1);
            if (!rest || pread(fd, rest, size - off, (off_t)off) != (ssize_t)(size - off))
                fuzz_fail("pread failed");
            rest[size - off] = 0;
            b = e[4];
            if (pwrite(fd, &b, 1, (off_t)off) != 1 ||
                pwrite(fd, rest, size - off, (off_t)off + 1) != (ssize_t)(size - off))
                fuzz_fail("pwrite failed");
            free(rest);
            break;
        }
        default:  /* truncate */
            if (ftruncate(fd, (off_t)off) != 0)
                fuzz_fail("ftruncate failed");
            break;
        }
    }
    close(fd);
    size_t after_len;
    unsigned char *after = slurp(path, &after_len);
    int changed = before_len != after_len || (before_len && memcmp(before, after, before_len));
    free(before);
    free(after);
    return changed;
}

/* Arbitrary bytes as one block: codec_decode may refuse them, but what it accepts
 * must be n ascending keys. */
static void fuzz_decode(const uint8_t *data, size_t size)
{
    if (size < 4)
        return;
    int width = data[0] & 1 ? 8 : 4;
    codec_t codec = (data[0] >> 1) & 1 ? CODEC_LZ4 : CODEC_RAW;
    size_t n = ((size_t)data[1] | (size_t)data[2] << 8) % (RUN_BLOCK_KEYS + 1);
    const uint8_t *src = data + 3;
    size_t len = size - 3, bytes = n * (size_t)width;
    /* Exact-size buffers, so ASan sees any access outside them. */
    void *keys = malloc(bytes + 1), *scratch = malloc(bytes + 1), *copy = malloc(len + 1);
    if (!keys || !scratch || !copy)
        fuzz_fail("out of memory");
    memcpy(copy, src, len);
    if (codec_decode(codec, copy, len, keys, n, width, scratch) == 0)
        for (size_t i = 1; i < n; i++)
            if (get_key(keys, i, width) < get_key(keys, i - 1, width))
                fuzz_fail("codec_decode accepted keys out of order");
    free(keys);
    free(scratch);
    free(copy);
}

/* Make the run as byte 0 says: spilled from memory, or streamed by a run writer in
 * pieces of up to 5000 keys. */
static run_t *make_run(const void *keys, size_t n, int width, int stream,
                       const runcfg_t *cfg)
{
    run_t *r = NULL;
    size_t bytes = n * (size_t)width;
    if (!stream) {
        void *own = malloc(bytes + 1);
        if (!own)
            fuzz_fail("out of memory");
        memcpy(own, keys, bytes);
        if (run_from_memory(&r, own, n, width) != GS_OK || run_spill(r, cfg) != GS_OK)
            fuzz_fail("cannot spill a run: %s", err_message());
        return r;
    }
    run_writer_t *w;
    if (run_writer_open(&w, cfg) != GS_OK)
        fuzz_fail("cannot open a run writer: %s", err_message());
    for (size_t done = 0; done < n;) {
        size_t k = n - done < 5000 ? n - done : 5000;
        run_batch_t b = { (const char *)keys + done * (size_t)width, k };
        if (run_writer_add(w, &b) != GS_OK)
            fuzz_fail("run_writer_add failed: %s", err_message());
        done += k;
    }
    if (run_writer_close(w, &r) != GS_OK)
        fuzz_fail("run_writer_close failed: %s", err_message());
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 1 && (data[0] & 0x80)) {
        fuzz_decode(data, size);
        return 0;
    }
    if (size < 12)
        return 0;
    int width = data[0] & 1 ? 8 : 4;
    static const compress_t compress[4] = { COMPRESS_AUTO, COMPRESS_LZ4, COMPRESS_NONE,
                                            COMPRESS_NONE };
    int stream = (data[0] >> 3) & 1, dist = (data[0] >> 4) & 3;
    size_t n = ((size_t)data[1] | (size_t)data[2] << 8) % (FUZZ_MAX_KEYS + 1);
    uint64_t seed = 0;
    for (int i = 0; i < 8; i++)
        seed = seed << 8 | data[3 + i];
    void *keys = make_keys(n, width, dist, seed);

    static pool_t *pool;
    if (!pool && pool_create(&pool, 1) != GS_OK)
        fuzz_fail("pool_create failed");
    const char *tmpdir = fuzz_tmpdir();
    runcfg_t cfg = { .tmpdirs = &tmpdir, .ntmpdirs = 1, .compress = compress[(data[0] >> 1) & 3],
                     .width = width, .pool = pool };
    run_t *r = make_run(keys, n, width, stream, &cfg);

    /* A run of no keys has no file, and nothing to damage. */
    int changed = 0;
    if (n > 0) {
        char path[2400];
        fuzz_run_path(path, sizeof path);
        changed = damage(path, data + 12, size - 12);
    }

    /* The cursor's start: 0, or near a key of the run. */
    uint64_t lo = 0;
    if (n > 0 && data[11] != 0)
        lo = get_key(keys, (size_t)data[11] * 7919 % n, width) + (data[11] & 1);
    size_t first = 0;
    while (first < n && get_key(keys, first, width) < lo)
        first++;

    run_cursor_t *c = NULL;
    int rc = run_open(r);
    if (rc == GS_OK)
        rc = run_cursor_open(&c, r, lo);
    size_t got = 0;
    while (rc == GS_OK) {
        run_batch_t b;
        rc = run_cursor_next(c, &b);
        const void *blk = b.keys;
        size_t m = b.n;
        if (rc != GS_OK || m == 0)
            break;
        for (size_t i = 0; i < m; i++, got++) {
            if (first + got >= n)
                fuzz_fail("the cursor gave more than the run's %zu keys from %zu (file %s)",
                          n - first, first, changed ? "changed" : "as written");
            uint64_t k = get_key(blk, i, width), want = get_key(keys, first + got, width);
            if (k != want)
                fuzz_fail("wrong key %zu from a %s run file (codec choice %d): %#" PRIx64
                          ", %#" PRIx64 " written", first + got, changed ? "damaged" : "sound",
                          (data[0] >> 1) & 3, k, want);
        }
    }
    if (rc == GS_OK && first + got != n)
        fuzz_fail("the cursor ended after %zu of %zu keys without an error (file %s)", got,
                  n - first, changed ? "changed" : "as written");
    if (rc != GS_OK && !changed)
        fuzz_fail("reading a sound run failed: %s", err_message());
    run_cursor_close(c);
    run_close(r);
    run_free(r);
    free(keys);
    return 0;
}
