/* SPDX-License-Identifier: MIT */
/* tokens.c: the text of bare numbers made one number a line (tokens.h). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "records/gfloat.h"
#include "records/rkey.h"
#include "records/tokens.h"

void rtokens_start(rtokens_t *k, const source_t *src, char term)
{
    k->src = src;
    k->term = term;
    k->len = 0;
    k->lines = 0;
    k->header = src->header;
    k->hlen = 0;
}

/* A number (or the header) on line `line` is the chunk's next table line. */
static int rtokens_note(rtokens_t *k, uint64_t line)
{
    if (!k->note)
        return GS_OK;
    if (k->nat == k->capat) {
        size_t cap = k->capat ? 2 * k->capat : 4096;
        uint64_t *a = realloc(k->at, cap * sizeof *a);
        if (!a)
            return err_set(GS_ENOMEM, "out of memory");
        k->at = a;
        k->capat = cap;
    }
    k->at[k->nat++] = line;
    return GS_OK;
}

/* The number that ends at arena[*bytes] (k->len bytes): GS_OK where it is one
 * whole, as a g key reads it; else *bytes cut before it and its message kept. */
static int rtokens_check(rtokens_t *k, const char *arena, size_t *bytes, const char *name)
{
    size_t b = *bytes - k->len;
    double v;
    if (gfloat_parse(arena, b, *bytes, &v))
        return rtokens_note(k, k->line);
    char q[256];
    err_escape(q, sizeof q, arena + b, k->len, 40);
    size_t cap = strlen(name) + strlen(q) + 64;
    if (!(k->bad = malloc(cap)))
        return err_set(GS_ENOMEM, "out of memory");
    snprintf(k->bad, cap, "%s:%llu: not a number: '%s'", name,
             (unsigned long long)source_line(k->src, k->term, k->line), q);
    *bytes = b;
    return GS_EINPUT;
}

int rtokens_take(rtokens_t *k, char *arena, size_t from, size_t *bytes, char term,
                 const char *name)
{
    size_t end = *bytes, w = from;
    for (size_t r = from; r < end; r++) {
        char c = arena[r];
        if (k->header) {
            arena[w++] = c;
            k->hlen++;
            if (c == term) {
                k->header = 0;
                int rc = rtokens_note(k, k->lines + 1);
                if (rc)
                    return rc;
            }
        } else if (!(c == ' ' || (c >= '\t' && c <= '\r') || c == term)) {
            if (k->len++ == 0)
                k->line = k->lines + 1;
            arena[w++] = c;
        } else if (k->len) {
            *bytes = w;
            int rc = rtokens_check(k, arena, bytes, name);
            if (rc)
                return rc;
            arena[w++] = term;
            k->len = 0;
        }
        k->lines += c == term;
    }
    *bytes = w;
    return GS_OK;
}

int rtokens_end(rtokens_t *k, char *arena, size_t *bytes, const char *name)
{
    int rc = GS_OK;
    if (k->header && k->hlen)   /* a header line without its terminator */
        rc = rtokens_note(k, k->lines + 1);
    else if (k->len)
        rc = rtokens_check(k, arena, bytes, name);
    k->len = 0;
    k->header = 0;
    return rc;
}

void rtokens_free(rtokens_t *k)
{
    free(k->bad);
    free(k->at);
    k->bad = NULL;
    k->at = NULL;
}
