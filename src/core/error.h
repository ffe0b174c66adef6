/* SPDX-License-Identifier: MIT */
/* error.h: error codes and the one place that turns them into text.
 *
 * Every function below the engine's entry returns 0 or one of these codes; the first
 * error of a run also records a one-line message (without the "gpusort: " prefix).
 * Recording is thread safe: the first message set wins. The run's end takes the
 * message out (err_take) and hands code and message back as a value (gs_error_t,
 * pipeline/run.h), which main() prints: nothing is left recorded between runs.
 */
#ifndef GS_ERROR_H
#define GS_ERROR_H

#include <stddef.h>

enum {
    GS_OK = 0,
    GS_EUSAGE,     /* bad option or option value: exit 2, with the --help hint */
    GS_EINPUT,     /* bad input data: exit 2 */
    GS_EIO,        /* a system call failed: exit 2 */
    GS_ENOMEM,     /* out of memory: exit 2 */
    GS_EPIPE,      /* the reader went away (SIGPIPE ignored): exit 2, quietly */
    GS_EDISORDER,  /* -c/-C found disorder: exit 1 */
    GS_EXIT_OK     /* --help or --version was served: exit 0 */
};

/* Record the message of the first error of the run (printf-style, no trailing
 * newline, no "gpusort: " prefix) and return code, so callers can write
 * `return err_set(GS_EINPUT, "...")`. Later calls keep the first message. A file
 * name in a message is escaped first (err_escaped, err_escape), so that one error is
 * one line. */
int err_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* As err_set, appending ": strerror(errnum)". */
int err_sys(int code, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Write len bytes of s into dst (room bytes, the '\0' included) escaped as messages
 * show tokens and file names: printable ASCII as it is, but for \ and ', every other
 * byte as \xNN; past max bytes of s (0: no limit), "..." for the rest. Returns dst. */
char *err_escape(char *dst, size_t room, const char *s, size_t len, size_t max);

/* A malloc'ed copy of the string s escaped as err_escape() escapes it, or NULL when
 * out of memory. */
char *err_escaped(const char *s);

/* The recorded message, or NULL if none was recorded. */
const char *err_message(void);

/* An outcome as a value: a code and, for an error, its one message. */
typedef struct {
    int code;
    char *message;   /* without the "gpusort: " prefix (malloc'ed); NULL: none */
} gs_error_t;

/* code and the message recorded for it, taken out of the record, which is empty
 * again (the next err_set() records its own). */
gs_error_t err_take(int code);

/* Record e's message as err_set() does (gpusort-mpi: an engine run's outcome as the
 * rank's own) and free it; returns e->code. */
int err_put(gs_error_t *e);

void err_free(gs_error_t *e);

/* The exit status for a code: 0, 1 (disorder) or 2. */
int err_exit_status(int code);

/* Print e to stderr as the contract says (one "gpusort: ..." line, plus the --help
 * hint for usage errors; nothing for GS_EPIPE and GS_EDISORDER, whose message the
 * caller already printed or must not print). */
void err_report(const gs_error_t *e);

/* The prefix of err_report()'s lines ("gpusort" unless set: gpusort-mpi sets its
 * own). name must outlive every report. */
void err_set_program(const char *name);

#endif
