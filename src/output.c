/* output.c: the writer (see output.h).
 *
 * Text: keys are formatted in batches, each thread formatting its own share of a
 * batch into its own buffer; the buffers are then written in order. Binary: keys are
 * encoded into one buffer and written. Every write is checked: a full disk is an
 * error, never a short file.
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
#include <unistd.h>

#include "cleanup.h"
#include "error.h"
#include "output.h"
#include "stats.h"
#include "textnum.h"

/* Keys each thread formats per batch: about 1.3 MB of text per thread. */
#define OUT_KEYS_PER_THREAD (64u << 10)

struct output {
    output_cfg_t cfg;
    int fd;
    const char *name;        /* for messages */
    char *final_path;        /* with a temporary: what it is renamed to */
    char *tmp_path;          /* the temporary, or NULL when writing directly */
    int slot;                /* its cleanup slot */
    int threads;
    char **bufs;             /* [threads] text buffers */
    size_t *lens;            /* [threads] bytes formatted */
    unsigned char *bin;      /* binary buffer */
    const void *keys;        /* the batch being formatted */
    size_t nkeys;
    unsigned long long bytes;
};

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
    const char *dir = dirname(dircopy);
    size_t len = strlen(dir) + sizeof "/.gpusort-XXXXXX";
    o->tmp_path = malloc(len);
    if (!o->tmp_path) {
        free(target);
        free(dircopy);
        return err_set(GS_ENOMEM, "out of memory");
    }
    snprintf(o->tmp_path, len, "%s/.gpusort-XXXXXX", dir);
    free(dircopy);
    o->final_path = target;
    o->fd = mkostemp(o->tmp_path, O_CLOEXEC);
    if (o->fd < 0) {
        int e = errno;
        free(o->tmp_path);
        o->tmp_path = NULL;
        return err_sys(GS_EIO, e, "cannot write '%s'", path);
    }
    o->slot = cleanup_register(o->tmp_path);
    if (o->slot < 0) {
        unlink(o->tmp_path);
        return GS_EIO;
    }
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

int output_open(output_t **out, const output_cfg_t *cfg)
{
    output_t *o = calloc(1, sizeof *o);
    if (!o)
        return err_set(GS_ENOMEM, "out of memory");
    o->cfg = *cfg;
    o->fd = -1;
    o->slot = -1;
    o->threads = pool_size(cfg->pool);
    int rc = GS_OK;
    if (!cfg->path) {
        o->fd = STDOUT_FILENO;
        o->name = "standard output";
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
    if (rc == GS_OK) {
        o->bufs = calloc((size_t)o->threads, sizeof *o->bufs);
        o->lens = calloc((size_t)o->threads, sizeof *o->lens);
        if (!o->bufs || !o->lens)
            rc = err_set(GS_ENOMEM, "out of memory");
    }
    if (rc != GS_OK) {
        output_abort(o);
        return rc;
    }
    *out = o;
    return GS_OK;
}

/* ---- writing ------------------------------------------------------------------------ */

static int output_write_all(output_t *o, const void *buf, size_t len)
{
    double t0 = stats_now();
    const char *p = buf;
    size_t left = len;
    while (left > 0) {
        ssize_t n = write(o->fd, p, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EPIPE)
                return GS_EPIPE;   /* SIGPIPE was ignored: end quietly */
            return err_sys(GS_EIO, errno, "write error on '%s'", o->name);
        }
        p += n;
        left -= (size_t)n;
    }
    o->bytes += len;
    stats_add(ST_WRITE, len, stats_now() - t0);
    return GS_OK;
}

static void output_format_share(void *arg, int t, int nt)
{
    output_t *o = arg;
    size_t lo = o->nkeys * (size_t)t / (size_t)nt, hi = o->nkeys * (size_t)(t + 1) / (size_t)nt;
    const char *k = (const char *)o->keys + lo * (size_t)o->cfg.km->width;
    o->lens[t] = tn_format_keys(k, hi - lo, o->cfg.km, o->bufs[t]);
}

