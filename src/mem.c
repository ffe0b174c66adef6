/* mem.c: large buffers with transparent huge pages asked for (see mem.h). */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "mem.h"

#define MEM_HUGE (2u << 20)

/* Ask for huge pages on the 2 MiB-aligned interior of [p, p+size). A hint: its
 * failure (no THP on this kernel) changes nothing. */
static void mem_hint(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
    if (!p || size < 2 * MEM_HUGE)
        return;
    uintptr_t lo = ((uintptr_t)p + MEM_HUGE - 1) & ~(uintptr_t)(MEM_HUGE - 1);
    uintptr_t hi = ((uintptr_t)p + size) & ~(uintptr_t)(MEM_HUGE - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)size;
#endif
}

void *mem_alloc(size_t size)
{
    void *p = malloc(size);
    mem_hint(p, size);
    return p;
}

void *mem_realloc(void *p, size_t size)
{
    void *q = realloc(p, size);
    mem_hint(q, size);
    return q;
}
