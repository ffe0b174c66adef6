/* input.c: key readers (see input.h).
 *
 * Two raw buffers take turns: while the pool parses the block in one, a reader
 * thread fills the other. A block ends at the last white space (text) or the last
 * whole key (binary); what follows is copied to the front of the other buffer
 * before the reader thread fills the rest. A regular text file of some size is
 * mapped instead, and its blocks are read in place (KREADER_MAP_MIN). A text block
 * is split at white space into pieces, a few for each of the pool's threads, which
 * the threads take in turn; each piece is scanned into its own region of the key
 * buffer, and the regions are then packed together, or, where the caller gives room
 * (kreader_next_into), the pieces' tokens are counted first and each is scanned
 * straight to its place. Binary keys are decoded in place.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/error.h"
#include "io/input.h"
#include "core/stats.h"
#include "io/textnum.h"

#define KREADER_DEFAULT_BLOCK (16u << 20)
#define KREADER_MAX_THREADS 256
/* Pieces a text block is split into for each thread that scans it. The threads take
 * them in turn, so that a thread slowed (by page faults, by another process) holds
 * the block up by a piece at most: with one piece a thread, on the H100 machine's 16
 * CPUs, the slowest piece of each block took 19-42% longer than the mean. */
#define KREADER_PIECES_A_THREAD 4
#define KREADER_MAX_PIECES (KREADER_MAX_THREADS * KREADER_PIECES_A_THREAD)
/* Below this many bytes a block is scanned by one thread: not worth the hand-off. */
#define KREADER_PARALLEL_MIN (256u << 10)
/* Blocks of at least this many bytes are read ahead by a thread of their own. */
#define KREADER_PREFETCH_MIN (1u << 20)
/* A regular file is read by a pool of its own (pread at their own offsets), in
 * pieces of KREADER_PIECE bytes: one thread copies from the page cache at well under
 * the memory's bandwidth. On the H100 machine (tests/bench/readbw, a 4 GiB file in
 * the page cache) 16 threads reading 1 MiB pieces took 68 GB/s, 4 threads 23, 1
 * thread 6; pieces of 16 MiB gave 37 GB/s on 16 threads (the copies no longer stay
 * in the cache). The pool has a thread a CPU of the sort's pool, within these: */
#define KREADER_READERS_MIN 4
#define KREADER_READERS_MAX 16
#define KREADER_PIECE (1u << 20)
/* A regular text file of at least this many bytes is read through a mapping of it:
 * the pieces of a block are scanned straight from the page cache, with no reader
 * threads and no copy. 100M keys of text on the H100 machine (9 rounds alternating):
 * reading 0.12-0.15 s against 0.18-0.35 s read into buffers, the whole sort 0.479 s
 * against 0.557 s (medians). The file is read to its size when opened. */
#define KREADER_MAP_MIN ((uint64_t)1 << 20)

struct kreader {
    char *name;              /* for messages: the path, or "-" */
    int fd;
    int close_fd;            /* 1 unless fd is standard input */
    int regular;             /* a regular file we opened: read with pread at off */
    uint64_t off;            /* its next offset */
    uint64_t size;           /* its size when opened */
    kreader_cfg_t cfg;
    int width;               /* key bytes */
    char *bufs[2];           /* raw buffers, used in turn */
    size_t have[2];          /* bytes in each */
    size_t cap;              /* the size of each */
    int cur;                 /* the buffer of the last block */
    char *buf;               /* bufs[cur] */
    size_t used;             /* bytes of buf the last block took */
    int eof;                 /* read() returned 0 (the read-ahead sets it too) */
    int last;                /* the last block ends the input (eof when it was cut) */
    uint64_t bytes;          /* bytes read from the file */
    int started;             /* 1 once the first block was read */
    pool_t *readers;         /* a regular file's pread pool, made at its first large fill */
    char *map;               /* text of a regular file: the whole file mapped, or NULL */
    uint64_t map_len;        /* its length (the size when opened) */
    uint64_t map_done;       /* the pages before this offset are let go */
    int map_watch;           /* its cleanup watch (a SIGBUS in it is a read error) */
    /* the read-ahead thread */
    pthread_t ahead;
    int ahead_running;       /* 1: ahead fills bufs[cur ^ 1] */
    int ahead_rc;            /* its result */
    /* text */
    void *keys;              /* keys of the last block */
    size_t keycap;           /* room in keys, in keys */
    void *packed;            /* the pieces' keys packed together, where they moved */
    size_t packcap;          /* its room, in keys */
    const void *out;         /* the last block's keys: keys or packed */
    uint64_t lines_before;   /* LF bytes before the last block */
    uint64_t block_lines;    /* LF bytes in the last block */
    int pending;             /* an error code to return at the next call */
    /* binary */
    uint64_t keys_before;    /* keys before the last block */
    size_t block_keys;       /* keys in the last block */
};

