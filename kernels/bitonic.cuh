/* SPDX-License-Identifier: MIT */
/* bitonic.cuh: the device code of our bitonic sort (thread, warp and block steps, its
 * three kernels) and its pass schedule, shared by bitonic.cu, the benchmark
 * (tests/bench/bitonic.cu) and the host emulation test (tests/unit/bitonic_emu.cc).
 *
 * The network is the "all ascending" form of bitonic sort: merging two sorted halves
 * of a block of 2^k keys first compares key i with its mirror i ^ (2^k - 1), then runs
 * half-cleaners of strides 2^(k-2) .. 1; every comparator puts the smaller key at the
 * lower index. So n need not be a power of two: keys from n on are taken as the
 * largest key and never read or written, and a comparator whose upper key is one of
 * them does nothing. Four kernels:
 *  - tile: each block sorts a tile of THREADS * ITEMS keys held in registers, with
 *    warp shuffles and shared-memory transposes (inside a tile the direction form is
 *    used, with descending blocks stored complemented);
 *  - fused: each thread loads the 2^G keys that G consecutive strides >= the tile
 *    touch, does the G steps in registers and writes them back (one global pass for
 *    G strides);
 *  - wide: for more strides than fit a thread's registers, each block holds the keys
 *    of up to tile/32 strided rows of 32 neighbours and does the steps between rows in
 *    registers and shared memory (one global pass for up to lg(tile) - 5 strides);
 *  - merge: each block finishes the strides below the tile of one merge.
 * Included with GK_EMULATE defined, the CUDA primitives below come from the includer.
 */
#ifndef GS_BITONIC_CUH
#define GS_BITONIC_CUH

#include <cstddef>
#include <cstdint>

#ifndef GK_EMULATE
static __device__ __forceinline__ void gk_sync()
{
    __syncthreads();
}

static __device__ __forceinline__ uint32_t gk_shfl_xor(uint32_t v, int d)
{
    return __shfl_xor_sync(0xffffffffu, v, d);
}

static __device__ __forceinline__ uint64_t gk_shfl_xor(uint64_t v, int d)
{
    return (uint64_t)__shfl_xor_sync(0xffffffffu, (unsigned long long)v, d);
}

/* The block's dynamic shared memory (one declaration for every key type). */
static __device__ __forceinline__ void *gk_shared_base()
{
    extern __shared__ uint4 gk_bitonic_smem[];
    return gk_bitonic_smem;
}
#endif

/* Threads per block of the fused global passes. */
constexpr int GK_FUSED_THREADS = 256;
static_assert(GK_FUSED_THREADS % 32 == 0, "whole warps");

constexpr int gk_log2(int v)
{
    return v <= 1 ? 0 : 1 + gk_log2(v / 2);
}

/* One configuration: KEY (uint32_t or uint64_t), THREADS a block and ITEMS keys a
 * thread in the block kernels (a tile is THREADS * ITEMS keys), GROUP, the most
 * strides one fused global pass does (each of its threads holds 2^GROUP keys), and
 * WIDE, whether wide global passes are used where they can be (false: fused passes
 * alone, as a baseline for the benchmark). */
template <typename KEY, int THREADS, int ITEMS, int GROUP, bool WIDE = true>
struct gk_bitonic_cfg {
    typedef KEY key_t;
    static constexpr int threads = THREADS;
    static constexpr int items = ITEMS;
    static constexpr int group = GROUP;
    static constexpr int lg_threads = gk_log2(THREADS);
    static constexpr int lg_items = gk_log2(ITEMS);
    static constexpr int lg_tile = lg_threads + lg_items;
    static constexpr int tile = THREADS * ITEMS;
    /* The transposes pad one key after every ITEMS: conflict-free both ways. */
    static constexpr size_t smem_bytes = (size_t)(THREADS * ITEMS + THREADS) * sizeof(KEY);
    static_assert((1 << lg_threads) == THREADS && (1 << lg_items) == ITEMS, "powers of two");
    static_assert(THREADS >= 32 && ITEMS >= 2, "a warp at least, two keys a thread");
    /* Strides < 32 * ITEMS stay in a warp (C and W layouts), strides >= THREADS in a
     * thread (S layout): together they must cover every stride of the tile. */
    static_assert(lg_threads <= lg_items + 5, "THREADS <= 32 * ITEMS");
    static_assert(GROUP >= 1 && GROUP <= 7, "2^GROUP keys a thread in registers");
    /* The most strides one wide global pass does (a block holds a tile's worth of keys:
     * at least 32 neighbours, for coalescing, times 2^wide rows); it is used for a
     * group of g strides, group < g <= wide, where wide > group and every such g is at
     * least lg_items (the wide kernel keeps the top lg_items of its g bits in a
     * thread's registers). pass_strides is then the most strides of any global pass. */
    static constexpr int wide = lg_tile - 5;
    static constexpr bool wide_ok = WIDE && wide > GROUP && GROUP + 1 >= lg_items;
    static constexpr int pass_strides = wide_ok ? wide : GROUP;
};

