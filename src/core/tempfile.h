/* tempfile.h: the one maker of temporary files: spilled runs, -m's pass files and
 * -o's temporary all come from here, registered for removal from the moment they
 * exist (cleanup.h).
 */
#ifndef GS_TEMPFILE_H
#define GS_TEMPFILE_H

/* Create DIR/PREFIXXXXXXX (mkostemp, O_CLOEXEC), registered for removal. Returns
 * its descriptor, *path (malloc'ed; the caller frees it) and *slot (for
 * cleanup_remove() or cleanup_forget()); or -1 with errno set and *path NULL, the
 * message left to the caller, who knows what the file was for (ENOMEM: no memory
 * for the name or the registry). */
int tempfile_make(const char *dir, const char *prefix, char **path, int *slot);

#endif
