/* SPDX-License-Identifier: MIT */
/* layout.c: bytes laid out ahead, and the way they are written chosen (see
 * output.h): the file's mapped pages where it can be mapped (placed.c), else
 * pwrite at their offsets (spread.c), else in order. */
#include <config.h>

#include "core/error.h"
#include "io/output_impl.h"

int output_layout_begin(output_t *o, uint64_t total, const char *header, size_t hlen,
                        output_layout_t *L)
{
    *L = (output_layout_t){ .how = LAYOUT_IN_ORDER, .fd = -1, .total = total, .hlen = hlen };
    int rc = GS_OK;
    if (total > 0) {
        rc = output_place_begin(o, total, &L->base);
        if (rc == GS_OK && L->base) {
            L->how = LAYOUT_MAPPED;
            L->map = L->base + hlen;
            if (hlen)
                output_place_copy(o, L->base, header, hlen, L->base + total);
            return GS_OK;
        }
        if (rc == GS_OK)
            rc = output_spread_begin(o, total, &L->fd, &L->pos);
        if (rc == GS_OK && L->fd >= 0) {
            L->how = LAYOUT_AT;
            if (hlen)
                rc = output_spread_write(o, L->fd, header, hlen, L->pos);
            L->pos += hlen;
            return rc;
        }
    }
    return rc == GS_OK && hlen ? output_write_bytes(o, header, hlen) : rc;
}

int output_layout_end(output_t *o, output_layout_t *L, int ok)
{
    switch (L->how) {
    case LAYOUT_MAPPED:
        return output_place_end(o, L->base, L->total, ok);
    case LAYOUT_AT:
        return output_spread_end(o, L->pos - L->hlen, L->total, ok);
    default:
        return GS_OK;
    }
}
