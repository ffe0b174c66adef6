/* SPDX-License-Identifier: MIT */
/* cleanup.h: nothing left behind: the registry of temporary files, and the signals
 * that end gpusort without leaving any.
 *
 * Every signal whose default action ends the process and that can be caught is
 * handled, in one of two ways:
 *  - the asynchronous ones (HUP, INT, QUIT, USR1, USR2, PIPE, ALRM, TERM, STKFLT,
 *    XCPU, XFSZ, VTALRM, PROF, IO, PWR and the real-time signals) are blocked in
 *    every thread but one of their own (PIPE and XFSZ excepted, which the kernel
 *    sends to the thread that wrote): their handler hands them to that thread, which
 *    removes every registered file under the registry's lock and ends the
 *    process by the signal, as its default action would. A file is created and
 *    registered under that lock (cleanup_create), so no signal, sent to whichever
 *    thread at whichever moment, can come between the two. A write to a reader that
 *    went away raises SIGPIPE so, and one past `ulimit -f` SIGXFSZ;
 *  - the faults (SEGV, BUS, ILL, FPE, ABRT, TRAP, SYS) are taken by the thread that
 *    faulted: a handler removes the registered files and lets the fault take its
 *    default action. A SIGBUS in a watched input mapping is a read error of that
 *    file (cleanup_watch_map).
 * Signals ignored when gpusort started stay ignored, as sort keeps them (with SIGPIPE
 * ignored, a write to a reader that went away fails with EPIPE: exit 2, quietly).
 */
#ifndef GS_CLEANUP_H
#define GS_CLEANUP_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>

/* Start the thread that takes the asynchronous signals and install the handlers;
 * call once, from the main thread, before any other thread and any temporary file
 * exist. Blocks in the calling thread (and so in every thread started later) the
 * asynchronous signals other than SIGPIPE and SIGXFSZ, which only the signal thread
 * then takes. */
int cleanup_init(void);

/* Create a thread, with a small stack (gpusort's threads keep their large buffers on
 * the heap). 0 or an errno. */
int cleanup_thread_create(pthread_t *t, void *(*fn)(void *), void *arg);

/* Create a new file exclusively, named prefix followed by random characters,
 * relative to dirfd (AT_FDCWD: prefix is a path), with O_CLOEXEC and mode 0600, and
 * register it for removal, in one step. Returns its descriptor, *name (a copy,
 * malloc'ed: the caller frees it; relative to dirfd) and *slot; or -1 with errno set
 * (ENOMEM where the name or the registry could not be had). dirfd must stay open
 * until the slot is removed or forgotten. */
int cleanup_create(int dirfd, const char *prefix, char **name, int *slot);

/* Rename the file in slot over name (relative to the slot's directory), and forget
 * the slot, in one step under the registry's lock: a signal's cleanup comes wholly
 * before (both files removed, name untouched) or wholly after (name is the new
 * file), never between a rename and the registry's change, where it would remove
 * the renamed file's old name and leave the new one. Where name is a regular file,
 * the two are swapped (RENAME_EXCHANGE) and the old one removed. 0, or an errno
 * (the slot kept). */
int cleanup_rename_over(int slot, const char *name);

/* Forget slot without removing the file (it was renamed or already removed). */
void cleanup_forget(int slot);

/* Unlink the file in slot and forget it. */
void cleanup_remove(int slot);

/* Unlink every registered file (error paths and exit). */
void cleanup_remove_all(void);

/* Remove every registered file and end the process by sig, as its default action
 * would. Does not return. */
void cleanup_die(int sig) __attribute__((noreturn));

/* A write or an allocation of file space failed with EFBIG. Where a file size limit
 * (ulimit -f) is set and SIGXFSZ was not ignored at start, the kernel sent SIGXFSZ
 * with that error, to the thread that wrote: end the process by it here, as its
 * default action would, rather than let this thread's error exit race the signal
 * thread. Returns otherwise (a file system's own size limit: an error). */
void cleanup_file_too_large(void);

/* Watch a mapping of an input file (its pages read straight from the file): a
 * SIGBUS inside it, which is how the kernel reports that the file was cut short
 * while mapped or that a page of it could not be read, is a read error of that
 * file: every registered file is removed, one line "gpusort: read error on 'NAME':
 * ..." is written to stderr, and the process exits with status 2. A SIGBUS anywhere
 * else removes the registered files and takes its default action. Returns a watch,
 * or -1 where all are taken (the caller then reads without mapping). */
int cleanup_watch_map(const void *base, size_t len, const char *name);

/* Stop watching (the mapping is gone); -1 is a no-op. */
void cleanup_unwatch_map(int watch);

/* 1 if SIGPIPE was ignored when gpusort started (then EPIPE is an exit-2 error). */
int cleanup_sigpipe_ignored(void);

#endif
