/* SPDX-License-Identifier: MIT */
/* ltree.h: a loser tree over k sources of ascending u64 keys.
 *
 * Each internal node holds the source that lost the match played there; node[0]
 * holds the overall winner, so after the winner's head changes one path of log2(k)
 * matches restores the tree. A source marked done compares after every key; ties go
 * to the lower source index (so merges are stable). The caller owns head[], done[]
 * and node[] (k entries each).
 */
#ifndef GS_LTREE_H
#define GS_LTREE_H

#include <stdint.h>

typedef struct {
    int k;                   /* sources */
    int *node;               /* [k] losers; node[0] the winner */
    const uint64_t *head;    /* [k] each source's current key */
    const unsigned char *done; /* [k] 1: the source is exhausted */
} ltree_t;

/* Source a before source b? Index k is the sentinel that beats everything. */
static inline int ltree_before(const ltree_t *t, int a, int b)
{
    if (a == t->k)
        return 1;
    if (b == t->k)
        return 0;
    if (t->done[a] != t->done[b])
        return t->done[b];
    if (t->done[a])
        return a < b;
    return t->head[a] < t->head[b] || (t->head[a] == t->head[b] && a < b);
}

/* Play source s's new head from its leaf up to the root. */
static inline void ltree_replay(ltree_t *t, int s)
{
    int winner = s;
    for (int node = (s + t->k) / 2; node > 0; node /= 2) {
        if (ltree_before(t, t->node[node], winner)) {
            int loser = winner;
            winner = t->node[node];
            t->node[node] = loser;
        }
    }
    t->node[0] = winner;
}

/* Build the tree once every source has its first head (or is done). */
static inline void ltree_build(ltree_t *t)
{
    for (int i = 0; i < t->k; i++)
        t->node[i] = t->k;
    for (int i = t->k - 1; i >= 0; i--)
        ltree_replay(t, i);
}

#endif