/* ---- opening and reading --------------------------------------------------------- */

int kreader_open(kreader_t **out, const char *path, const kreader_cfg_t *cfg)
{
    kreader_t *r = calloc(1, sizeof *r);
    if (!r)
        return err_set(GS_ENOMEM, "out of memory");
    r->cfg = *cfg;
    if (!r->cfg.block_bytes)
        r->cfg.block_bytes = KREADER_DEFAULT_BLOCK;
    r->width = cfg->km->width;
    r->name = strdup(path);
    if (!r->name) {
        free(r);
        return err_set(GS_ENOMEM, "out of memory");
    }
    if (strcmp(path, "-") == 0) {
        r->fd = STDIN_FILENO;
#ifdef F_SETPIPE_SZ
        /* A pipe of 1 MiB, not 64 KiB: a sixteenth of the switches between the two
         * ends (a file or terminal refuses it, harmlessly). */
        (void)fcntl(r->fd, F_SETPIPE_SZ, 1 << 20);
#endif
    } else {
        r->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (r->fd < 0) {
            int e = errno;
            kreader_close(r);
            return err_sys(GS_EIO, e, "cannot read '%s'", path);
        }
        r->close_fd = 1;
        struct stat st;
        if (fstat(r->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            kreader_close(r);
            return err_sys(GS_EIO, EISDIR, "cannot read '%s'", path);
        }
        r->regular = S_ISREG(st.st_mode);
        r->size = (uint64_t)st.st_size;
#ifdef POSIX_FADV_SEQUENTIAL
        posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }
    r->map_watch = -1;
    if (r->regular && !cfg->binary && r->size >= KREADER_MAP_MIN && r->size <= SIZE_MAX) {
        void *m = mmap(NULL, (size_t)r->size, PROT_READ, MAP_PRIVATE, r->fd, 0);
        if (m != MAP_FAILED) {
            r->map_watch = cleanup_watch_map(m, (size_t)r->size, r->name);
            if (r->map_watch >= 0) {
                r->map = m;
                r->map_len = r->size;
            } else {
                munmap(m, (size_t)r->size);   /* read it the plain way */
            }
        }
    }
    if (r->map) {
        *out = r;   /* no buffers: blocks are read in place */
        return GS_OK;
    }
    r->cap = r->cfg.block_bytes + 8;
    r->bufs[0] = malloc(r->cap);
    r->bufs[1] = malloc(r->cap);
    if (!r->bufs[0] || !r->bufs[1]) {
        kreader_close(r);
        return err_set(GS_ENOMEM, "out of memory");
    }
    r->buf = r->bufs[0];
    if (cfg->binary && cfg->carry && cfg->carry->n) {
        memcpy(r->buf, cfg->carry->bytes, cfg->carry->n);
        r->have[0] = cfg->carry->n;
        cfg->carry->n = 0;
    }
    *out = r;
    return GS_OK;
}

/* A fill of a regular file: dst[0..len) from off, in pieces of KREADER_PIECE bytes,
 * piece p read by thread p % threads, each to its end or the file's. */
typedef struct {
    int fd;
    char *dst;
    size_t len;
    uint64_t off;
    size_t npieces;
    size_t *got;             /* [npieces] bytes read into each */
    int err;                 /* errno of the first failed read, or 0 */
} fill_job_t;

static void kreader_fill_share(void *arg, int t, int nt)
{
    fill_job_t *j = arg;
    for (size_t p = (size_t)t; p < j->npieces; p += (size_t)nt) {
        size_t a = p * KREADER_PIECE, len = j->len - a < KREADER_PIECE ? j->len - a : KREADER_PIECE;
        size_t got = 0;
        while (got < len) {
            ssize_t n = pread(j->fd, j->dst + a + got, len - got, (off_t)(j->off + a + got));
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                int none = 0;
                __atomic_compare_exchange_n(&j->err, &none, errno, 0, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED);
                break;
            }
            if (n == 0)
                break;
            got += (size_t)n;
        }
        j->got[p] = got;
        if (got < len)
            return;   /* the end of the file (or an error): later pieces are void */
    }
}

