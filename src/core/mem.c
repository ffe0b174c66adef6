/* SPDX-License-Identifier: MIT */
/* mem.c: large buffers: huge pages asked for, pages given back, parallel copies
 * (see mem.h). */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/cleanup.h"
#include "core/mem.h"
#include "core/tuning.h"

/* A huge page. */
#define MEM_HUGE (2u << 20)

/* Ask for huge pages on the 2 MiB-aligned interior of [p, p+size) where size is at
 * least MEM_HUGE_MIN (a few huge pages). A buffer of small pages faults once every 4
 * KiB, and a fault can cost far more than zeroing its page: under a hypervisor that
 * traps each one, where several threads' faults may even be served one at a time. A
 * huge page is one fault for 512 of them, and fewer TLB misses after. Its cost is
 * that the kernel must find (compact, or have its hypervisor fill) 2 MiB at once,
 * which right after another process freed much memory can stall; doc/perf/TUNING.md
 * weighs the two. A hint: its failure (no THP on this kernel) changes nothing. */
static void mem_hint(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
    if (!p || size < MEM_HUGE_MIN)
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

void *mem_map(size_t size)
{
    if (size == 0)
        size = 1;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    mem_hint(p, size);
    return p;
}

void mem_unmap(void *p, size_t size)
{
    if (p)
        munmap(p, size ? size : 1);
}

void *mem_realloc(void *p, size_t size)
{
    void *q = realloc(p, size);
    mem_hint(q, size);
    return q;
}

static uintptr_t mem_page(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    return ps > 0 ? (uintptr_t)ps : 4096;
}

void mem_trim(void *p, size_t keep, size_t size)
{
    uintptr_t page = mem_page();
    uintptr_t lo = ((uintptr_t)p + keep + page - 1) & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + size) & ~(page - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void mem_prefault(const void *p, size_t len)
{
#if defined(__linux__) && defined(MADV_POPULATE_READ)
    if (len == 0)
        return;
    uintptr_t lo = (uintptr_t)p & ~(mem_page() - 1);
    madvise((void *)lo, (uintptr_t)p + len - lo, MADV_POPULATE_READ);
#else
    (void)p;
    (void)len;
#endif
}

typedef struct {
    char *dst;
    const char *src;
    size_t len;
} copy_job_t;

static void mem_copy_share(void *arg, int t, int nt)
{
    copy_job_t *j = arg;
    /* Shares of whole cache lines. */
    size_t lines = j->len / 64;
    size_t a = lines * (size_t)t / (size_t)nt * 64;
    size_t b = t == nt - 1 ? j->len : lines * (size_t)(t + 1) / (size_t)nt * 64;
    memcpy(j->dst + a, j->src + a, b - a);
}

void mem_copy(pool_t *pool, void *dst, const void *src, size_t len)
{
    if (len < MEM_PARALLEL_MIN || !pool || pool_size(pool) < 2) {
        memcpy(dst, src, len);
        return;
    }
    copy_job_t j = { dst, src, len };
    pool_run(pool, mem_copy_share, &j);
}

void mem_copy_stream(void *dst, const void *src, size_t len)
{
#if defined(__x86_64__) && defined(__SSE2__)
    char *d = dst;
    const char *s = src;
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (len < 4096) {
        memcpy(dst, src, len);
        return;
    }
    memcpy(d, s, head);   /* up to the destination's first 16-byte boundary */
    d += head;
    s += head;
    len -= head;
    size_t blocks = len / 64;
    for (size_t i = 0; i < blocks; i++, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    _mm_sfence();   /* the streamed stores ordered before whatever comes next */
    memcpy(d, s, len % 64);
#else
    memcpy(dst, src, len);
#endif
}

/* Letting go of a mapping's pages: a share of MEM_LET_GO_UNIT pieces (huge pages
 * left whole), the last piece to the mapping's end. */
#define MEM_LET_GO_UNIT ((size_t)2 << 20)

static void mem_let_go_share(void *arg, int t, int nt)
{
#ifdef MADV_DONTNEED
    copy_job_t *j = arg;
    size_t units = (j->len + MEM_LET_GO_UNIT - 1) / MEM_LET_GO_UNIT, a, b;
    pool_share(units, t, nt, &a, &b);
    size_t from = a * MEM_LET_GO_UNIT, to = b * MEM_LET_GO_UNIT < j->len ? b * MEM_LET_GO_UNIT
                                                                        : j->len;
    if (to > from)
        madvise(j->dst + from, to - from, MADV_DONTNEED);
#else
    (void)arg, (void)t, (void)nt;
#endif
}

void mem_unmap_pool(pool_t *pool, void *p, size_t len)
{
    if (!p)
        return;
    if (len >= MEM_PARALLEL_MIN && pool && pool_size(pool) > 1) {
        copy_job_t j = { p, NULL, len };
        pool_run(pool, mem_let_go_share, &j);
    }
    munmap(p, len);
}

/* Touching a buffer: a byte written in each page of a share. */
static void mem_touch_share(void *arg, int t, int nt)
{
    copy_job_t *j = arg;
    size_t pages = (j->len + 4095) / 4096;
    size_t a, b;
    pool_share(pages, t, nt, &a, &b);
    for (size_t i = a; i < b; i++)
        j->dst[i * 4096] = 0;
}

void mem_touch(pool_t *pool, void *p, size_t len)
{
    copy_job_t j = { p, NULL, len };
    if (len < MEM_PARALLEL_MIN || !pool || pool_size(pool) < 2)
        mem_touch_share(&j, 0, 1);
    else
        pool_run(pool, mem_touch_share, &j);
}

/* ---- windows of input files ---------------------------------------------------------- */

int mem_map_file(mem_file_map_t *m, int fd, uint64_t from, size_t len, size_t zeros,
                 const char *name)
{
    *m = (mem_file_map_t){ .watch = -1 };
    size_t page = (size_t)mem_page(), lead = (size_t)(from % page);
    if (len > SIZE_MAX - lead - zeros - 2 * page)
        return EFBIG;
    size_t file_len = (lead + len + page - 1) / page * page;
    size_t all = (lead + len + zeros + page - 1) / page * page;
    if (all == 0)
        all = page;   /* an empty window: a page of zeros */
    /* The zeros: an anonymous reservation, the file mapped over its start. */
    char *a = mmap(NULL, all, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (a == MAP_FAILED)
        return errno;
    if (file_len && mmap(a, file_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd,
                         (off_t)(from - lead)) == MAP_FAILED) {
        int e = errno;
        munmap(a, all);
        return e;
    }
    m->base = a;
    m->len = all;
    m->data = a + lead;
    m->watch = file_len ? cleanup_watch_map(a, file_len, name) : -1;
    return 0;
}

void mem_unmap_file(mem_file_map_t *m, pool_t *pool)
{
    if (!m->base)
        return;
    cleanup_unwatch_map(m->watch);
    mem_unmap_pool(pool, m->base, m->len);
    *m = (mem_file_map_t){ .watch = -1 };
}