static int output_write_text(output_t *o, const void *keys, size_t n)
{
    int width = o->cfg.km->width;
    size_t batch = OUT_KEYS_PER_THREAD * (size_t)o->threads;
    for (int t = 0; t < o->threads; t++) {
        if (!o->bufs[t]) {
            o->bufs[t] = malloc(OUT_KEYS_PER_THREAD * TN_MAX_LINE);
            if (!o->bufs[t])
                return err_set(GS_ENOMEM, "out of memory");
        }
    }
    for (size_t done = 0; done < n; done += batch) {
        o->keys = (const char *)keys + done * (size_t)width;
        o->nkeys = n - done < batch ? n - done : batch;
        double t0 = stats_now();
        if (o->nkeys < 4096) {
            o->lens[0] = tn_format_keys(o->keys, o->nkeys, o->cfg.km, o->bufs[0]);
            for (int t = 1; t < o->threads; t++)
                o->lens[t] = 0;
        } else {
            pool_run(o->cfg.pool, output_format_share, o);
        }
        size_t total = 0;
        for (int t = 0; t < o->threads; t++)
            total += o->lens[t];
        stats_add(ST_FORMAT, total, stats_now() - t0);
        for (int t = 0; t < o->threads; t++) {
            int rc = output_write_all(o, o->bufs[t], o->lens[t]);
            if (rc)
                return rc;
        }
    }
    return GS_OK;
}

static inline uint32_t out_bswap32(uint32_t x) { return __builtin_bswap32(x); }
static inline uint64_t out_bswap64(uint64_t x) { return __builtin_bswap64(x); }

void output_encode_binary(const void *src, void *dst, size_t n, const keymap_t *km,
                          int big_endian)
{
    unsigned char *d = dst;
    if (km->width == 4) {
        const uint32_t *s = src;
        uint32_t mask = (uint32_t)km->mask;
        for (size_t i = 0; i < n; i++) {
            uint32_t v = s[i] ^ mask;
            if (big_endian)
                v = out_bswap32(v);
            memcpy(d + 4 * i, &v, 4);
        }
    } else {
        const uint64_t *s = src;
        uint64_t mask = km->mask;
        for (size_t i = 0; i < n; i++) {
            uint64_t v = s[i] ^ mask;
            if (big_endian)
                v = out_bswap64(v);
            memcpy(d + 8 * i, &v, 8);
        }
    }
}

static int output_write_binary(output_t *o, const void *keys, size_t n)
{
    size_t width = (size_t)o->cfg.km->width;
    size_t batch = (4u << 20) / width;
    if (!o->bin) {
        o->bin = malloc(batch * width);
        if (!o->bin)
            return err_set(GS_ENOMEM, "out of memory");
    }
    for (size_t done = 0; done < n; done += batch) {
        size_t m = n - done < batch ? n - done : batch;
        double t0 = stats_now();
        output_encode_binary((const char *)keys + done * width, o->bin, m, o->cfg.km,
                             o->cfg.big_endian);
        stats_add(ST_FORMAT, m * width, stats_now() - t0);
        int rc = output_write_all(o, o->bin, m * width);
        if (rc)
            return rc;
    }
    return GS_OK;
}

int output_write(output_t *o, const void *keys, size_t n)
{
    if (n == 0)
        return GS_OK;
    return o->cfg.binary ? output_write_binary(o, keys, n) : output_write_text(o, keys, n);
}

/* ---- finishing ------------------------------------------------------------------------ */

static void output_free(output_t *o)
{
    if (o->bufs)
        for (int t = 0; t < o->threads; t++)
            free(o->bufs[t]);
    free(o->bufs);
    free(o->lens);
    free(o->bin);
    free(o->tmp_path);
    free(o->final_path);
    free(o);
}

int output_commit(output_t *o)
{
    int rc = GS_OK;
    if (o->fd != STDOUT_FILENO && o->fd >= 0) {
        if (close(o->fd) != 0)
            rc = err_sys(GS_EIO, errno, "write error on '%s'", o->name);
        o->fd = -1;
    }
    if (rc == GS_OK && o->tmp_path) {
        if (rename(o->tmp_path, o->final_path) != 0)
            rc = err_sys(GS_EIO, errno, "cannot write '%s'", o->name);
        else
            cleanup_forget(o->slot);
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
    if (o->fd != STDOUT_FILENO && o->fd >= 0)
        close(o->fd);
    if (o->tmp_path)
        cleanup_remove(o->slot);
    output_free(o);
}

unsigned long long output_bytes(const output_t *o)
{
    return o->bytes;
}
