/* cleanup.h: the registry of temporary files, and the signals that must not leave
 * any behind.
 *
 * cleanup_init() installs handlers for SIGINT, SIGTERM, SIGHUP and SIGPIPE (except
 * those ignored when gpusort started, which stay ignored). On such a signal every
 * registered file is unlinked and the signal is re-raised with its default action,
 * so the exit status is the usual 128+signal.
 */
#ifndef GS_CLEANUP_H
#define GS_CLEANUP_H

/* Install the signal handlers; call once, before any temporary file exists. */
int cleanup_init(void);

/* Register path (copied) for removal; return a slot >= 0, or -1 (message set) when
 * out of memory. The registry grows as needed. */
int cleanup_register(const char *path);

/* Forget slot without removing the file (it was renamed or already removed). */
void cleanup_forget(int slot);

/* Unlink the file in slot and forget it. */
void cleanup_remove(int slot);

/* Unlink every registered file (error paths and exit). */
void cleanup_remove_all(void);

/* 1 if SIGPIPE was ignored when gpusort started (then EPIPE is an exit-2 error). */
int cleanup_sigpipe_ignored(void);

#endif