/* Fill dst[0..len) of a regular file from r->off, on the read pool where the file
 * holds more than a piece. The bytes read are the pieces' prefix up to the first
 * short one (the end of the file). Sets *got and r->eof. */
static int kreader_pread(kreader_t *r, char *dst, size_t len, size_t *got)
{
    *got = 0;
    uint64_t left = r->size > r->off ? r->size - r->off : 0;
    size_t npieces = (len + KREADER_PIECE - 1) / KREADER_PIECE;
    size_t one = 0;
    fill_job_t j = { .fd = r->fd, .dst = dst, .len = len, .off = r->off, .npieces = npieces,
                     .got = npieces > 1 ? calloc(npieces, sizeof *j.got) : &one };
    if (!j.got)
        return err_set(GS_ENOMEM, "out of memory");
    int pooled = npieces > 1 && left > KREADER_PIECE;
    if (pooled && !r->readers) {
        int k = pool_size(r->cfg.pool);
        k = k < KREADER_READERS_MIN ? KREADER_READERS_MIN : k;
        k = k > KREADER_READERS_MAX ? KREADER_READERS_MAX : k;
        if (pool_create(&r->readers, k) != GS_OK)
            r->readers = NULL;   /* read on this thread alone */
    }
    if (pooled && r->readers)
        pool_run(r->readers, kreader_fill_share, &j);
    else
        kreader_fill_share(&j, 0, 1);
    for (size_t p = 0; p < npieces; p++) {
        *got += j.got[p];
        if (j.got[p] < (p + 1 < npieces ? KREADER_PIECE : len - p * KREADER_PIECE)) {
            r->eof = 1;
            break;
        }
    }
    if (j.got != &one)
        free(j.got);
    if (j.err)
        return err_sys(GS_EIO, j.err, "read error on '%s'", r->name);
    r->off += *got;
    return GS_OK;
}

/* Read until bufs[i] holds cap bytes or the input ends. */
static int kreader_fill(kreader_t *r, int i)
{
    double t0 = stats_now();
    uint64_t before = r->bytes;
    while (!r->eof && r->have[i] < r->cap) {
        ssize_t got;
        if (r->regular) {
            size_t n;
            int rc = kreader_pread(r, r->bufs[i] + r->have[i], r->cap - r->have[i], &n);
            if (rc)
                return rc;
            got = (ssize_t)n;
        } else {
            got = read(r->fd, r->bufs[i] + r->have[i], r->cap - r->have[i]);
            if (got < 0) {
                if (errno == EINTR)
                    continue;
                return err_sys(GS_EIO, errno, "read error on '%s'", r->name);
            }
            if (got == 0)
                r->eof = 1;
        }
        r->have[i] += (size_t)got;
        r->bytes += (uint64_t)got;
    }
    stats_add(ST_READ, r->bytes - before, stats_now() - t0);
    return GS_OK;
}

static void *kreader_ahead_main(void *arg)
{
    kreader_t *r = arg;
    r->ahead_rc = kreader_fill(r, r->cur ^ 1);
    return NULL;
}

/* Wait for the read-ahead, if one runs; its result. */
static int kreader_ahead_join(kreader_t *r)
{
    if (!r->ahead_running)
        return GS_OK;
    pthread_join(r->ahead, NULL);
    r->ahead_running = 0;
    return r->ahead_rc;
}

