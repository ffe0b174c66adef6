/* SPDX-License-Identifier: MIT */
/* pieces.c: bytes made in pieces by many threads, written where they belong (see
 * pieces.h): laid out in the file's mapped pages (placed.c) or at their offsets
 * (spread.c), else in their order, each thread's bytes of a piece held until its
 * turn (turns.h). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "core/tuning.h"
#include "io/output_impl.h"
#include "io/pieces.h"
#include "io/textnum.h"

static int pieces_write(void *ctx, const void *bytes, size_t len)
{
    return output_write_bytes(ctx, bytes, len);
}

int pieces_begin(pieces_t *P, output_t *out, uint64_t total, const char *header, size_t hlen)
{
    *P = (pieces_t){ .how = PIECES_IN_ORDER, .out = out, .put = pieces_write, .ctx = out,
                     .fd = -1, .total = total, .hlen = hlen };
    turns_init(&P->turns);
    int rc = GS_OK;
    if (total > 0) {
        rc = output_place_begin(out, total, &P->base);
        if (rc == GS_OK && P->base) {
            P->how = PIECES_MAPPED;
            P->map = P->base + hlen;
            if (hlen) {
                char *at = P->base, *released = P->base;
                memcpy(at, header, hlen);
                output_placed(out, &at, at + hlen, P->base + total, &released);
            }
            return GS_OK;
        }
        if (rc == GS_OK)
            rc = output_spread_begin(out, total, &P->fd, &P->pos);
        if (rc == GS_OK && P->fd >= 0) {
            P->how = PIECES_AT;
            if (hlen)
                rc = output_spread_write(out, P->fd, header, hlen, P->pos);
            P->pos += hlen;
            return rc;
        }
    }
    P->give = output_gives(out);
    return rc == GS_OK && hlen ? output_write_bytes(out, header, hlen) : rc;
}

void pieces_begin_put(pieces_t *P, turns_put_fn put, void *ctx, size_t width)
{
    *P = (pieces_t){ .how = PIECES_IN_ORDER, .put = put, .ctx = ctx, .width = width,
                     .fd = -1 };
    turns_init(&P->turns);
}

int pieces_end(pieces_t *P, int rc)
{
    rc = rc ? rc : turns_rc(&P->turns);
    int rc2 = GS_OK;
    if (P->how == PIECES_MAPPED)
        rc2 = output_place_end(P->out, P->base, P->total, rc == GS_OK);
    else if (P->how == PIECES_AT)
        rc2 = output_spread_end(P->out, P->pos - P->hlen, P->total, rc == GS_OK);
    turns_destroy(&P->turns);
    return rc ? rc : rc2;
}

/* ---- a thread's window ------------------------------------------------------------- */

/* Bytes a window fills between two calls, laid out: as many as placed text fills
 * between two releases of its pages (the tests ask for few). */
static size_t window_step(const pieces_t *P)
{
    return P->out->cfg.map_release ? P->out->cfg.map_release : WRITE_RELEASE;
}

/* Given: a window's mapping, fresh pages enough for n bytes. */
static size_t give_size(const piece_t *w, size_t n)
{
    size_t size = w->cap0 > WRITE_GIVE_PIECE ? w->cap0 : WRITE_GIVE_PIECE;
    return n > size ? n : size;
}

/* In order: where the window's bytes may reach: its buffer's end; given, also no
 * more than the hold past the first byte held. */
static void piece_order_end(piece_t *w)
{
    w->end = w->buf + w->cap;
    if (w->P->give && (size_t)(w->end - w->held) > w->cap0)
        w->end = w->held + w->cap0;
}

/* Given, where nothing is held: fresh pages where the mapping's rest is shorter than
 * n bytes (those given stay the pipe's), and the window's end set: 0; -1 where there
 * is no memory (nothing changed). */
static int piece_fresh(piece_t *w, size_t n)
{
    if ((size_t)(w->buf + w->cap - w->p) < n) {
        size_t size = give_size(w, n);
        char *b = mem_map(size);
        if (!b)
            return -1;
        mem_unmap(w->buf, w->cap);
        w->buf = w->p = w->held = b;
        w->cap = size;
    }
    piece_order_end(w);
    return 0;
}

