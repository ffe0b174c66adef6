/* ctx.h: what one run of gpusort shares: the options, the key mapping, the thread
 * pool and the chunk sorter, plus the helpers every mode uses to open inputs and the
 * output. run.c builds it; sort.c, mergefiles.c and run.c's check use it.
 */
#ifndef GS_CTX_H
#define GS_CTX_H

#include <stdint.h>

#include "io/input.h"
#include "cli/options.h"
#include "io/output.h"
#include "core/pool.h"
#include "sorter/sorter.h"

typedef struct {
    const opts_t *o;
    keymap_t km;
    pool_t *pool;
    sorter_t *sorter;
} ctx_t;

/* The inputs: the FILE operands, or "-" alone. */
void ctx_inputs(const ctx_t *c, char *const **files, int *n);

/* The inputs' bytes into *bytes, where every input is a regular file (1); 0 where
 * one is not (a pipe): unknown. */
int ctx_input_bytes(const ctx_t *c, uint64_t *bytes);

/* A reader configuration for the user's input format, blocks of block bytes. */
kreader_cfg_t ctx_reader_cfg(const ctx_t *c, size_t block);

/* The output configuration the options ask for. */
output_cfg_t ctx_output_cfg(const ctx_t *c);

/* Commit out if rc says everything before went well, else abort it; the result. */
int ctx_finish(int rc, output_t *out);

/* Where temporary files go: -T, else $TMPDIR, else /tmp. */
const char *ctx_tmpdir(const opts_t *o);

/* How many files one merge may hold open: the open-file limit less a reserve. */
int ctx_fan_in(void);

/* The modes. */
int sort_run(ctx_t *c);         /* sort.c: sort, in memory or through runs */
int mergefiles_run(ctx_t *c);   /* mergefiles.c: -m */

#endif
