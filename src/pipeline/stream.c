/* SPDX-License-Identifier: MIT */
/* stream.c: binary keys, or binary records, streamed through a GPU, never whole in
 * host memory.
 *
 * Where every input is a named regular file of binary keys (standard input is read
 * from where it stands, the plain way), the output is binary too, and one GPU holds
 * every key at once, the sort needs no chunk in host memory: the sorter
 * (sorter_stream_load) has each slice of the inputs read by the reader's threads
 * straight into the GPU's pinned staging buffers, and decoded there, while the
 * slice before crosses PCIe; it sorts the keys on the GPU and hands them back a
 * slice at a time, each one written while the next crosses; or, bound for a file
 * (-o, or a regular file on standard output) with every key kept, every thread
 * brings its own range of ranks back and places it in the file mapped (ext4 takes
 * one write(2) at a time per file). Binary records (--record-size) of a sort go the
 * same way, read as they are: the GPU takes their keys out, sorts them with their
 * indices (equal keys in input order), and gathers the records in that order as
 * they go back; -u keeps the first record of each run of equal keys.
 *
 * Nothing is written before every input is read: the output is opened only then,
 * so an input error leaves no output and -o may name an input. Anything else, or
 * a sorter that declines (the CPU, several GPUs, more than one holds), takes the
 * chunked sort (sort.c) or the records' table (records.c), which then read the
 * inputs from their start.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/tuning.h"
#include "io/pieces.h"
#include "pipeline/ctx.h"

typedef struct {
    ctx_t *c;
    size_t w;                /* an item's bytes: a key's, or a record's */
    const sorter_records_t *rec;   /* records: their shape; NULL: keys */
    /* the inputs, read in turn (fill) */
    kreader_cfg_t cfg;
    carry_t carry;           /* a partial key carried from one input to the next */
    int next;                /* the next input to open */
    kreader_t *r;            /* the input being read, or NULL */
    int ended;               /* 1: every input was read to its end */
    /* the output (drain, or place) */
    output_t *out;
    pieces_t P;              /* the items as pieces of it (laid out: placed) */
    int begun;               /* 1: P begun, for pieces_end() */
    int unique;              /* -u: the first of each run of equal keys */
    uint64_t last;           /* with -u: the last key written (a record's key's bytes
                                as they are), */
    int have_last;           /* once there is one */
    int writing;             /* 1 once the first slice came back */
} stream_t;

/* sorter_stream_t.fill: the next items of the inputs, read straight into buf. */
static int stream_fill(void *self, void *buf, size_t max, size_t *n)
{
    stream_t *s = self;
    const settings_t *set = s->c->set;
    int rc;
    *n = 0;
    while (*n < max && !s->ended) {
        if (!s->r) {
            if (s->next == set->nsources) {
                s->ended = 1;
                break;
            }
            if ((rc = kreader_open(&s->r, &set->sources[s->next++], &s->cfg)) != GS_OK)
                return rc;
            if (!kreader_direct(s->r))   /* stream_run asked for regular files */
                return err_set(GS_EIO, "internal error: '%s' cannot be read directly",
                               kreader_name(s->r));
        }
        size_t got;
        if ((rc = kreader_read_keys(s->r, (char *)buf + *n * s->w, max - *n, &got)) != GS_OK)
            return rc;
        if (got == 0) {   /* read to its end: counted in the carry as it closes */
            kreader_close(s->r);
            s->r = NULL;
        }
        *n += got;
    }
    return GS_OK;
}

/* After the load: every input read to its end (a file that grew past what the GPU
 * took is an error, not a key dropped), and whole keys (records: each input's
 * reader said so as it ended). */
static int stream_check_end(stream_t *s)
{
    size_t got;
    char *one = malloc(s->w);
    int rc = one ? stream_fill(s, one, 1, &got) : err_set(GS_ENOMEM, "out of memory");
    free(one);
    if (rc == GS_OK && got)
        rc = err_set(GS_EINPUT, "%s: grew while it was read, past what the GPU took",
                     s->r ? kreader_name(s->r) : "input");
    return kreader_carry_end(&s->carry, rc);
}

/* -u on records: the first of each run of equal keys (their bytes equal) kept,
 * moved up over those dropped; a run may cross from the slice before. */
static size_t stream_unique_records(stream_t *s, char *recs, size_t n)
{
    size_t w = s->w, off = s->rec->off, kw = (size_t)s->rec->width, kept = 0;
    for (size_t i = 0; i < n; i++) {
        const char *r = recs + i * w;
        if (s->have_last && memcmp(r + off, &s->last, kw) == 0)
            continue;
        memcpy(&s->last, r + off, kw);
        s->have_last = 1;
        if (kept != i)
            memmove(recs + kept * w, r, w);
        kept++;
    }
    return kept;
}

