/* SPDX-License-Identifier: MIT */
/* reader.c: key readers (see reader.h): sources, blocks, the open/close API.
 *
 * Two raw buffers take turns: while the pool parses the block in one, a job reads
 * ahead into the other. A block ends at the last white space (text) or the last
 * whole key (binary); what follows is copied to the front of the other buffer
 * before the job fills the rest. A regular text file of some size is mapped instead,
 * and its blocks are read in place (READ_MAP_MIN), with no copy and no reading
 * thread. A regular file is read by a pool of its own, each thread copying pieces
 * of READ_PIECE bytes from the page cache at its own offset: one thread copies at
 * well under the memory's bandwidth. Text blocks are scanned by reader_text.c;
 * binary keys are decoded in place by reader_binary.c.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/stats.h"
#include "core/stdfds.h"
#include "core/tuning.h"
#include "io/reader_impl.h"
#include "io/textnum.h"

/* ---- windows of a mapped file -------------------------------------------------------- */

/* Unmap the window, if any (its pages leave the process, not the page cache). */
static void kreader_unmap(kreader_t *r)
{
    mem_unmap_file(&r->map, NULL);
    r->map_len = 0;
}

/* Have the file's bytes [from, to) (to <= its size) mapped (mem_map_file): the
 * window kept where it holds them, else replaced by one that starts at from. A
 * window is a block or so, so that a file of any size takes that much of the
 * address space. 0, or the errno of the mapping (a watch not to be had leaves
 * r->map.watch -1). */
static int kreader_window(kreader_t *r, uint64_t from, uint64_t to)
{
    if (r->map.base && from >= r->map_off && to <= r->map_off + r->map_len)
        return 0;
    kreader_unmap(r);
    if (to - from > SIZE_MAX)
        return EFBIG;
    int e = mem_map_file(&r->map, r->file.fd, from, (size_t)(to - from), 0, r->file.name);
    if (e)
        return e;
    r->map_off = from - (uint64_t)(r->map.data - r->map.base);
    r->map_len = (size_t)(to - r->map_off);
    return 0;
}

/* ---- opening and reading --------------------------------------------------------- */

