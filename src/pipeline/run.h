/* SPDX-License-Identifier: MIT */
/* run.h: the engine's one entry point: sort, merge or check, per the settings, the
 * inputs their sources (core/source.h), the output their -o FILE or descriptor. */
#ifndef GS_RUN_H
#define GS_RUN_H

#include "core/error.h"
#include "core/settings.h"

/* Do what s asks. Returns the outcome as a value: GS_OK, GS_EDISORDER (-c/-C found
 * disorder), or an error code and its message (err_free() it); nothing is left
 * recorded, and temporary files are gone either way. One run at a time in a
 * process: its threads record its first error (core/error.h). */
gs_error_t run(const settings_t *s);

#endif