/* Where the block in buf[0..have) ends: after the last white space (text) or the
 * last whole key (binary); at the end of the input, everything (text) or the whole
 * keys (binary). 0 with text and no white space: one token fills the buffer. */
static size_t kreader_cut(const kreader_t *r, const char *buf, size_t have)
{
    if (r->cfg.binary)
        return have - have % (size_t)r->width;
    if (r->eof)
        return have;
    size_t cut = have;
    while (cut > 0 && !tn_is_space((unsigned char)buf[cut - 1]))
        cut--;
    return cut;
}

/* kreader_advance for a mapped file: the next block is the mapping's next bytes, up
 * to the block's size, cut after white space (or past one token longer than that).
 * Nothing is copied. The pages of the blocks before are let go (they leave the
 * process, not the page cache), so the resident memory stays about a block; the
 * kernel is asked to read the next block ahead. */
static int kreader_advance_mapped(kreader_t *r)
{
    static size_t page;
    if (!page) {
        long ps = sysconf(_SC_PAGESIZE);
        page = ps > 0 ? (size_t)ps : 4096;
    }
    uint64_t done = r->off / page * page;
    if (done > r->map_done) {
        madvise(r->map + r->map_done, (size_t)(done - r->map_done), MADV_DONTNEED);
        r->map_done = done;
    }
    r->started = 1;
    uint64_t avail = r->map_len - r->off;
    size_t len = avail < r->cfg.block_bytes ? (size_t)avail : r->cfg.block_bytes;
    r->buf = r->map + r->off;
    size_t cut = len;
    if (len < avail) {
        cut = kreader_cut(r, r->buf, len);
        if (cut == 0) {
            cut = len;
            while (cut < avail && !tn_is_space((unsigned char)r->buf[cut]))
                cut++;
        }
    }
    r->used = cut;
    r->off += cut;
    r->bytes += cut;
    r->eof = r->last = r->off == r->map_len;
    stats_add(ST_READ, cut, 0);   /* the time is the parse's, which touches the pages */
    stats_note_read_mapped(cut);
    if (!r->last) {
        uint64_t next = r->off / page * page, left = r->map_len - next;
        madvise(r->map + next, left < r->cfg.block_bytes ? (size_t)left : r->cfg.block_bytes,
                MADV_WILLNEED);
    }
    return GS_OK;
}

/* Make buf the next block: the bytes the last block left over, followed by a full
 * buffer's worth of input. Sets r->used to the block's length (0: the end), and
 * starts the read-ahead of the block after it. */
static int kreader_advance(kreader_t *r)
{
    if (r->map)
        return kreader_advance_mapped(r);
    int rc;
    if (!r->started) {
        r->started = 1;
        rc = kreader_fill(r, r->cur);
    } else if (r->ahead_running) {
        rc = kreader_ahead_join(r);
        r->cur ^= 1;
    } else {
        /* No read-ahead ran: the leftover is already at the front of the other
         * buffer; fill it here. */
        r->cur ^= 1;
        rc = kreader_fill(r, r->cur);
    }
    if (rc)
        return rc;
    r->buf = r->bufs[r->cur];
    size_t cut;
    while ((cut = kreader_cut(r, r->buf, r->have[r->cur])) == 0 && !r->cfg.binary &&
           r->have[r->cur] > 0) {
        /* One token fills the whole buffer: grow both buffers and read on. */
        size_t ncap = r->cap * 2;
        for (int i = 0; i < 2; i++) {
            char *nb = realloc(r->bufs[i], ncap);
            if (!nb)
                return err_set(GS_ENOMEM, "out of memory");
            r->bufs[i] = nb;
        }
        r->cap = ncap;
        r->buf = r->bufs[r->cur];
        rc = kreader_fill(r, r->cur);
        if (rc)
            return rc;
    }
    r->used = cut;
    r->last = r->eof;   /* before the read-ahead can change eof */
    /* The leftover goes to the front of the other buffer, which is then filled. */
    int nxt = r->cur ^ 1;
    size_t left = r->have[r->cur] - cut;
    memcpy(r->bufs[nxt], r->buf + cut, left);
    r->have[nxt] = left;
    if (!r->eof && r->cfg.block_bytes >= KREADER_PREFETCH_MIN) {
        if (cleanup_thread_create(&r->ahead, kreader_ahead_main, r) == 0)
            r->ahead_running = 1;
    }
    return GS_OK;
}

