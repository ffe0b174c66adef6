/* SPDX-License-Identifier: MIT */
/* spill_cursor.c: a run's cursor for the merge of spilled records (spill_merge.c; a
 * source of rmerge.h):
 * the run's blocks read back from its files (a block and its header in one read,
 * checked, decompressed where stored with LZ4), each record's end and word found
 * (by ends.h's masks where -t names a byte), and the seek to the first record of a
 * piece's key. The cursor and the merge's state: spill_impl.h.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fdio.h"
#include "core/keys.h"
#include "records/ends.h"
#include "records/field.h"
#include "records/rkey.h"
#include "records/spill_impl.h"
#include "store/codec.h"

static int spill_damaged(const rspill_t *s, const sblock_t *b)
{
    return err_set(GS_EIO, "read error on temporary file '%s': its contents are damaged",
                   s->files[b->file].path);
}

/* Bytes a block's buffer holds past its records, zeroed: field_parse_quick() reads
 * 16 bytes from a key's start. */
#define SPILL_SLACK 16

/* *buf, of *cap bytes, grown to at least n + SPILL_SLACK: 1, or 0 when out of
 * memory. */
static int spill_reserve(char **buf, size_t *cap, size_t n)
{
    n += SPILL_SLACK;
    if (n <= *cap)
        return 1;
    char *b = realloc(*buf, n);
    if (!b)
        return 0;
    *buf = b;
    *cap = n;
    return 1;
}

/* The next block of cursor c: its records from c->raw + c->pos up to c->raw_len (0 at
 * the run's end). A block and its header come in one read, at the offset and
 * of the length the index gives; a block stored as it is stays where it was read,
 * after its header, and a compressed one is decompressed into c->raw. */
static int spill_load(const smerge_t *m, sown_t *t, scur_t *c)
{
    rspill_t *s = m->s;
    c->rawoff += c->raw_len - c->base;
    c->raw_len = c->pos = c->base = 0;
    if (c->blk == c->bend)
        return GS_OK;
    const sblock_t *b = &s->blocks[c->blk];
    size_t want = CODEC_HEAD + (size_t)b->stored, got, len, stored;
    if (!spill_reserve(&t->comp, &t->comp_cap, want))
        return err_set(GS_ENOMEM, "out of memory");
    int e = fdio_read(s->files[b->file].fd, t->comp, want, (int64_t)b->off, &got);
    if (e)
        return err_sys(GS_EIO, e, "read error on temporary file '%s'", s->files[b->file].path);
    const char *h = t->comp;
    if (got < want || codec_block_head(h, got, &len, &stored) || len == 0 ||
        stored != b->stored)
        return spill_damaged(s, b);
    if (stored == len) {   /* the records as they are: read where they lie */
        char *x = c->raw;
        size_t xc = c->raw_cap;
        c->raw = t->comp;
        c->raw_cap = t->comp_cap;
        t->comp = x;
        t->comp_cap = xc;
        c->base = c->pos = CODEC_HEAD;
        c->raw_len = CODEC_HEAD + len;
    } else {
        if (!spill_reserve(&c->raw, &c->raw_cap, len))
            return err_set(GS_ENOMEM, "out of memory");
        if (!codec_block_content(h, len, stored, c->raw))
            return spill_damaged(s, b);
        c->raw_len = len;
    }
    memset(c->raw + c->raw_len, 0, SPILL_SLACK);
    if (m->by_masks)
        ends_init(&c->ends, c->raw + c->base, c->raw_len - c->base, m->term,
                  (char)s->set->field_sep);
    c->blk++;
    return GS_OK;
}

/* Move cursor c to its next record and take its key: GS_OK, c->rec NULL at the
 * run's end. */