int kreader_open(kreader_t **out, const source_t *src, const kreader_cfg_t *cfg)
{
    kreader_t *r = calloc(1, sizeof *r);
    if (!r)
        return err_set(GS_ENOMEM, "out of memory");
    r->map.watch = -1;
    r->file.fd = -1;
    job_init(&r->ahead);
    r->src = *src;
    r->cfg = *cfg;
    if (!r->cfg.block_bytes)
        r->cfg.block_bytes = READ_BLOCK_DEFAULT;
    r->width = cfg->record_size ? (int)cfg->record_size : cfg->km->width;
    int rc = source_open(src, &r->file);
    if (rc) {
        kreader_close(r);
        return rc;
    }
    if (r->file.stdin_) {
#ifdef F_SETPIPE_SZ
        /* A larger pipe: fewer switches between its two ends (a file or a terminal
         * refuses it, harmlessly). */
        (void)fcntl(r->file.fd, F_SETPIPE_SZ, PIPE_BYTES);
#endif
    } else if (r->file.regular) {
        /* Read with pread(2) over [start, end): the range the source names. */
        r->regular = 1;
        r->off = r->file.start;
        r->size = r->file.end;
#ifdef POSIX_FADV_SEQUENTIAL
        posix_fadvise(r->file.fd, (off_t)r->off, (off_t)(r->size - r->off), POSIX_FADV_SEQUENTIAL);
#endif
    }
    r->header_done = cfg->binary || !src->header;
    if (r->regular && !cfg->binary && r->size - r->off >= READ_MAP_MIN && r->header_done &&
        !cfg->zero_terminated) {
        /* Mapped where its first window maps and is watched; else read the plain
         * way. */
        uint64_t left = r->size - r->off;
        uint64_t first = r->off + (left < r->cfg.block_bytes ? left : r->cfg.block_bytes);
        r->mapped = kreader_window(r, r->off, first) == 0 && r->map.watch >= 0;
        if (!r->mapped)
            kreader_unmap(r);
    }
    if (r->mapped) {
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

/* Fill dst[0..len) of a regular file from r->off, on the read pool (pieces of
 * READ_PIECE bytes) where the file holds more than a piece: up to the file's end,
 * or a range's (source_read). Sets *got and r->eof. */
int kreader_pread(kreader_t *r, char *dst, size_t len, size_t *got)
{
    uint64_t left = r->size > r->off ? r->size - r->off : 0;
    if (len > READ_PIECE && left > READ_PIECE && !r->readers) {
        int k = pool_size(r->cfg.pool);
        k = k < READ_THREADS_MIN ? READ_THREADS_MIN : k;
        k = k > READ_THREADS_MAX ? READ_THREADS_MAX : k;
        if (pool_create(&r->readers, k) != GS_OK)
            r->readers = NULL;   /* read on this thread alone */
    }
    int rc = source_read(&r->file, left > READ_PIECE ? r->readers : NULL, READ_PIECE, dst,
                         len, r->off, got);
    r->off += *got;
    if (*got < len || (r->file.ranged && r->off >= r->size))
        r->eof = 1;   /* a whole file is read on past its size, a range to its end only */
    return rc;
}

/* The text p[0..len) just read, settled for the scanner, which knows only LF-ended
 * lines: the header line (--header) kept aside and left in place as blanks ended by
 * an LF, so that it counts as line 1 and holds no key; with -z, each NUL made an LF
 * (a line's end) and each LF a blank (white space under -z too). Every byte is
 * settled once, as it is read, before a block is cut. GS_OK or GS_ENOMEM. */
static int kreader_settle(kreader_t *r, char *p, size_t len)
{
    if (r->cfg.binary)
        return GS_OK;
    char term = kreader_term(r);
    if (!r->header_done && len > 0) {
        char *e = memchr(p, term, len);
        size_t take = e ? (size_t)(e - p) + 1 : len;
        if (r->header_len + take > r->header_cap) {
            size_t cap = (r->header_len + take) * 2;
            char *h = realloc(r->header, cap);
            if (!h)
                return err_set(GS_ENOMEM, "out of memory");
            r->header = h;
            r->header_cap = cap;
        }
        memcpy(r->header + r->header_len, p, take);
        r->header_len += take;
        memset(p, ' ', take);
        if (e) {
            *e = '\n';
            r->header_done = 1;
        }
        p += take;
        len -= take;
    }
    if (r->cfg.zero_terminated)
        for (size_t i = 0; i < len; i++) {
            if (p[i] == '\n')
                p[i] = ' ';
            else if (p[i] == '\0')
                p[i] = '\n';
        }
    return GS_OK;
}

/* Read a pipe (or any input not a regular file) until bufs[i] holds cap bytes or
 * the input ends, READ_PIECE bytes at a time, each counted as it comes: a slow pipe
 * shows --progress its bytes before the block is full. */
static int kreader_fill_stream(kreader_t *r, int i)
{
    while (!r->eof && r->have[i] < r->cap) {
        double t0 = stats_now();
        size_t want = r->cap - r->have[i], got;
        if (want > READ_PIECE)
            want = READ_PIECE;
        int e = source_read(&r->file, NULL, 0, r->bufs[i] + r->have[i], want,
                            r->file.start + r->bytes, &got);
        int rc = kreader_settle(r, r->bufs[i] + r->have[i], got);
        r->have[i] += got;
        r->bytes += got;
        stats_add(ST_READ, got, stats_now() - t0);
        if (e || rc)
            return e ? e : rc;
        if (got < want)
            r->eof = 1;
    }
    return GS_OK;
}

/* Read until bufs[i] holds cap bytes or the input ends. */
static int kreader_fill(kreader_t *r, int i)
{
    if (!r->regular)
        return kreader_fill_stream(r, i);
    double t0 = stats_now();
    size_t want = r->cap - r->have[i], got = 0;
    if (r->eof || want == 0)
        return GS_OK;
    int rc = kreader_pread(r, r->bufs[i] + r->have[i], want, &got);   /* sets eof */
    if (rc == GS_OK)
        rc = kreader_settle(r, r->bufs[i] + r->have[i], got);
    if (rc)
        return rc;
    r->have[i] += got;
    r->bytes += got;
    stats_add(ST_READ, got, stats_now() - t0);
    return GS_OK;
}

static void kreader_ahead_fill(void *arg)
{
    kreader_t *r = arg;
    r->ahead_rc = kreader_fill(r, r->cur ^ 1);
}

/* Wait for the read-ahead, if one was posted; its result. */
static int kreader_ahead_wait(kreader_t *r)
{
    if (!r->ahead_posted)
        return GS_OK;
    job_wait(&r->ahead);
    r->ahead_posted = 0;
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

/* kreader_advance for a mapped file: the next block is the file's next bytes, up to
 * the block's size, cut after white space (or past one token longer than that), read
 * in place through a window of the file mapped (kreader_window). Nothing is copied;
 * the window of the block before is unmapped, so the resident memory and the address
 * space taken stay about a block; the kernel is asked to read the next block ahead. */
static int kreader_advance_mapped(kreader_t *r)
{
    r->started = 1;
    uint64_t avail = r->size - r->off;
    size_t len = avail < r->cfg.block_bytes ? (size_t)avail : r->cfg.block_bytes;
    int e = kreader_window(r, r->off, r->off + len);
    if (e)
        return err_sys(GS_EIO, e, "read error on '%s'", r->file.name);
    r->buf = r->map.base + (r->off - r->map_off);
    size_t cut = len;
    if (len < avail && (cut = kreader_cut(r, r->buf, len)) == 0) {
        /* One token longer than a block: the window grows until its end. */
        uint64_t seen = len;
        while (cut == 0) {
            uint64_t to = seen * 2 < avail ? seen * 2 : avail;
            if ((e = kreader_window(r, r->off, r->off + to)) != 0)
                return err_sys(GS_EIO, e, "read error on '%s'", r->file.name);
            r->buf = r->map.base + (r->off - r->map_off);
            while (seen < to && !tn_is_space((unsigned char)r->buf[seen]))
                seen++;
            if (seen < to || to == avail)
                cut = (size_t)seen;
        }
    }
    r->used = cut;
    r->off += cut;
    r->bytes += cut;
    r->eof = r->last = r->off == r->size;
    stats_add(ST_READ, cut, 0);   /* the time is the parse's, which touches the pages */
    stats_note_read_mapped(cut);
#ifdef POSIX_FADV_WILLNEED
    if (!r->last) {
        uint64_t left = r->size - r->off;
        posix_fadvise(r->file.fd, (off_t)r->off,
                      (off_t)(left < r->cfg.block_bytes ? left : r->cfg.block_bytes),
                      POSIX_FADV_WILLNEED);
    }
#endif
    return GS_OK;
}

/* Make buf the next block: the bytes the last block left over, followed by a full
 * buffer's worth of input. Sets r->used to the block's length (0: the end), and
 * starts the read-ahead of the block after it. */
int kreader_advance(kreader_t *r)
{
    if (r->mapped)
        return kreader_advance_mapped(r);
    int rc;
    if (!r->started) {
        r->started = 1;
        rc = kreader_fill(r, r->cur);
    } else if (r->ahead_posted) {
        rc = kreader_ahead_wait(r);
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
    if (!r->eof && r->cfg.block_bytes >= READ_AHEAD_MIN) {
        r->ahead_posted = 1;
        job_post(&r->ahead, kreader_ahead_fill, r);
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
    uint64_t line = r->lines_before + tn_count_lines(r->buf, off) + 1;
    return source_line(&r->src, kreader_term(r), line);
}

const char *kreader_name(const kreader_t *r)
{
    return r->file.name;
}

const char *kreader_header(const kreader_t *r, size_t *len)
{
    *len = r->header_len;
    return r->header_len ? r->header : NULL;
}

uint64_t kreader_bytes(kreader_t *r)
{
    kreader_ahead_wait(r);   /* its count is only settled once the read-ahead is done */
    return r->bytes;
}

void kreader_close(kreader_t *r)
{
    if (!r)
        return;
    /* A read-ahead's data is not wanted: do not wait for a slow pipe or a terminal
     * to fill a block (read() is a cancellation point). A regular file's read ends
     * soon, and its pool must not be left mid-job: wait for it. */
    if (r->regular)
        job_end(&r->ahead);
    else
        job_cancel(&r->ahead);
    if (r->cfg.binary && r->cfg.carry)
        kreader_carry_count(r->cfg.carry, r->file.name, r->bytes, r->width);
    pool_destroy(r->readers);
    kreader_unmap(r);
    source_close(&r->file);
    free(r->bufs[0]);
    free(r->bufs[1]);
    free(r->keys);
    free(r->packed);
    free(r->header);
    free(r);
}
