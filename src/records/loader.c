/* SPDX-License-Identifier: MIT */
/* loader.c: the inputs read into a table a chunk at a time (see table.h).
 *
 * The loader keeps the input being read open between chunks, with its line count
 * (for messages) and the partial line or record that ended the last chunk (the
 * carry, the next chunk's first bytes). A regular file's piece of a chunk is read
 * with pread(2), by every thread at once where it is large; anything else (a pipe)
 * by read(2) in pieces.
 *
 * A lone regular input is not read at all but mapped: the arena is the page
 * cache's pages of the file, private, with RTABLE_SLACK bytes and more of zeros
 * after its end (an anonymous reservation the file is mapped over the start of).
 * Reading it into memory of our own cost a copy of every byte and, worse, a freshly
 * zeroed page for each page copied (doc/perf/RESULTS.md, 2026-11-25). One larger
 * than a chunk is mapped a window at a time: each chunk's bytes, cut after its last
 * whole line (record), the next window starting there, the last unmapped before
 * the next is mapped (memory as a chunk read into the arena would take). A SIGBUS
 * in the mapping (the file cut short by another program) is a read error of the
 * file (cleanup_watch_map), and the file's bytes are those it had when opened: it
 * is read to that size. Standard input so mapped is left at the end of what was
 * mapped, where reading it would have left it.
 *
 * -g on bare numbers (set->tokens): the text is made one number a line as it is
 * read (tokens.h); a bad number ends the chunk before it, and its error comes once
 * the numbers before it are indexed (-c reports a disorder among them first). Such
 * inputs are read, never mapped.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/error.h"
#include "core/mem.h"
#include "core/stats.h"
#include "core/stdfds.h"
#include "core/tuning.h"
#include "records/loader_impl.h"
#include "records/table.h"
#include "records/tokens.h"

/* ---- the arena --------------------------------------------------------------------- */

/* Room for more bytes at the arena's end, and one for a terminator after them: the
 * arena doubles, but not past the chunk's limit while that is enough. RTABLE_SLACK
 * bytes past cap (the terminator's among them) are the gathers' (table.h). */
static int loader_reserve(rtable_t *t, size_t more)
{
    if (t->cap - t->bytes >= more)
        return GS_OK;
    size_t need = t->bytes + more, cap = t->cap ? t->cap * 2 : LOADER_READ;
    if (cap > t->loader->limit)
        cap = t->loader->limit;
    if (cap < need)
        cap = need;
    char *a = mem_realloc(t->arena, cap + RTABLE_SLACK);
    if (!a)
        return err_set(GS_ENOMEM, "out of memory");
    t->arena = a;
    t->cap = cap;
    return GS_OK;
}

/* ---- reading ----------------------------------------------------------------------- */

/* Read up to want bytes of the open input onto the arena: *got of them, fewer at
 * its end. */
static int loader_read(rtable_t *t, rloader_t *ld, size_t want, size_t *got)
{
    *got = 0;
    /* A regular file's bytes left, by its size when opened (a size of 0, as /proc's
     * files have, says nothing: read on a piece at a time until read(2) says it
     * ended): a read takes no more room than they need. Once they are read, more
     * only where it has grown since (a whole file; source_read reads on), asked of
     * fstat(2) before the arena grows for them. */
    uint64_t left = ld->file.regular && ld->file.end > ld->pos ? ld->file.end - ld->pos : 0;
    if (ld->file.regular && ld->file.end > ld->file.start && left == 0) {
        struct stat st;
        if (ld->file.ranged || fstat(ld->file.fd, &st) != 0 || (uint64_t)st.st_size <= ld->pos)
            return GS_OK;   /* its end */
        left = (uint64_t)st.st_size - ld->pos;
    }
    if (left > 0 && left < want)
        want = (size_t)left;
    if (!left && want > LOADER_READ)
        want = LOADER_READ;
    int rc = loader_reserve(t, want);
    if (rc)
        return rc;
    double t0 = stats_now();
    /* Where the file's size says many bytes are there: every thread reads a share. */
    int many = left >= LOADER_PARALLEL && want >= LOADER_PARALLEL;
    rc = source_read(&ld->file, many ? t->pool : NULL, READ_PIECE, t->arena + t->bytes, want,
                     ld->pos, got);
    if (rc)
        return rc;
    ld->pos += *got;
    t->bytes += *got;
    stats_add(ST_READ, *got, stats_now() - t0);
    return ld->tokens ? rtokens_take(&ld->tok, t->arena, t->bytes - *got, &t->bytes, t->term,
                                     ld->name)
                      : GS_OK;
}

