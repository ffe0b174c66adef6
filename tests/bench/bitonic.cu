/* SPDX-License-Identifier: MIT */
/* bitonic.cu (tests/bench): three GPU sorts on the same keys, side by side (a
 * benchmark, never a test): the naive bitonic network (one launch per compare step,
 * every step a pass over global memory; kept here only as the baseline), our bitonic
 * sort (gk_bitonic_sort, as gpusort runs it) and CUB radix (gk_radix_sort, all bits).
 *
 * Keys are made on the device once per case (a hash of the index), kept pristine, and
 * restored before every timed run (not timed); each round times the three, with CUDA
 * events, and medians of ROUNDS rounds are printed with their ratios. Both bitonic
 * results are checked against CUB's. Then, for ours: the global-memory passes against
 * the naive network's, and each kind of pass timed alone (an event after every
 * launch), as bytes read and written a second against the device copy measured here.
 * Last, other tile and group sizes of our kernels at the largest size of each width
 * (and "no wide": fused global passes alone, as before the wide passes).
 * Usage: bitonic [ROUNDS]   (default 5)
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "kernels.h"
#include "bitonic.cuh"

#define CK(call)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "bitonic: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, \
                    cudaGetErrorString(e_));                                             \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

#define GK(call)                                                                         \
    do {                                                                                 \
        if ((call) != GK_OK) {                                                           \
            fprintf(stderr, "bitonic: %s\n", gk_error_text());                          \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

/* ---- the baseline, the keys and the check ----------------------------------------------- */

/* One compare step of the textbook network on n = 2^L keys: merge stage k (blocks of
 * 2^k keys, descending where bit k of the index is set), stride 2^j. */
template <typename K>
__global__ void naive_step(K *keys, size_t n, int k, int j)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t p = i ^ ((size_t)1 << j);
    if (i >= n || p <= i)
        return;
    K a = keys[i], b = keys[p];
    bool up = (i & ((size_t)1 << k)) == 0;
    if (up ? b < a : a < b) {
        keys[i] = b;
        keys[p] = a;
    }
}

template <typename K>
static void naive_sort(K *keys, size_t n, cudaStream_t s)
{
    int top = gk_ceil_log2(n);
    unsigned blocks = (unsigned)((n + 255) / 256);
    for (int k = 1; k <= top; k++)
        for (int j = k - 1; j >= 0; j--) {
            naive_step<K><<<blocks, 256, 0, s>>>(keys, n, k, j);
            CK(cudaGetLastError());
        }
}

template <typename K>
__global__ void make_keys(K *keys, size_t n, uint64_t seed)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    keys[i] = (K)(z ^ (z >> 31));
}

template <typename K>
__global__ void count_diff(const K *a, const K *b, size_t n, unsigned long long *diff)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && a[i] != b[i])
        atomicAdd(diff, 1ull);
}

template <typename K>
static unsigned long long differ(const K *a, const K *b, size_t n, cudaStream_t s)
{
    unsigned long long *d, h = 0;
    CK(cudaMalloc(&d, sizeof *d));
    CK(cudaMemsetAsync(d, 0, sizeof *d, s));
    count_diff<K><<<(unsigned)((n + 255) / 256), 256, 0, s>>>(a, b, n, d);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaFree(d));
    return h;
}

/* ---- timing -------------------------------------------------------------------------------- */

struct timer {
    cudaStream_t s;
    cudaEvent_t e0, e1;
    timer(cudaStream_t st) : s(st)
    {
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
    }
    ~timer()
    {
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }
    template <class F>
    float ms(F &&f)
    {
        CK(cudaEventRecord(e0, s));
        f();
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        float t;
        CK(cudaEventElapsedTime(&t, e0, e1));
        return t;
    }
};

