/* SPDX-License-Identifier: MIT */
/* tempfile.h: the one maker of temporary files: spilled runs, -m's pass files and
 * -o's temporary all come from here, registered for removal from the moment they
 * exist (cleanup.h).
 */
#ifndef GS_TEMPFILE_H
#define GS_TEMPFILE_H

/* Create a new file named prefix and random characters in the directory dirfd
 * (AT_FDCWD: in the directory dir), registered for removal. Returns its descriptor,
 * *path (malloc'ed; the caller frees it: DIR/NAME with AT_FDCWD, else NAME, relative
 * to dirfd) and *slot (for cleanup_remove() or cleanup_forget()); or -1 with errno
 * set and *path NULL, the message left to the caller, who knows what the file was
 * for. dirfd stays open until the slot is removed or forgotten. */
int tempfile_make(int dirfd, const char *dir, const char *prefix, char **path, int *slot);

/* The directory of the next spilled file: each of dirs[0..n) in turn, as sort
 * spreads its temporaries over several -T. Thread-safe. */
const char *tempfile_dir(const char *const *dirs, int n);

#endif