/* The open input's bytes are not a whole number of binary records: its message. */
static int loader_not_whole(const rtable_t *t, const rloader_t *ld, uint64_t bytes)
{
    return err_set(GS_EINPUT, "%s: %llu bytes: not a whole number of %llu-byte records",
                   ld->name, (unsigned long long)bytes, (unsigned long long)t->rsize);
}

/* Open the next input; its first segment starts with its header (--header). */
static int loader_open_next(rtable_t *t, rloader_t *ld)
{
    int i = ld->next++;
    const source_t *src = &ld->sources[i];
    source_file_t f;
    int rc = source_open(src, &f);
    ld->names[i] = f.name;   /* kept for the segments' messages */
    f.name = NULL;
    if (rc) {
        source_close(&f);
        return rc;
    }
    ld->cur = i;
    ld->name = ld->names[i];
    ld->file = f;   /* its descriptor closed by loader_close_input() or with its mapping */
    ld->file.name = ld->name;
    ld->lines = 0;
    ld->pos = f.regular ? f.start : 0;
    rtokens_start(&ld->tok, src, t->term);
    /* Binary records not whole: said now, not after the chunks before the end were
     * sorted and spilled (a size of 0, as /proc's files have, says nothing). */
    uint64_t bytes = ld->file.end - ld->file.start;
    if (ld->file.regular && t->rsize && bytes > 0 && bytes % t->rsize)
        return loader_not_whole(t, ld, bytes);
    return GS_OK;
}

static void loader_close_input(rloader_t *ld)
{
    if (ld->file.fd > STDIN_FILENO)
        close(ld->file.fd);
    ld->file.fd = -1;
}

/* A new segment of the open input, starting at the arena's end. */
static rseg_t *loader_segment(rtable_t *t, rloader_t *ld, int first_of_input)
{
    rseg_t *sg = &t->seg[t->nseg++];
    *sg = (rseg_t){ .input = ld->cur, .name = ld->name, .off = t->bytes, .end = t->bytes,
                    .line0 = ld->lines + 1,
                    .header = first_of_input && ld->sources[ld->cur].header };
    return sg;
}

/* End a chunk that stops inside the open input: its last whole line (record) ends
 * the chunk, what follows is carried; a chunk without one reads on until it has
 * one or the input ends (*ended). */
static int loader_cut(rtable_t *t, rloader_t *ld, rseg_t *sg, int *ended)
{
    *ended = 0;
    for (;;) {
        size_t keep;
        if (t->rsize) {
            keep = (size_t)((t->bytes - sg->off) / t->rsize * t->rsize);
        } else {
            const char *a = t->arena + sg->off, *p = t->arena + t->bytes;
            while (p > a && p[-1] != t->term)
                p--;
            keep = (size_t)(p - a);
        }
        if (keep > 0) {
            size_t tail = (size_t)(t->bytes - sg->off) - keep;
            if (tail > ld->carry_cap) {
                char *c = realloc(ld->carry, tail);
                if (!c)
                    return err_set(GS_ENOMEM, "out of memory");
                ld->carry = c;
                ld->carry_cap = tail;
            }
            if (tail)
                memcpy(ld->carry, t->arena + sg->off + keep, tail);
            ld->carry_len = tail;
            t->bytes = sg->off + keep;
            sg->end = t->bytes;
            return GS_OK;
        }
        size_t got;
        int rc = loader_read(t, ld, LOADER_READ, &got);
        if (rc)
            return rc;
        if (got == 0) {
            *ended = 1;
            return GS_OK;
        }
    }
}

