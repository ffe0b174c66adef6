/* run.h: the one entry point behind main(): sort, merge or check, per the options. */
#ifndef GS_RUN_H
#define GS_RUN_H

#include "cli/options.h"

/* Do what o asks. Returns GS_OK, GS_EDISORDER (-c/-C found disorder), or an error
 * code with its message set; temporary files are gone either way. */
int run(const opts_t *o);

/* For --version: whether CUDA is built in, and the GPUs this machine shows. */
void run_describe_engines(void);

#endif
