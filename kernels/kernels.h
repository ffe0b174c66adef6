/* SPDX-License-Identifier: MIT */
/* kernels.h: the whole interface between gpusort's C code and its GPU code.
 *
 * C types only: no CUDA or C++ type crosses it, so src/ compiles with a plain C
 * compiler. Functions return 0 (GK_OK) or a GK_E* code; gk_error_text() then holds
 * one line naming the failed call, its file:line and CUDA's reason, for the calling
 * thread. d_ pointers are device memory, h_ pointers pinned host memory. Work taking
 * a stream is asynchronous on it; the stream is the last argument.
 */
#ifndef GS_KERNELS_H
#define GS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    GK_OK = 0,
    GK_ENODEV,      /* no driver, no device, or the device is unusable */
    GK_ENOMEM,      /* out of device (or pinned host) memory: retry smaller */
    GK_EFAIL        /* any other CUDA error */
};

typedef struct gk_stream *gk_stream_t;   /* a cudaStream_t */
typedef struct gk_event *gk_event_t;     /* a cudaEvent_t */

typedef struct {
    char name[128];          /* the device's name, as CUDA gives it */
    size_t total_bytes;      /* device memory */
    size_t free_bytes;       /* free now */
    int major, minor;        /* compute capability */
    int sms;                 /* multiprocessors */
} gk_device_t;

/* ---- devices, memory, streams (device.cu) ----------------------------------------- */

/* Devices this process can use: 0 when there is no driver or no device (not an
 * error). Cheap after the first call. */
int gk_device_count(void);

/* Describe device dev (and make it current for the calling thread). */
int gk_device_info(int dev, gk_device_t *info);

/* Make dev the calling thread's current device. */
int gk_set_device(int dev);

/* Destroy this process's context on dev (cudaDeviceReset): every buffer, stream
 * and event of it, and the host memory it pinned, let go at once, where the
 * driver would otherwise do it as the process exits. Nothing of dev may be used
 * after, by any thread. */
int gk_device_reset(int dev);

/* The runtime's version as major * 1000 + minor * 10 (e.g. 13000); touches no
 * device and starts no driver. */
int gk_runtime_version(void);

/* Device memory; bytes 0 gives NULL. */
int gk_malloc(void **d_ptr, size_t bytes);
void gk_free(void *d_ptr);
int gk_host_alloc(void **h_ptr, size_t bytes);   /* pinned */
void gk_host_free(void *h_ptr);
/* Pin (page-lock) memory the caller allocated, for copies with no staging; undone
 * by gk_host_unregister before it is freed. */
int gk_host_register(void *h_ptr, size_t bytes);
void gk_host_unregister(void *h_ptr);

int gk_stream_create(gk_stream_t *stream);
void gk_stream_destroy(gk_stream_t stream);
int gk_stream_sync(gk_stream_t stream);

int gk_event_create(gk_event_t *event);
void gk_event_destroy(gk_event_t event);
int gk_event_record(gk_event_t event, gk_stream_t stream);
int gk_event_sync(gk_event_t event);
/* Make stream wait for event. */
int gk_stream_wait(gk_stream_t stream, gk_event_t event);
/* Milliseconds between two recorded, completed events. */
int gk_event_ms(gk_event_t start, gk_event_t end, float *ms);

/* Copies between pinned host memory and device memory. */
int gk_copy_h2d(void *d_dst, const void *h_src, size_t bytes, gk_stream_t stream);
int gk_copy_d2h(void *h_dst, const void *d_src, size_t bytes, gk_stream_t stream);

/* The calling thread's last error, one line. */
const char *gk_error_text(void);

/* ---- radix sort (radix.cu) ------------------------------------------------------------ */

/* Scratch bytes CUB's DeviceRadixSort needs for n keys of width (4 or 8) bytes. */
int gk_radix_scratch(size_t n, int width, size_t *bytes);

/* Sort d_keys[0..n) (width 4 or 8, unsigned) ascending on bits [begin_bit, end_bit)
 * (the other bits must be equal in every key, e.g. zero), using d_alt (room for n
 * keys) and d_scratch (gk_radix_scratch bytes). *in_alt is set to 1 when the result
 * is in d_alt. Asynchronous on stream: *in_alt is known at return. */
int gk_radix_sort(void *d_keys, void *d_alt, size_t n, int width, int begin_bit,
                  int end_bit, void *d_scratch, size_t scratch_bytes, int *in_alt,
                  gk_stream_t stream);

/* The sort stage: d_keys[0..n) (width 4 or 8) whose keys lie in [min, max] sorted
 * ascending, using d_alt (room for n keys) and d_scratch (gk_radix_scratch bytes for
 * n keys of width). Sorts only the bits the keys need: up to bits(max) as they are,
 * or, where that saves two or more 8-bit digit passes, the offsets from min; 64-bit keys whose
 * range fits 32 bits are sorted as 32-bit offsets (half the bytes through every
 * pass). *result is d_keys or d_alt, whichever holds the sorted keys. Asynchronous on
 * stream. */
int gk_sort_range(void *d_keys, void *d_alt, size_t n, int width, uint64_t min,
                  uint64_t max, void *d_scratch, size_t scratch_bytes, void **result,
                  gk_stream_t stream);

/* Scratch bytes gk_sort_index needs for n keys. */
int gk_index_scratch(size_t n, size_t *bytes);

