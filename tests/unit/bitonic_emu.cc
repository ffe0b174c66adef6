/* SPDX-License-Identifier: MIT */
/* bitonic_emu.cc: the bitonic sort's kernels (kernels/bitonic.cuh), run on the CPU by a
 * small emulation of CUDA blocks, against std::sort: a test of the network, the
 * layouts and the pass schedule that needs no GPU (the GPU itself is tested by
 * tests/gpu/bitonic.c). Each thread of a block is a fiber; __syncthreads waits for
 * every thread of the block, a warp shuffle for the 32 lanes of the warp (a barrier
 * some threads never reach is reported). Every sort is run twice, warps scheduled
 * first to last and last to first, each warp as far ahead as it can go: a missing
 * barrier shows as a wrong result. Small configurations reach many global passes at small n; the
 * production ones are run at a few sizes. Prints "N passed, N failed".
 * Usage: bitonic_emu [full]   (full: more sizes, about ten times as long)
 */
#include <setjmp.h>
#include <ucontext.h>
#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
#include <sanitizer/asan_interface.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#define GK_EMULATE 1
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)

struct emu_dim {
    unsigned x, y, z;
};
static emu_dim threadIdx, blockIdx;

static void gk_sync();
static uint32_t gk_shfl_xor(uint32_t v, int d);
static uint64_t gk_shfl_xor(uint64_t v, int d);
static void *gk_shared_base();

#include "bitonic.cuh"

/* ---- the emulated block ------------------------------------------------------------------
 * Fibers are made with makecontext and switched with _setjmp/_longjmp (swapcontext
 * would make a system call at every switch). Under ASan, the jumps call libc's
 * _longjmp itself, found with dlsym: ASan's interceptor of it makes a system call
 * (sigaltstack) at every jump, which took most of this test's time there. That
 * interceptor unpoisons the stack left behind; but a fiber's frames are resumed,
 * never left but its last (emu_entry's), and a fiber's stack is unpoisoned as the
 * fiber is made on it. The scheduler runs one warp as far as it
 * goes (through its shuffles) before the next, first to last or last to first, so
 * that warps drift apart between block barriers as far as they can. */

enum { T_READY, T_BLOCK, T_WARP, T_DONE };

#if defined(__SANITIZE_ADDRESS__)
/* Not declared noreturn: ASan's instrumentation calls the same handler before a call
 * to a noreturn function. */
typedef void (*emu_longjmp_t)(struct __jmp_buf_tag *, int);
static emu_longjmp_t emu_longjmp = _longjmp;   /* libc's, once main() has found it */
#define EMU_LONGJMP(b) (emu_longjmp(b, 1), __builtin_unreachable())
#else
#define EMU_LONGJMP(b) _longjmp(b, 1)
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

static struct {
    int threads;
    int cur;
    bool reverse;                      /* schedule warps and lanes last to first */
    bool broken;                       /* a barrier some threads never reached */
    jmp_buf sched;
    ucontext_t boot;
    std::vector<ucontext_t> ctx;
    struct fiber { jmp_buf jb; };
    std::vector<fiber> jb;
    std::vector<std::vector<char>> stacks;
    std::vector<int> state;
    std::vector<uint64_t> slots;       /* shuffle values, one a thread */
    std::vector<unsigned char> smem;   /* exact size */
    std::function<void()> body;
} E;

/* Leave the running fiber for the scheduler, in state st. */
static void emu_yield(int st)
{
    E.state[E.cur] = st;
    if (!_setjmp(E.jb[E.cur].jb))
        EMU_LONGJMP(E.sched);
}

static void gk_sync()
{
    emu_yield(T_BLOCK);
}

static uint64_t emu_shfl(uint64_t v, int d)
{
    E.slots[E.cur] = v;
    emu_yield(T_WARP);
    uint64_t r = E.slots[(E.cur & ~31) | ((E.cur & 31) ^ d)];
    emu_yield(T_WARP);
    return r;
}

static uint32_t gk_shfl_xor(uint32_t v, int d)
{
    return (uint32_t)emu_shfl(v, d);
}

static uint64_t gk_shfl_xor(uint64_t v, int d)
{
    return emu_shfl(v, d);
}

static void *gk_shared_base()
{
    return E.smem.data();
}

static void emu_entry()
{
    if (!_setjmp(E.jb[E.cur].jb))   /* made: back to the scheduler until first run */
        EMU_LONGJMP(E.sched);
    E.body();
    E.state[E.cur] = T_DONE;
    EMU_LONGJMP(E.sched);
}

