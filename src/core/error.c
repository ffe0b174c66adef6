/* SPDX-License-Identifier: MIT */
/* error.c: the first error's message, and the mapping from codes to exit status. */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/error.h"

static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static char *err_text;        /* the first message, without the "gpusort: " prefix */
static int err_have;          /* 1 once err_text holds a message */
static char err_fallback[1024];   /* err_text where there was no memory for it */
static const char *err_program = "gpusort";   /* the messages' prefix */

/* The message as long as it is, the reason always kept: where no memory can be had
 * for it, the fallback buffer takes it, the text cut before the reason. */
static int err_vset(int code, int errnum, const char *fmt, va_list ap)
{
    pthread_mutex_lock(&err_lock);
    if (!err_have) {
        const char *reason = errnum ? strerror(errnum) : NULL;
        size_t rlen = reason ? strlen(reason) + 2 : 0;
        va_list aq;
        va_copy(aq, ap);
        int n = vsnprintf(NULL, 0, fmt, aq);
        va_end(aq);
        size_t room = n >= 0 ? (size_t)n + rlen + 1 : 0;
        char *buf = room ? malloc(room) : NULL;
        if (!buf) {
            buf = err_fallback;
            room = sizeof err_fallback;
        }
        vsnprintf(buf, room > rlen ? room - rlen : 1, fmt, ap);
        if (reason) {
            size_t at = strlen(buf);
            snprintf(buf + at, room - at, ": %s", reason);
        }
        err_text = buf;
        err_have = 1;
    }
    pthread_mutex_unlock(&err_lock);
    return code;
}

char *err_escape(char *dst, size_t room, const char *s, size_t len, size_t max)
{
    size_t o = 0, shown = max && len > max ? max : len, i = 0;
    if (room == 0)
        return dst;
    for (; i < shown; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7F && c != '\\' && c != '\'') {
            if (o + 1 >= room)
                break;
            dst[o++] = (char)c;
        } else {
            if (o + 4 >= room)
                break;
            snprintf(dst + o, 5, "\\x%02x", c);
            o += 4;
        }
    }
    if (i < len && o + 3 < room) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o] = '\0';
    return dst;
}

char *err_escaped(const char *s)
{
    size_t len = strlen(s), room = 4 * len + 1;
    char *d = malloc(room);
    return d ? err_escape(d, room, s, len, 0) : NULL;
}

int err_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(code, 0, fmt, ap);
    va_end(ap);
    return code;
}

int err_sys(int code, int errnum, const char *fmt, ...)
{
    if (errnum == EFBIG)
        cleanup_file_too_large();   /* ulimit -f: SIGXFSZ ends gpusort, as sort */
    va_list ap;
    va_start(ap, fmt);
    err_vset(code, errnum, fmt, ap);
    va_end(ap);
    return code;
}

const char *err_message(void)
{
    return err_have ? err_text : NULL;
}

int err_exit_status(int code)
{
    switch (code) {
    case GS_OK:
    case GS_EXIT_OK:
        return 0;
    case GS_EDISORDER:
        return 1;
    default:
        return 2;
    }
}

void err_report(const gs_error_t *e)
{
    int code = e->code;
    if (code == GS_OK || code == GS_EXIT_OK || code == GS_EDISORDER || code == GS_EPIPE)
        return;
    fprintf(stderr, "%s: %s\n", err_program, e->message ? e->message : "internal error");
    if (code == GS_EUSAGE)
        fprintf(stderr, "Try '%s --help' for more information.\n", err_program);
}

void err_set_program(const char *name)
{
    err_program = name;
}

gs_error_t err_take(int code)
{
    gs_error_t e = { .code = code };
    pthread_mutex_lock(&err_lock);
    if (err_have)
        e.message = err_text == err_fallback ? strdup(err_fallback) : err_text;
    err_text = NULL;
    err_have = 0;
    pthread_mutex_unlock(&err_lock);
    return e;
}

int err_put(gs_error_t *e)
{
    if (e->message)
        err_set(e->code, "%s", e->message);
    int code = e->code;
    err_free(e);
    return code;
}

void err_free(gs_error_t *e)
{
    free(e->message);
    e->message = NULL;
}
