/* SPDX-License-Identifier: MIT */
/* mem.h: large buffers. Keys and scratch arrays run from megabytes to gigabytes:
 * asking for transparent huge pages on all but the smallest (MEM_HUGE_MIN) cuts their
 * page faults and TLB misses (the radix scatter writes 2048 streams at once).
 */
#ifndef GS_MEM_H
#define GS_MEM_H

#include <stddef.h>
#include <stdint.h>
#include "core/pool.h"

/* malloc(size), with huge pages asked for on its interior when it is large. */
void *mem_alloc(size_t size);

/* Fresh pages of their own, from mmap(2) (huge pages asked for, as above), never
 * shared with malloc's heap: a buffer whose pages may be handed to the kernel and
 * then unmapped (output_hand()). NULL when there is no memory. */
void *mem_map(size_t size);

/* Unmap a mem_map() buffer of size bytes; NULL is a no-op. */
void mem_unmap(void *p, size_t size);

/* realloc(p, size), likewise. */
void *mem_realloc(void *p, size_t size);

/* Give back the pages of p[keep..size) (p from mem_alloc, size bytes); they read
 * as zeros if touched again. */
void mem_trim(void *p, size_t keep, size_t size);

/* Map the pages of p[0..len) (a file's mapping, say) into the page tables at once,
 * readable, by one call on this thread: where a pass over them would take a fault
 * every few pages (a trap to the host each, under some hypervisors). A hint: where
 * it fails (an older kernel, a file cut short), the pages fault in as before. */
void mem_prefault(const void *p, size_t len);

/* memcpy(dst, src, len), shared among the pool's threads when len is large (one
 * thread copies at a fraction of the memory's bandwidth, and first touches of new
 * pages fault in parallel). */
void mem_copy(pool_t *pool, void *dst, const void *src, size_t len);

/* memcpy on this thread, for a destination not read again soon (a buffer about to
 * cross PCIe): on x86-64, stores that bypass the cache, so that the destination's
 * lines are not read in first. */
void mem_copy_stream(void *dst, const void *src, size_t len);

/* munmap(p, len) (p a mapping's start), where the mapping is large its pages let go
 * first by the pool's threads, each a part (MADV_DONTNEED): a munmap(2) lets them
 * go on one thread, which for a mapping as large as the input takes a measurable
 * part of a run (doc/perf/RESULTS.md), and the run waits on it at its end. */
void mem_unmap_pool(pool_t *pool, void *p, size_t len);

/* A window of an input file mapped (mem_map_file): the file's pages, private, read
 * from the page cache as they are touched (nothing copied; a page written is the
 * process's own copy), with zeros after them. */
typedef struct {
    char *data;      /* the window's first byte */
    char *base;      /* the mapping's: data's page, */
    size_t len;      /*   its bytes, the zeros' included */
    int watch;       /* its SIGBUS watch (cleanup_watch_map), or -1 where every
                        watch was taken: then a file cut short kills the process */
} mem_file_map_t;

/* Map bytes [from, from + len) of the file open at fd, then at least zeros bytes of
 * zeros after them (zeros 0: none but the last page's tail), watched for the SIGBUS
 * by which the kernel says that the file was cut short or a page of it could not be
 * read: a read error of name (cleanup.h). 0, or an errno value (the mapping's,
 * EFBIG where it would not fit the address space), m then all NULL and -1. */
int mem_map_file(mem_file_map_t *m, int fd, uint64_t from, size_t len, size_t zeros,
                 const char *name);

/* Let m's mapping go (its pages leave the process, not the page cache), by the
 * pool's threads where it is large (mem_unmap_pool; pool may be NULL), and stop its
 * watch; a mapping already gone is a no-op. */
void mem_unmap_file(mem_file_map_t *m, pool_t *pool);

/* Fault in every page of p[0..len) (writing a zero at the start of each), shared
 * among the pool's threads: the kernel zeroes new pages at several times one
 * thread's rate when several fault at once. */
void mem_touch(pool_t *pool, void *p, size_t len);

#endif