int piece_init(pieces_t *P, size_t hold, piece_t *w)
{
    *w = (piece_t){ .P = P };
    if (P->how == PIECES_MAPPED)
        return GS_OK;
    size_t cap = hold ? hold : WINDOW_BUF;
    if (P->how == PIECES_AT && cap > WINDOW_BUF)
        cap = WINDOW_BUF;
    w->cap0 = cap;
    if (P->give)
        cap = give_size(w, 0);
    if (!(w->buf = P->give ? mem_map(cap) : malloc(cap)))
        return err_set(GS_ENOMEM, "out of memory");
    w->cap = cap;
    w->held = w->buf;
    return GS_OK;
}

void piece_free(piece_t *w)
{
    if (w->P && w->P->give)
        mem_unmap(w->buf, w->cap);   /* the pipe keeps the pages it was given */
    else
        free(w->buf);
    w->buf = w->p = w->lim = w->end = w->held = NULL;
}

void piece_start(piece_t *w, size_t index, uint64_t off, uint64_t len)
{
    const pieces_t *P = w->P;
    w->index = index;
    switch (P->how) {
    case PIECES_MAPPED: {
        w->p = w->mark = w->released = P->map + off;
        w->stop = w->end = w->p + len;
        size_t step = window_step(P);
        w->lim = len > step ? w->p + step : w->stop;
        break;
    }
    case PIECES_AT:
        w->p = w->buf;
        w->lim = w->end = w->buf + w->cap;
        w->off = P->pos + off;
        w->left = len;
        break;
    default:   /* in order: a room call every TURNS_STREAM bytes, to hand them on early */
        w->p = w->held;
        /* given: room for a whole hold, so that the piece is made, up to the hold,
         * before its turn, never the rest on its turn with every later one waiting
         * (no memory: the room left, and the room call's error) */
        if (!P->give || piece_fresh(w, w->cap0) != 0)
            piece_order_end(w);
        w->lim = (size_t)(w->end - w->p) > TURNS_STREAM ? w->p + TURNS_STREAM : w->end;
        break;
    }
}

/* Laid out wrong: more bytes than the piece's stretch holds. */
static int piece_longer(void)
{
    return err_set(GS_EIO, "internal error: laid-out bytes longer than measured");
}

/* At offsets: the buffer's bytes written at their offset. */
static int piece_flush(piece_t *w)
{
    size_t n = (size_t)(w->p - w->buf);
    if (n == 0)
        return GS_OK;
    if (n > w->left)
        return piece_longer();
    int rc = output_spread_write(w->P->out, w->P->fd, w->buf, n, w->off);
    w->off += n;
    w->left -= n;
    w->p = w->buf;
    return rc;
}

/* In order: the bytes held handed on (the thread holds the piece's turn); the
 * buffer filled again from its start, or given, on after them. */
static int piece_hand_on(piece_t *w)
{
    const pieces_t *P = w->P;
    size_t len = (size_t)(w->p - w->held);
    int rc = GS_OK;
    if (len)
        rc = P->give ? output_give(P->out, NULL, 0, w->held, len) : P->put(P->ctx, w->held, len);
    w->held = w->p = P->give ? w->p : w->buf;
    piece_order_end(w);
    return rc;
}

/* In order: the piece's turn waited for, and the bytes held handed on. */
static int piece_wait_hand_on(piece_t *w)
{
    if (turns_wait(&w->P->turns, w->index))
        return GS_EIO;   /* another thread's error is the one reported */
    return piece_hand_on(w);
}

/* Room for n bytes where the buffer (at offsets, in order) holds nothing now: grown
 * for n bytes longer than it (one record, say), until the piece's end; given,
 * fresh pages where the mapping's rest is too short (those given stay the pipe's),
 * and the hold stretched to n. */