static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/* Launches for gk_bitonic_run, plain, as bitonic.cu's. */
struct plain_launch {
    cudaStream_t s;
    template <class... P, class... A>
    int operator()(void (*kernel)(P...), size_t blocks, int threads, size_t smem, A... args)
    {
        if (smem > 48 * 1024)
            CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        kernel<<<(unsigned)blocks, threads, smem, s>>>(args...);
        CK(cudaGetLastError());
        return 0;
    }
};

/* The same with an event after every launch, and each launch's kind: 0 tile, 1 fused,
 * 2 merge, 3 wide (the other kernels with shared memory). */
template <class C>
struct timed_launch {
    cudaStream_t s;
    std::vector<cudaEvent_t> ev;
    std::vector<int> kind;
    template <class... P, class... A>
    int operator()(void (*kernel)(P...), size_t blocks, int threads, size_t smem, A... args)
    {
        if (ev.empty()) {
            ev.push_back(nullptr);
            CK(cudaEventCreate(&ev.back()));
            CK(cudaEventRecord(ev.back(), s));
        }
        plain_launch{ s }(kernel, blocks, threads, smem, args...);
        ev.push_back(nullptr);
        CK(cudaEventCreate(&ev.back()));
        CK(cudaEventRecord(ev.back(), s));
        void *k = (void *)kernel;
        kind.push_back(k == (void *)gk_bitonic_tile<C>    ? 0
                       : k == (void *)gk_bitonic_merge<C> ? 2
                       : smem > 0                         ? 3
                                                          : 1);
        return 0;
    }
};

/* ---- one case ------------------------------------------------------------------------------- */

typedef gk_bitonic_cfg<uint32_t, 512, 32, 6> cfg32;   /* as bitonic.cu */
typedef gk_bitonic_cfg<uint64_t, 512, 16, 5> cfg64;

struct bufs {
    void *pristine, *keys, *alt, *ref, *scratch;
    size_t scratch_bytes;
};

static double copy_tbs;   /* device copy, bytes read + written a second, 1e12 */

