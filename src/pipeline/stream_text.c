/* SPDX-License-Identifier: MIT */
/* stream_text.c: text streamed through a GPU and parsed there.
 *
 * Where every input is a regular file, or a byte range of one (gpusort-mpi's
 * ranks), of bare integers as text (no --header, lines ended by LF), opened as
 * every reader opens it (core/source.h, quietly), and a GPU sorts (--device=N, or
 * --device=auto where the text holds enough keys: engine.c,
 * TEXT_GPU_KEYS_A_THREAD), the sorter
 * (sorter_stream_load, with .text) has the inputs' bytes read by the pool's threads
 * straight into the GPU's pinned staging buffers, each slice crossing PCIe while the
 * next is read, parses them there into keys, and sorts them there; every thread
 * then brings its range of the sorted keys back into host memory, and they are
 * written as a sorted chunk is (placed in -o's file where it can be). Between two
 * inputs a LF is put where the first does not end in white space, so that its last
 * token ends with it, as the host's reader ends a token at the end of its file.
 *
 * The host's parse stays the judge: a token the GPU does not take as a key, a read
 * that fails or comes short, an input that changed size: the whole sort goes the
 * host's way (sort.c), which reads the inputs again from their start and names the
 * file and line at fault. Nothing is written before every input is read.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/mem.h"
#include "core/progress.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "io/textnum.h"
#include "pipeline/ctx.h"

typedef struct {
    ctx_t *c;
    uint64_t *sizes;         /* [nsources] each input's bytes, */
    unsigned char *sep;      /* [nsources] and 1 where a LF follows it */
    int next;                /* the next input to open */
    source_file_t in;        /* the input being read (fd -1: none) */
    uint64_t pos;            /* its bytes read, from in.start */
    int sep_due;             /* 1: the LF after the input just read is yet to be given */
    int failed;              /* 1: a read failed, came short, or an input changed */
    uint64_t given;          /* bytes given to the sorter */
    char *keys;              /* the sorted keys, brought back (w bytes each) */
    size_t w;
} tstream_t;

/* The current input read to its end (last: its last byte, if it has one): its last
 * byte still what the measure saw, its file's size what it was when opened. */
static void tstream_close_input(tstream_t *t, unsigned char last)
{
    int i = t->next - 1;
    struct stat st;
    if ((t->sizes[i] > 0 && tn_is_space(last) == t->sep[i]) || fstat(t->in.fd, &st) != 0 ||
        (uint64_t)st.st_size != t->in.size)
        t->failed = 1;   /* it changed since it was measured */
    source_close(&t->in);
    t->sep_due = t->sep[i];
}

/* sorter_stream_t.fill: the inputs' next bytes, read straight into buf. Never an
 * error: a failure is noted (t->failed) and ends the text, for the host to meet
 * again and report. */
static int tstream_fill(void *self, void *buf, size_t max, size_t *n)
{
    tstream_t *t = self;
    const settings_t *set = t->c->set;
    char *b = buf;
    *n = 0;
    while (*n < max && !t->failed) {
        if (t->sep_due) {
            b[(*n)++] = '\n';
            t->sep_due = 0;
            continue;
        }
        if (t->in.fd < 0) {
            if (t->next == set->nsources)
                break;
            if (source_try_open(&set->sources[t->next], &t->in) != 0 || !t->in.regular ||
                t->in.end - t->in.start != t->sizes[t->next]) {
                t->failed = 1;
                break;
            }
            t->next++;
            t->pos = 0;
        }
        uint64_t left = t->sizes[t->next - 1] - t->pos;
        size_t len = left < max - *n ? (size_t)left : max - *n;
        double t0 = stats_now();
        size_t got;
        if (source_read(&t->in, t->c->pool, READ_PIECE, b + *n, len, t->in.start + t->pos,
                        &got) || got != len) {
            t->failed = 1;
            break;
        }
        stats_add(ST_READ, len, stats_now() - t0);   /* --progress counts it too */
        t->pos += len;
        *n += len;
        if (t->pos == t->sizes[t->next - 1])
            tstream_close_input(t, *n ? (unsigned char)b[*n - 1] : ' ');
    }
    t->given += *n;
    return GS_OK;
}

/* sorter_stream_t.place: sorted keys from rank first on, into the host's buffer. */
static int tstream_place(void *self, size_t first, const void *buf, size_t n)
{
    tstream_t *t = self;
    memcpy(t->keys + first * t->w, buf, n * t->w);
    return GS_OK;
}

