/* cleanup.h: the registry of temporary files, and the signals that must not leave
 * any behind.
 *
 * cleanup_init() installs handlers for SIGINT, SIGTERM, SIGHUP and SIGPIPE (except
 * those ignored when gpusort started, which stay ignored). On such a signal every
 * registered file is unlinked and the signal is re-raised with its default action,
 * so the exit status is the usual 128+signal. SIGBUS in a watched input mapping is a
 * read error (cleanup_watch_map).
 */
#ifndef GS_CLEANUP_H
#define GS_CLEANUP_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>

/* Install the signal handlers; call once, before any temporary file exists. */
int cleanup_init(void);

/* Create a thread with SIGINT, SIGTERM and SIGHUP blocked in it. Every thread of
 * gpusort is made so: those signals then reach only the main thread, which blocks them
 * while it creates and registers a temporary (cleanup_mkstemp), so no signal can end
 * the process between the two. (SIGPIPE goes to the thread that wrote, as it must.) */
int cleanup_thread_create(pthread_t *t, void *(*fn)(void *), void *arg);

/* Block SIGINT, SIGTERM and SIGHUP in the calling thread, e.g. around a library call
 * that starts threads of its own (CUDA's); restore with cleanup_unblock(old). */
void cleanup_block_signals(sigset_t *old);
void cleanup_unblock(const sigset_t *old);

/* mkostemp(template, O_CLOEXEC) and register the file, with the signals blocked in
 * between. Returns the descriptor and sets *slot, or -1 with errno set (and the
 * message set only if the registry failed): the caller says what it was making. */
int cleanup_mkstemp(char *template, int *slot);

/* Register path (copied) for removal; return a slot >= 0, or -1 (message set) when
 * out of memory. The registry grows as needed. */
int cleanup_register(const char *path);

/* Forget slot without removing the file (it was renamed or already removed). */
void cleanup_forget(int slot);

/* Unlink the file in slot and forget it. */
void cleanup_remove(int slot);

/* Unlink every registered file (error paths and exit). */
void cleanup_remove_all(void);

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