/* The open input has ended inside segment sg: its last line ended, its size
 * checked (binary), the input closed. */
int loader_end_input(rtable_t *t, rloader_t *ld, rseg_t *sg)
{
    if (t->rsize && (ld->pos - ld->file.start) % t->rsize)
        return loader_not_whole(t, ld, ld->pos - ld->file.start);
    int rc = rtokens_end(&ld->tok, t->arena, &t->bytes, ld->name);
    if (rc)
        return rc;
    if (!t->rsize && t->bytes > sg->off && t->arena[t->bytes - 1] != t->term)
        t->arena[t->bytes++] = t->term;   /* room: loader_reserve() keeps one byte */
    sg->end = t->bytes;
    loader_close_input(ld);
    return GS_OK;
}

/* Fill the arena with the next chunk: segments of the inputs, whole lines. */
static int loader_fill(rtable_t *t, rloader_t *ld, int *more)
{
    loader_unmap(t, ld);   /* a mapped input was the whole of the last chunk */
    t->bytes = 0;
    t->nseg = 0;
    rtokens_chunk(&ld->tok);
    rseg_t *sg = NULL;
    int rc;
    if (ld->file.fd >= 0) {   /* the input the last chunk stopped in goes on */
        sg = loader_segment(t, ld, 0);
        int mapped = 0, ended;
        if (ld->windows && (rc = loader_window(t, ld, sg, &mapped, &ended)) != GS_OK)
            return rc;
        if (mapped) {   /* its next window is the chunk */
            *more = ld->file.fd >= 0;
            return GS_OK;
        }
        if ((rc = loader_reserve(t, ld->carry_len)) != GS_OK)
            return rc;
        if (ld->carry_len)
            memcpy(t->arena, ld->carry, ld->carry_len);
        t->bytes = ld->carry_len;
        ld->carry_len = 0;
    }
    for (;;) {
        if (ld->file.fd < 0) {
            if (ld->next == ld->nsources)
                break;
            if ((rc = loader_open_next(t, ld)) != GS_OK)
                return rc;
            sg = loader_segment(t, ld, 1);
            int mapped, ended;
            loader_map(t, ld, &mapped);   /* whole, or windows from here */
            if (mapped) {   /* the whole input, read to the size it had */
                ld->file.fd = -1;   /* kept as map_fd, with the mapping: rtable_intact() */
                if ((rc = loader_end_input(t, ld, sg)) != GS_OK)
                    return rc;
                continue;
            }
            if (ld->windows && (rc = loader_window(t, ld, sg, &mapped, &ended)) != GS_OK)
                return rc;
            if (mapped)   /* its first window is the chunk */
                break;
        }
        size_t room = t->bytes < ld->limit ? ld->limit - t->bytes : 0, got;
        if (room == 0) {
            int ended;
            if ((rc = loader_cut(t, ld, sg, &ended)) != GS_OK)
                return rc;
            if (!ended)
                break;
            if ((rc = loader_end_input(t, ld, sg)) != GS_OK)
                return rc;
            continue;
        }
        if ((rc = loader_read(t, ld, room, &got)) != GS_OK)
            return rc;
        sg->end = t->bytes;
        if (got == 0 && (rc = loader_end_input(t, ld, sg)) != GS_OK)
            return rc;
    }
    *more = ld->file.fd >= 0 || ld->next < ld->nsources;
    return GS_OK;
}

/* ---- the interface ----------------------------------------------------------------- */

