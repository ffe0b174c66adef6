/* output.c: the writer (see output.h).
 *
 * Keys are formatted in batches: each pool thread formats its share of a batch into
 * its own buffer (binary keys are encoded by the caller alone). A finished batch goes
 * to a writer thread, which writes its buffers in order while the pool formats the
 * next batch into the other of two buffer sets. Every write is checked: a full disk
 * is an error, never a short file.
 *
 * Text of many keys bound for -o's temporary is written mapped instead: ext4 (like
 * most file systems) takes one write(2) at a time per file, about 5 GB/s from the
 * page cache on the H100 machine, but page faults on a shared mapping of the file
 * run in parallel (tests/bench/writebw: 1 GiB in 0.207 s by write, 0.108 s mapped
 * by 8 threads). The text is placed: its layout known ahead (in output_write(),
 * each thread counts the bytes of its share of the keys; of keys in order,
 * output_write_sorted() finds where they cross each step of the line lengths by
 * binary search; the parallel merge knows its pieces' bytes from ranks in the
 * runs), each thread formats its part straight into the file's pages at its
 * offset (output_place). The space is
 * reserved first with fallocate(2), so that a full disk is an error there and
 * never a fault on a mapped page; where fallocate is not supported, the plain
 * writer does it. Standard output that is a regular file ("> FILE") is placed
 * too, through a descriptor of its own (output_stdout_map_fd).
 *
 * A fault on a page the page cache does not hold yet costs far more than one on a
 * page it holds: the page is allocated, zeroed and its block reserved under the
 * file's locks, one 4 KiB page at a time, by threads that contend for those locks.
 * So where the caller knows that the text of one chunk is coming, before it is
 * sorted (output_write_ahead), a thread of its own writes zeros into the temporary
 * by write(2) while the chunk sorts: the kernel makes those pages in large
 * folios with their space reserved, and placing later only faults in pages that are
 * there (100M keys of text on the H100 machine, the zeros covering 650-940 MB of the
 * 1.07 GB while the chunk sorted: writing in 0.065-0.091 s against 0.122-0.144 s,
 * sorting a little slower).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/mem.h"
#include "core/error.h"
#include "io/output.h"
#include "core/stats.h"
#include "io/textnum.h"

/* Keys each thread formats per batch: about 1.3 MB of text per thread. */
#define OUT_KEYS_PER_THREAD (64u << 10)
/* Binary batch buffers: this many bytes per thread, encoded in parallel. */
#define OUT_BINARY_PER_THREAD ((size_t)1 << 20)
/* Placed text: the keys at the end of each thread's range are formatted into a
 * buffer of its own and copied, since the formatter stores up to 16 bytes past a
 * line's end, which must not reach the next range (each line has 2 bytes or more). */
#define OUT_MAP_TAIL 16
/* Placed text: the file is mapped whole, once, and each thread formats its own
 * contiguous ranges; every this many bytes it lets go of the pages it has filled
 * (madvise MADV_DONTNEED: they stay in the page cache, dirty, but leave the
 * process's RSS), so the pages mapped at once stay few (16 threads: about 90 MB of
 * random u32 text, with a release every 512 Ki keys, about 5.6 MB; 128 Ki and
 * 2 Mi keys wrote as fast). Mapping and unmapping windows instead cost far more
 * than the faults: 1 GB of text written in 0.17-0.23 s mapped whole, 0.29-0.35 s in
 * windows of 32 Mi keys, 0.62-0.72 s of 8 Mi, 0.69-0.78 s of 2 Mi; in pieces of
 * 64 Ki keys that the threads took in turn, 0.9-1.2 s (the H100 machine, ext4). */
#define OUT_MAP_RELEASE ((size_t)4 << 20)
/* Writing ahead: zeros written this many bytes at a time, from a buffer never
 * written (the kernel backs it with its one page of zeros: no memory of ours). */
