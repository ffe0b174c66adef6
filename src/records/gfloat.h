/* SPDX-License-Identifier: MIT */
/* gfloat.h: floating-point keys: a g key's text read as a binary64, and the sort
 * key of a binary64 or binary32 value, an unsigned integer in the numbers' order
 * (records/rkey.h's encoding of g, f32 and f64 keys).
 */
#ifndef GS_GFLOAT_H
#define GS_GFLOAT_H

#include <stddef.h>
#include <stdint.h>

/* line[b..e) read as a floating-point number whole (blanks and CR around it), as a
 * g key is, as strtod(3) reads it in the C locale (decimal, hex, inf, nan; a sign
 * once): 1 and *v, or 0. */
int gfloat_parse(const char *line, size_t b, size_t e, double *v);

/* The sort key of a binary64 value: every NaN 0 (first), -0 as 0, the bits of the
 * others with all of them flipped where negative and the sign bit where not. */
uint64_t gfloat_key64(double v);
/* The same for a binary32 value. */
uint32_t gfloat_key32(float v);

#endif