/* Records' wide keys: the indices 0..n-1 of d_keys[0..n) (64-bit, unsigned, equal
 * from bit end_bit up) sorted by key, stably, as 32-bit values (n < 2^32), using
 * d_keys_alt (room for n keys), d_vals and d_vals_alt (room for n indices each) and
 * d_scratch (gk_index_scratch bytes for n). *result is d_vals or d_vals_alt,
 * whichever holds the indices in key order. Asynchronous on stream. */
int gk_sort_index(void *d_keys, void *d_keys_alt, void *d_vals, void *d_vals_alt, size_t n,
                  int end_bit, void *d_scratch, size_t scratch_bytes, void **result,
                  gk_stream_t stream);

/* The least and the greatest of d_keys[0..n) (width 4 or 8) into h_minmax[0] and
 * h_minmax[1] (pinned host memory; n 0 gives UINT64_MAX and 0), using d_tmp (16
 * bytes of device memory). Asynchronous on stream. */
int gk_minmax(const void *d_keys, size_t n, int width, void *d_tmp, uint64_t *h_minmax,
              gk_stream_t stream);

/* Device-to-device copy. */
int gk_copy_d2d(void *d_dst, const void *d_src, size_t bytes, gk_stream_t stream);

/* Key range narrowing: d_out[i] = d_in[i] - base, from keys of in_width bytes to
 * out_width bytes (64 -> 32 when every key - base < 2^32; or 32 -> 32, 64 -> 64),
 * and back: d_out[i] = d_in[i] + base. d_in and d_out may be the same buffer only
 * when the widths are equal. */
int gk_rebase(const void *d_in, int in_width, void *d_out, int out_width, size_t n,
              uint64_t base, int subtract, gk_stream_t stream);

/* ---- binary records (records.cu) ------------------------------------------------------ */

/* d_keys[i] (64-bit) = the key of record i of d_recs[0..n) (size bytes each): width
 * (4 or 8) bytes at offset off, little- or big-endian, XOR mask (keys.h's mapping).
 * Asynchronous on stream. */
int gk_record_keys(const void *d_recs, size_t n, size_t size, size_t off, int width,
                   int big_endian, uint64_t mask, void *d_keys, gk_stream_t stream);

/* Record j of d_out[0..m) = record d_perm[j] of d_recs (size bytes each). Asynchronous
 * on stream. */
int gk_gather(const void *d_recs, size_t size, const uint32_t *d_perm, size_t m, void *d_out,
              gk_stream_t stream);

/* ---- text (text.cu) ---------------------------------------------------------------- */

/* What gk_parse_text() met, in h_result[1]'s bits. */
#define GK_TEXT_BAD 1ull    /* a token that is not an integer in the type's range */
#define GK_TEXT_FULL 2ull   /* more tokens than the keys' room */

/* Scratch bytes gk_parse_text needs for len bytes of text. */
int gk_text_scratch(size_t len, size_t *bytes);

/* The tokens of d_text[0..len) (white space between them, as the host's parser
 * takes it: io/textscan.c), each an optional '-' or '+' and decimal digits whose
 * value lies in [-neg_max, pos_max], parsed into d_keys (at most cap keys of width 4
 * or 8 bytes: the raw two's complement bits XOR mask) in order, using d_scratch
 * (gk_text_scratch bytes). h_result (pinned host memory, 2 words) gets the tokens'
 * count and the GK_TEXT_* flags; where any is set, the keys are not all there.
 * Asynchronous on stream. */
int gk_parse_text(const void *d_text, size_t len, int width, uint64_t pos_max, uint64_t neg_max,
                  uint64_t mask, void *d_keys, size_t cap, void *d_scratch, size_t scratch_bytes,
                  uint64_t *h_result, gk_stream_t stream);

/* ---- bitonic sort (bitonic.cu) ------------------------------------------------------- */

/* Scratch bytes gk_bitonic_sort needs for n keys of width (4 or 8) bytes: 0 in this
 * version (the sort works in place and takes the keys from n on as the largest key
 * without storing them); ask all the same, so that a later version may want some. */
int gk_bitonic_scratch(size_t n, int width, size_t *bytes);

/* Sort d_keys[0..n) (width 4 or 8, unsigned) ascending in place with our bitonic
 * network, any n; nothing past d_keys[n - 1] is read or written. d_scratch holds
 * gk_bitonic_scratch bytes (NULL when 0). Tiles of 16 Ki u32 or 8 Ki u64 keys are
 * sorted in one pass; each merge above a tile then takes ceil(s / 9) passes (u64:
 * ceil(s / 8)) for its s strides of a tile or more (up to 6 strides a pass in a
 * thread's registers, u64 5, more through shared memory), and one for the rest: 37
 * passes over the keys for 2^29 u32 keys, where one launch per step takes 435.
 * Asynchronous on stream. */
int gk_bitonic_sort(void *d_keys, size_t n, int width, void *d_scratch, size_t scratch_bytes,
                    gk_stream_t stream);

/* The sort stage with bitonic instead of radix: gk_sort_range's arguments and result.
 * 64-bit keys whose range fits 32 bits are sorted as 32-bit offsets from min in d_alt
 * (room for n 4-byte keys; half the bytes through every pass) and widened back into
 * d_keys; other keys are sorted in place. *result is always d_keys. Asynchronous on
 * stream. */
int gk_bitonic_sort_range(void *d_keys, void *d_alt, size_t n, int width, uint64_t min,
                          uint64_t max, void *d_scratch, size_t scratch_bytes, void **result,
                          gk_stream_t stream);

#ifdef __cplusplus
}
#endif

#endif