/* sorter_stream_t.drain: the next sorted items, written. */
static int stream_drain(void *self, void *buf, size_t n)
{
    stream_t *s = self;
    if (!s->writing) {
        s->writing = 1;
        progress_phase("writing");
    }
    char *k = buf;
    if (s->unique && s->rec) {
        n = stream_unique_records(s, k, n);
    } else if (s->unique) {
        /* A run of equal keys may cross from the slice before. */
        size_t skip = 0;
        while (skip < n && s->have_last && memcmp(k + skip * s->w, &s->last, s->w) == 0)
            skip++;
        k += skip * s->w;
        n = key_unique(k, n - skip, (int)s->w);
        if (n) {
            memcpy(&s->last, k + (n - 1) * s->w, s->w);
            s->have_last = 1;
        }
    }
    return s->rec ? output_write_bytes(s->out, k, n * s->w) : output_write(s->out, k, n, 0);
}

/* sorter_stream_t.place: sorted items from rank first on, put at their offset
 * through a window of the output. */
static int stream_place(void *self, size_t first, const void *buf, size_t n)
{
    stream_t *s = self;
    if (!__atomic_exchange_n(&s->writing, 1, __ATOMIC_RELAXED))
        progress_phase("writing");   /* the first piece back, on whichever thread */
    piece_t w;
    int rc = piece_init(&s->P, n * s->w, &w);
    if (rc == GS_OK) {
        piece_start(&w, first, (uint64_t)first * s->w, (uint64_t)n * s->w);
        rc = s->rec ? piece_put(&w, buf, n * s->w)   /* as they are */
                    : piece_keys(&w, buf, n);
        int rc2 = piece_end(&w, rc == GS_OK);
        rc = rc ? rc : rc2;
    }
    piece_free(&w);
    return rc;
}

/* Open the output (records: their bytes written as they are); every item kept (no
 * -u): laid out, where the output takes them so, for every thread to place its
 * range (st->place); else written in order (st->drain). */
static int stream_open_output(stream_t *s, size_t n, sorter_stream_t *st)
{
    output_cfg_t ocfg = s->c->ocfg;
    if (s->rec)
        ocfg.binary = 0;   /* as records.c opens it */
    int rc = output_open(&s->out, &ocfg);
    if (rc || s->unique)
        return rc;
    rc = pieces_begin(&s->P, s->out, (uint64_t)n * s->w, NULL, 0);
    s->begun = 1;
    if (rc == GS_OK && pieces_laid_out(&s->P))
        st->place = stream_place;
    return rc;
}

const char *stream_declines(const ctx_t *c)
{
    const settings_t *set = c->set;
    if (set->mode != MODE_SORT || set->in_format != FMT_BINARY ||
        set->out_format != FMT_BINARY || (settings_records(set) && !set->record_size))
        return "not binary in and out";
    if (!c->in_sized)
        return "an input is not a regular file";
    for (int i = 0; i < set->nsources; i++)
        if (source_stdin(&set->sources[i]))   /* read from where it stands, not direct */
            return "standard input is read from where it stands";
    /* Records of an integer key (the GPU takes those out: kernels/records.cu), whole
     * (else the table says which input is not). */
    if (set->record_size && !key_type_is_int(set->type))
        return "the records' key is not an integer";
    if (set->record_size && c->in_bytes % set->record_size)
        return "the inputs are not whole records";
    return NULL;
}

int stream_run(ctx_t *c, int *done)
{
    const settings_t *set = c->set;
    uint64_t bytes = c->in_bytes;   /* every input regular (stream_declines) */
    *done = 0;
    stream_t s = { .c = c, .w = (size_t)c->km.width, .unique = set->unique };
    s.cfg = c->rcfg;
    s.cfg.block_bytes = READ_PIECE;   /* its buffers hold only a carried key */
    sorter_records_t rec;
    if (set->record_size) {   /* read as they are; a partial one is the reader's error */
        keymap_t km;
        key_map_init(&km, set->type, set->reverse);
        rec = (sorter_records_t){ .size = set->record_size, .off = set->key_offset,
                                  .width = km.width, .big_endian = set->big_endian,
                                  .mask = km.mask };
        s.rec = &rec;
        s.w = rec.size;
        s.cfg.record_size = rec.size;
    } else {
        s.cfg.carry = &s.carry;
    }
    sorter_stream_t st = { .rec = s.rec, .fill = stream_fill, .drain = stream_drain,
                           .self = &s };
    size_t loaded;
    progress_phase("reading");
    int rc = sorter_stream_load(c->sorter, (size_t)(bytes / s.w), &st, &loaded, done);
    if (*done) {
        if (rc == GS_OK)
            rc = stream_check_end(&s);
        progress_phase("sorting");
        if (rc == GS_OK)
            rc = stream_open_output(&s, loaded, &st);
        if (rc == GS_OK)
            rc = sorter_stream_sort(c->sorter, &st);
        sorter_release(c->sorter);   /* the last of the GPU: it goes while the output ends */
        if (s.begun)
            rc = pieces_end(&s.P, rc);
        if (s.out)
            rc = ctx_finish(rc, s.out);
    }
    if (s.r)
        kreader_close(s.r);
    /* Done, stream_check_end() ended the carry (bytes left over reported) unless the
     * load failed first; not done, the chunked path reads every input again: the
     * carry is only let go of. */
    if (!*done)
        s.carry.total = 0;
    return kreader_carry_end(&s.carry, rc);
}
