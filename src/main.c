/* main.c: options -> settings -> run(); nothing else. The only place that exits. */
#include <config.h>

#include <stdio.h>

#include "cli/options.h"
#include "core/cleanup.h"
#include "core/error.h"
#include "pipeline/run.h"

int main(int argc, char **argv)
{
    opts_t o;
    settings_t s;
    int rc = opt_parse(argc, argv, &o);
    if (rc == GS_EXIT_OK && (fflush(stdout) != 0 || ferror(stdout)))
        rc = err_set(GS_EIO, "write error on 'standard output'");
    if (rc == GS_OK)
        rc = cleanup_init();
    if (rc == GS_OK)
        rc = opt_settings(&o, &s);
    if (rc == GS_OK)
        rc = run(&s);
    cleanup_remove_all();
    err_report(rc);
    return err_exit_status(rc);
}
