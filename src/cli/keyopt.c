/* SPDX-License-Identifier: MIT */
/* keyopt.c: the keys' options, -k KEYDEF and -t SEP, into the opts_t (options.c
 * calls them for each one given).
 *
 * -k takes sort's KEYDEF: a field and character position for the start and the end,
 * and sort's letters b, r, n and g after either; the letters of the orderings gpusort
 * refuses are refused with the options' reasons (opt_refused, options.c).
 */
#include <config.h>

#include <ctype.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "core/error.h"
#include "cli/options.h"
#include "cli/options_impl.h"

/* The number at *p (digits), moving *p past it, into *v: 1, or 0 where there are no
 * digits or it is past INT_MAX. */
static int opt_key_number(const char **p, int *v)
{
    long f = 0;
    if (!isdigit((unsigned char)**p))
        return 0;
    while (isdigit((unsigned char)**p)) {
        f = f * 10 + (**p - '0');
        if (f > INT_MAX)
            return 0;
        (*p)++;
    }
    *v = (int)f;
    return 1;
}

/* The letters after a position of -k: sort's b (on the start or the end), r, and
 * one kind, n or g; every other letter refused. *letters set where there were any. */
static int opt_key_letters(const char **p, const char *spec, keydef_t *d, int end,
                           int *letters)
{
    for (; **p && **p != ','; (*p)++) {
        char c = **p;
        *letters = 1;
        if (c == 'b') {
            if (end)
                d->skip_eblanks = 1;
            else
                d->skip_sblanks = 1;
        } else if (c == 'r') {
            d->reverse = 1;
        } else if (c == 'n' || c == 'g') {
            kd_kind_t k = c == 'n' ? KD_INT : KD_FLOAT;
            if (d->kind != KD_TEXT && d->kind != k)
                return err_set(GS_EUSAGE, "-k %s: the key letters n and g are incompatible",
                               spec);
            d->kind = k;
        } else {
            if (c == '.')
                return err_set(GS_EUSAGE, "-k %s: invalid field specification", spec);
            for (size_t i = 0; i < opt_nrefused; i++)
                if (opt_refused[i].c == c)
                    return err_set(GS_EUSAGE, "-k %s: the key letter %c %s: gpusort compares "
                                   "text, integers and floating-point numbers; use sort(1)",
                                   spec, c, opt_refused[i].why);
            return err_set(GS_EUSAGE, "-k %s: invalid key letter '%c' (gpusort takes b, n, g "
                           "and r)", spec, c);
        }
    }
    return GS_OK;
}

/* -k F[.C][OPTS][,F2[.C2][OPTS]] (sort's KEYDEF): one more key. */
int opt_key(const char *spec, opts_t *o)
{
    if (o->nkeys == GS_MAX_KEYS)
        return err_set(GS_EUSAGE, "-k %s: more than %d keys", spec, GS_MAX_KEYS);
    keydef_t d = { .schar = 1, .kind = KD_TEXT };
    int letters = 0;
    const char *p = spec;
    if (!opt_key_number(&p, &d.sfield) || d.sfield == 0)
        return err_set(GS_EUSAGE, "-k %s: invalid field specification (a field number "
                       "from 1, as in -k 2 or -k 2,2)", spec);
    if (*p == '.' && (p++, !opt_key_number(&p, &d.schar) || d.schar == 0))
        return err_set(GS_EUSAGE, "-k %s: invalid field specification (a character "
                       "position from 1 after the '.')", spec);
    int rc = opt_key_letters(&p, spec, &d, 0, &letters);
    if (rc)
        return rc;
    if (*p == ',') {
        p++;
        if (!opt_key_number(&p, &d.efield) || d.efield == 0)
            return err_set(GS_EUSAGE, "-k %s: invalid field specification (a field number "
                           "from 1 after the ',')", spec);
        if (*p == '.' && (p++, !opt_key_number(&p, &d.echar)))
            return err_set(GS_EUSAGE, "-k %s: invalid field specification (a character "
                           "position after the '.')", spec);
        if ((rc = opt_key_letters(&p, spec, &d, 1, &letters)) != GS_OK)
            return rc;
        if (*p)
            return err_set(GS_EUSAGE, "-k %s: invalid field specification", spec);
    }
    o->key_plain[o->nkeys] = !letters;
    o->keys[o->nkeys++] = d;
    return GS_OK;
}

/* -t SEP once more where one was given: the same is fine, another is an error, as
 * in sort ("incompatible tabs"), which names both. */
static int opt_separator_again(opts_t *o, int sep)
{
    if (o->field_sep < 0 || o->field_sep == sep) {
        o->field_sep = sep;
        return GS_OK;
    }
    char a[8], b[8], ca = (char)o->field_sep, cb = (char)sep;
    err_escape(a, sizeof a, &ca, 1, 0);
    err_escape(b, sizeof b, &cb, 1, 0);
    return err_set(GS_EUSAGE, "incompatible tabs: -t '%s' and -t '%s'", a, b);
}

/* -t SEP: one byte ("\0" for NUL, as sort takes it). */
int opt_separator(const char *arg, opts_t *o)
{
    key_type_t type;
    if (strcmp(arg, "\\0") == 0)
        return opt_separator_again(o, 0);
    if (strlen(arg) == 1)
        return opt_separator_again(o, (unsigned char)arg[0]);
    if (!*arg)
        return err_set(GS_EUSAGE, "-t: empty field separator");
    if (key_type_parse(arg, &type) == 0)   /* gpusort 0.1's -t TYPE */
        return err_set(GS_EUSAGE, "-t %s: the field separator is one byte; the key type "
                       "is --type=%s", arg, arg);
    return err_set(GS_EUSAGE, "-t '%s': the field separator must be one byte", arg);
}