static void emu_resume(int t)
{
    E.cur = t;
    threadIdx.x = (unsigned)t;
    if (!_setjmp(E.sched))
        EMU_LONGJMP(E.jb[t].jb);
}

/* Run the ready lanes of warp w until each waits or is done; 1 if the warp then
 * waits at a shuffle as a whole (released), 0 otherwise. */
static int emu_warp(int w)
{
    int first = w * 32, last = std::min(E.threads, first + 32);
    for (int i = first; i < last; i++) {
        int t = E.reverse ? first + last - 1 - i : i;
        if (E.state[t] == T_READY)
            emu_resume(t);
    }
    int at = 0;
    for (int t = first; t < last; t++)
        at += E.state[t] == T_WARP;
    if (at == 0)
        return 0;
    if (at != last - first) {   /* a shuffle some lanes of the warp never reach */
        E.broken = true;
        return 0;
    }
    for (int t = first; t < last; t++)
        E.state[t] = T_READY;
    return 1;
}

/* Run body as block b of `threads` threads, to the end. */
static void emu_block(unsigned b, int threads, size_t smem, const std::function<void()> &body)
{
    const size_t stack = 64 << 10;
    if ((int)E.ctx.size() < threads) {
        E.ctx.resize(threads);
        E.jb.resize(threads);
        E.stacks.resize(threads);
        E.state.resize(threads);
        E.slots.resize(threads);
    }
    E.threads = threads;
    E.body = body;
    E.smem.assign(smem, 0xA5);   /* garbage, as on a GPU */
    blockIdx.x = b;
    for (int t = 0; t < threads; t++) {
        E.stacks[t].resize(stack);
        ASAN_UNPOISON_MEMORY_REGION(E.stacks[t].data(), stack);
        getcontext(&E.ctx[t]);
        E.ctx[t].uc_stack.ss_sp = E.stacks[t].data();
        E.ctx[t].uc_stack.ss_size = stack;
        E.ctx[t].uc_link = nullptr;
        makecontext(&E.ctx[t], emu_entry, 0);
        E.state[t] = T_READY;
        E.cur = t;
        if (!_setjmp(E.sched))
            setcontext(&E.ctx[t]);
    }
    int warps = (threads + 31) / 32;
    while (!E.broken) {
        for (int i = 0; i < warps && !E.broken; i++)
            while (emu_warp(E.reverse ? warps - 1 - i : i) && !E.broken)
                ;
        int done = 0, block = 0;
        for (int t = 0; t < threads; t++) {
            done += E.state[t] == T_DONE;
            block += E.state[t] == T_BLOCK;
        }
        if (done == threads)
            return;
        if (block != threads) {   /* a barrier some threads never reach */
            E.broken = true;
            return;
        }
        for (int t = 0; t < threads; t++)
            E.state[t] = T_READY;
    }
}

/* The launcher gk_bitonic_run calls: every block of the grid, one after another. */
struct emu_launch {
    size_t launches = 0;
    template <class... P, class... A>
    int operator()(void (*kernel)(P...), size_t blocks, int threads, size_t smem, A... args)
    {
        launches++;
        for (size_t b = 0; b < blocks; b++) {
            emu_block((unsigned)b, threads, smem, [&] { kernel(args...); });
            if (E.broken)
                return 1;
        }
        return 0;
    }
};

/* ---- the test ---------------------------------------------------------------------------- */

static uint64_t sm_state = 0x9E3779B97F4A7C15ull;

