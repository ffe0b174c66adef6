/* SPDX-License-Identifier: MIT */
/* passes.c: merge passes (see passes.h). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "merge/passes.h"

int passes_reduce(void *items, size_t size, int *n, int fan, passes_merge_fn merge, void *self)
{
    char *it = items;
    char *merged = malloc(size);
    if (!merged)
        return err_set(GS_ENOMEM, "out of memory");
    int rc = GS_OK;
    while (rc == GS_OK && *n > fan) {
        int out = 0;
        for (int g = 0; g < *n; g += fan) {
            int k = *n - g < fan ? *n - g : fan;
            if (k > 1 && (rc = merge(self, it + (size_t)g * size, k, merged)) != GS_OK) {
                /* Keep the items consistent for the caller to release. */
                memmove(it + (size_t)out * size, it + (size_t)g * size,
                        (size_t)(*n - g) * size);
                *n = out + (*n - g);
                break;
            }
            memmove(it + (size_t)out * size, k > 1 ? merged : it + (size_t)g * size, size);
            out++;
        }
        if (rc == GS_OK)
            *n = out;
    }
    free(merged);
    return rc;
}