/* ---- text ------------------------------------------------------------------------ */

typedef struct {
    kreader_t *r;
    const char *blk;
    char *dst;                               /* where the keys go: the caller's or r->keys */
    int np;                                  /* pieces */
    int next;                                /* the next piece to take (atomic) */
    size_t start[KREADER_MAX_PIECES + 1];    /* piece p is blk[start[p], start[p+1]) */
    size_t koff[KREADER_MAX_PIECES];         /* where piece p's keys go in dst, in keys */
    size_t count[KREADER_MAX_PIECES];        /* piece p's tokens, where counted first */
    size_t dest[KREADER_MAX_PIECES];         /* where they are packed, in keys */
    int used;                                /* pieces packed: those up to a bad token */
    tn_scan_t res[KREADER_MAX_PIECES];
} scan_job_t;

/* The next piece for a thread to take, or j->np when none is left. */
static int kreader_take(scan_job_t *j)
{
    int p = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
    return p < j->np ? p : j->np;
}

/* Packing: the pieces' keys, up to j->used, copied to their place in r->packed. */
static void kreader_pack_pieces(void *arg, int t, int n)
{
    (void)t;
    (void)n;
    scan_job_t *j = arg;
    size_t w = (size_t)j->r->width;
    for (int p; (p = kreader_take(j)) < j->np;)
        if (p < j->used && j->res[p].nkeys)
            memcpy((char *)j->r->packed + j->dest[p] * w, j->dst + j->koff[p] * w,
                   j->res[p].nkeys * w);
}

static void kreader_scan_pieces(void *arg, int t, int n)
{
    (void)t;
    (void)n;
    scan_job_t *j = arg;
    kreader_t *r = j->r;
    for (int p; (p = kreader_take(j)) < j->np;)
        tn_scan(j->blk + j->start[p], j->start[p + 1] - j->start[p], r->cfg.km,
                j->dst + j->koff[p] * (size_t)r->width, &j->res[p]);
}

static void kreader_count_pieces(void *arg, int t, int n)
{
    (void)t;
    (void)n;
    scan_job_t *j = arg;
    for (int p; (p = kreader_take(j)) < j->np;)
        j->count[p] = tn_count_tokens(j->blk + j->start[p], j->start[p + 1] - j->start[p]);
}

/* Run fn over a block's pieces: on the pool, or on this thread where one thread
 * scans. */
static void kreader_run_pieces(kreader_t *r, int threads, pool_fn_t fn, scan_job_t *j)
{
    j->next = 0;
    if (threads > 1)
        pool_run(r->cfg.pool, fn, j);
    else
        fn(j, 0, 1);
}

/* Append a token to a message, escaped and cut short if long. */
static void kreader_quote(char *dst, size_t room, const char *tok, size_t len)
{
    size_t o = 0, shown = len > 40 ? 40 : len;
    for (size_t i = 0; i < shown && o + 5 < room; i++) {
        unsigned char c = (unsigned char)tok[i];
        if (c >= 0x20 && c < 0x7F && c != '\\' && c != '\'')
            dst[o++] = (char)c;
        else
            o += (size_t)snprintf(dst + o, room - o, "\\x%02x", c);
    }
    if (shown < len && o + 4 < room) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o] = '\0';
}

static int kreader_token_error(kreader_t *r, const tn_scan_t *res, const char *tok,
                               uint64_t line)
{
    char q[256];
    kreader_quote(q, sizeof q, tok, res->err_len);
    if (res->status == TN_RANGE)
        return err_set(GS_EINPUT, "%s:%llu: out of range for %s: '%s'", r->name,
                       (unsigned long long)line, key_type_name(r->cfg.km->type), q);
    return err_set(GS_EINPUT, "%s:%llu: not an integer: '%s'", r->name,
                   (unsigned long long)line, q);
}

/* The caller's memory for a block's keys (kreader_next_into), or none. */
typedef struct {
    kreader_room_fn fn;
    void *arg;
} kreader_room_t;

