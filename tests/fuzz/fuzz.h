/* SPDX-License-Identifier: MIT */
/* fuzz.h: what the fuzz targets (tests/fuzz/fuzz_*.c) share.
 *
 * Each target defines LLVMFuzzerTestOneInput(), libFuzzer's entry point; it is
 * linked with libFuzzer (configure --enable-fuzzing, clang) or with replay.c, a
 * main() that feeds it the files of a corpus and, optionally, random mutants of them
 * (make check does that). A target never returns quietly from a wrong result: it
 * calls fuzz_fail(), which prints what was wrong and aborts, so libFuzzer keeps the
 * input as a crash and replay exits non-zero.
 */
#ifndef GS_FUZZ_H
#define GS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Print "fuzz: " and the message to stderr, then abort(). */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* A memory file (memfd) holding data[0..len), reused from call to call, and a path
 * that opens it afresh ("/proc/self/fd/N"). Returns the path; aborts on failure. */
const char *fuzz_memfile(const void *data, size_t len);

/* splitmix64: the targets' seeded generator. */
static inline uint64_t fuzz_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

#endif