/* ---- thread: compare-exchange --------------------------------------------------------- */

template <typename K>
static __device__ __forceinline__ K gk_kmin(K a, K b)
{
    return b < a ? b : a;
}

template <typename K>
static __device__ __forceinline__ K gk_kmax(K a, K b)
{
    return b < a ? a : b;
}

/* a, b = min, max. */
template <typename K>
static __device__ __forceinline__ void gk_ce(K &a, K &b)
{
    K lo = gk_kmin(a, b), hi = gk_kmax(a, b);
    a = lo;
    b = hi;
}

/* ---- block: layouts of a tile ------------------------------------------------------------
 * Thread t (lane l of warp w) holds ITEMS keys of the tile, x[0..ITEMS), in one of:
 *   S (strided):    key t + r * THREADS     strides >= THREADS between registers
 *   C (contiguous): key t * ITEMS + r       strides < ITEMS between registers,
 *                                           ITEMS .. 16 * ITEMS between lanes
 *   W (warp rows):  key w * 32 * ITEMS + r * 32 + l
 *                                           strides < 32 between lanes,
 *                                           32 .. 16 * ITEMS between registers
 * S and W load and store global memory coalesced; the block moves keys between
 * layouts through shared memory. */
enum { GK_S, GK_C, GK_W };

template <class C, int LAYOUT>
static __device__ __forceinline__ int gk_index(int t, int r)
{
    return LAYOUT == GK_S   ? t + r * C::threads
           : LAYOUT == GK_C ? t * C::items + r
                            : (t >> 5) * 32 * C::items + r * 32 + (t & 31);
}

/* Shared-memory slot of tile key i: one pad slot after every ITEMS keys. */
template <class C>
static __device__ __forceinline__ int gk_pad(int i)
{
    return i + (i >> C::lg_items);
}

/* x (layout FROM) -> x (layout TO) through shared memory. */
template <class C, int FROM, int TO>
static __device__ __forceinline__ void gk_exchange(typename C::key_t (&x)[C::items],
                                                   typename C::key_t *smem, int t)
{
#pragma unroll
    for (int r = 0; r < C::items; r++)
        smem[gk_pad<C>(gk_index<C, FROM>(t, r))] = x[r];
    gk_sync();
#pragma unroll
    for (int r = 0; r < C::items; r++)
        x[r] = smem[gk_pad<C>(gk_index<C, TO>(t, r))];
    gk_sync();
}

/* Load the tile at keys (valid keys of it: the rest read as the largest key). */
template <class C, int LAYOUT>
static __device__ __forceinline__ void gk_load(typename C::key_t (&x)[C::items],
                                               const typename C::key_t *keys, int valid, int t)
{
    typedef typename C::key_t K;
#pragma unroll
    for (int r = 0; r < C::items; r++) {
        int i = gk_index<C, LAYOUT>(t, r);
        x[r] = i < valid ? keys[i] : ~(K)0;
    }
}

template <class C, int LAYOUT>
static __device__ __forceinline__ void gk_store(const typename C::key_t (&x)[C::items],
                                                typename C::key_t *keys, int valid, int t)
{
#pragma unroll
    for (int r = 0; r < C::items; r++) {
        int i = gk_index<C, LAYOUT>(t, r);
        if (i < valid)
            keys[i] = x[r];
    }
}

/* ---- warp and thread: ascending steps in each layout ------------------------------------- */

