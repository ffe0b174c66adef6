/* SPDX-License-Identifier: MIT */
/* split.c: records' starts and order keys in a sorted file (see split.h). */
#include <config.h>

#include <errno.h>
#include <string.h>

#include "cluster/split.h"
#include "core/error.h"
#include "io/textnum.h"
#include "records/field.h"

int sorted_open(sorted_t *s, const settings_t *set, int fd, uint64_t off, uint64_t size)
{
    memset(s, 0, sizeof *s);
    s->map.watch = -1;
    s->set = set;
    s->size = size;
    s->term = set->zero_terminated ? '\0' : '\n';
    key_map_init(&s->km, set->type, set->reverse);
    if (settings_records(set))
        rkey_init(&s->rk, set);
    if (set->record_size)
        s->item = set->record_size;
    else if (!settings_records(set) && set->out_format == FMT_BINARY)
        s->item = (size_t)s->km.width;
    if (size == 0)
        return GS_OK;
    const char *name = set->tmpdir ? set->tmpdir : "a temporary file";
    int e = size > SIZE_MAX ? EFBIG : mem_map_file(&s->map, fd, off, (size_t)size, 0, name);
    return e ? err_sys(GS_EIO, e, "cannot map the sorted share") : GS_OK;
}

void sorted_close(sorted_t *s)
{
    mem_unmap_file(&s->map, NULL);
}

/* The first record start at or after pos (size where none). */
static uint64_t sorted_start(const sorted_t *s, uint64_t pos)
{
    if (pos == 0 || pos >= s->size)
        return pos == 0 ? 0 : s->size;
    if (s->item)
        return (pos + s->item - 1) / s->item * s->item;
    const char *p = memchr(s->map.data + pos - 1, s->term, (size_t)(s->size - pos + 1));
    return p ? (uint64_t)(p - s->map.data) + 1 : s->size;
}

/* The order key of record rec[0..len), its terminator left out (text). */
static uint64_t sorted_key_of(const sorted_t *s, const char *rec, size_t len)
{
    const settings_t *set = s->set;
    uint64_t raw = 0;
    if (set->record_size)
        return rkey_word_binary(&s->rk, rec);
    if (s->item) {
        key_decode(rec, &raw, 1, &s->km, set->big_endian);
        return key_get(&raw, 0, s->km.width);
    }
    if (settings_records(set)) {
        rkey_bad_t bad;
        uint64_t w;
        return rkey_word(&s->rk, rec, len, &w, &bad) == RKEY_OK ? w : 0;
    } else {
        while (len && tn_is_space((unsigned char)rec[len - 1]))
            len--;
        while (len && tn_is_space((unsigned char)*rec)) {
            rec++;
            len--;
        }
        if (tn_parse(rec, len, set->type, &raw) != 0)
            return 0;
    }
    uint64_t key = key_map(&s->km, raw);
    return s->km.width == 4 ? key & 0xFFFFFFFFu : key;
}

uint64_t sorted_record(const sorted_t *s, uint64_t start, uint64_t *key)
{
    const char *rec = s->map.data + start;
    if (s->item) {
        *key = sorted_key_of(s, rec, s->item);
        return start + s->item;
    }
    const char *t = memchr(rec, s->term, (size_t)(s->size - start));
    size_t len = t ? (size_t)(t - rec) : (size_t)(s->size - start);
    *key = sorted_key_of(s, rec, len);
    return t ? (uint64_t)(t - s->map.data) + 1 : s->size;
}

static uint64_t sorted_key(const sorted_t *s, uint64_t start)
{
    uint64_t key;
    sorted_record(s, start, &key);
    return key;
}

void sorted_sample(const sorted_t *s, size_t count, uint64_t *keys, size_t *n)
{
    *n = 0;
    uint64_t last = UINT64_MAX;
    for (size_t k = 0; k < count && s->size; k++) {
        uint64_t at = sorted_start(s, (uint64_t)((unsigned __int128)s->size * (2 * k + 1) /
                                                 (2 * count)));
        if (at >= s->size || at == last)
            continue;
        last = at;
        keys[(*n)++] = sorted_key(s, at);
    }
}

uint64_t sorted_after(const sorted_t *s, uint64_t key)
{
    /* lo: a record start whose records before it all have keys <= key; the answer
     * lies in [lo, hi], hi a record start or the size. */
    uint64_t lo = 0, hi = s->size;
    while (lo < hi) {
        uint64_t mid = sorted_start(s, lo + (hi - lo) / 2);
        if (mid >= hi || mid == lo)
            break;   /* no record starts between: look at them one by one */
        if (sorted_key(s, mid) > key)
            hi = mid;
        else
            lo = sorted_start(s, mid + 1);
    }
    while (lo < hi && sorted_key(s, lo) <= key)
        lo = sorted_start(s, lo + 1);
    return lo;
}
