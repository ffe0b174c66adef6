/* SPDX-License-Identifier: MIT */
/* layout.c: bytes laid out ahead, and the way they are written chosen (see
 * output.h): the file's mapped pages where it can be mapped (placed.c), else
 * pwrite at their offsets (spread.c), else in order; the callers' threads write
 * their stretches through windows, the same calls either way. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/tuning.h"
#include "io/output_impl.h"
#include "io/textnum.h"

int output_layout_begin(output_t *o, uint64_t total, const char *header, size_t hlen,
                        output_layout_t *L)
{
    *L = (output_layout_t){ .how = LAYOUT_IN_ORDER, .fd = -1, .total = total, .hlen = hlen };
    int rc = GS_OK;
    if (total > 0) {
        rc = output_place_begin(o, total, &L->base);
        if (rc == GS_OK && L->base) {
            L->how = LAYOUT_MAPPED;
            L->map = L->base + hlen;
            if (hlen) {
                char *at = L->base, *released = L->base;
                memcpy(at, header, hlen);
                output_placed(o, &at, at + hlen, L->base + total, &released);
            }
            return GS_OK;
        }
        if (rc == GS_OK)
            rc = output_spread_begin(o, total, &L->fd, &L->pos);
        if (rc == GS_OK && L->fd >= 0) {
            L->how = LAYOUT_AT;
            if (hlen)
                rc = output_spread_write(o, L->fd, header, hlen, L->pos);
            L->pos += hlen;
            return rc;
        }
    }
    return rc == GS_OK && hlen ? output_write_bytes(o, header, hlen) : rc;
}

int output_layout_end(output_t *o, output_layout_t *L, int ok)
{
    switch (L->how) {
    case LAYOUT_MAPPED:
        return output_place_end(o, L->base, L->total, ok);
    case LAYOUT_AT:
        return output_spread_end(o, L->pos - L->hlen, L->total, ok);
    default:
        return GS_OK;
    }
}

/* ---- windows: a thread's stretch, either way -------------------------------------- */

/* Bytes a window fills between two calls: as many as placed text fills between
 * two releases of its pages (the tests ask for few). */
static size_t window_step(const output_t *o)
{
    return o->cfg.map_release ? o->cfg.map_release : WRITE_RELEASE;
}

int output_window_open(const output_t *o, const output_layout_t *L, uint64_t off,
                       uint64_t len, size_t buf, output_window_t *w)
{
    *w = (output_window_t){ .L = L };
    if (L->how == LAYOUT_MAPPED) {
        w->p = w->mark = w->released = L->map + off;
        w->stop = w->end = w->p + len;
        size_t step = window_step(o);
        w->lim = len > step ? w->p + step : w->stop;
        return GS_OK;
    }
    size_t cap = buf ? buf : WINDOW_BUF;
    cap = len < cap ? (size_t)len : cap;
    if (!(w->mark = malloc(cap ? cap : 1)))
        return err_set(GS_ENOMEM, "out of memory");
    w->p = w->mark;
    w->lim = w->end = w->mark + cap;
    w->off = L->pos + off;
    w->left = len;
    return GS_OK;
}

/* At offsets: the buffer's bytes written at their offset. */
static int window_flush(const output_t *o, output_window_t *w)
{
    size_t n = (size_t)(w->p - w->mark);
    if (n == 0)
        return GS_OK;
    if (n > w->left)
        return err_set(GS_EIO, "internal error: laid-out bytes longer than measured");
    int rc = output_spread_write(o, w->L->fd, w->mark, n, w->off);
    w->off += n;
    w->left -= n;
    w->p = w->mark;
    return rc;
}

int output_window_room(const output_t *o, output_window_t *w, size_t n)
{
    if (w->L->how == LAYOUT_MAPPED) {
        output_placed(o, &w->mark, w->p, w->stop, &w->released);   /* counted; pages let */
        if ((size_t)(w->stop - w->p) < n)                          /* go every step */
            return err_set(GS_EIO, "internal error: laid-out bytes longer than measured");
        /* The next call once p passes the next release's point (pieces of about n
         * bytes), so that a thread holds about a step of pages, never two. */
        char *due = w->released + window_step(o);
        due = due > w->p ? due : w->p;
        w->lim = (size_t)(w->stop - due) > n ? due + n : w->stop;
        return GS_OK;
    }
    int rc = window_flush(o, w);
    if (rc)
        return rc;
    if (n > w->left)
        return err_set(GS_EIO, "internal error: laid-out bytes longer than measured");
    if ((size_t)(w->end - w->mark) < n) {   /* one piece longer than the buffer */
        char *b = realloc(w->mark, n);
        if (!b)
            return err_set(GS_ENOMEM, "out of memory");
        w->mark = w->p = b;
        w->lim = w->end = b + n;
    }
    return GS_OK;
}

