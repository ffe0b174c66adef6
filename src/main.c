/* main.c: options -> run(); nothing else. The only place that exits. */
#include <config.h>

#include <stdio.h>

#include "core/cleanup.h"
#include "core/error.h"
#include "cli/options.h"
#include "pipeline/run.h"

int main(int argc, char **argv)
{
    opts_t o;
    int rc = opt_parse(argc, argv, &o);
    if (rc == GS_EXIT_OK && (fflush(stdout) != 0 || ferror(stdout)))
        rc = err_set(GS_EIO, "write error on 'standard output'");
    if (rc == GS_OK)
        rc = cleanup_init();
    if (rc == GS_OK)
        rc = run(&o);
    cleanup_remove_all();
    err_report(rc);
    return err_exit_status(rc);
}