template <class C>
static void run_case(int log2n, int rounds, cudaStream_t s, const bufs &b)
{
    typedef typename C::key_t K;
    const int w = (int)sizeof(K);
    const size_t n = (size_t)1 << log2n, bytes = n * w;
    make_keys<K><<<(unsigned)((n + 255) / 256), 256, 0, s>>>((K *)b.pristine, n, 77 + log2n);
    CK(cudaGetLastError());
    timer tm(s);
    auto restore = [&] { CK(cudaMemcpyAsync(b.keys, b.pristine, bytes, cudaMemcpyDeviceToDevice, s)); };
    int in_alt = 0;
    /* the reference: CUB */
    restore();
    GK(gk_radix_sort(b.keys, b.alt, n, w, 0, 8 * w, b.scratch, b.scratch_bytes, &in_alt, (gk_stream_t)s));
    CK(cudaMemcpyAsync(b.ref, in_alt ? b.alt : b.keys, bytes, cudaMemcpyDeviceToDevice, s));
    std::vector<float> naive, ours, cub;
    unsigned long long bad_naive = 0, bad_ours = 0;
    for (int r = -1; r < rounds; r++) {   /* round -1 warms up */
        restore();
        float t = tm.ms([&] { naive_sort((K *)b.keys, n, s); });
        if (r == rounds - 1)
            bad_naive = differ((K *)b.keys, (K *)b.ref, n, s);
        if (r >= 0)
            naive.push_back(t);
        restore();
        t = tm.ms([&] { GK(gk_bitonic_sort(b.keys, n, w, NULL, 0, (gk_stream_t)s)); });
        if (r == rounds - 1)
            bad_ours = differ((K *)b.keys, (K *)b.ref, n, s);
        if (r >= 0)
            ours.push_back(t);
        restore();
        t = tm.ms([&] {
            GK(gk_radix_sort(b.keys, b.alt, n, w, 0, 8 * w, b.scratch, b.scratch_bytes, &in_alt,
                             (gk_stream_t)s));
        });
        if (r >= 0)
            cub.push_back(t);
    }
    float mn = median(naive), mo = median(ours), mc = median(cub);
    size_t pn = (size_t)log2n * (log2n + 1) / 2, po = gk_bitonic_pass_count<C>(n);
    double pass_gbs = 2.0 * bytes * po / (mo * 1e-3) / 1e9;   /* averaged over the passes */
    printf("u%-2d 2^%-2d %10.2f %9.2f %8.2f %10.1fx %9.2fx %7zu %6zu %9.0f  %s\n", 8 * w, log2n, mn,
           mo, mc, mn / mo, mo / mc, pn, po, pass_gbs,
           bad_naive || bad_ours ? "WRONG" : "ok");
    if (bad_naive || bad_ours)
        printf("  keys differing from CUB's: naive %llu, ours %llu\n", bad_naive, bad_ours);
    /* each kind of pass alone */
    restore();
    timed_launch<C> tl{ s };
    gk_bitonic_run<C>((K *)b.keys, n, tl);
    CK(cudaStreamSynchronize(s));
    double kind_ms[4] = { 0, 0, 0, 0 };
    int kind_n[4] = { 0, 0, 0, 0 };
    for (size_t i = 0; i < tl.kind.size(); i++) {
        float t;
        CK(cudaEventElapsedTime(&t, tl.ev[i], tl.ev[i + 1]));
        kind_ms[tl.kind[i]] += t;
        kind_n[tl.kind[i]]++;
    }
    for (cudaEvent_t e : tl.ev)
        cudaEventDestroy(e);
    static const char *const kname[4] = { "tile sort", "fused global", "merge finish",
                                          "wide global" };
    for (int k = 0; k < 4; k++)
        if (kind_n[k])
            printf("    %-13s %3d passes, %8.3f ms each, %6.0f GB/s a pass (%.0f%% of the copy's %.2f TB/s)\n",
                   kname[k], kind_n[k], kind_ms[k] / kind_n[k],
                   2.0 * bytes / (kind_ms[k] / kind_n[k] * 1e-3) / 1e9,
                   100.0 * 2.0 * bytes / (kind_ms[k] / kind_n[k] * 1e-3) / (copy_tbs * 1e12), copy_tbs);
}

