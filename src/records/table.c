/* SPDX-License-Identifier: MIT */
/* table.c: the records of every input, in memory (see table.h).
 *
 * Loading reads each input whole into the arena. Indexing splits each input into
 * parts of about TABLE_PART bytes that start at a line's start; the pool counts the
 * lines of every part, a prefix sum gives each part its first line, and the pool
 * then writes each line's start and parses its key. A part stops at its first bad
 * key; the earliest of them in input order is the one reported.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fdio.h"
#include "core/mem.h"
#include "core/stats.h"
#include "core/stdfds.h"
#include "io/textnum.h"
#include "records/field.h"
#include "records/table.h"

#define TABLE_READ ((size_t)16 << 20)   /* bytes one read(2) asks for */
#define TABLE_PART ((size_t)4 << 20)    /* bytes of a part that one thread indexes */
#define TABLE_PARALLEL_READ ((uint64_t)64 << 20)   /* files read by every thread */

/* ---- loading ----------------------------------------------------------------------- */

/* Room for more bytes at the arena's end. */
static int table_reserve(rtable_t *t, size_t more)
{
    if (t->cap - t->bytes >= more)
        return GS_OK;
    if (t->bytes + more > t->set->buffer_bytes)
        return err_set(GS_ENOMEM, "the records take more than -S (%llu bytes) allows: "
                       "records spilled to disk are not supported yet; give a larger -S",
                       (unsigned long long)t->set->buffer_bytes);
    size_t cap = t->cap ? t->cap : TABLE_READ;
    while (cap - t->bytes < more)
        cap *= 2;
    if (cap > t->set->buffer_bytes && t->bytes + more <= t->set->buffer_bytes)
        cap = t->set->buffer_bytes;
    char *a = mem_realloc(t->arena, cap + 1);   /* + 1: a terminator added at the end */
    if (!a)
        return err_set(GS_ENOMEM, "out of memory");
    t->arena = a;
    t->cap = cap;
    return GS_OK;
}

typedef struct {
    int fd;
    char *dst;              /* where the file's first byte goes */
    uint64_t size;
    int err;                /* the first errno, or -1 for a short read (atomic) */
} tread_job_t;

