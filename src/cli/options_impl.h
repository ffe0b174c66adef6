/* SPDX-License-Identifier: MIT */
/* options_impl.h: what the parser's two files share: options.c (getopt_long, each
 * option's value) and keyopt.c (-k KEYDEF and -t SEP). Not for other modules: their
 * interface is options.h.
 */
#ifndef GS_OPTIONS_IMPL_H
#define GS_OPTIONS_IMPL_H

#include <stddef.h>

#include "cli/options.h"

/* sort's options that order other things than integers (options.c): each refused
 * with a message naming both spellings, and -k's letter of the same name with the
 * same reason (keyopt.c). */
typedef struct {
    int c;                 /* the short letter, or the long-only option's number */
    const char *name;      /* "-f (--ignore-case)" */
    const char *why;
} opt_refused_t;

extern const opt_refused_t opt_refused[];
extern const size_t opt_nrefused;   /* the entries of opt_refused */

/* -k F[.C][OPTS][,F2[.C2][OPTS]] (sort's KEYDEF): one more key in o->keys (keyopt.c).
 * GS_OK, or GS_EUSAGE with the message set. */
int opt_key(const char *spec, opts_t *o);

/* -t SEP: one byte ("\0" for NUL, as sort takes it), the same one each time it is
 * given (keyopt.c). GS_OK, or GS_EUSAGE with the message set. */
int opt_separator(const char *arg, opts_t *o);

#endif