/* Scan blk[0..len) into the caller's memory (room, where it gives some: the
 * block's tokens are counted first, so that each piece's keys go straight to their
 * place) or else into r->keys, packed where pieces left gaps; set *n, and r->out to
 * the keys or NULL (in the caller's memory). A bad token sets r->pending after the
 * keys before it have been kept. */
static int kreader_scan_block(kreader_t *r, const char *blk, size_t len,
                              const kreader_room_t *room, size_t *n)
{
    int threads = pool_size(r->cfg.pool);
    if (threads > KREADER_MAX_THREADS)
        threads = KREADER_MAX_THREADS;
    if (len < KREADER_PARALLEL_MIN)
        threads = 1;
    scan_job_t *j = malloc(sizeof *j);
    if (!j)
        return err_set(GS_ENOMEM, "out of memory");
    j->r = r;
    j->blk = blk;
    /* Pieces: equal shares, each moved forward to white space (some may be empty). */
    int np = threads > 1 ? threads * KREADER_PIECES_A_THREAD : 1;
    j->np = np;
    j->start[0] = 0;
    for (int p = 1; p <= np; p++) {
        size_t s = p == np ? len : (size_t)((unsigned __int128)len * p / np);
        if (s < j->start[p - 1])
            s = j->start[p - 1];
        while (s < len && !tn_is_space((unsigned char)blk[s]))
            s++;
        j->start[p] = s;
    }

    double t0 = stats_now();
    j->dst = NULL;
    if (room) {
        kreader_run_pieces(r, threads, kreader_count_pieces, j);
        size_t total = 0;
        for (int p = 0; p < np; p++) {
            j->koff[p] = total;
            total += j->count[p];
        }
        if (total)
            j->dst = room->fn(room->arg, total);
    }
    if (!j->dst) {
        size_t need = 0;
        for (int p = 0; p < np; p++) {
            j->koff[p] = need;
            need += tn_max_keys(j->start[p + 1] - j->start[p]);
        }
        if (need > r->keycap) {
            free(r->keys);
            r->keys = malloc(need * (size_t)r->width);
            if (!r->keys) {
                r->keycap = 0;
                free(j);
                return err_set(GS_ENOMEM, "out of memory");
            }
            r->keycap = need;
        }
        j->dst = r->keys;
    }
    int placed = j->dst != r->keys;

    kreader_run_pieces(r, threads, kreader_scan_pieces, j);

    /* The keys up to the first bad token. Placed, they lie together already (a
     * piece without one has exactly its tokens' keys). Else they are packed: in
     * place where only the first piece has keys, else into a buffer of their own,
     * piece by piece on the pool's threads where there are many (on one thread this
     * took as long as the scan on 16). */
    size_t total = 0, moved = 0;
    uint64_t lines = 0;
    int rc = GS_OK;
    j->used = np;
    for (int p = 0; p < np; p++) {
        const tn_scan_t *res = &j->res[p];
        if (placed && res->status == TN_OK && res->nkeys != j->count[p]) {
            size_t got = res->nkeys, want = j->count[p];
            free(j);
            return err_set(GS_EIO, "internal error: %zu keys scanned from %zu tokens", got,
                           want);
        }
        j->dest[p] = total;
        if (total != j->koff[p])
            moved += res->nkeys;
        total += res->nkeys;
        lines += res->nlines;
        if (res->status != TN_OK) {
            r->pending = kreader_token_error(r, res, blk + j->start[p] + res->err_off,
                                             r->lines_before + lines + 1);
            j->used = p + 1;
            break;
        }
    }
    r->out = placed ? NULL : r->keys;
    if (moved && !placed) {
        if (total > r->packcap) {
            free(r->packed);
            r->packcap = 0;
            if (!(r->packed = malloc(r->keycap * (size_t)r->width))) {
                free(j);
                return err_set(GS_ENOMEM, "out of memory");
            }
            r->packcap = r->keycap;
        }
        kreader_run_pieces(r, total * (size_t)r->width >= KREADER_PARALLEL_MIN ? threads : 1,
                           kreader_pack_pieces, j);
        r->out = r->packed;
    }
    stats_add(ST_PARSE, len, stats_now() - t0);
    r->block_lines = lines;
    free(j);
    *n = total;
    return rc;
}

