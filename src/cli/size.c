/* SPDX-License-Identifier: MIT */
/* size.c: SIZE arguments (-S, --gpu-memory), parsed strictly (digits, one suffix,
 * overflow checked) and resolved once the total a percentage refers to is known.
 */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "cli/options.h"

int opt_parse_size(const char *s, size_arg_t *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return -1;
    uint64_t mult;
    int percent = 0;
    switch (*end) {
    case '\0': mult = 1ull << 10; break;
    case 'b': mult = 1; break;
    case 'k': case 'K': mult = 1ull << 10; break;
    case 'm': case 'M': mult = 1ull << 20; break;
    case 'g': case 'G': mult = 1ull << 30; break;
    case 't': case 'T': mult = 1ull << 40; break;
    case '%': mult = 1; percent = 1; break;
    default: return -1;
    }
    if (*end && end[1] != '\0')
        return -1;
    if (percent && v > 100)
        return -1;
    if (!percent && v > (1ull << 63) / mult)
        return -1;
    out->set = 1;
    out->percent = percent;
    out->value = percent ? v : v * mult;
    return 0;
}

uint64_t opt_size_bytes(const size_arg_t *s, uint64_t total, uint64_t dflt)
{
    if (!s->set)
        return dflt;
    if (s->percent)
        return (uint64_t)((unsigned __int128)total * s->value / 100);
    return s->value;
}
