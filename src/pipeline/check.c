/* SPDX-License-Identifier: MIT */
/* check.c: -c and -C: is the one input sorted? (merge_check(), streams.h) */
#include <config.h>

#include "core/error.h"
#include "core/progress.h"
#include "io/textnum.h"
#include "merge/streams.h"
#include "pipeline/ctx.h"

int check_run(ctx_t *c)
{
    kreader_cfg_t cfg = c->rcfg;
    kreader_t *r;
    progress_phase("checking");
    int rc = kreader_open(&r, &c->set->sources[0], &cfg);
    if (rc)
        return rc;
    uint64_t pos = 0, key = 0;
    rc = merge_check(r, c->km.width, c->set->unique, &pos, &key);
    if (rc == GS_EDISORDER && c->set->mode == MODE_CHECK) {
        char v[TN_MAX_LINE + 1];
        v[tn_format(key_map(&c->km, key), c->km.type, v)] = '\0';
        progress_stop(0);   /* the message is the last thing said: no line after it */
        progress_print("%s:%llu: disorder: %s", kreader_name(r), (unsigned long long)pos, v);
    }
    kreader_close(r);
    return rc;
}