/* The inputs (regular files or ranges of them: stream_text_declines) measured: each
 * still one, its bytes, and whether its last byte is white space (else a LF is put
 * after it). *bytes the text's bytes in all, LFs included; 0 where this does not
 * apply. */
static int tstream_measure(tstream_t *t, uint64_t *bytes)
{
    const settings_t *set = t->c->set;
    *bytes = 0;
    t->sizes = calloc((size_t)set->nsources, sizeof *t->sizes);
    t->sep = calloc((size_t)set->nsources, 1);
    if (!t->sizes || !t->sep)
        return err_set(GS_ENOMEM, "out of memory");
    uint64_t total = 0;
    for (int i = 0; i < set->nsources; i++) {
        source_file_t f;
        char last = ' ';
        size_t got;
        int ok = source_try_open(&set->sources[i], &f) == 0 && f.regular &&
                 (f.end == f.start ||
                  (source_read(&f, NULL, 0, &last, 1, f.end - 1, &got) == 0 && got == 1));
        uint64_t len = f.end - f.start;
        source_close(&f);
        if (!ok)
            return GS_OK;   /* the host's reader says what is wrong */
        t->sizes[i] = len;
        t->sep[i] = len > 0 && !tn_is_space((unsigned char)last);
        total += t->sizes[i] + t->sep[i];
    }
    *bytes = total;
    return GS_OK;
}

/* The sorted keys written, as a sorted chunk's are (-u: the first of each run of
 * equal keys). */
static int tstream_write(tstream_t *t, size_t n)
{
    ctx_t *c = t->c;
    if (c->set->unique)
        n = key_unique(t->keys, n, (int)t->w);
    progress_phase("writing");
    output_cfg_t ocfg = c->ocfg;
    output_t *out;
    int rc = output_open(&out, &ocfg);
    if (rc)
        return rc;
    return ctx_finish(output_write(out, t->keys, n, 1), out);
}

/* The most keys bytes of text may hold (every token a byte, and white space after
 * each) within -S: the host's buffer the sorted keys come back to. */
static int tstream_fits(const ctx_t *c, uint64_t bytes)
{
    uint64_t keys = bytes / 2 + 1;
    return bytes <= SIZE_MAX && keys * (uint64_t)c->km.width <= c->set->buffer_bytes;
}

const char *stream_text_declines(const ctx_t *c)
{
    const settings_t *set = c->set;
    if (set->gpus == 0)
        return "--device=cpu";
    if (set->mode != MODE_SORT || set->in_format != FMT_TEXT || settings_records(set))
        return "not bare integers as text";
    if (set->header || set->zero_terminated)
        return "--header or -z: the host's reader settles the lines";
    if (!c->in_sized)   /* regular files only */
        return "an input is not a regular file";
    for (int i = 0; i < set->nsources; i++)
        if (source_stdin(&set->sources[i]))
            return "standard input: the host's reader";
    if (!tstream_fits(c, c->in_bytes))
        return "the keys would not fit -S";
    return NULL;
}

int stream_text_run(ctx_t *c, int *done)
{
    const settings_t *set = c->set;
    *done = 0;
    tstream_t t = { .c = c, .in = { .fd = -1 }, .w = (size_t)c->km.width };
    uint64_t bytes;
    int rc = tstream_measure(&t, &bytes);
    if (rc || bytes == 0 || !tstream_fits(c, bytes))
        goto end;
    sorter_text_t tx = { .mask = c->km.mask };
    tn_range(set->type, &tx.pos_max, &tx.neg_max);
    sorter_stream_t st = { .text = &tx, .fill = tstream_fill, .place = tstream_place,
                           .self = &t };
    size_t n;
    progress_phase("reading");
    rc = sorter_stream_load(c->sorter, (size_t)bytes, &st, &n, done);
    if (rc || !*done)
        goto end;
    if (t.failed || t.given != bytes || !(t.keys = mem_alloc(n * t.w + 1))) {
        /* The keys the GPU holds are left unsorted (the next load starts afresh): the
         * host's parse takes over, from the inputs' start. */
        *done = 0;
        goto end;
    }
    progress_phase("sorting");
    rc = sorter_stream_sort(c->sorter, &st);
    sorter_release(c->sorter);   /* the keys are back: the GPU goes while they are written */
    if (rc == GS_OK)
        rc = tstream_write(&t, n);
end:
    source_close(&t.in);
    free(t.keys);
    free(t.sizes);
    free(t.sep);
    return rc;
}
