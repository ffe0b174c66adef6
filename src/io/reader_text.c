/* SPDX-License-Identifier: MIT */
/* reader_text.c: text blocks scanned into keys by the pool's threads (see reader.h).
 *
 * A block is split at white space into pieces, a few for each thread, which the
 * threads take in turn, so that a thread slowed by page faults or a neighbour holds
 * the block up by a piece at most. Each piece is scanned into its own region of the
 * reader's key buffer and the regions are then packed together; or, where the caller
 * gives memory (kreader_next_into), the pieces' tokens are counted first and each
 * piece is scanned straight to its place.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "io/reader_impl.h"
#include "io/textnum.h"

/* Threads that scan one block, at most; more are left idle. */
#define TEXT_MAX_THREADS 256
#define TEXT_MAX_PIECES (TEXT_MAX_THREADS * READ_PIECES_A_THREAD)

typedef struct {
    kreader_t *r;
    const char *blk;
    char *dst;                               /* where the keys go: the caller's or r->keys */
    int np;                                  /* pieces */
    int next;                                /* the next piece to take (atomic) */
    size_t start[TEXT_MAX_PIECES + 1];       /* piece p is blk[start[p], start[p+1]) */
    size_t koff[TEXT_MAX_PIECES];            /* where piece p's keys go in dst, in keys */
    size_t count[TEXT_MAX_PIECES];           /* piece p's tokens, where counted first */
    size_t dest[TEXT_MAX_PIECES];            /* where they are packed, in keys */
    int used;                                /* pieces packed: those up to a bad token */
    tn_scan_t res[TEXT_MAX_PIECES];
} scan_job_t;

/* The next piece for a thread to take, or j->np when none is left. */
static int text_take(scan_job_t *j)
{
    int p = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
    return p < j->np ? p : j->np;
}

/* Packing: the pieces' keys, up to j->used, copied to their place in r->packed. */
static void text_pack_pieces(void *arg, int t, int n)
{
    (void)t;
    (void)n;
    scan_job_t *j = arg;
    size_t w = (size_t)j->r->width;
    for (int p; (p = text_take(j)) < j->np;)
        if (p < j->used && j->res[p].nkeys)
            memcpy((char *)j->r->packed + j->dest[p] * w, j->dst + j->koff[p] * w,
                   j->res[p].nkeys * w);
}

static void text_scan_pieces(void *arg, int t, int n)
{
    (void)t;
    (void)n;
    scan_job_t *j = arg;
    kreader_t *r = j->r;
    for (int p; (p = text_take(j)) < j->np;)
        tn_scan(j->blk + j->start[p], j->start[p + 1] - j->start[p], r->cfg.km,
                j->dst + j->koff[p] * (size_t)r->width, &j->res[p]);
}

static void text_count_pieces(void *arg, int t, int n)
{
    (void)t;
    (void)n;
    scan_job_t *j = arg;
    for (int p; (p = text_take(j)) < j->np;)
        j->count[p] = tn_count_tokens(j->blk + j->start[p], j->start[p + 1] - j->start[p]);
}

/* Run fn over a block's pieces: on the pool, or on this thread where one thread
 * scans. */
static void text_run_pieces(kreader_t *r, int threads, pool_fn_t fn, scan_job_t *j)
{
    j->next = 0;
    if (threads > 1)
        pool_run(r->cfg.pool, fn, j);
    else
        fn(j, 0, 1);
}

/* 1 where the line around tok[0..len), within blk[0..blen), holds another token:
 * the line is fields, not a number. */
static int text_line_has_more(const char *blk, size_t blen, const char *tok, size_t len)
{
    for (const char *p = tok; p > blk && p[-1] != '\n'; p--)
        if (!tn_is_space((unsigned char)p[-1]))
            return 1;
    for (const char *p = tok + len; p < blk + blen && *p != '\n'; p++)
        if (!tn_is_space((unsigned char)*p))
            return 1;
    return 0;
}

/* The way out for a token that is not an integer, for its message: a word among
 * other tokens is a line of fields (-k); a word alone on line 1, a header
 * (--header); else nothing. */
static const char *text_hint(const kreader_t *r, const char *blk, size_t blen,
                             const char *tok, size_t len, uint64_t line)
{
    unsigned char c = (unsigned char)tok[0];
    int word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    int first = line == 1 && !r->src.header;
    if (!word)
        return "";
    if (text_line_has_more(blk, blen, tok, len))
        return first ? "; to sort lines by a field, use -k (and --header if line 1 is a "
                       "header)"
                     : "; to sort lines by a field, use -k";
    return first ? "; is line 1 a header? (--header)" : "";
}

/* The message of a bad token tok at line, within the block blk[0..blen), or, in a
 * mapped file cut short while it was read (the rest of its last page reads as NUL
 * bytes), of the read error. */