/* The next block of the text: at least one key, or the end, or an error. */
static int kreader_next_text(kreader_t *r, const kreader_room_t *room, const void **keys,
                             size_t *n)
{
    for (;;) {
        r->lines_before += r->block_lines;
        r->block_lines = 0;
        int rc = kreader_advance(r);
        if (rc)
            return rc;
        if (r->used == 0)
            return GS_OK;   /* the end */
        rc = kreader_scan_block(r, r->buf, r->used, room, n);
        if (rc)
            return rc;
        *keys = r->out;
        if (*n > 0)
            return GS_OK;
        if (r->pending) {
            rc = r->pending;
            r->pending = 0;
            return rc;
        }
        /* A block of white space only: read on. */
    }
}

/* ---- binary ------------------------------------------------------------------------ */

static inline uint32_t bswap32(uint32_t x) { return __builtin_bswap32(x); }
static inline uint64_t bswap64(uint64_t x) { return __builtin_bswap64(x); }

void input_decode_binary(const void *src, void *dst, size_t n, const keymap_t *km,
                         int big_endian)
{
    /* Keys are stored little-endian on the hosts we build for; big endian input
     * swaps. The bytes are loaded with memcpy, so src need not be aligned. */
    const unsigned char *s = src;
    if (km->width == 4) {
        uint32_t *d = dst, mask = (uint32_t)km->mask;
        for (size_t i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, s + 4 * i, 4);
            d[i] = (big_endian ? bswap32(v) : v) ^ mask;
        }
    } else {
        uint64_t *d = dst, mask = km->mask;
        for (size_t i = 0; i < n; i++) {
            uint64_t v;
            memcpy(&v, s + 8 * i, 8);
            d[i] = (big_endian ? bswap64(v) : v) ^ mask;
        }
    }
}

/* Decoding binary keys in place, a share per pool thread. */
typedef struct {
    kreader_t *r;
    char *keys;
    size_t n;
} decode_job_t;

static void kreader_decode_share(void *arg, int t, int nt)
{
    decode_job_t *j = arg;
    size_t w = (size_t)j->r->width;
    size_t lo = j->n * (size_t)t / (size_t)nt, hi = j->n * (size_t)(t + 1) / (size_t)nt;
    char *p = j->keys + lo * w;
    input_decode_binary(p, p, hi - lo, j->r->cfg.km, j->r->cfg.big_endian);
}

/* Decode keys[0..n) in place, on the pool where there are many; counted as parsing.
 * Unsigned keys in the host's order are their own mapping: nothing to do. */
static void kreader_decode(kreader_t *r, char *keys, size_t n)
{
    if (r->cfg.km->mask == 0 && !r->cfg.big_endian)
        return;
    double t0 = stats_now();
    if (n * (size_t)r->width < KREADER_PARALLEL_MIN) {
        input_decode_binary(keys, keys, n, r->cfg.km, r->cfg.big_endian);
    } else {
        decode_job_t j = { r, keys, n };
        pool_run(r->cfg.pool, kreader_decode_share, &j);
    }
    stats_add(ST_PARSE, n * (size_t)r->width, stats_now() - t0);
}

/* A partial key of part bytes at p ends the input: carried to the next input, or an
 * error reported after the whole keys before it (r->pending). */
static void kreader_partial(kreader_t *r, const char *p, size_t part)
{
    if (r->cfg.carry) {
        r->cfg.carry->n = (int)part;
        memcpy(r->cfg.carry->bytes, p, part);
    } else {
        r->pending = err_set(GS_EINPUT, "%s: %llu bytes: not a whole number of %d-byte keys",
                             r->name, (unsigned long long)r->bytes, r->width);
    }
}