/* Another configuration of ours, at n = 2^log2n: median ms. */
template <class C>
static void run_variant(const char *name, int log2n, int rounds, cudaStream_t s, const bufs &b)
{
    typedef typename C::key_t K;
    const size_t n = (size_t)1 << log2n, bytes = n * sizeof(K);
    make_keys<K><<<(unsigned)((n + 255) / 256), 256, 0, s>>>((K *)b.pristine, n, 77 + log2n);
    CK(cudaGetLastError());
    timer tm(s);
    std::vector<float> v;
    unsigned long long bad = 0;
    for (int r = -1; r < rounds; r++) {
        CK(cudaMemcpyAsync(b.keys, b.pristine, bytes, cudaMemcpyDeviceToDevice, s));
        float t = tm.ms([&] { gk_bitonic_run<C>((K *)b.keys, n, plain_launch{ s }); });
        if (r >= 0)
            v.push_back(t);
    }
    /* sorted? (CUB's result, as reference) */
    int in_alt;
    CK(cudaMemcpyAsync(b.ref, b.pristine, bytes, cudaMemcpyDeviceToDevice, s));
    GK(gk_radix_sort(b.ref, b.alt, n, (int)sizeof(K), 0, 8 * (int)sizeof(K), b.scratch,
                     b.scratch_bytes, &in_alt, (gk_stream_t)s));
    bad = differ((K *)b.keys, (K *)(in_alt ? b.alt : b.ref), n, s);
    printf("  %-34s u%-2d 2^%-2d %8.2f ms %4zu passes  %s\n", name, 8 * (int)sizeof(K), log2n, median(v),
           gk_bitonic_pass_count<C>(n), bad ? "WRONG" : "ok");
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* each line out at once, even into a file */
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1)
        rounds = 1;
    if (gk_device_count() == 0) {
        puts("bitonic: no GPU");
        return 77;
    }
    gk_device_t info;
    GK(gk_device_info(0, &info));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const size_t most = (size_t)1 << 31;   /* bytes: 2^29 u32, 2^28 u64 */
    bufs b;
    CK(cudaMalloc(&b.pristine, most));
    CK(cudaMalloc(&b.keys, most));
    CK(cudaMalloc(&b.alt, most));
    CK(cudaMalloc(&b.ref, most));
    size_t s32, s64;
    GK(gk_radix_scratch((size_t)1 << 29, 4, &s32));
    GK(gk_radix_scratch((size_t)1 << 28, 8, &s64));
    b.scratch_bytes = std::max(s32, s64);
    CK(cudaMalloc(&b.scratch, b.scratch_bytes));
    {   /* the ceiling: a device-to-device copy of 2 GiB */
        timer tm(s);
        std::vector<float> v;
        for (int r = 0; r < 5; r++)
            v.push_back(tm.ms([&] { CK(cudaMemcpyAsync(b.keys, b.pristine, most, cudaMemcpyDeviceToDevice, s)); }));
        copy_tbs = 2.0 * most / (median(v) * 1e-3) / 1e12;
    }
    printf("device: %s, %d SMs; device copy %.2f TB/s (read + write); medians of %d rounds\n",
           info.name, info.sms, copy_tbs, rounds);
    printf("keys n     naive ms   ours ms   CUB ms naive/ours  ours/CUB  passes: naive   ours  GB/s a pass\n");
    run_case<cfg32>(20, rounds, s, b);
    run_case<cfg32>(24, rounds, s, b);
    run_case<cfg32>(27, rounds, s, b);
    run_case<cfg32>(29, rounds, s, b);
    run_case<cfg64>(24, rounds, s, b);
    run_case<cfg64>(28, rounds, s, b);
    printf("other configurations of ours (threads x keys a thread = tile, group):\n");
    run_variant<cfg32>("512 x 32 = 16Ki, 6 (gpusort's)", 29, rounds, s, b);
    run_variant<gk_bitonic_cfg<uint32_t, 512, 32, 6, false>>("512 x 32 = 16Ki, 6, no wide", 29,
                                                              rounds, s, b);
    run_variant<gk_bitonic_cfg<uint32_t, 512, 32, 7>>("512 x 32 = 16Ki, 7", 29, rounds, s, b);
    run_variant<gk_bitonic_cfg<uint32_t, 512, 32, 5>>("512 x 32 = 16Ki, 5", 29, rounds, s, b);
    run_variant<gk_bitonic_cfg<uint32_t, 256, 64, 6>>("256 x 64 = 16Ki, 6", 29, rounds, s, b);
    run_variant<gk_bitonic_cfg<uint32_t, 256, 32, 6>>("256 x 32 = 8Ki, 6", 29, rounds, s, b);
    run_variant<cfg64>("512 x 16 = 8Ki, 5 (gpusort's)", 28, rounds, s, b);
    run_variant<gk_bitonic_cfg<uint64_t, 512, 16, 5, false>>("512 x 16 = 8Ki, 5, no wide", 28,
                                                              rounds, s, b);
    run_variant<gk_bitonic_cfg<uint64_t, 512, 16, 4>>("512 x 16 = 8Ki, 4", 28, rounds, s, b);
    run_variant<gk_bitonic_cfg<uint64_t, 256, 32, 5>>("256 x 32 = 8Ki, 5", 28, rounds, s, b);
    run_variant<gk_bitonic_cfg<uint64_t, 512, 32, 5>>("512 x 32 = 16Ki, 5", 28, rounds, s, b);
    CK(cudaFree(b.pristine));
    CK(cudaFree(b.keys));
    CK(cudaFree(b.alt));
    CK(cudaFree(b.ref));
    CK(cudaFree(b.scratch));
    return 0;
}