int output_window_close(const output_t *o, output_window_t *w, int ok)
{
    int rc = GS_OK;
    if (w->L->how == LAYOUT_MAPPED) {
        if (ok)
            output_placed(o, &w->mark, w->p, w->stop, &w->released);
        if (ok && w->p != w->stop)
            rc = err_set(GS_EIO, "internal error: laid-out bytes %s than measured",
                         w->p < w->stop ? "shorter" : "longer");
        return rc;
    }
    if (ok)
        rc = window_flush(o, w);
    if (ok && rc == GS_OK && w->left)
        rc = err_set(GS_EIO, "internal error: laid-out bytes shorter than measured");
    free(w->mark);
    w->mark = w->p = w->lim = w->end = NULL;
    return rc;
}

/* ---- keys through a window ----------------------------------------------------------- */

/* The stretch's bytes not yet put (mapped: up to its end; at offsets: those the
 * buffer does not hold). */
static uint64_t window_left(const output_window_t *w)
{
    return w->L->how == LAYOUT_MAPPED ? (uint64_t)(w->stop - w->p)
                                      : w->left - (uint64_t)(w->p - w->mark);
}

/* The last keys of a stretch of text go through a buffer of their own: the
 * formatter stores up to 16 bytes past a line's end, which must not reach past the
 * stretch (each line has 2 bytes or more). */
#define WINDOW_TAIL 16

/* n keys of text at w->p, where fewer than n * TN_MAX_LINE + WINDOW_TAIL bytes are
 * left in the stretch: their bytes measured, and the last keys formatted aside. */
static int window_text_last(const output_t *o, output_window_t *w, const char *keys, size_t n)
{
    const keymap_t *km = o->cfg.km;
    size_t bytes = tn_format_bytes(keys, n, km);
    if (bytes > window_left(w))
        return err_set(GS_EIO, "internal error: laid-out bytes longer than measured");
    int rc = output_window_need(o, w, bytes);
    if (rc)
        return rc;
    size_t head = n > WINDOW_TAIL ? n - WINDOW_TAIL : 0;
    w->p += tn_format_lines(keys, head, km, output_term(o), w->p);
    char tail[WINDOW_TAIL * TN_MAX_LINE + 16];
    size_t tlen = tn_format_lines(keys + head * (size_t)km->width, n - head, km,
                                  output_term(o), tail);
    memcpy(w->p, tail, tlen);
    w->p += tlen;
    return GS_OK;
}

int output_window_keys(const output_t *o, output_window_t *w, const void *keys, size_t n)
{
    const keymap_t *km = o->cfg.km;
    size_t kw = (size_t)km->width;
    int binary = o->cfg.binary, identity = binary && key_identity(km, o->cfg.big_endian);
    /* Keys a call: a step of the window's bytes, binary; text, a batch of lines. */
    size_t step = binary ? window_step(o) / kw : WRITE_KEYS_A_THREAD;
    step = step ? step : 1;
    for (size_t k = 0; k < n;) {
        size_t m = n - k < step ? n - k : step;
        const char *src = (const char *)keys + k * kw;
        int rc;
        if (binary) {
            if ((rc = output_window_need(o, w, m * kw)) == GS_OK) {
                if (identity)
                    memcpy(w->p, src, m * kw);
                else
                    key_encode(src, w->p, m, km, o->cfg.big_endian);
                w->p += m * kw;
            }
        } else if (window_left(w) < (uint64_t)m * TN_MAX_LINE + WINDOW_TAIL) {
            rc = window_text_last(o, w, src, m);
        } else if ((rc = output_window_need(o, w, m * TN_MAX_LINE + WINDOW_TAIL)) == GS_OK) {
            w->p += tn_format_lines(src, m, km, output_term(o), w->p);
        }
        if (rc)
            return rc;
        k += m;
    }
    return GS_OK;
}

int output_window_put(const output_t *o, output_window_t *w, const void *bytes, size_t len)
{
    /* a window's room at a time: pages let go of, or the buffer written, as it fills */
    for (size_t at = 0, m; at < len; at += m) {
        int rc = output_window_need(o, w, 1);
        if (rc)
            return rc;
        m = (size_t)(w->lim - w->p);
        m = m < len - at ? m : len - at;
        memcpy(w->p, (const char *)bytes + at, m);
        w->p += m;
    }
    return GS_OK;
}
