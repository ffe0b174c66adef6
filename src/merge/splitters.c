/* SPDX-License-Identifier: MIT */
/* splitters.c: splitters at equal steps of the samples' weight (see splitters.h). */
#include <config.h>

#include <stdlib.h>

#include "merge/splitters.h"

static int sample_cmp(const void *x, const void *y)
{
    uint64_t a = ((const sample_t *)x)->key, b = ((const sample_t *)y)->key;
    return (a > b) - (a < b);
}

size_t splitters_choose(sample_t *s, size_t n, size_t pieces, int distinct, uint64_t *split)
{
    if (n == 0 || pieces < 2)
        return 0;
    qsort(s, n, sizeof *s, sample_cmp);
    double total = 0, before = 0;
    for (size_t i = 0; i < n; i++)
        total += s[i].weight;
    size_t ns = 0, i = 0;
    for (size_t p = 1; p < pieces; p++) {
        double target = total * (double)p / (double)pieces;
        while (i + 1 < n && before + s[i].weight <= target)
            before += s[i++].weight;
        uint64_t k = s[i].key;
        if (distinct && (k <= s[0].key || (ns > 0 && k <= split[ns - 1])))
            continue;
        split[ns++] = k;
    }
    return ns;
}
