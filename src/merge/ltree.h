/* SPDX-License-Identifier: MIT */
/* ltree.h: the tournament, the one of every merge: a loser tree over k sources,
 * each standing for its next record by a 64-bit key (bare keys' mapped keys,
 * records' words, order keys); sources whose keys are equal are put in order by
 * the caller's tie rule (the records' keys in full, sort's last resort, the
 * source; a source that is done), where the caller has one.
 *
 * Node i (1 <= i < k) keeps the source that lost the match played there and that
 * source's key, side by side (lsrc[i], lkey[i]): the leaves are k..2k-1 (source s
 * at leaf s + k, under node (s + k) / 2), so that after the winner's key changes,
 * the one path from its leaf to the root restores the tree, one comparison a
 * level, each reading the node it is at and nothing else. The matches move sources
 * and keys without branches (the outcome of a match between random keys cannot be
 * predicted); only equal keys take the branch to the tie rule.
 *
 * The tie rule is a function known where the merge is compiled (its calls are
 * inlined, or with none, NULL, compiled away): tie(ctx, a, b) is 1 where source a
 * goes before source b, their keys equal. Without one, an equal key leaves the
 * winner as it is: for keys that are the whole of what is merged (bare keys),
 * which of two equal keys goes first does not matter.
 */
#ifndef GS_LTREE_H
#define GS_LTREE_H

#include <stdint.h>
#include <stdlib.h>

typedef int (*ltree_tie_fn)(void *ctx, int a, int b);

typedef struct {
    int k;                 /* sources */
    uint64_t *lkey;        /* [k] node i's loser's key ([0] unused) */
    int *lsrc;             /* [k] node i's loser */
    uint64_t *key;         /* [k] the sources' first keys, filled in by the caller
                              before ltree_build */
    int *win;              /* [2k] the build's scratch: each node's winner */
} ltree_t;

/* A tree for k sources (none: a tree that merges nothing): 0, or -1 out of memory. */
static inline int ltree_init(ltree_t *t, int k)
{
    size_t n = k > 0 ? (size_t)k : 1;
    t->k = k;
    t->lkey = calloc(n, sizeof *t->lkey);
    t->lsrc = calloc(n, sizeof *t->lsrc);
    t->key = calloc(n, sizeof *t->key);
    t->win = calloc(2 * n, sizeof *t->win);
    return t->lkey && t->lsrc && t->key && t->win ? 0 : -1;
}

static inline void ltree_free(ltree_t *t)
{
    free(t->lkey);
    free(t->lsrc);
    free(t->key);
    free(t->win);
    t->lkey = t->key = NULL;
    t->lsrc = t->win = NULL;
}

/* Every match played from the sources' keys (t->key): the winner, *wkey its key. */
static inline __attribute__((always_inline)) int
ltree_build(ltree_t *t, uint64_t *wkey, ltree_tie_fn tie, void *ctx)
{
    const int k = t->k;
    int *win = t->win;
    for (int i = 0; i < k; i++)
        win[k + i] = i;
    for (int node = k - 1; node >= 1; node--) {
        int a = win[2 * node], b = win[2 * node + 1];
        uint64_t ka = t->key[a], kb = t->key[b];
        int bwins = kb < ka || (tie && kb == ka && tie(ctx, b, a));
        win[node] = bwins ? b : a;
        t->lsrc[node] = bwins ? a : b;
        t->lkey[node] = bwins ? ka : kb;
    }
    int s = k > 1 ? win[1] : 0;
    *wkey = t->key[s];
    return s;
}

/* The winner s has a new key, *key: its matches played again from its leaf up.
 * Returns the new winner, *key its key. */
static inline __attribute__((always_inline)) int
ltree_replay(const ltree_t *t, int s, uint64_t *key, ltree_tie_fn tie, void *ctx)
{
    uint64_t *restrict lkey = t->lkey;
    int *restrict lsrc = t->lsrc;
    uint64_t wk = *key;
    for (int node = (s + t->k) >> 1; node > 0; node >>= 1) {
        uint64_t lk = lkey[node];
        int ls = lsrc[node];
        int up = lk < wk;
        if (tie && __builtin_expect(lk == wk, 0))
            up = tie(ctx, ls, s);
        /* masks, not branches: where a tie rule's call sits in the loop, the
         * compiler otherwise makes the selections jumps, mispredicted half the time */
        uint64_t mk = 0 - (uint64_t)up;
        int m = -up;
        lkey[node] = (wk & mk) | (lk & ~mk);
        lsrc[node] = (s & m) | (ls & ~m);
        wk = (lk & mk) | (wk & ~mk);
        s = (ls & m) | (s & ~m);
    }
    *key = wk;
    return s;
}

#endif
