/* SPDX-License-Identifier: MIT */
/* run.h: the one entry point behind main(): sort, merge or check, per the settings. */
#ifndef GS_RUN_H
#define GS_RUN_H

#include "core/settings.h"

/* Do what s asks. Returns GS_OK, GS_EDISORDER (-c/-C found disorder), or an error
 * code with its message set; temporary files are gone either way. */
int run(const settings_t *s);

#endif