static int piece_grow(piece_t *w, size_t n)
{
    if (w->P->give) {
        if (piece_fresh(w, n) != 0)
            return err_set(GS_ENOMEM, "out of memory");
        if ((size_t)(w->end - w->p) < n)
            w->end = w->p + n;   /* one unit longer than the hold */
        return GS_OK;
    }
    char *b = realloc(w->buf, n);
    if (!b)
        return err_set(GS_ENOMEM, "out of memory");
    w->buf = w->p = w->held = b;
    w->cap = n;
    w->end = b + n;
    return GS_OK;
}

int piece_room(piece_t *w, size_t n)
{
    pieces_t *P = w->P;
    int rc = GS_OK;
    switch (P->how) {
    case PIECES_MAPPED: {
        output_placed(P->out, &w->mark, w->p, w->stop, &w->released);   /* counted; */
        if ((size_t)(w->stop - w->p) < n)                      /* pages let go every step */
            return piece_longer();
        /* The next call once p passes the next release's point (pieces of about n
         * bytes), so that a thread holds about a step of pages, never two. */
        char *due = w->released + window_step(P);
        due = due > w->p ? due : w->p;
        w->lim = (size_t)(w->stop - due) > n ? due + n : w->stop;
        return GS_OK;
    }
    case PIECES_AT:
        if ((rc = piece_flush(w)) != GS_OK)
            return rc;
        if (n > w->left)
            return piece_longer();
        if (w->cap < n)
            rc = piece_grow(w, n);
        w->lim = w->end;
        return rc;
    default:
        /* On the piece's turn, what is held goes now, while it is in the cache;
         * else it waits for the turn only where it holds bytes and n more would
         * not fit. */
        if (w->p > w->held && turns_mine(&P->turns, w->index))
            rc = piece_hand_on(w);
        else if (w->p > w->held && (size_t)(w->end - w->p) < n)
            rc = piece_wait_hand_on(w);
        if (rc == GS_OK && (size_t)(w->end - w->p) < n)
            rc = piece_grow(w, n);
        size_t step = n > TURNS_STREAM ? n : TURNS_STREAM;
        w->lim = (size_t)(w->end - w->p) > step ? w->p + step : w->end;
        return rc;
    }
}

/* A buffer grown for a piece back to its first size (it holds nothing). */
static void piece_shrink(piece_t *w)
{
    char *b;
    if (w->cap > w->cap0 && (b = realloc(w->buf, w->cap0)) != NULL) {
        w->buf = w->p = w->held = b;
        w->cap = w->cap0;
    }
}

int piece_end(piece_t *w, int ok)
{
    pieces_t *P = w->P;
    int rc = GS_OK;
    switch (P->how) {
    case PIECES_MAPPED:
        if (ok)
            output_placed(P->out, &w->mark, w->p, w->stop, &w->released);
        if (ok && w->p != w->stop)
            rc = err_set(GS_EIO, "internal error: laid-out bytes %s than measured",
                         w->p < w->stop ? "shorter" : "longer");
        return rc;
    case PIECES_AT:
        if (ok)
            rc = piece_flush(w);
        if (ok && rc == GS_OK && w->left)
            rc = err_set(GS_EIO, "internal error: laid-out bytes shorter than measured");
        break;
    default:
        if (ok && (rc = piece_wait_hand_on(w)) == GS_OK)
            turns_pass(&P->turns, w->index);
        if (P->give) {   /* on in the same pages: what a failure left is dropped */
            w->held = w->p;
            return rc;
        }
        break;
    }
    w->p = w->held = w->buf;
    piece_shrink(w);
    return rc;
}

/* ---- keys through a window --------------------------------------------------------- */

/* Laid out: the piece's bytes not yet put (mapped, up to its end; at offsets,
 * those the buffer does not hold). */
static uint64_t piece_left(const piece_t *w)
{
    return w->P->how == PIECES_MAPPED ? (uint64_t)(w->stop - w->p)
                                      : w->left - (uint64_t)(w->p - w->buf);
}