static int spill_advance(void *ctx, void *own, rcur_t *cur)
{
    const smerge_t *m = ctx;
    scur_t *c = (scur_t *)cur;
    const settings_t *set = m->s->set;
    if (c->pos == c->raw_len) {
        int rc = spill_load(m, own, c);
        if (rc)
            return rc;
        if (c->raw_len == 0) {
            c->c.rec = NULL;
            c->c.key = UINT64_MAX;
            return GS_OK;
        }
    }
    const char *p = c->raw + c->pos;
    size_t left = c->raw_len - c->pos;
    uint64_t raw = 0;
    if (set->record_size) {
        if (left < set->record_size)
            return spill_damaged(m->s, &m->s->blocks[c->blk - 1]);
        c->c.len = set->record_size;
        c->c.key = rkey_word_binary(&m->rk, p);
    } else if (m->by_masks) {
        /* As the table indexes a line (table.c): field f lies between the line's
         * (f-1)th separator and the next separator or its terminator. */
        const char *base = c->raw + c->base;
        size_t s = c->pos - c->base, e, fb = 0, fe = SIZE_MAX;
        int f = set->keys[0].sfield, field = 1;
        for (;;) {
            e = ends_next(&c->ends);
            if (e == c->ends.len)
                return spill_damaged(m->s, &m->s->blocks[c->blk - 1]);
            if (base[e] == m->term)
                break;
            if (field == f)
                fe = e - s;
            if (++field == f)
                fb = e + 1 - s;
        }
        if (fe == SIZE_MAX)
            fe = e - s;   /* the key is the line's last field */
        if (field < f ||
            field_parse_quick(p, fb, fe, m->rk.km.type, m->pos_max, &raw) != FIELD_OK)
            return spill_damaged(m->s, &m->s->blocks[c->blk - 1]);
        c->c.len = e - s + 1;
        c->c.key = key_map(&m->rk.km, raw);
        if (m->rk.km.width == 4)
            c->c.key &= 0xFFFFFFFFull;
    } else {
        const char *e = memchr(p, m->term, left);
        rkey_bad_t bad;
        if (!e || rkey_word(&m->rk, p, (size_t)(e - p), &c->c.key, &bad) != RKEY_OK)
            return spill_damaged(m->s, &m->s->blocks[c->blk - 1]);
        c->c.len = (size_t)(e - p) + 1;
    }
    c->c.rec = p;
    c->c.end = c->raw + c->raw_len;
    c->pos += c->c.len;
    return GS_OK;
}

/* Cursor c at run r's first record of key lo or above (has_lo; else its first), and
 * *at (where not NULL) the run's bytes before that record. */
static int spill_seek(void *ctx, void *own, rcur_t *cur, size_t r, uint64_t lo,
                      int has_lo, uint64_t *at)
{
    const smerge_t *m = ctx;
    scur_t *c = (scur_t *)cur;
    rspill_t *s = m->s;
    const srun_t *run = &m->runs[r];
    const sblock_t *b = s->blocks + run->block0;
    /* The last block whose first key is below lo: the records before it are too. */
    size_t a = 0, z = run->nblocks;
    while (has_lo && z - a > 1) {
        size_t mid = a + (z - a) / 2;
        if (b[mid].key < lo)
            a = mid;
        else
            z = mid;
    }
    c->blk = run->block0 + a;
    c->bend = run->block0 + run->nblocks;
    c->raw_len = c->pos = c->base = 0;
    c->rawoff = run->nblocks ? b[a].raw : 0;
    int rc;
    do
        rc = spill_advance(ctx, own, cur);
    while (rc == GS_OK && c->c.rec && has_lo && c->c.key < lo);
    if (at)
        *at = c->c.rec ? c->rawoff + (c->pos - c->base) - c->c.len : run->raw;
    return rc;
}

static void spill_cur_free(rcur_t *cur)
{
    free(((scur_t *)cur)->raw);
}

static void spill_own_free(void *own)
{
    free(((sown_t *)own)->comp);
}

const rmerge_src_t spill_source = {
    .cur_size = sizeof(scur_t),
    .own_size = sizeof(sown_t),
    .seek = spill_seek,
    .advance = spill_advance,
    .cur_free = spill_cur_free,
    .own_free = spill_own_free,
};