#define OUT_AHEAD_PIECE ((size_t)4 << 20)
/* Writing ahead takes a CPU from the sort: it paid on 16 threads, where 16 faulting
 * threads contend most, and not clearly on fewer. The H100 machine, 100M keys of
 * text, medians of alternating rounds (RESULTS.md): 16 threads 0.357 s against
 * 0.406 s without (7 rounds); on 8 CPUs (taskset, --parallel=8) 0.649 against 0.602,
 * on 4 CPUs 1.083 against 1.157 (5 rounds each). */
#define OUT_AHEAD_MIN_THREADS 16
static char out_zeros[OUT_AHEAD_PIECE];

/* One batch: a buffer per pool thread, written in order. */
typedef struct {
    char **bufs;             /* [threads] */
    size_t *lens;            /* [threads] bytes to write from each */
} batch_t;

struct output {
    output_cfg_t cfg;
    int fd;
    const char *name;        /* for messages */
    char *final_path;        /* with a temporary: what it is renamed to */
    char *tmp_path;          /* the temporary, or NULL when writing directly */
    int slot;                /* its cleanup slot */
    int threads;
    int solo;                /* 1: binary batches are encoded by the caller alone */
    size_t bufsize;          /* bytes in each batch buffer */
    batch_t sets[2];         /* formatted by the pool, written by the writer */
    int cur;                 /* the set the pool fills next */
    const void *keys;        /* the batch being formatted */
    size_t nkeys;
    unsigned long long bytes;
    unsigned long long mapped;   /* of them, written mapped */
    size_t page;             /* the page size */
    off_t place_pos;         /* where the placed bytes start (output_place_begin) */
    int map_fd;              /* standard output's file opened again to be mapped
                                (output_stdout_map_fd), or -1 */
    /* the writer thread */
    pthread_t writer;
    int writer_started;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int full[2];             /* 1: set i waits for (or is in) the writer */
    int quit;                /* 1: the writer exits once both sets are written */
    int werr;                /* the writer's first error code */
    /* writing ahead (output_write_ahead) */
    pthread_t ahead;
    int ahead_started;       /* 1: the thread runs (or has not been joined) */
    int ahead_stop;          /* 1: it stops at its next piece (atomic) */
    int ahead_used;          /* 1: zeros were written: the file is cut at the commit */
    uint64_t ahead_bound;    /* bytes it writes at most */
    uint64_t ahead_done;     /* bytes of zeros from the start of the file (after the
                                join); 0 once placing took them */
    double ahead_seconds;
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
    o->fd = cleanup_mkstemp(o->tmp_path, &o->slot);
    if (o->fd < 0) {
        int e = errno;
        free(o->tmp_path);
        o->tmp_path = NULL;
        return err_sys(GS_EIO, e, "cannot write '%s'", path);
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

/* Standard output that is a regular file may be placed too (see the top of the
 * file), from its current position, where it was not opened to append and is not
 * standard error's file as well (messages would land among the placed bytes):
 * mapping needs a descriptor open for reading and writing, which a shell's
 * "> FILE" does not give, so the file is opened again through /proc/self/fd/1.
 * That descriptor, or -1. */
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
    pthread_mutex_init(&o->lock, NULL);
    pthread_cond_init(&o->cond, NULL);
    int rc = GS_OK;
    if (!cfg->path) {
        o->fd = STDOUT_FILENO;
        o->name = "standard output";
#ifdef F_SETPIPE_SZ
        (void)fcntl(o->fd, F_SETPIPE_SZ, 1 << 20);   /* as for standard input (input.c) */
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

/* ---- writing ahead -------------------------------------------------------------------- */

static void *output_ahead_thread(void *arg)
{
    output_t *o = arg;
    double t0 = stats_now();
    uint64_t off = 0;
    while (off < o->ahead_bound && !__atomic_load_n(&o->ahead_stop, __ATOMIC_RELAXED)) {
        uint64_t left = o->ahead_bound - off;
        size_t len = left < OUT_AHEAD_PIECE ? (size_t)left : OUT_AHEAD_PIECE;
        ssize_t n = pwrite(o->fd, out_zeros, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;   /* a full disk, say: the writing proper meets it, if it must */
        off += (uint64_t)n;
    }
    o->ahead_done = off;
    o->ahead_seconds = stats_now() - t0;
    return NULL;
}

int output_may_write_ahead(const output_cfg_t *cfg, uint64_t keys)
{
    int threads = pool_size(cfg->pool);
    return cfg->path && !cfg->binary && threads >= OUT_AHEAD_MIN_THREADS &&
           keys >= (uint64_t)OUT_KEYS_PER_THREAD * (uint64_t)threads;
}

void output_write_ahead(output_t *o, uint64_t bound, uint64_t keys)
{
    if (!o->tmp_path || !output_may_write_ahead(&o->cfg, keys) || !output_can_place(o, keys) ||
        o->ahead_used || o->bytes != 0 || bound == 0 || bound > (uint64_t)INT64_MAX)
        return;
    o->ahead_bound = bound;
    o->ahead_stop = 0;
    o->ahead_used = 1;
    if (cleanup_thread_create(&o->ahead, output_ahead_thread, o) != 0)
        return;   /* no thread: the faults are taken later, as without */
    o->ahead_started = 1;
}

/* Stop writing ahead, before anything else is written. */
static void output_ahead_end(output_t *o)
{
    if (!o->ahead_started)
        return;
    __atomic_store_n(&o->ahead_stop, 1, __ATOMIC_RELAXED);
    pthread_join(o->ahead, NULL);
    o->ahead_started = 0;
    stats_note_ahead(o->ahead_done, o->ahead_seconds);
}

/* Cut the zeros written ahead that no output overwrote: the file ends at the bytes
 * written. */
static int output_ahead_cut(output_t *o)
{
    output_ahead_end(o);
    if (!o->ahead_used)
        return GS_OK;
    struct stat st;
    if (fstat(o->fd, &st) != 0 || ((uint64_t)st.st_size > o->bytes &&
                                   ftruncate(o->fd, (off_t)o->bytes) != 0))
        return err_sys(GS_EIO, errno, "write error on '%s'", o->name);
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
    stats_add(ST_WRITE, len, stats_now() - t0);
    return GS_OK;
}

/* The writer thread: write each full set in turn; after an error, only drain. */
static void *output_writer(void *arg)
{
    output_t *o = arg;
    int s = 0;
    pthread_mutex_lock(&o->lock);
    for (;;) {
        while (!o->full[s] && !o->quit)
            pthread_cond_wait(&o->cond, &o->lock);
        if (!o->full[s])
            break;   /* quit, and nothing left */
        int failed = o->werr;
        pthread_mutex_unlock(&o->lock);
        int rc = GS_OK;
        batch_t *b = &o->sets[s];
        for (int t = 0; t < o->threads && !failed && rc == GS_OK; t++)
            rc = output_write_all(o, b->bufs[t], b->lens[t]);
        pthread_mutex_lock(&o->lock);
        if (rc && !o->werr)
            o->werr = rc;
        o->full[s] = 0;
        pthread_cond_broadcast(&o->cond);
        s ^= 1;
    }
    pthread_mutex_unlock(&o->lock);
    return NULL;
}

/* Wait until the set the pool fills next is free; the writer's error, if any. */
static int output_claim(output_t *o)
{
    pthread_mutex_lock(&o->lock);
    while (o->full[o->cur])
        pthread_cond_wait(&o->cond, &o->lock);
    int rc = o->werr;
    pthread_mutex_unlock(&o->lock);
    return rc;
}

/* Hand the current set to the writer and move to the other one. */
static void output_submit(output_t *o)
{
    size_t total = 0;
    for (int t = 0; t < o->threads; t++)
        total += o->sets[o->cur].lens[t];
    o->bytes += total;
    pthread_mutex_lock(&o->lock);
    o->full[o->cur] = 1;
    pthread_cond_broadcast(&o->cond);
    pthread_mutex_unlock(&o->lock);
    o->cur ^= 1;
}

/* Stop the writer after it has written everything; its error code. */
static int output_drain(output_t *o)
{
    if (!o->writer_started)
        return GS_OK;
    pthread_mutex_lock(&o->lock);
    o->quit = 1;
    pthread_cond_broadcast(&o->cond);
    pthread_mutex_unlock(&o->lock);
    pthread_join(o->writer, NULL);
    o->writer_started = 0;
    o->cur = 0;   /* every set is written: a writer started later begins at set 0 */
    return o->werr;
}

/* Allocate the batch buffers and start the writer, at the first write. */
static int output_start(output_t *o)
{
    size_t binary = OUT_BINARY_PER_THREAD * (size_t)o->threads;
    o->bufsize = o->cfg.binary ? (binary < ((size_t)4 << 20) ? (size_t)4 << 20 : binary)
                               : (size_t)OUT_KEYS_PER_THREAD * TN_MAX_LINE;
    o->quit = 0;   /* output_give() may have stopped an earlier writer */
    for (int i = 0; i < 2; i++) {
        batch_t *b = &o->sets[i];
        if (b->bufs)
            continue;   /* set up by that earlier writer */
        b->bufs = calloc((size_t)o->threads, sizeof *b->bufs);
        b->lens = calloc((size_t)o->threads, sizeof *b->lens);
        if (!b->bufs || !b->lens)
            return err_set(GS_ENOMEM, "out of memory");
        /* Binary batches use one buffer; text batches one per thread. */
        int nb = o->cfg.binary ? 1 : o->threads;
        for (int t = 0; t < nb; t++) {
            b->bufs[t] = malloc(o->bufsize);
            if (!b->bufs[t])
                return err_set(GS_ENOMEM, "out of memory");
        }
    }
    if (cleanup_thread_create(&o->writer, output_writer, o) != 0)
        return err_set(GS_ENOMEM, "cannot create threads");
    o->writer_started = 1;
    return GS_OK;
}

static void output_format_share(void *arg, int t, int nt)
{
    output_t *o = arg;
    size_t lo = o->nkeys * (size_t)t / (size_t)nt, hi = o->nkeys * (size_t)(t + 1) / (size_t)nt;
    const char *k = (const char *)o->keys + lo * (size_t)o->cfg.km->width;
    batch_t *b = &o->sets[o->cur];
    b->lens[t] = tn_format_keys(k, hi - lo, o->cfg.km, b->bufs[t]);
}

static int output_write_text(output_t *o, const void *keys, size_t n)
{
    int width = o->cfg.km->width;
    size_t batch = OUT_KEYS_PER_THREAD * (size_t)o->threads;
    for (size_t done = 0; done < n; done += batch) {
        int rc = output_claim(o);
        if (rc)
            return rc;
        o->keys = (const char *)keys + done * (size_t)width;
        o->nkeys = n - done < batch ? n - done : batch;
        batch_t *b = &o->sets[o->cur];
        double t0 = stats_now();
        if (o->nkeys < 4096) {
            b->lens[0] = tn_format_keys(o->keys, o->nkeys, o->cfg.km, b->bufs[0]);
            for (int t = 1; t < o->threads; t++)
                b->lens[t] = 0;
        } else {
            pool_run(o->cfg.pool, output_format_share, o);
        }
        size_t total = 0;
        for (int t = 0; t < o->threads; t++)
            total += b->lens[t];
        stats_add(ST_FORMAT, total, stats_now() - t0);
        output_submit(o);
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

/* A binary batch: keys[0..nkeys) encoded into the current set's buffer, shared
 * among the pool's threads. */
static void output_encode_share(void *arg, int t, int nt)
{
    output_t *o = arg;
    size_t w = (size_t)o->cfg.km->width;
    size_t lo = o->nkeys * (size_t)t / (size_t)nt, hi = o->nkeys * (size_t)(t + 1) / (size_t)nt;
    output_encode_binary((const char *)o->keys + lo * w, o->sets[o->cur].bufs[0] + lo * w,
                         hi - lo, o->cfg.km, o->cfg.big_endian);
}

static int output_write_binary(output_t *o, const void *keys, size_t n)
{
    size_t width = (size_t)o->cfg.km->width;
    size_t batch = o->bufsize / width;
    for (size_t done = 0; done < n; done += batch) {
        int rc = output_claim(o);
        if (rc)
            return rc;
        size_t m = n - done < batch ? n - done : batch;
        batch_t *b = &o->sets[o->cur];
        double t0 = stats_now();
        o->keys = (const char *)keys + done * width;
        o->nkeys = m;
        if (m * width >= 2 * OUT_BINARY_PER_THREAD && o->threads > 1 && !o->solo)
            pool_run(o->cfg.pool, output_encode_share, o);
        else
            output_encode_share(o, 0, 1);
        stats_add(ST_FORMAT, m * width, stats_now() - t0);
        b->lens[0] = m * width;
        for (int t = 1; t < o->threads; t++)
            b->lens[t] = 0;
        output_submit(o);
    }
    return GS_OK;
}

/* 1 where the mapped keys are their own binary encoding: unsigned keys, in this
 * host's byte order (little-endian). */
static int output_identity(const output_t *o)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return o->cfg.binary && !o->cfg.big_endian && o->cfg.km->mask == 0;
#else
    (void)o;
    return 0;
#endif
}

int output_can_give(const output_t *o)
{
#ifdef __linux__
    struct stat st;
    return output_identity(o) && fstat(o->fd, &st) == 0 && S_ISFIFO(st.st_mode);
#else
    (void)o;
    return 0;
#endif
}

int output_give(output_t *o, void *map, size_t map_bytes, const void *keys, size_t n)
{
    output_ahead_end(o);
    int rc = output_drain(o);   /* what output_write() handed the writer goes first */
    size_t len = n * (size_t)o->cfg.km->width;
    const char *p = keys;
    double t0 = stats_now();
    o->bytes += len;
#ifdef __linux__
    while (rc == GS_OK && len > 0) {
        struct iovec iov = { (void *)p, len };
        ssize_t m = vmsplice(o->fd, &iov, 1, 0);
        if (m < 0 && errno == EINTR)
            continue;
        if (m < 0 && errno == EPIPE)
            rc = GS_EPIPE;     /* SIGPIPE was ignored: end quietly */
        else if (m < 0 && (errno == EINVAL || errno == ENOSYS))
            break;             /* no vmsplice here: write() the rest */
        else if (m < 0)
            rc = err_sys(GS_EIO, errno, "write error on '%s'", o->name);
        else {
            p += m;
            len -= (size_t)m;
        }
    }
#endif
    if (rc == GS_OK && len > 0) {
        o->bytes -= len;   /* output_write_bytes() counts them again */
        rc = output_write_bytes(o, p, len);
    } else {
        stats_add(ST_WRITE, n * (size_t)o->cfg.km->width, stats_now() - t0);
    }
    mem_unmap(map, map_bytes);   /* the pipe keeps the pages it holds, unchanged */
    return rc;
}

int output_solo(output_t *o)
{
    if (o->cfg.binary)
        o->solo = 1;
    return o->solo;
}

size_t output_max_bytes(const output_t *o)
{
    return o->cfg.binary ? (size_t)o->cfg.km->width : TN_MAX_LINE;
}

size_t output_format(const output_t *o, const void *keys, size_t n, void *dst)
{
    double t0 = stats_now();
    size_t len;
    if (o->cfg.binary) {
        output_encode_binary(keys, dst, n, o->cfg.km, o->cfg.big_endian);
        len = n * (size_t)o->cfg.km->width;
    } else {
        len = tn_format_keys(keys, n, o->cfg.km, dst);
    }
    stats_add(ST_FORMAT, len, stats_now() - t0);
    return len;
}

int output_write_bytes(output_t *o, const void *buf, size_t len)
{
    output_ahead_end(o);
    o->bytes += len;
    return output_write_all(o, buf, len);
}

/* ---- placed text ------------------------------------------------------------------ */

/* output_write_mapped() declines: the caller writes through the batches. */
#define OUT_PLAIN (-1)

int output_can_place(const output_t *o, uint64_t keys)
{
#if defined(__linux__) && defined(MADV_DONTNEED)
    return !o->cfg.binary && (o->tmp_path || o->map_fd >= 0) && o->threads >= 2 &&
           keys >= (uint64_t)OUT_KEYS_PER_THREAD * (uint64_t)o->threads;
#else
    (void)o;
    (void)keys;
    return 0;
#endif
}

size_t output_line_steps(const output_t *o, uint64_t *start, unsigned char *len)
{
    return tn_line_steps(o->cfg.km, start, len);
}

int output_place_begin(output_t *o, uint64_t total, char **base)
{
    *base = NULL;
#if defined(__linux__) && defined(MADV_DONTNEED)
    int rc = output_drain(o);   /* what the writer holds goes first */
    if (rc)
        return rc;
    output_ahead_end(o);
    int fd = o->map_fd >= 0 ? o->map_fd : o->fd;   /* o->fd: the position */
    off_t pos = lseek(o->fd, 0, SEEK_CUR);
    if (total == 0 || total > SIZE_MAX || pos < 0 || pos % (off_t)o->page != 0)
        return GS_OK;
    /* Zeros written ahead from the start: their pages are there, their space
     * reserved; what lies past the text is cut off, what they lack reserved. */
    uint64_t ahead = pos == 0 ? o->ahead_done : 0;
    o->ahead_done = 0;
    if (ahead >= total) {
        if (ftruncate(fd, (off_t)total) != 0)
            return err_sys(GS_EIO, errno, "write error on '%s'", o->name);
    } else if (fallocate(fd, 0, pos + (off_t)ahead, (off_t)(total - ahead)) != 0) {
        if (errno != EOPNOTSUPP && errno != ENOSYS)
            return err_sys(GS_EIO, errno, "write error on '%s'", o->name);
        return GS_OK;
    }
    void *map = mmap(NULL, (size_t)total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, pos);
    if (map == MAP_FAILED) {
        /* The plain writer writes from pos: the temporary's space reserved goes
         * back (standard output's file may hold more past pos: left as it is). */
        if (o->tmp_path && ftruncate(fd, pos) != 0)
            return err_sys(GS_EIO, errno, "write error on '%s'", o->name);
        return GS_OK;
    }
    o->place_pos = pos;
    *base = map;
    return GS_OK;
#else
    (void)o;
    (void)total;
    return GS_OK;
#endif
}

/* Let go of the whole pages in [from, to) of a mapping (the page that holds from
 * included). A page another thread still fills is only faulted in again: the page
 * cache keeps its contents. */
static void output_release(const output_t *o, char *from, char *to)
{
#ifdef MADV_DONTNEED
    uintptr_t a = (uintptr_t)from & ~(uintptr_t)(o->page - 1);
    uintptr_t b = (uintptr_t)to & ~(uintptr_t)(o->page - 1);
    if (b > a)
        madvise((void *)a, b - a, MADV_DONTNEED);
#else
    (void)o;
    (void)from;
    (void)to;
#endif
}

int output_place(const output_t *o, const void *keys, size_t n, char **at, char *end,
                 char **released)
{
    const keymap_t *km = o->cfg.km;
    char *p = *at;
    size_t room = (size_t)(end - p), head = n;
    if (n * TN_MAX_LINE + OUT_MAP_TAIL > room) {
        /* Near the end: measured first, and the last keys through a buffer, so that
         * the formatter's overrun stays inside (those keys take 2 bytes or more). */
        if (tn_format_bytes(keys, n, km) > room)
            return err_set(GS_EIO, "internal error: text output longer than laid out");
        head = n > OUT_MAP_TAIL ? n - OUT_MAP_TAIL : 0;
    }
    p += tn_format_keys(keys, head, km, p);
    if (head < n) {
        char tail[OUT_MAP_TAIL * TN_MAX_LINE + 16];
        size_t tlen = tn_format_keys((const char *)keys + head * (size_t)km->width, n - head,
                                     km, tail);
        memcpy(p, tail, tlen);
        p += tlen;
    }
    *at = p;
    size_t every = o->cfg.map_release ? o->cfg.map_release : OUT_MAP_RELEASE;
    if ((size_t)(p - *released) >= every || p == end) {
        output_release(o, *released, p);
        *released = (char *)((uintptr_t)p & ~(uintptr_t)(o->page - 1));
    }
    return GS_OK;
}

int output_place_end(output_t *o, char *base, uint64_t total, int ok)
{
    if (!base)
        return GS_OK;
    munmap(base, (size_t)total);
    if (!ok)
        return GS_OK;
    if (lseek(o->fd, o->place_pos + (off_t)total, SEEK_SET) < 0)
        return err_sys(GS_EIO, errno, "write error on '%s'", o->name);
    o->bytes += total;
    o->mapped += total;
    stats_note_mapped(total, o->threads);
    return GS_OK;
}

/* One output_write() placed: each pool thread's share of the keys, measured, then
 * formatted at its offset. */
typedef struct {
    const output_t *o;
    const char *keys;
    size_t n;
    size_t *off;        /* [nt + 1]: each share's bytes, then where each starts */
    char *map;          /* the file mapped from the first byte of keys[0] */
    int bad;            /* 1: a share failed (the message is set) */
} map_job_t;

static void map_share(const map_job_t *j, int t, int nt, size_t *lo, size_t *hi)
{
    *lo = j->n * (size_t)t / (size_t)nt;
    *hi = j->n * (size_t)(t + 1) / (size_t)nt;
}

static void output_measure_share(void *arg, int t, int nt)
{
    map_job_t *j = arg;
    size_t lo, hi;
    map_share(j, t, nt, &lo, &hi);
    const keymap_t *km = j->o->cfg.km;
    j->off[t] = tn_format_bytes(j->keys + lo * (size_t)km->width, hi - lo, km);
}

static void output_map_share(void *arg, int t, int nt)
{
    map_job_t *j = arg;
    size_t lo, hi;
    map_share(j, t, nt, &lo, &hi);
    size_t w = (size_t)j->o->cfg.km->width;
    char *p = j->map + j->off[t], *end = j->map + j->off[t + 1], *released = p;
    for (size_t k = lo; k < hi;) {
        size_t m = hi - k < OUT_KEYS_PER_THREAD ? hi - k : OUT_KEYS_PER_THREAD;
        if (output_place(j->o, j->keys + k * w, m, &p, end, &released) != GS_OK) {
            j->bad = 1;
            return;
        }
        k += m;
    }
    if (p != end) {
        err_set(GS_EIO, "internal error: text output shorter than laid out");
        j->bad = 1;
    }
}

/* The first of keys[0..n) (mapped, in order) at or past k. */
static size_t output_rank(const void *keys, size_t n, int width, uint64_t k)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t v = width == 4 ? ((const uint32_t *)keys)[mid] : ((const uint64_t *)keys)[mid];
        if (v < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Each share's bytes of keys in order, by ranks: where the keys cross each step of
 * the line lengths (tn_line_steps), found by binary search; no pass over the keys. */
static void output_measure_ranked(map_job_t *j, int nt)
{
    const keymap_t *km = j->o->cfg.km;
    uint64_t key[TN_MAX_STEPS];
    unsigned char len[TN_MAX_STEPS];
    size_t at[TN_MAX_STEPS + 1];
    size_t ns = tn_line_steps(km, key, len);
    for (size_t i = 0; i < ns; i++)
        at[i] = output_rank(j->keys, j->n, km->width, key[i]);
    at[ns] = j->n;
    for (int t = 0; t < nt; t++) {
        size_t lo, hi, bytes = 0;
        map_share(j, t, nt, &lo, &hi);
        for (size_t i = 0; i < ns; i++) {
            size_t a = at[i] > lo ? at[i] : lo, b = at[i + 1] < hi ? at[i + 1] : hi;
            if (b > a)
                bytes += (b - a) * len[i];
        }
        j->off[t] = bytes;
    }
}

/* Text keys[0..n) into -o's temporary, placed (see the top of the file): GS_OK, an
 * error, or OUT_PLAIN where that does not apply (few keys, a position in the
 * middle of a page, a file system without fallocate, or no mapping to be had).
 * Keys in order (sorted) are measured by ranks, others by a pass over them. */
static int output_write_mapped(output_t *o, const void *keys, size_t n, int sorted)
{
    if (!output_can_place(o, n))
        return OUT_PLAIN;
    int nt = o->threads;
    map_job_t j = { .o = o, .keys = keys, .n = n };
    j.off = malloc(sizeof *j.off * (size_t)(nt + 1));
    if (!j.off)
        return err_set(GS_ENOMEM, "out of memory");
    double t0 = stats_now();
    if (sorted)
        output_measure_ranked(&j, nt);
    else
        pool_run(o->cfg.pool, output_measure_share, &j);
    size_t total = 0;
    for (int t = 0; t <= nt; t++) {
        size_t len = t < nt ? j.off[t] : 0;
        j.off[t] = total;
        total += len;
    }
    double t1 = stats_now();
    stats_add(ST_FORMAT, total, t1 - t0);
    int rc = output_place_begin(o, total, &j.map);
    if (rc == GS_OK && !j.map)
        rc = OUT_PLAIN;
    if (rc == GS_OK) {
        pool_run(o->cfg.pool, output_map_share, &j);
        rc = output_place_end(o, j.map, total, !j.bad);
        if (j.bad)
            rc = GS_EIO;
        else
            stats_add(ST_WRITE, total, stats_now() - t1);
    }
    free(j.off);
    return rc;
}

static int output_write_keys(output_t *o, const void *keys, size_t n, int sorted)
{
    if (n == 0)
        return GS_OK;
    output_ahead_end(o);
    if (output_identity(o)) {
        /* The keys are written as they are: no encoding, no copy of ours. */
        int rc = output_drain(o);
        size_t len = n * (size_t)o->cfg.km->width;
        if (rc == GS_OK) {
            o->bytes += len;
            rc = output_write_all(o, keys, len);
        }
        return rc;
    }
    int rc = output_write_mapped(o, keys, n, sorted);
    if (rc != OUT_PLAIN)
        return rc;
    if (!o->writer_started) {
        rc = output_start(o);
        if (rc)
            return rc;
    }
    return o->cfg.binary ? output_write_binary(o, keys, n) : output_write_text(o, keys, n);
}

int output_write(output_t *o, const void *keys, size_t n)
{
    return output_write_keys(o, keys, n, 0);
}

int output_write_sorted(output_t *o, const void *keys, size_t n)
{
    return output_write_keys(o, keys, n, 1);
}

/* ---- finishing ------------------------------------------------------------------------ */

static void output_free(output_t *o)
{
    output_ahead_end(o);
    output_drain(o);
    for (int i = 0; i < 2; i++) {
        if (o->sets[i].bufs)
            for (int t = 0; t < o->threads; t++)
                free(o->sets[i].bufs[t]);
        free(o->sets[i].bufs);
        free(o->sets[i].lens);
    }
    if (o->map_fd >= 0)
        close(o->map_fd);
    pthread_mutex_destroy(&o->lock);
    pthread_cond_destroy(&o->cond);
    free(o->tmp_path);
    free(o->final_path);
    free(o);
}

/* Where FILE exists, swap it with the temporary in one step (renameat2 with
 * RENAME_EXCHANGE): FILE is the old file or the new one at every moment, as with
 * rename(), and ext4 does not write the new file out first, which it does when a
 * rename replaces a file (auto_da_alloc: 59 ms of a 0.24 s sort of 107 MB, measured).
 * 1 when swapped; 0 where FILE does not exist or the call is not supported (the
 * caller renames). */
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