/* Thread i's share of a regular file, read with pread(2) at its offset. */
static void table_pread(void *arg, int i, int n)
{
    tread_job_t *j = arg;
    size_t lo, hi, got = 0;
    pool_share((size_t)j->size, i, n, &lo, &hi);
    if (hi == lo)
        return;
    int e = fdio_read(j->fd, j->dst + lo, hi - lo, (int64_t)lo, &got);
    if (e == 0 && got < hi - lo)
        e = -1;   /* the file was cut short while it was read */
    int none = 0;
    if (e)
        __atomic_compare_exchange_n(&j->err, &none, e, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* A large regular file of size bytes read by every thread at once, a share each;
 * what it has past size (it grew) by table_read_fd() after. */
static int table_read_parallel(rtable_t *t, int fd, const char *name, uint64_t size)
{
    int rc = table_reserve(t, (size_t)size + 1);
    if (rc)
        return rc;
    tread_job_t j = { .fd = fd, .dst = t->arena + t->bytes, .size = size };
    double t0 = stats_now();
    pool_run(t->pool, table_pread, &j);
    if (j.err > 0)
        return err_sys(GS_EIO, j.err, "read error on '%s'", name);
    if (j.err < 0)
        return err_set(GS_EIO, "read error on '%s': the file was cut short while being read",
                       name);
    t->bytes += (size_t)size;
    stats_add(ST_READ, size, stats_now() - t0);
    if (lseek(fd, (off_t)size, SEEK_SET) < 0)
        return err_sys(GS_EIO, errno, "read error on '%s'", name);
    return GS_OK;
}

/* 1 where the regular file fd holds no more than size bytes now: read whole. */
static int table_read_whole(int fd, uint64_t size)
{
    struct stat st;
    return fstat(fd, &st) == 0 && (uint64_t)st.st_size <= size;
}

/* Read fd to its end onto the arena: a regular file of size bytes (0: a pipe, or
 * unknown) read at once, by every thread where it is large, then whatever it grew
 * by; the rest by pieces of TABLE_READ. */
static int table_read_fd(rtable_t *t, int fd, const char *name, uint64_t size)
{
    int rc;
    if (size >= TABLE_PARALLEL_READ && pool_size(t->pool) > 1) {
        if ((rc = table_read_parallel(t, fd, name, size)) != GS_OK)
            return rc;
        if (table_read_whole(fd, size))
            return GS_OK;
    } else if (size) {
        if ((rc = table_reserve(t, (size_t)size + 1)) != GS_OK)
            return rc;
        size_t got = 0;
        double t0 = stats_now();
        int e = fdio_read(fd, t->arena + t->bytes, (size_t)size, -1, &got);
        t->bytes += got;
        stats_add(ST_READ, got, stats_now() - t0);
        if (e)
            return err_sys(GS_EIO, e, "read error on '%s'", name);
        if (got < size || table_read_whole(fd, size))
            return GS_OK;
    }
    for (;;) {
        if ((rc = table_reserve(t, TABLE_READ)) != GS_OK)
            return rc;
        double t0 = stats_now();
        size_t got = 0;
        int e = fdio_read(fd, t->arena + t->bytes, TABLE_READ, -1, &got);
        t->bytes += got;
        stats_add(ST_READ, got, stats_now() - t0);
        if (e)
            return err_sys(GS_EIO, e, "read error on '%s'", name);
        if (got < TABLE_READ)
            return GS_OK;
    }
}

/* Read input i (path) onto the arena, and end its last line. */
static int table_read_input(rtable_t *t, int i, const char *path)
{
    rinput_t *in = &t->in[i];
    in->name = err_escaped(path);
    if (!in->name)
        return err_set(GS_ENOMEM, "out of memory");
    in->off = t->bytes;
    int fd = STDIN_FILENO, rc;
    uint64_t size = 0;
    if (strcmp(path, "-") == 0) {
        if (stdfds_was_closed(STDIN_FILENO))
            return err_sys(GS_EIO, EBADF, "read error on '-'");
    } else {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return err_sys(GS_EIO, errno, "cannot read '%s'", in->name);
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            close(fd);
            return err_sys(GS_EIO, EISDIR, "cannot read '%s'", in->name);
        }
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
            size = (uint64_t)st.st_size;
    }
    rc = table_read_fd(t, fd, in->name, size);
    if (fd != STDIN_FILENO)
        close(fd);
    if (rc)
        return rc;
    if (t->rsize && (t->bytes - in->off) % t->rsize)
        return err_set(GS_EINPUT, "%s: %llu bytes: not a whole number of %llu-byte records",
                       in->name, (unsigned long long)(t->bytes - in->off),
                       (unsigned long long)t->rsize);
    if (!t->rsize && t->bytes > in->off && t->arena[t->bytes - 1] != t->term)
        t->arena[t->bytes++] = t->term;   /* room: table_reserve() keeps one byte */
    in->end = t->bytes;
    return GS_OK;
}

/* ---- indexing ---------------------------------------------------------------------- */

typedef struct {
    uint64_t lo, hi;       /* its bytes: whole lines (or records) */
    int input;
    size_t first, lines;   /* its first line, its lines */
    /* its first bad key, if any */
    size_t bad_line;       /* SIZE_MAX: none */
    int bad_status;
    size_t bad_b, bad_e;   /* the field, within the line */
    uint64_t kmin, kmax;
    int any;               /* 1: a record's key is in kmin..kmax */
} tpart_t;

typedef struct {
    rtable_t *t;
    tpart_t *parts;
    size_t nparts;
    size_t next;           /* the next part to take (atomic) */
    int pass;              /* 0: count the lines; 1: index and parse */
} tjob_t;

/* Split every input into parts of about TABLE_PART bytes, each starting at a line. */
static int table_parts(rtable_t *t, tpart_t **out, size_t *nout)
{
    size_t cap = t->bytes / TABLE_PART + (size_t)t->nin + 1, n = 0;
    tpart_t *p = calloc(cap, sizeof *p);
    if (!p)
        return err_set(GS_ENOMEM, "out of memory");
    for (int i = 0; i < t->nin; i++) {
        uint64_t lo = t->in[i].off, end = t->in[i].end;
        while (lo < end) {
            uint64_t hi;
            if (t->rsize) {   /* whole records: the input is a whole number of them */
                uint64_t per = TABLE_PART / t->rsize ? TABLE_PART / t->rsize : 1;
                hi = end - lo > per * t->rsize ? lo + per * t->rsize : end;
            } else if ((hi = lo + TABLE_PART) >= end) {
                hi = end;
            } else {
                const char *e = memchr(t->arena + hi - 1, t->term, end - (hi - 1));
                hi = (uint64_t)(e - t->arena) + 1;   /* the input ends with a terminator */
            }
            p[n++] = (tpart_t){ .lo = lo, .hi = hi, .input = i, .bad_line = SIZE_MAX };
            lo = hi;
        }
    }
    *out = p;
    *nout = n;
    return GS_OK;
}

static size_t table_count(const rtable_t *t, const tpart_t *p)
{
    if (t->rsize)
        return (size_t)((p->hi - p->lo) / t->rsize);
    size_t n = 0;
    const char *s = t->arena + p->lo, *end = t->arena + p->hi;
    while (s < end && (s = memchr(s, t->term, (size_t)(end - s))) != NULL) {
        n++;
        s++;
    }
    return n;
}

static inline void table_keep(tpart_t *p, uint64_t k)
{
    if (!p->any || k < p->kmin)
        p->kmin = k;
    if (!p->any || k > p->kmax)
        p->kmax = k;
    p->any = 1;
}

/* The binary records of part p: their keys. */
static void table_index_binary(rtable_t *t, tpart_t *p)
{
    const settings_t *set = t->set;
    const char *s = t->arena + p->lo;
    for (size_t l = p->first; l < p->first + p->lines; l++, s += t->rsize) {
        uint64_t k = 0;
        key_decode(s + set->key_offset, &k, 1, &t->km, set->big_endian);
        if (t->km.width == 4)
            k &= 0xFFFFFFFFull;   /* key_decode wrote 4 bytes: the low ones */
        t->key[l] = k;
        table_keep(p, k);
    }
}

/* The lines of part p: their starts and keys, up to the first bad key. */
static void table_index_text(rtable_t *t, tpart_t *p)
{
    const settings_t *set = t->set;
    const rinput_t *in = &t->in[p->input];
    const char *s = t->arena + p->lo;
    for (size_t l = p->first; l < p->first + p->lines; l++) {
        const char *e = memchr(s, t->term, (size_t)(t->arena + p->hi - s));
        t->start[l] = (uint64_t)(s - t->arena);
        if (set->header && l == in->first) {
            t->key[l] = 0;
        } else {
            uint64_t raw;
            size_t b, fe;
            int st = field_key(s, (size_t)(e - s), set->key_field, set->field_sep,
                               t->km.type, &raw, &b, &fe);
            if (st != FIELD_OK) {
                p->bad_line = l;
                p->bad_status = st;
                p->bad_b = b;
                p->bad_e = fe;
                return;
            }
            t->key[l] = key_map(&t->km, raw);
            table_keep(p, t->key[l]);
        }
        s = e + 1;
    }
}

static void table_job(void *arg, int i, int n)
{
    (void)i;
    (void)n;
    tjob_t *j = arg;
    for (;;) {
        size_t k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (k >= j->nparts)
            return;
        tpart_t *p = &j->parts[k];
        if (j->pass == 0)
            p->lines = table_count(j->t, p);
        else if (j->t->rsize)
            table_index_binary(j->t, p);
        else
            table_index_text(j->t, p);
    }
}

static void table_run(rtable_t *t, tjob_t *j, int pass)
{
    j->pass = pass;
    j->next = 0;
    if (j->nparts > 1)
        pool_run(t->pool, table_job, j);
    else
        table_job(j, 0, 1);
}

/* The message of part p's bad key. */
static int table_bad_key(const rtable_t *t, const tpart_t *p)
{
    const rinput_t *in = &t->in[p->input];
    unsigned long long line = (unsigned long long)(p->bad_line - in->first + 1);
    int f = t->set->key_field;
    if (p->bad_status == FIELD_MISSING)
        return err_set(GS_EINPUT, "%s:%llu: no field %d", in->name, line, f);
    if (p->bad_status == FIELD_EMPTY)
        return err_set(GS_EINPUT, "%s:%llu: field %d is empty", in->name, line, f);
    char q[256];
    err_escape(q, sizeof q, t->arena + t->start[p->bad_line] + p->bad_b,
               p->bad_e - p->bad_b, 40);
    if (p->bad_status == FIELD_RANGE)
        return err_set(GS_EINPUT, "%s:%llu: field %d: out of range for %s: '%s'", in->name,
                       line, f, key_type_name(t->km.type), q);
    return err_set(GS_EINPUT, "%s:%llu: field %d: not an integer: '%s'", in->name, line, f, q);
}

static int table_index(rtable_t *t)
{
    tpart_t *parts = NULL;
    size_t nparts = 0;
    int rc = table_parts(t, &parts, &nparts);
    if (rc)
        return rc;
    tjob_t j = { .t = t, .parts = parts, .nparts = nparts };
    table_run(t, &j, 0);
    size_t n = 0;
    for (size_t k = 0; k < nparts; k++) {
        parts[k].first = n;
        if (k == 0 || parts[k].input != parts[k - 1].input)
            t->in[parts[k].input].first = n;
        n += parts[k].lines;
        t->in[parts[k].input].lines += parts[k].lines;
    }
    t->n = n;
    t->nrec = n;
    for (int i = 0; i < t->nin; i++) {
        if (i > 0 && t->in[i].lines == 0)
            t->in[i].first = t->in[i - 1].first + t->in[i - 1].lines;
        if (t->set->header && t->in[i].lines > 0)
            t->nrec--;
    }
    /* The index beside the arena: within -S too. */
    uint64_t need = (uint64_t)t->bytes + 16 * (uint64_t)n + 16 * (uint64_t)t->nrec;
    if (need > t->set->buffer_bytes) {
        free(parts);
        return err_set(GS_ENOMEM, "the records take more than -S (%llu bytes) allows: "
                       "records spilled to disk are not supported yet; give a larger -S",
                       (unsigned long long)t->set->buffer_bytes);
    }
    t->key = mem_alloc(sizeof *t->key * (n ? n : 1));
    t->start = t->rsize ? NULL : mem_alloc(sizeof *t->start * (n + 1));
    if (!t->key || (!t->rsize && !t->start)) {
        free(parts);
        return err_set(GS_ENOMEM, "out of memory");
    }
    if (t->start)
        t->start[n] = t->bytes;
    table_run(t, &j, 1);
    rc = GS_OK;
    int any = 0;
    for (size_t k = 0; k < nparts && rc == GS_OK; k++) {
        if (parts[k].bad_line != SIZE_MAX) {
            rc = table_bad_key(t, &parts[k]);
            break;
        }
        if (parts[k].any) {
            if (!any || parts[k].kmin < t->kmin)
                t->kmin = parts[k].kmin;
            if (!any || parts[k].kmax > t->kmax)
                t->kmax = parts[k].kmax;
            any = 1;
        }
    }
    free(parts);
    return rc;
}

/* ---- the interface ----------------------------------------------------------------- */

int rtable_load(rtable_t *t, const settings_t *set, pool_t *pool)
{
    memset(t, 0, sizeof *t);
    t->set = set;
    t->pool = pool;
    t->term = set->zero_terminated ? '\0' : '\n';
    t->rsize = set->record_size;
    key_map_init(&t->km, set->type, set->reverse || set->key_reverse);
    t->in = calloc((size_t)set->ninputs, sizeof *t->in);
    if (!t->in)
        return err_set(GS_ENOMEM, "out of memory");
    t->nin = set->ninputs;
    for (int i = 0; i < set->ninputs; i++) {
        int rc = table_read_input(t, i, set->inputs[i]);
        if (rc)
            return rc;
    }
    return table_index(t);
}

int rtable_is_header(const rtable_t *t, size_t l)
{
    if (!t->set->header)
        return 0;
    const rinput_t *in = rtable_input(t, l);
    return in->lines > 0 && l == in->first;
}

const rinput_t *rtable_input(const rtable_t *t, size_t l)
{
    int a = 0, b = t->nin - 1;
    while (a < b) {   /* the last input whose first line is at most l, and not empty */
        int m = a + (b - a + 1) / 2;
        if (t->in[m].first <= l)
            a = m;
        else
            b = m - 1;
    }
    while (a > 0 && t->in[a].lines == 0)
        a--;
    return &t->in[a];
}

const char *rtable_header(const rtable_t *t, size_t *len)
{
    if (!t->set->header)
        return NULL;
    for (int i = 0; i < t->nin; i++)
        if (t->in[i].lines > 0)
            return rtable_line(t, t->in[i].first, len);
    return NULL;
}

void rtable_free(rtable_t *t)
{
    for (int i = 0; i < t->nin; i++)
        free(t->in[i].name);
    free(t->in);
    free(t->arena);
    free(t->key);
    free(t->start);
    memset(t, 0, sizeof *t);
}