static uint64_t splitmix()
{
    uint64_t z = (sm_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

enum { D_RANDOM, D_FEW, D_SORTED, D_REVERSED, D_EQUAL, D_MAX, D_COUNT };
static const char *const dist_name[D_COUNT] = { "random", "few", "sorted", "reversed", "equal",
                                                "max-heavy" };

static int passed, failed;

template <class C>
static void check(const char *cfg, size_t n, int dist)
{
    typedef typename C::key_t K;
    std::vector<K> in(n), want, got[2];
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        switch (dist) {
        case D_RANDOM: v = splitmix(); break;
        case D_FEW: v = splitmix() % 3; break;
        case D_SORTED: v = i; break;
        case D_REVERSED: v = n - i; break;
        case D_EQUAL: v = 7; break;
        default: v = splitmix() % 4 ? ~0ull : splitmix(); break;   /* the padding key too */
        }
        in[i] = (K)v;
    }
    want = in;
    std::sort(want.begin(), want.end());
    for (int pass = 0; pass < 2; pass++) {
        got[pass] = in;
        E.reverse = pass == 1;
        E.broken = false;
        emu_launch launch;
        int rc = gk_bitonic_run<C>(got[pass].data(), n, launch);
        size_t expect = gk_bitonic_pass_count<C>(n);
        if (rc || E.broken || got[pass] != want || launch.launches != expect) {
            printf("FAIL: %s, n = %zu, %s, %s order%s%s (launches %zu, expected %zu)\n", cfg, n,
                   dist_name[dist], pass ? "reverse" : "forward", rc ? ", launch failed" : "",
                   E.broken ? ", barrier not reached by all" : "", launch.launches, expect);
            failed++;
            return;
        }
    }
    passed++;
}

template <class C>
static void sweep(const char *cfg, const std::vector<size_t> &sizes, bool every_dist)
{
    for (size_t n : sizes)
        for (int d = 0; d < (every_dist ? D_COUNT : 1); d++)
            check<C>(cfg, n, d);
}

int main(int argc, char **argv)
{
    bool quick = !(argc > 1 && strcmp(argv[1], "full") == 0);
    /* A ThreadSanitizer build makes this program without the sanitizer (it has no
     * threads, and TSan cannot follow its fibers' jumps): the plain build's run. */
    const char *san = getenv("SAN_NAME");
    if (san && strcmp(san, "tsan") == 0) {
        puts("SKIP: not under ThreadSanitizer: built without it, the plain build's run");
        return 77;
    }
#if defined(__SANITIZE_ADDRESS__)
    if (void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD))
        if (void *f = dlsym(libc, "_longjmp"))
            emu_longjmp = (emu_longjmp_t)f;
#endif
    /* Small tiles: many global passes at small n. */
    typedef gk_bitonic_cfg<uint32_t, 32, 2, 2> tiny32;      /* tile 64, C alone */
    typedef gk_bitonic_cfg<uint64_t, 64, 2, 3> tiny64;      /* tile 128, S stages */
    typedef gk_bitonic_cfg<uint32_t, 128, 4, 1> small32;    /* tile 512, S stages */
    typedef gk_bitonic_cfg<uint64_t, 32, 8, 4> small64;     /* tile 256, C alone */
    /* Wide global passes (strides 3 .. 5, 2 .. 4 a pass: group < g <= lg(tile) - 5). */
    typedef gk_bitonic_cfg<uint32_t, 128, 8, 2> wide32;     /* tile 1 Ki */
    typedef gk_bitonic_cfg<uint64_t, 64, 8, 2> wide64;      /* tile 512 */
    static_assert(wide32::wide_ok && wide32::pass_strides == 5, "wide passes");
    static_assert(wide64::wide_ok && wide64::pass_strides == 4, "wide passes");
    std::vector<size_t> every;
    for (size_t n = 0; n <= (quick ? 300 : 1100); n++)
        every.push_back(n);
    std::vector<size_t> some = { 2047, 2048, 2049, 4096, 5000, 8191, 8193, 16385 };
    if (!quick)
        some.push_back(70001);
    sweep<tiny32>("tiny32", every, false);
    sweep<tiny64>("tiny64", every, false);
    sweep<small32>("small32", every, false);
    sweep<small64>("small64", every, false);
    std::vector<size_t> dists = { 1, 2, 3, 63, 64, 65, 200, 511, 512, 513, 1000, 4097 };
    sweep<tiny32>("tiny32", dists, true);
    sweep<tiny64>("tiny64", dists, true);
    sweep<small32>("small32", dists, true);
    sweep<small64>("small64", some, true);
    std::vector<size_t> wide = { 1025, 2048, 3000, 4096, 8191, 16384, 20001 };
    if (!quick)
        wide.push_back(65537);
    sweep<wide32>("wide32", wide, false);
    sweep<wide32>("wide32", { 2049, 4100 }, true);
    wide = { 513, 1024, 2000, 4096, 7777, 16384 };
    if (!quick)
        wide.push_back(40000);
    sweep<wide64>("wide64", wide, false);
    sweep<wide64>("wide64", { 1025, 3333 }, true);
    sweep<tiny32>("tiny32", some, false);
    sweep<small32>("small32", some, false);
    /* The production configurations of bitonic.cu. */
    typedef gk_bitonic_cfg<uint32_t, 512, 32, 6> prod32;
    typedef gk_bitonic_cfg<uint64_t, 512, 16, 5> prod64;
    std::vector<size_t> prod = { 5, 16384, 16385 };
    if (!quick)
        prod.push_back(40000);
    sweep<prod32>("u32 512x32", prod, false);
    prod = { 5, 8192, 8193 };
    if (!quick)
        prod.push_back(20000);
    sweep<prod64>("u64 512x16", prod, false);
    printf("bitonic_emu: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