/* Lanes l and l ^ d compare their registers pairwise; the lower lane keeps the min. */
template <class C>
static __device__ __forceinline__ void gk_lane_step(typename C::key_t (&x)[C::items], int d,
                                                    int lane)
{
    typedef typename C::key_t K;
    const bool upper = (lane & d) != 0;
#pragma unroll
    for (int r = 0; r < C::items; r++) {
        K y = gk_shfl_xor(x[r], d);
        x[r] = upper ? gk_kmax(x[r], y) : gk_kmin(x[r], y);
    }
}

/* Registers r and r + 2^b compare pairwise. */
template <class C>
static __device__ __forceinline__ void gk_reg_step(typename C::key_t (&x)[C::items], int b)
{
#pragma unroll
    for (int r = 0; r < C::items; r++)
        if (!(r & (1 << b)))
            gk_ce(x[r], x[r | (1 << b)]);
}

/* Layout C: the steps of strides 2^jtop .. 1 (jtop < lg_items + 5). */
template <class C>
static __device__ __forceinline__ void gk_steps_c(typename C::key_t (&x)[C::items], int jtop,
                                                  int lane)
{
#pragma unroll
    for (int b = 4; b >= 0; b--)
        if (C::lg_items + b <= jtop)
            gk_lane_step<C>(x, 1 << b, lane);
#pragma unroll
    for (int b = C::lg_items - 1; b >= 0; b--)
        if (b <= jtop)
            gk_reg_step<C>(x, b);
}

/* Layout W: the steps of strides 2^jtop .. 1 (jtop < lg_items + 5). */
template <class C>
static __device__ __forceinline__ void gk_steps_w(typename C::key_t (&x)[C::items], int jtop,
                                                  int lane)
{
#pragma unroll
    for (int b = C::lg_items - 1; b >= 0; b--)
        if (5 + b <= jtop)
            gk_reg_step<C>(x, b);
#pragma unroll
    for (int b = 4; b >= 0; b--)
        if (b <= jtop)
            gk_lane_step<C>(x, 1 << b, lane);
}

/* Layout S: the steps of strides 2^jtop .. THREADS. */
template <class C>
static __device__ __forceinline__ void gk_steps_s(typename C::key_t (&x)[C::items], int jtop)
{
#pragma unroll
    for (int b = C::lg_items - 1; b >= 0; b--)
        if (C::lg_threads + b <= jtop)
            gk_reg_step<C>(x, b);
}

/* Bit b of the tile index of key r of thread t in layout C. */
template <class C>
static __device__ __forceinline__ unsigned gk_bit_c(int t, int r, int b)
{
    return b < C::lg_items ? (unsigned)(r >> b) & 1u : (unsigned)(t >> (b - C::lg_items)) & 1u;
}

/* Inside the tile sort, merge stage k sorts blocks of 2^k keys descending where bit k
 * of the index is set; those keys are kept complemented, so that every step is an
 * ascending compare-exchange. Going from stage a to stage b complements where bit a
 * and bit b differ (layout C). */
template <class C>
static __device__ __forceinline__ void gk_restage_c(typename C::key_t (&x)[C::items], int t,
                                                    int a, int b)
{
    typedef typename C::key_t K;
#pragma unroll
    for (int r = 0; r < C::items; r++)
        x[r] ^= (K)0 - (K)(gk_bit_c<C>(t, r, a) ^ gk_bit_c<C>(t, r, b));
}

/* ---- the kernels ------------------------------------------------------------------------- */

/* Sort each tile of keys[0..n) ascending (one block a tile). */
template <class C>
__global__ void __launch_bounds__(C::threads) gk_bitonic_tile(typename C::key_t *keys, size_t n)
{
    typedef typename C::key_t K;
    K *smem = (K *)gk_shared_base();
    const int t = threadIdx.x, lane = t & 31;
    const size_t base = (size_t)blockIdx.x * C::tile;
    const int valid = n - base < (size_t)C::tile ? (int)(n - base) : C::tile;
    K x[C::items];
    gk_load<C, GK_S>(x, keys + base, valid, t);
    gk_exchange<C, GK_S, GK_C>(x, smem, t);
    /* Stages whose strides all stay in a warp: C alone. Stage "lg_tile" before the
     * first means no key complemented (bit lg_tile of a tile index is 0). */
    constexpr int KC = C::lg_tile < C::lg_items + 5 ? C::lg_tile : C::lg_items + 5;
#pragma unroll
    for (int k = 1; k <= KC; k++) {
        gk_restage_c<C>(x, t, k == 1 ? C::lg_tile : k - 1, k);
        gk_steps_c<C>(x, k - 1, lane);
    }
    /* Larger stages: strides >= THREADS in S, the rest in C. */
    for (int k = KC + 1; k <= C::lg_tile; k++) {
        gk_restage_c<C>(x, t, k - 1, k);
        gk_exchange<C, GK_C, GK_S>(x, smem, t);
        gk_steps_s<C>(x, k - 1);
        gk_exchange<C, GK_S, GK_C>(x, smem, t);
        gk_steps_c<C>(x, C::lg_threads - 1, lane);
    }
    gk_exchange<C, GK_C, GK_S>(x, smem, t);
    gk_store<C, GK_S>(x, keys + base, valid, t);
}

