/* SPDX-License-Identifier: MIT */
/* progress.h: --progress, one line on stderr about the run: the phase, bytes in (of
 * the inputs' total, where the pipeline knows it), the percentage of the whole run
 * done, bytes out, the rate over the last few seconds and the time left where it can
 * be told. It reads the counters of stats.h (atomics: the sort never waits for it)
 * and the totals that progress_total() gives; nothing else feeds it.
 *
 * The whole run's work, where the inputs' total is known, is bytes: those to read,
 * those to write (as progress_total() expects them) and, once runs spill, those to
 * spill (the bytes spilled so far for the bytes read so far, kept up for the bytes
 * still to read; merge passes spill more); done is the bytes read, written and
 * spilled, each within its expected total. The percentage is done over that work:
 * it never goes back (a spill that begins adds work: the percentage waits for done
 * to catch up) and stays at 99 at most until the end, where the line is cleared or
 * the log's last line says "done". The time left is the work left at the rate done
 * grew over the window.
 *
 * The line, in order (fields are dropped where the width is short, the least
 * important first: the "gpusort:" prefix, the rate, bytes out, the time left, the
 * percentage, the bytes in; the phase is cut where nothing else fits):
 *
 *     gpusort: PHASE IN/TOTAL UNIT PCT% [out OUT] RATE/s M:SS left
 *     gpusort: PHASE IN RATE/s                    (a pipe: no total, no percentage)
 *
 * Sizes and rates in powers of 1000 (B, kB, MB, GB, TB), three digits. The rate is
 * that of bytes in and out together (never both at once: nothing is written before
 * every input is read) over the last PROGRESS_WINDOW seconds. The time left is the
 * whole run's (above); with no total (a pipe), a merge's, from its keys still to
 * merge (stats_progress()), at its rate over the same window.
 *
 * On a terminal: redrawn in place every PROGRESS_TICK_MS, by "\r" and the line
 * padded with spaces over the one before, in at most the terminal's width less one
 * column (TIOCGWINSZ on stderr, 80 where it has none, and never more than 80): a
 * line that ends in the last column leaves some terminals' cursor on the next line,
 * and the next "\r" would then redraw there. progress_stop() clears it with "\r",
 * spaces over what was drawn, "\r": no escape sequence, so that a terminal without
 * them (TERM=dumb) shows the same, and the cursor is back at the start of an empty
 * line for the prompt or the error message.
 *
 * stderr not a terminal (a log): the same line, ended by "\n", every PROGRESS_LOG_MS
 * (never "\r"); after a success, one last line "gpusort: done: IN in, OUT out, M:SS"
 * (OUT left out where nothing was written), so that a log says the run ended well.
 * After a failure, no last line: gpusort's message follows.
 *
 * For tests only: GS_PROGRESS_INTERVAL_MS=N (1 to 60000) in the environment redraws
 * every N ms on a terminal and writes a line every N ms to a log.
 */
#ifndef GS_PROGRESS_H
#define GS_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

/* Start the display thread, showing nothing for the first tick. GS_OK or an error
 * code. */
int progress_start(void);

/* The inputs' total bytes, once known (every input a regular file: the sum of their
 * sizes), and about the bytes the run will write (out: 0 for -c); without a call
 * the total is unknown, and the line shows no total, no percentage and no time left
 * but a merge's. May be called from any thread. */
void progress_total(uint64_t bytes, uint64_t out);

/* Name the phase shown: a string that lives as long as the run ("reading",
 * "sorting", "writing", "merging", "checking"). Also stats_phase(). Cheap: an atomic
 * store. */
void progress_phase(const char *phase);

/* Write "gpusort: " and the message (printf's format, without its newline) and a
 * newline to stderr, where the line is shown: cleared first on a terminal (drawn
 * again at the next tick), so that the message stands alone. Without --progress,
 * the same message. For what gpusort says while it runs (the first disorder of -c,
 * a warning). */
void progress_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* As progress_print("%s" and the bytes), where the message ends with bytes[0..len)
 * as they are: a line as it was read, NUL bytes and all, as sort writes a line in
 * its disorder message. head is text. */
void progress_print_raw(const char *head, const char *bytes, size_t len);

/* Stop the thread and clear the line on a terminal; on a log, after a success (ok),
 * write the last line (see above). A no-op if not started. */
void progress_stop(int ok);

#endif
