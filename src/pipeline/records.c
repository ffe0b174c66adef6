/* SPDX-License-Identifier: MIT */
/* records.c: the modes for records (-k, or binary --record-size): sort, -m, -c/-C.
 *
 * Every mode loads the inputs into a table (records/table.h), in memory: a sort
 * orders it (records/order.h) and writes it out (records/emit.h); -m checks that each
 * input is in order and then does the same; -c and -C walk the one input's records
 * and stop at the first out of order.
 */
#include <config.h>

#include <stdlib.h>

#include "core/error.h"
#include "core/progress.h"
#include "io/textnum.h"
#include "pipeline/ctx.h"
#include "records/emit.h"
#include "records/order.h"
#include "records/table.h"

/* 1 where record b (a table line) may not follow record a: it goes before it, or,
 * with -u, they have equal keys. */
static int records_disorder(const rtable_t *t, size_t a, size_t b)
{
    if (t->key[b] != t->key[a])
        return t->key[b] < t->key[a];
    return t->set->unique || rorder_tie(t, a, b) > 0;
}

/* The first record of input i that may not follow the one before it: its table
 * line, or SIZE_MAX where the input is in order. */
static size_t records_first_disorder(const rtable_t *t, int i)
{
    const rinput_t *in = &t->in[i];
    size_t l = in->first + (t->set->header && in->lines > 0);
    for (size_t m = l + 1; m < in->first + in->lines; m++)
        if (records_disorder(t, m - 1, m))
            return m;
    return SIZE_MAX;
}

/* "FILE:N: disorder: " and the record: the line without its terminator, or a binary
 * record's key. */
static int records_say_disorder(const rtable_t *t, int i, size_t l, int code, int quiet)
{
    const rinput_t *in = &t->in[i];
    unsigned long long pos = (unsigned long long)(l - in->first + 1);
    size_t len;
    const char *s = rtable_line(t, l, &len);
    if (t->rsize) {
        char v[TN_MAX_LINE + 1];
        v[tn_format(key_map(&t->km, t->key[l]), t->km.type, v)] = '\0';
        if (code == GS_EDISORDER) {
            if (!quiet)
                progress_print("%s:%llu: disorder: %s", in->name, pos, v);
            return code;
        }
        return err_set(code, "%s:%llu: disorder: %s", in->name, pos, v);
    }
    int n = (int)(len - 1);
    if (code == GS_EDISORDER) {
        if (!quiet)
            progress_print("%s:%llu: disorder: %.*s", in->name, pos, n, s);
        return code;
    }
    char q[256];
    err_escape(q, sizeof q, s, len - 1, 80);
    return err_set(code, "%s:%llu: disorder: %s", in->name, pos, q);
}

static int records_sort(ctx_t *c, rtable_t *t)
{
    uint64_t *order;
    size_t n;
    progress_phase("sorting");
    int rc = rorder_sort(t, c->pool, c->sorter, &order, &n);
    if (rc)
        return rc;
    output_cfg_t cfg = ctx_output_cfg(c);
    cfg.binary = 0;   /* records are bytes written as they are: placed as text is */
    output_t *out;
    rc = output_open(&out, &cfg);
    if (rc == GS_OK)
        rc = ctx_finish(remit_write(t, c->pool, order, n, out), out);
    free(order);
    return rc;
}

int records_run(ctx_t *c)
{
    const settings_t *set = c->set;
    rtable_t t;
    progress_phase("reading");
    int rc = rtable_load(&t, set, c->pool);
    if (rc == GS_OK && set->mode == MODE_SORT) {
        rc = records_sort(c, &t);
    } else if (rc == GS_OK && set->mode == MODE_MERGE) {
        progress_phase("merging");
        for (int i = 0; i < t.nin && rc == GS_OK; i++) {
            size_t l = records_first_disorder(&t, i);
            if (l != SIZE_MAX)
                rc = records_say_disorder(&t, i, l, GS_EINPUT, 0);
        }
        if (rc == GS_OK)
            rc = records_sort(c, &t);
    } else if (rc == GS_OK) {
        progress_phase("checking");
        size_t l = records_first_disorder(&t, 0);
        if (l != SIZE_MAX)
            rc = records_say_disorder(&t, 0, l, GS_EDISORDER, set->mode == MODE_CHECK_QUIET);
    }
    rtable_free(&t);
    return rc;
}