/* The last steps of a merge, strides tile/2 .. 1, on each tile of keys[0..n). */
template <class C>
__global__ void __launch_bounds__(C::threads) gk_bitonic_merge(typename C::key_t *keys, size_t n)
{
    typedef typename C::key_t K;
    K *smem = (K *)gk_shared_base();
    const int t = threadIdx.x, lane = t & 31;
    const size_t base = (size_t)blockIdx.x * C::tile;
    const int valid = n - base < (size_t)C::tile ? (int)(n - base) : C::tile;
    K x[C::items];
    gk_load<C, GK_S>(x, keys + base, valid, t);
    gk_steps_s<C>(x, C::lg_tile - 1);
    gk_exchange<C, GK_S, GK_W>(x, smem, t);
    gk_steps_w<C>(x, C::lg_threads - 1, lane);
    gk_store<C, GK_W>(x, keys + base, valid, t);
}

/* G steps of a merge over keys[0..n), strides 2^(lo+G-1) .. 2^lo, in one pass. Thread
 * (q, L) holds keys q * 2^(lo+G) + L + r * 2^lo, r < 2^G (L < 2^lo: a warp reads 32
 * neighbours). With FLIP the first step is the merge's mirror step: the upper half of
 * the thread's keys is then taken at L' = 2^lo - 1 - L, so that key r meets its mirror
 * 2^G - 1 - r in the same thread. Two blocks an SM at least: the addresses are
 * recomputed rather than held in registers beside the keys. */
template <typename K, int G, bool FLIP>
__global__ void __launch_bounds__(GK_FUSED_THREADS, 2)
gk_bitonic_fused(K *keys, size_t n, int lo)
{
    constexpr int R = 1 << G;
    const size_t tid = (size_t)blockIdx.x * GK_FUSED_THREADS + threadIdx.x;
    const size_t low = ((size_t)1 << lo) - 1, l = tid & low;
    const size_t blk = (tid >> lo) << (lo + G);
    const size_t base = blk + l, ubase = FLIP ? blk + (low - l) : base;
    if (base >= n)
        return;
    /* Whole: every key of the thread is below n (all but the last blocks). */
    const bool whole = ubase + ((size_t)(R - 1) << lo) < n;
    K x[R];
    if (whole) {
#pragma unroll
        for (int r = 0; r < R; r++)
            x[r] = keys[(r >= R / 2 ? ubase : base) + ((size_t)r << lo)];
    } else {
#pragma unroll
        for (int r = 0; r < R; r++) {
            size_t i = (r >= R / 2 ? ubase : base) + ((size_t)r << lo);
            x[r] = i < n ? keys[i] : ~(K)0;
        }
    }
    if (FLIP) {
#pragma unroll
        for (int r = 0; r < R / 2; r++)
            gk_ce(x[r], x[R - 1 - r]);
    }
#pragma unroll
    for (int b = FLIP ? G - 2 : G - 1; b >= 0; b--) {
#pragma unroll
        for (int r = 0; r < R; r++)
            if (!(r & (1 << b)))
                gk_ce(x[r], x[r | (1 << b)]);
    }
    if (whole) {
#pragma unroll
        for (int r = 0; r < R; r++)
            keys[(r >= R / 2 ? ubase : base) + ((size_t)r << lo)] = x[r];
    } else {
#pragma unroll
        for (int r = 0; r < R; r++) {
            size_t i = (r >= R / 2 ? ubase : base) + ((size_t)r << lo);
            if (i < n)
                keys[i] = x[r];
        }
    }
}

