/* SPDX-License-Identifier: MIT */
/* fdio.h: whole reads and writes on a descriptor: every byte, or the reason why not.
 * Short transfers are continued and EINTR retried, so callers see only done, the
 * end of a file, or an errno.
 */
#ifndef GS_FDIO_H
#define GS_FDIO_H

#include <stddef.h>
#include <stdint.h>

#include "core/pool.h"

/* Write buf[0..len) to fd, at offset off (pwrite), or at the file's position where
 * off < 0. 0, or the errno of the failure; *done (where not NULL) the bytes written
 * either way. */
int fdio_write(int fd, const void *buf, size_t len, int64_t off, size_t *done);

/* Read into buf[0..len) from fd, at offset off (pread), or at the file's position
 * where off < 0, until len bytes or the end of the file: *got the bytes read. 0, or
 * the errno of the failure (*got the bytes read before it). */
int fdio_read(int fd, void *buf, size_t len, int64_t off, size_t *got);

/* fdio_read() of buf[0..len) from offset off, in pieces of piece bytes read at once
 * by pool's threads (piece p by thread p mod threads; pool NULL, or one piece (piece
 * 0: len): this thread alone): the way a regular file is read fastest from the page cache. *got
 * the bytes read in order from off, up to the first piece that came short (the end
 * of the file, or a failure). 0, or the errno of the first failure. */
int fdio_read_pool(pool_t *pool, int fd, void *buf, size_t len, int64_t off, size_t piece,
                   size_t *got);

/* Copy len bytes of in, from offset in_off, to out at offset out_off, or at out's
 * position where out_off < 0 (an O_APPEND descriptor included): inside the kernel
 * where it can (copy_file_range), else through a buffer. 0, or the errno of the
 * failure (EIO where in holds fewer than len bytes from in_off). */
int fdio_copy(int in, uint64_t in_off, int out, int64_t out_off, uint64_t len);

#endif
