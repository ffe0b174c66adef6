/* SPDX-License-Identifier: MIT */
/* stdfds.h: standard input, output and error, whichever of them gpusort started
 * without. A descriptor 0, 1 or 2 that is closed at start would be taken by the next
 * file opened (the --progress line, say, written into the sorted output), so each is
 * opened on /dev/null first, as coreutils does; a use of one that was closed (reading
 * "-", writing to standard output) is then an error, as it would have been.
 */
#ifndef GS_STDFDS_H
#define GS_STDFDS_H

/* Open each of 0, 1 and 2 that is closed on /dev/null; call first thing. 0, or the
 * errno of a failure (then gpusort cannot run safely). */
int stdfds_open(void);

/* 1 if fd (0, 1 or 2) was closed when gpusort started. */
int stdfds_was_closed(int fd);

#endif