static int text_token_error(kreader_t *r, const tn_scan_t *res, const char *blk, size_t blen,
                            const char *tok, uint64_t line)
{
    struct stat st;
    if (r->mapped && fstat(r->file.fd, &st) == 0 && (uint64_t)st.st_size < r->size)
        return err_set(GS_EIO, "read error on '%s': the file was cut short while being read",
                       r->file.name);
    char q[256], hint[64];
    err_escape(q, sizeof q, tok, res->err_len, 40);
    if (res->status == TN_RANGE)
        return err_set(GS_EINPUT, "%s:%llu: out of range for %s: '%s'%s", r->file.name,
                       (unsigned long long)source_line(&r->src, kreader_term(r), line),
                       key_type_name(r->cfg.km->type), q,
                       key_range_hint(hint, sizeof hint, tok, res->err_len, r->cfg.km->type));
    return err_set(GS_EINPUT, "%s:%llu: not an integer: '%s'%s", r->file.name,
                   (unsigned long long)source_line(&r->src, kreader_term(r), line), q,
                   text_hint(r, blk, blen, tok, res->err_len, line));
}

/* Split blk[0..len) into j->np pieces of about equal shares, each moved forward to
 * white space (some may be empty). */
static void text_cut_pieces(scan_job_t *j, const char *blk, size_t len)
{
    int np = j->np;
    j->start[0] = 0;
    for (int p = 1; p <= np; p++) {
        size_t s = p == np ? len : (size_t)((unsigned __int128)len * p / np);
        if (s < j->start[p - 1])
            s = j->start[p - 1];
        while (s < len && !tn_is_space((unsigned char)blk[s]))
            s++;
        j->start[p] = s;
    }
}

/* Where the block's keys go: the caller's memory, where it gives room for the
 * pieces' tokens (counted first), else r->keys, a region for each piece at most as
 * large as its bytes allow. GS_OK or GS_ENOMEM. */
static int text_place_keys(kreader_t *r, scan_job_t *j, int threads, const kreader_room_t *room)
{
    int np = j->np;
    j->dst = NULL;
    if (room) {
        text_run_pieces(r, threads, text_count_pieces, j);
        size_t total = 0;
        for (int p = 0; p < np; p++) {
            j->koff[p] = total;
            total += j->count[p];
        }
        if (total)
            j->dst = room->fn(room->arg, total);
    }
    if (j->dst)
        return GS_OK;
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
            return err_set(GS_ENOMEM, "out of memory");
        }
        r->keycap = need;
    }
    j->dst = r->keys;
    return GS_OK;
}

/* Scan blk[0..len) into the caller's memory or r->keys (text_place_keys), packed
 * where pieces left gaps; set *n, and r->out to the keys or NULL (in the caller's
 * memory). A bad token sets r->pending after the keys before it have been kept. */
static int text_scan_block(kreader_t *r, const char *blk, size_t len,
                           const kreader_room_t *room, size_t *n)
{
    int threads = pool_size(r->cfg.pool);
    if (threads > TEXT_MAX_THREADS)
        threads = TEXT_MAX_THREADS;
    if (len < READ_PARALLEL_MIN)
        threads = 1;
    scan_job_t *j = malloc(sizeof *j);
    if (!j)
        return err_set(GS_ENOMEM, "out of memory");
    j->r = r;
    j->blk = blk;
    j->np = threads > 1 ? threads * READ_PIECES_A_THREAD : 1;
    text_cut_pieces(j, blk, len);

    double t0 = stats_now();
    int rc = text_place_keys(r, j, threads, room);
    if (rc) {
        free(j);
        return rc;
    }
    int placed = j->dst != r->keys;
    int np = j->np;
    text_run_pieces(r, threads, text_scan_pieces, j);

    /* The keys up to the first bad token. Placed, they lie together already (a
     * piece without one has exactly its tokens' keys). Else they are packed: in
     * place where only the first piece has keys, else into a buffer of their own,
     * piece by piece on the pool's threads where there are many. */
    size_t total = 0, moved = 0;
    uint64_t lines = 0;
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
            r->pending = text_token_error(r, res, blk, len, blk + j->start[p] + res->err_off,
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
        text_run_pieces(r, total * (size_t)r->width >= READ_PARALLEL_MIN ? threads : 1,
                        text_pack_pieces, j);
        r->out = r->packed;
    }
    stats_add(ST_PARSE, len, stats_now() - t0);
    r->block_lines = lines;
    free(j);
    *n = total;
    return GS_OK;
}

int kreader_next_text(kreader_t *r, const kreader_room_t *room, const void **keys, size_t *n)
{
    for (;;) {
        r->lines_before += r->block_lines;
        r->block_lines = 0;
        int rc = kreader_advance(r);
        if (rc)
            return rc;
        if (r->used == 0)
            return GS_OK;   /* the end */
        rc = text_scan_block(r, r->buf, r->used, room, n);
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
