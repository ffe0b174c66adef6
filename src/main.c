/* SPDX-License-Identifier: MIT */
/* main.c: options -> settings -> run() -> its outcome printed; nothing else. The
 * only place that exits. */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/options.h"
#include "core/cleanup.h"
#include "core/error.h"
#include "core/stdfds.h"
#include "pipeline/run.h"

int main(int argc, char **argv)
{
    opts_t o;
    settings_t s = { 0 };
    int e = stdfds_open(), rc = GS_OK;
    if (e)
        rc = err_sys(GS_EIO, e, "cannot open /dev/null for a closed standard descriptor");
    if (rc == GS_OK)
        rc = opt_parse(argc, argv, &o);
    if (rc == GS_EXIT_OK && stdfds_was_closed(STDOUT_FILENO))
        rc = err_sys(GS_EIO, EBADF, "write error on 'standard output'");
    if (rc == GS_EXIT_OK && (fflush(stdout) != 0 || ferror(stdout)))
        rc = err_set(GS_EIO, "write error on 'standard output'");
    if (rc == GS_OK)
        rc = cleanup_init();
    if (rc == GS_OK)
        rc = opt_settings(&o, &s);
    gs_error_t out = rc == GS_OK ? run(&s) : err_take(rc);
    opt_settings_free(&s);
    cleanup_remove_all();
    /* A reader went away: as killed by SIGPIPE, unless our parent ignored it. */
    if (out.code == GS_EPIPE && !cleanup_sigpipe_ignored())
        cleanup_die(SIGPIPE);
    err_report(&out);
    err_free(&out);
    return err_exit_status(out.code);
}
