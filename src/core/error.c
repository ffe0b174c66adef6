/* error.c: the first error's message, and the mapping from codes to exit status. */
#include <config.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static char err_text[1024];   /* the first message, without the "gpusort: " prefix */
static int err_have;          /* 1 once err_text holds a message */

static int err_vset(int code, int errnum, const char *fmt, va_list ap)
{
    pthread_mutex_lock(&err_lock);
    if (!err_have) {
        int n = vsnprintf(err_text, sizeof err_text, fmt, ap);
        if (errnum && n >= 0 && (size_t)n < sizeof err_text)
            snprintf(err_text + n, sizeof err_text - n, ": %s", strerror(errnum));
        err_have = 1;
    }
    pthread_mutex_unlock(&err_lock);
    return code;
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

void err_report(int code)
{
    if (code == GS_OK || code == GS_EXIT_OK || code == GS_EDISORDER || code == GS_EPIPE)
        return;
    fprintf(stderr, "gpusort: %s\n", err_have ? err_text : "internal error");
    if (code == GS_EUSAGE)
        fputs("Try 'gpusort --help' for more information.\n", stderr);
}
