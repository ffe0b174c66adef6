/* SPDX-License-Identifier: MIT */
/* progress.h: --progress, a one-line display on stderr: phase, bytes in, runs
 * made, the share of keys merged, bytes out and the input rate, redrawn a few times a second on a terminal (a line a second
 * otherwise). It reads the counters of stats.h; nothing else feeds it.
 */
#ifndef GS_PROGRESS_H
#define GS_PROGRESS_H

/* Start the display thread. GS_OK or an error code. */
int progress_start(void);

/* Name the phase shown ("reading", "sorting", "writing", "merging", "checking"). */
void progress_phase(const char *phase);

/* Stop the thread; after a success draw the last line ("done"), after a failure
 * only end the line on a terminal so the error message stands alone. A no-op if
 * not started. */
void progress_stop(int ok);

#endif