static int kreader_next_binary(kreader_t *r, const void **keys, size_t *n)
{
    size_t w = (size_t)r->width;
    r->keys_before += r->block_keys;
    r->block_keys = 0;
    int rc = kreader_advance(r);
    if (rc)
        return rc;
    if (r->last && r->have[r->cur] > r->used) {
        kreader_partial(r, r->buf + r->used, r->have[r->cur] - r->used);
        r->have[r->cur ^ 1] = 0;
        if (r->used == 0 && r->pending) {
            int rc = r->pending;
            r->pending = 0;
            return rc;
        }
    }
    size_t whole = r->used / w;
    kreader_decode(r, r->buf, whole);
    r->block_keys = whole;
    *keys = r->buf;
    *n = whole;
    return GS_OK;
}

int kreader_direct(const kreader_t *r)
{
    return r->cfg.binary && r->regular;
}

uint64_t kreader_left(const kreader_t *r)
{
    return (r->size > r->off ? r->size - r->off : 0) + r->have[0];
}

int kreader_read_keys(kreader_t *r, void *dst, size_t max, size_t *n)
{
    size_t w = (size_t)r->width;
    *n = 0;
    if (r->pending) {
        int rc = r->pending;
        r->pending = 0;
        return rc;
    }
    if (max == 0 || r->eof)
        return GS_OK;
    /* Bytes carried from the input before (kreader_open put them in bufs[0]) begin
     * the first key. */
    char *d = dst;
    size_t pre = r->have[0];
    memcpy(d, r->bufs[0], pre);
    r->have[0] = 0;
    double t0 = stats_now();
    size_t got;
    int rc = kreader_pread(r, d + pre, max * w - pre, &got);
    if (rc)
        return rc;
    r->bytes += got;
    stats_add(ST_READ, got, stats_now() - t0);
    size_t total = pre + got, keys = total / w;
    if (total % w)   /* only at the end of the file */
        kreader_partial(r, d + keys * w, total % w);
    kreader_decode(r, d, keys);
    r->keys_before += r->block_keys;
    r->block_keys = keys;
    *n = keys;
    if (keys == 0 && r->pending) {
        rc = r->pending;
        r->pending = 0;
        return rc;
    }
    return GS_OK;
}

/* ---- the rest of the interface ------------------------------------------------------ */

int kreader_next(kreader_t *r, const void **keys, size_t *n)
{
    *n = 0;
    if (r->pending) {
        int rc = r->pending;
        r->pending = 0;
        return rc;
    }
    return r->cfg.binary ? kreader_next_binary(r, keys, n) : kreader_next_text(r, NULL, keys, n);
}

int kreader_next_into(kreader_t *r, kreader_room_fn room, void *arg, const void **keys,
                      size_t *n)
{
    *n = 0;
    *keys = NULL;
    if (r->cfg.binary || r->pending)
        return kreader_next(r, keys, n);
    kreader_room_t rm = { .fn = room, .arg = arg };
    return kreader_next_text(r, &rm, keys, n);
}

uint64_t kreader_position(kreader_t *r, size_t i)
{
    if (r->cfg.binary)
        return r->keys_before + i + 1;
    size_t off = tn_token_offset(r->buf, r->used, i);
    return r->lines_before + tn_count_lines(r->buf, off) + 1;
}

const char *kreader_name(const kreader_t *r)
{
    return r->name;
}

uint64_t kreader_bytes(kreader_t *r)
{
    kreader_ahead_join(r);   /* its count is only settled once the read-ahead is done */
    return r->bytes;
}

void kreader_close(kreader_t *r)
{
    if (!r)
        return;
    if (r->ahead_running) {
        /* Its data is not wanted: do not wait for a slow pipe or a terminal to
         * fill a block (read() is a cancellation point). A regular file's read
         * ends soon, and its pool must not be left mid-job: wait for it. */
        if (!r->regular)
            pthread_cancel(r->ahead);
        kreader_ahead_join(r);
    }
    pool_destroy(r->readers);
    if (r->map)
        munmap(r->map, (size_t)r->map_len);
    cleanup_unwatch_map(r->map_watch);
    if (r->close_fd && r->fd >= 0)
        close(r->fd);
    free(r->name);
    free(r->bufs[0]);
    free(r->bufs[1]);
    free(r->keys);
    free(r->packed);
    free(r);
}
