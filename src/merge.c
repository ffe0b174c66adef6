/* merge.c: -m and -c/-C (see merge.h).
 *
 * The merge keeps a loser tree over the inputs: each internal node holds the input
 * that lost the match played there, node 0 the overall winner, so replacing the
 * winner's key costs one path of log2(k) comparisons. An exhausted input compares
 * greater than every key.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "merge.h"
#include "textnum.h"

#define MERGE_OUT_KEYS (64u << 10)

typedef struct {
    kreader_t *r;
    const void *keys;        /* the current block */
    size_t n, pos;           /* its size, and the next key */
    uint64_t head;           /* keys[pos - 1]: the key in the tree */
    int done;                /* 1: no keys left */
    int width;
} msrc_t;

typedef struct {
    msrc_t *src;
    int k;
    int *node;               /* [k]: losers; node[0] is the winner */
} ltree_t;

/* Source a before source b? Exhausted sources come last; ties go to the lower index,
 * and index k is the sentinel that beats everything (used while building). */
static inline int lt_before(const ltree_t *t, int a, int b)
{
    if (a == t->k)
        return 1;
    if (b == t->k)
        return 0;
    const msrc_t *x = &t->src[a], *y = &t->src[b];
    if (x->done != y->done)
        return y->done;
    if (x->done)
        return a < b;
    return x->head < y->head || (x->head == y->head && a < b);
}

/* Play source s's new head up from its leaf to the root. */
static void lt_replay(ltree_t *t, int s)
{
    int winner = s;
    for (int node = (s + t->k) / 2; node > 0; node /= 2) {
        if (lt_before(t, t->node[node], winner)) {
            int loser = winner;
            winner = t->node[node];
            t->node[node] = loser;
        }
    }
    t->node[0] = winner;
}

static int msrc_disorder(msrc_t *s, size_t i, uint64_t key, const keymap_t *km)
{
    char v[TN_MAX_LINE];
    size_t len = tn_format(key_map(km, key), km->type, v);
    v[len] = '\0';
    return err_set(GS_EINPUT, "%s:%llu: disorder: %s", kreader_name(s->r),
                   (unsigned long long)kreader_position(s->r, i), v);
}

/* Move s to its next key, reading a block if needed; check its order. */
static int msrc_advance(msrc_t *s, const keymap_t *km)
{
    if (s->pos == s->n) {
        int rc = kreader_next(s->r, &s->keys, &s->n);
        if (rc)
            return rc;
        s->pos = 0;
        if (s->n == 0) {
            s->done = 1;
            return GS_OK;
        }
    }
    /* head starts at 0, the least key, so an input's first key always passes. */
    uint64_t key = key_get(s->keys, s->pos, s->width);
    if (key < s->head)
        return msrc_disorder(s, s->pos, key, km);
    s->head = key;
    s->pos++;
    return GS_OK;
}

int merge_readers(kreader_t **readers, int n, int unique, const keymap_t *km,
                  output_t *out)
{
    int width = km->width;
    ltree_t t = { .k = n };
    t.src = calloc((size_t)n, sizeof *t.src);
    t.node = malloc(sizeof *t.node * (size_t)(n > 0 ? n : 1));
    void *buf = malloc(MERGE_OUT_KEYS * (size_t)width);
    int rc = GS_OK;
    if (!t.src || !t.node || !buf) {
        rc = err_set(GS_ENOMEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        t.src[i].r = readers[i];
        t.src[i].width = width;
        t.node[i] = n;   /* the sentinel, pushed out as the leaves are played */
    }
    for (int i = n - 1; i >= 0; i--) {
        rc = msrc_advance(&t.src[i], km);
        if (rc)
            goto out;
        lt_replay(&t, i);
    }
    size_t nb = 0;
    int have_last = 0;
    uint64_t last = 0;
    while (n > 0) {
        msrc_t *w = &t.src[t.node[0]];
        if (w->done)
            break;
        uint64_t key = w->head;
        if (!unique || !have_last || key != last) {
            if (width == 4)
                ((uint32_t *)buf)[nb++] = (uint32_t)key;
            else
                ((uint64_t *)buf)[nb++] = key;
            if (nb == MERGE_OUT_KEYS) {
                rc = output_write(out, buf, nb);
                if (rc)
                    goto out;
                nb = 0;
            }
            last = key;
            have_last = 1;
        }
        rc = msrc_advance(w, km);
        if (rc)
            goto out;
        lt_replay(&t, t.node[0]);
    }
    rc = output_write(out, buf, nb);
out:
    free(t.src);
    free(t.node);
    free(buf);
    return rc;
}

int merge_check(kreader_t *r, int width, int strict, uint64_t *pos, uint64_t *key)
{
    int have_last = 0;
    uint64_t last = 0;
    for (;;) {
        const void *keys;
        size_t n;
        int rc = kreader_next(r, &keys, &n);
        if (rc)
            return rc;
        if (n == 0)
            return GS_OK;
        for (size_t i = 0; i < n; i++) {
            uint64_t k = key_get(keys, i, width);
            if (have_last && (k < last || (strict && k == last))) {
                *pos = kreader_position(r, i);
                *key = k;
                return GS_EDISORDER;
            }
            last = k;
            have_last = 1;
        }
    }
}