/* The last keys of a stretch of text go through a buffer of their own: the
 * formatter stores up to 16 bytes past a line's end, which must not reach past the
 * stretch (each line has 2 bytes or more). */
#define PIECE_TAIL 16

/* n keys of text at w->p, where fewer than n * TN_MAX_LINE + PIECE_TAIL bytes are
 * left in the stretch: their bytes measured, and the last keys formatted aside. */
static int piece_text_last(piece_t *w, const char *keys, size_t n)
{
    const output_t *o = w->P->out;
    const keymap_t *km = o->cfg.km;
    size_t bytes = tn_format_bytes(keys, n, km);
    if (bytes > piece_left(w))
        return piece_longer();
    int rc = piece_need(w, bytes);
    if (rc)
        return rc;
    size_t head = n > PIECE_TAIL ? n - PIECE_TAIL : 0;
    w->p += tn_format_lines(keys, head, km, output_term(o), w->p);
    char tail[PIECE_TAIL * TN_MAX_LINE + 16];
    size_t tlen = tn_format_lines(keys + head * (size_t)km->width, n - head, km,
                                  output_term(o), tail);
    memcpy(w->p, tail, tlen);
    w->p += tlen;
    return GS_OK;
}

int piece_keys(piece_t *w, const void *keys, size_t n)
{
    const pieces_t *P = w->P;
    const output_t *o = P->out;
    if (!o || P->how == PIECES_IN_ORDER) {
        /* In order: formatted as the output formats them (counted as such), or a
         * put's keys as they are; whole keys at every hand-on (a run counts them). */
        size_t kw = o ? (size_t)o->cfg.km->width : P->width, kb = o ? output_max_bytes(o) : kw;
        size_t step = o ? WRITE_KEYS_A_THREAD : TURNS_STREAM / kw;
        step = step ? step : 1;
        for (size_t k = 0, m; k < n; k += m) {
            m = n - k < step ? n - k : step;
            const char *src = (const char *)keys + k * kw;
            int rc = piece_need(w, m * kb);
            if (rc)
                return rc;
            if (o) {
                w->p += output_format(o, src, m, w->p);
            } else {
                memcpy(w->p, src, m * kw);
                w->p += m * kw;
            }
        }
        return GS_OK;
    }
    const keymap_t *km = o->cfg.km;
    size_t kw = (size_t)km->width;
    int binary = o->cfg.binary, identity = binary && key_identity(km, o->cfg.big_endian);
    /* Keys a call: a step of the window's bytes, binary; text, a batch of lines. */
    size_t step = binary ? window_step(P) / kw : WRITE_KEYS_A_THREAD;
    step = step ? step : 1;
    for (size_t k = 0; k < n;) {
        size_t m = n - k < step ? n - k : step;
        const char *src = (const char *)keys + k * kw;
        int rc;
        if (binary) {
            if ((rc = piece_need(w, m * kw)) == GS_OK) {
                if (identity)
                    memcpy(w->p, src, m * kw);
                else
                    key_encode(src, w->p, m, km, o->cfg.big_endian);
                w->p += m * kw;
            }
        } else if (piece_left(w) < (uint64_t)m * TN_MAX_LINE + PIECE_TAIL) {
            rc = piece_text_last(w, src, m);
        } else if ((rc = piece_need(w, m * TN_MAX_LINE + PIECE_TAIL)) == GS_OK) {
            w->p += tn_format_lines(src, m, km, output_term(o), w->p);
        }
        if (rc)
            return rc;
        k += m;
    }
    return GS_OK;
}

int piece_put(piece_t *w, const void *bytes, size_t len)
{
    /* a window's room at a time: pages let go of, the buffer written, or the bytes
     * handed on, as it fills */
    for (size_t at = 0, m; at < len; at += m) {
        int rc = piece_need(w, 1);
        if (rc)
            return rc;
        m = (size_t)(w->lim - w->p);
        m = m < len - at ? m : len - at;
        memcpy(w->p, (const char *)bytes + at, m);
        w->p += m;
    }
    return GS_OK;
}
