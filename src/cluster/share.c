/* SPDX-License-Identifier: MIT */
/* share.c: each rank's share of the inputs: the cuts, moved to records' starts (see
 * share.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster/share.h"
#include "core/error.h"
#include "core/tuning.h"
#include "io/reader.h"

static int share_text(const settings_t *set)
{
    return set->in_format == FMT_TEXT;
}

/* The width of the items a cut must not split in the run of bytes as a whole (bare
 * binary keys), or 0. */
static uint64_t share_key_width(const settings_t *set)
{
    if (set->in_format != FMT_BINARY || set->record_size)
        return 0;
    return set->type == KEY_I32 || set->type == KEY_U32 ? 4 : 8;
}

/* The first byte at or after from of input f that is term, into *at (the input's
 * size where there is none). */
static int share_find(const settings_t *set, int f, uint64_t size, uint64_t from, char term,
                      uint64_t *at)
{
    source_file_t in;
    int rc = source_open(&set->sources[f], &in);
    char *buf = rc ? NULL : malloc(SHARE_PROBE);
    if (rc == GS_OK && !buf)
        rc = err_set(GS_ENOMEM, "out of memory");
    *at = size;
    for (uint64_t pos = from; rc == GS_OK && pos < size;) {
        size_t got;
        rc = source_read(&in, NULL, 0, buf, SHARE_PROBE, pos, &got);
        if (rc || got == 0)
            break;
        const char *hit = memchr(buf, term, got);
        if (hit) {
            *at = pos + (uint64_t)(hit - buf);
            break;
        }
        pos += got;
    }
    free(buf);
    source_close(&in);
    return rc;
}

/* Cut p of the run of bytes moved forward to a record's start, into *out. */
static int share_cut(const settings_t *set, const share_t *sh, uint64_t p, uint64_t *out)
{
    uint64_t w = share_key_width(set);
    if (p == 0 || p >= sh->total) {
        *out = p == 0 ? 0 : sh->total;
        return GS_OK;
    }
    if (w) {
        uint64_t q = (p + w - 1) / w * w;
        *out = q < sh->total ? q : sh->total;
        return GS_OK;
    }
    uint64_t start = 0;
    int f = 0;
    while (start + sh->sizes[f] <= p)
        start += sh->sizes[f++];
    uint64_t o = p - start, size = sh->sizes[f];
    if (o == 0) {
        *out = p;
        return GS_OK;
    }
    if (!share_text(set)) {   /* binary records: a whole record of this input */
        uint64_t r = set->record_size, q = (o + r - 1) / r * r;
        *out = start + (q < size ? q : size);
        return GS_OK;
    }
    uint64_t at;
    int rc = share_find(set, f, size, o - 1, set->zero_terminated ? '\0' : '\n', &at);
    *out = start + (at + 1 < size ? at + 1 : size);
    return rc;
}

/* Every input checked as share.h says; sizes and total set. */
static int share_check(const settings_t *set, share_t *sh)
{
    carry_t sizes;              /* bare binary keys: counted as the engine's readers
                                   count them, so that the message is theirs */
    memset(&sizes, 0, sizeof sizes);
    uint64_t w = share_key_width(set);
    int rc = GS_OK;
    for (int f = 0; f < set->nsources && rc == GS_OK; f++) {
        const char *path = set->sources[f].path;
        if (strcmp(path, "-") == 0) {
            rc = err_set(GS_EUSAGE, "standard input cannot be shared among ranks: "
                         "name the input files");
            break;
        }
        char *name = err_escaped(path);
        if (!name) {
            rc = err_set(GS_ENOMEM, "out of memory");
            break;
        }
        struct stat st;
        /* O_NONBLOCK: a FIFO must not wait here for a writer (it is refused below) */
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
            rc = err_sys(GS_EIO, errno, "cannot read '%s'", name);
        else if (fstat(fd, &st) != 0)
            rc = err_sys(GS_EIO, errno, "cannot read '%s'", name);
        else if (S_ISDIR(st.st_mode))
            rc = err_sys(GS_EIO, EISDIR, "cannot read '%s'", name);
        else if (!S_ISREG(st.st_mode))
            rc = err_set(GS_EIO, "cannot share '%s' among ranks: not a regular file", name);
        if (fd >= 0)
            close(fd);
        if (rc == GS_OK) {
            uint64_t size = (uint64_t)st.st_size;
            sh->sizes[f] = size;
            sh->total += size;
            if (set->record_size && size % set->record_size)
                rc = err_set(GS_EINPUT, "%s: %llu bytes: not a whole number of %llu-byte "
                             "records", name, (unsigned long long)size,
                             (unsigned long long)set->record_size);
            if (w)
                kreader_carry_count(&sizes, name, size, (int)w);
        }
        free(name);
    }
    return kreader_carry_end(&sizes, rc);   /* what sizes holds freed, whatever rc */
}

int share_plan(const settings_t *set, int rank, int nranks, share_t *sh)
{
    memset(sh, 0, sizeof *sh);
    sh->sizes = calloc((size_t)set->nsources, sizeof *sh->sizes);
    sh->spans = calloc((size_t)set->nsources, sizeof *sh->spans);
    if (!sh->sizes || !sh->spans)
        return err_set(GS_ENOMEM, "out of memory");
    int rc = share_check(set, sh);
    if (rc)
        return rc;
    uint64_t a, b;
    unsigned __int128 t = sh->total;
    rc = share_cut(set, sh, (uint64_t)(t * (unsigned)rank / (unsigned)nranks), &a);
    if (rc == GS_OK)
        rc = share_cut(set, sh, (uint64_t)(t * (unsigned)(rank + 1) / (unsigned)nranks), &b);
    if (rc)
        return rc;
    uint64_t start = 0;
    for (int f = 0; f < set->nsources; f++) {
        uint64_t end = start + sh->sizes[f];
        uint64_t lo = a > start ? a : start, hi = b < end ? b : end;
        if (lo < hi)
            sh->spans[sh->nspans++] = (span_t){
                .input = f, .off = lo - start, .len = hi - lo,
                .header = set->header && share_text(set) && lo == start };
        start = end;
    }
    return GS_OK;
}

int share_header(const settings_t *set, const share_t *sh, char **line, size_t *len)
{
    *line = NULL;
    *len = 0;
    char term = set->zero_terminated ? '\0' : '\n';
    for (int f = 0; f < set->nsources; f++) {
        if (sh->sizes[f] == 0)
            continue;
        uint64_t at;
        int rc = share_find(set, f, sh->sizes[f], 0, term, &at);
        if (rc)
            return rc;
        size_t n = (size_t)(at < sh->sizes[f] ? at : sh->sizes[f]), got = 0;
        char *h = malloc(n + 1);
        source_file_t in;
        rc = h ? source_open(&set->sources[f], &in) : err_set(GS_ENOMEM, "out of memory");
        if (rc == GS_OK) {
            rc = source_read(&in, NULL, 0, h, n, in.start, &got);
            if (rc == GS_OK && got != n)   /* cut short since it was measured */
                rc = err_set(GS_EIO, "read error on '%s': the file was cut short while "
                             "being read", in.name);
        }
        if (h)
            source_close(&in);
        if (rc) {
            free(h);
            return rc;
        }
        h[n] = term;
        *line = h;
        *len = n + 1;
        return GS_OK;
    }
    return GS_OK;
}

void share_free(share_t *sh)
{
    free(sh->spans);
    free(sh->sizes);
    memset(sh, 0, sizeof *sh);
}