/* G steps of a merge over keys[0..n), strides 2^(lo+G-1) .. 2^lo, in one pass, for G
 * beyond one thread's registers (C::group < G <= C::wide): each block sorts, through
 * shared memory, a "virtual tile" v of C::tile keys: 2^LL neighbours (v's low LL =
 * lg_tile - G bits, L) in each of the 2^G rows r (v's top G bits) at stride 2^lo, so
 * that the G strides are v's top G bits; its lanes read 32 neighbours of a row. Layout
 * S holds v's top lg_items bits (r's top bits) in registers, layout W v's bits 5 ..
 * lg_items + 4, which hold r's other bits. Block b takes the neighbours L0 .. L0 +
 * 2^LL - 1 of segment b >> (lo - LL) (2^(lo+G) keys). With FLIP the first step is the
 * merge's mirror step: the upper half of the rows is then taken at the mirrored
 * neighbours 2^lo - 2^LL - L0 .. 2^lo - 1 - L0, and in layout S thread t holds upper
 * keys at v = (THREADS - 1 - t) + q * THREADS (all of v's bits below the registers
 * complemented), so that register q meets its mirror ITEMS - 1 - q in the thread; v
 * stays ascending with the key's index within each half, so every later step is an
 * ascending compare-exchange. Keys from n on read as the largest key and stay put.
 * Two blocks an SM (64 registers a thread for u32 x 32: the addresses are a thread's
 * base plus a register's offset, not 32 held indices). */
template <class C, int G, bool FLIP>
__global__ void __launch_bounds__(C::threads, 2) gk_bitonic_wide(typename C::key_t *keys, size_t n,
                                                              int lo)
{
    typedef typename C::key_t K;
    constexpr int LL = C::lg_tile - G, I = C::items, T = C::threads;
    static_assert(G >= C::lg_items && LL >= 5, "r's top bits in registers, 32 neighbours");
    K *smem = (K *)gk_shared_base();
    const int t = threadIdx.x;
    const size_t b = blockIdx.x;
    const int lgb = lo - LL;   /* blocks a segment: 2^lgb */
    const size_t blk = (b >> lgb) << (lo + G);
    const size_t l0 = (b & (((size_t)1 << lgb) - 1)) << LL;
    const size_t lb = blk + l0;
    const size_t ub = FLIP ? blk + ((size_t)1 << lo) - l0 - ((size_t)1 << LL) : lb;
    if (lb >= n)
        return;   /* every key of the block is past n (the whole block returns) */
    const bool whole = blk + ((size_t)1 << (lo + G)) <= n;
    /* The key at v is at (upper half ? ub : lb) + (v's L) + (v's r) * 2^lo; v is a
     * thread's part and a register's (disjoint bits), and so is its index. */
    constexpr int LM = (1 << LL) - 1;
    auto part = [&](int v) -> size_t { return (size_t)(v & LM) + ((size_t)(v >> LL) << lo); };
    /* Layout S: thread t's keys at t + q * T (upper half: T - 1 - t + q * T). */
    const size_t sl = lb + part(t), su = ub + part(T - 1 - t);
    const size_t qs = (size_t)(T >> LL) << lo;
    K x[I];
    if (whole) {
#pragma unroll
        for (int q = 0; q < I; q++)
            x[q] = keys[(FLIP && q >= I / 2 ? su : sl) + q * qs];
    } else {
#pragma unroll
        for (int q = 0; q < I; q++) {
            size_t i = (FLIP && q >= I / 2 ? su : sl) + q * qs;
            x[q] = i < n ? keys[i] : ~(K)0;
        }
    }
    /* Layout S: r's top lg_items bits. */
    if (FLIP) {
#pragma unroll
        for (int q = 0; q < I / 2; q++)
            gk_ce(x[q], x[I - 1 - q]);
    }
#pragma unroll
    for (int s = FLIP ? C::lg_items - 2 : C::lg_items - 1; s >= 0; s--)
        gk_reg_step<C>(x, s);
    /* To layout W (the keys are not read from shared memory again: one barrier). */
#pragma unroll
    for (int q = 0; q < I; q++)
        smem[gk_pad<C>((FLIP && q >= I / 2 ? T - 1 - t : t) + q * T)] = x[q];
    gk_sync();
#pragma unroll
    for (int r = 0; r < I; r++)
        x[r] = smem[gk_pad<C>(gk_index<C, GK_W>(t, r))];
    /* Layout W: r's bits below the top lg_items, v's bits lg_threads - 1 .. LL. */
#pragma unroll
    for (int s = C::lg_threads - 6; s >= LL - 5; s--)
        gk_reg_step<C>(x, s);
    /* Layout W: thread t's keys at vt + r * 32. */
    const int vt = gk_index<C, GK_W>(t, 0), top = 1 << (C::lg_tile - 1);
    const size_t wl = lb + part(vt), wu = ub + part(vt);
#pragma unroll
    for (int r = 0; r < I; r++) {
        size_t i = (FLIP && ((vt | r * 32) & top) ? wu : wl) + part(r * 32);
        if (whole || i < n)
            keys[i] = x[r];
    }
}