int rtable_open(rtable_t *t, const settings_t *set, pool_t *pool, size_t limit)
{
    memset(t, 0, sizeof *t);
    t->set = set;
    t->pool = pool;
    t->term = set->zero_terminated ? '\0' : '\n';
    t->rsize = set->record_size;
    rkey_init(&t->rk, set);
    rloader_t *ld = calloc(1, sizeof *ld);
    t->seg = calloc((size_t)set->nsources + 1, sizeof *t->seg);
    if (ld)
        ld->names = calloc((size_t)set->nsources, sizeof *ld->names);
    t->loader = ld;
    if (!ld || !ld->names || !t->seg)
        return err_set(GS_ENOMEM, "out of memory");
    ld->sources = set->sources;
    ld->nsources = set->nsources;
    ld->tokens = set->tokens;
    ld->keep_header = set->header;
    ld->limit = limit ? limit : 1;
    ld->tok.note = set->mode != MODE_SORT;
    ld->file.fd = -1;
    ld->map.watch = ld->map_fd = -1;
    return GS_OK;
}

uint64_t rtable_line_number(const rtable_t *t, size_t l)
{
    const rloader_t *ld = t->loader;
    const rseg_t *sg = rtable_seg(t, l);
    uint64_t line = ld->tokens && l < ld->tok.nat ? ld->tok.at[l] : l - sg->first + sg->line0;
    return source_line(&ld->sources[sg->input], t->term, line);
}

int rtable_mapped(const rtable_t *t)
{
    return t->loader && t->loader->map.base != NULL;
}

int rtable_intact(const rtable_t *t)
{
    const rloader_t *ld = t->loader;
    struct stat st;
    if (ld && ld->map.base && fstat(ld->map_fd, &st) == 0 && (uint64_t)st.st_size < ld->map_size)
        return err_set(GS_EIO, "read error on '%s': the file was cut short while being read",
                       ld->map_name);
    return GS_OK;
}

int rtable_next(rtable_t *t, int *more)
{
    rloader_t *ld = t->loader;
    rtable_drop_index(t);
    if (ld->tok.bad)   /* a bad number ended the chunk before */
        return err_set(GS_EINPUT, "%s", ld->tok.bad);
    int rc = loader_fill(t, ld, more);
    if (rc == GS_EINPUT && ld->tok.bad) {
        /* a bad number: the chunk ends before it, its error once the numbers
         * before it are indexed (-c: a disorder there is reported first) */
        t->seg[t->nseg - 1].end = t->bytes;
        if ((rc = rtable_index(t)) == GS_OK) {
            t->bad = t->n;
            rc = err_set(GS_EINPUT, "%s", ld->tok.bad);
        }
    } else if (rc == GS_OK) {
        rc = rtable_index(t);
    }
    /* A mapped file cut short in its last page reads as NUL bytes there: a bad key,
     * say, that is really the read error. */
    int intact = ld->map.base ? rtable_intact(t) : GS_OK;
    if (intact)
        return intact;
    if (rc)
        return rc;
    for (int i = 0; i < t->nseg; i++) {
        rseg_t *sg = &t->seg[i];
        if (sg->input == ld->cur && ld->file.fd >= 0)
            ld->lines = sg->line0 - 1 + sg->lines;   /* the input goes on */
        if (sg->header && !t->header && ld->keep_header) {   /* the first: for the output */
            size_t len;
            const char *h = rtable_line(t, sg->first, &len);
            if (!(t->header = malloc(len)))
                return err_set(GS_ENOMEM, "out of memory");
            memcpy(t->header, h, len);
            t->header_len = len;
        }
    }
    return GS_OK;
}

void rtable_close(rtable_t *t)
{
    rloader_t *ld = t->loader;
    if (ld) {
        loader_unmap(t, ld);
        loader_close_input(ld);
        for (int i = 0; ld->names && i < ld->nsources; i++)
            free(ld->names[i]);
        free(ld->names);
        free(ld->carry);
        rtokens_free(&ld->tok);
        free(ld);
    }
    free(t->key);
    free(t->start);
    free(t->arena);
    free(t->seg);
    free(t->header);
    memset(t, 0, sizeof *t);
}