/* ---- the schedule ------------------------------------------------------------------------- */

template <int G>
struct gk_int {
    static constexpr int value = G;
};

/* f(gk_int<g>()) for a run-time g in 1..M. */
template <int M, class F>
static int gk_with_group(int g, F &&f)
{
    if (g == M)
        return f(gk_int<M>());
    if constexpr (M > 1)
        return gk_with_group<M - 1>(g, f);
    return -1;
}

/* The least k with 2^k >= n. */
static inline int gk_ceil_log2(size_t n)
{
    int k = 0;
    while (((size_t)1 << k) < n)
        k++;
    return k;
}

/* Global-memory passes of one sort of n keys: 1 for the tiles, then for each merge
 * above the tile its fused and wide passes (ceil(s / C::pass_strides) for its s
 * strides of a tile or more) and 1 to finish it. */
template <class C>
static size_t gk_bitonic_pass_count(size_t n)
{
    if (n < 2)
        return 0;
    size_t p = 1;
    for (int k = C::lg_tile + 1; k <= gk_ceil_log2(n); k++)
        p += (size_t)(k - C::lg_tile + C::pass_strides - 1) / C::pass_strides + 1;
    return p;
}

/* Sort keys[0..n) ascending, launching each pass through launch(kernel, blocks,
 * threads, shared bytes, args...), which returns 0 or an error code (the first
 * error is returned). */
template <class C, class L>
static int gk_bitonic_run(typename C::key_t *keys, size_t n, L &&launch)
{
    typedef typename C::key_t K;
    if (n < 2)
        return 0;
    const size_t tiles = (n + C::tile - 1) / C::tile;
    int rc = launch(gk_bitonic_tile<C>, tiles, C::threads, C::smem_bytes, keys, n);
    const int top = gk_ceil_log2(n);
    for (int k = C::lg_tile + 1; k <= top && rc == 0; k++) {
        /* Strides 2^(k-1) .. tile in p passes of as even shares as may be (fused for
         * at most C::group strides, wide above); the first takes the mirror step. */
        const int m = k - C::lg_tile, p = (m + C::pass_strides - 1) / C::pass_strides;
        for (int i = 0, j = k - 1; i < p && rc == 0; i++) {
            int g = m / p + (i < m % p ? 1 : 0);
            int lo = j - g + 1;
            size_t segs = (n + ((size_t)1 << (lo + g)) - 1) >> (lo + g);
            bool flip = i == 0;
            rc = gk_with_group<C::pass_strides>(g, [&](auto gi) {
                constexpr int G = decltype(gi)::value;
                if constexpr (G <= C::group) {
                    size_t blocks = ((segs << lo) + GK_FUSED_THREADS - 1) / GK_FUSED_THREADS;
                    return flip ? launch(gk_bitonic_fused<K, G, true>, blocks, GK_FUSED_THREADS,
                                         (size_t)0, keys, n, lo)
                                : launch(gk_bitonic_fused<K, G, false>, blocks,
                                         GK_FUSED_THREADS, (size_t)0, keys, n, lo);
                } else {
                    size_t blocks = segs << (lo - (C::lg_tile - G));
                    return flip ? launch(gk_bitonic_wide<C, G, true>, blocks, C::threads,
                                         C::smem_bytes, keys, n, lo)
                                : launch(gk_bitonic_wide<C, G, false>, blocks, C::threads,
                                         C::smem_bytes, keys, n, lo);
                }
            });
            j = lo - 1;
        }
        if (rc == 0)
            rc = launch(gk_bitonic_merge<C>, tiles, C::threads, C::smem_bytes, keys, n);
    }
    return rc;
}

#endif
