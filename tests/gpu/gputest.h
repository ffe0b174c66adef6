/* SPDX-License-Identifier: MIT */
/* gputest.h: what the GPU test programs in tests/gpu share: a seeded splitmix64
 * stream, each program's seed its GT_SEED (defined before this header), and GK(),
 * which ends the program with the failing CUDA call's text.
 */
#ifndef GS_GPUTEST_H
#define GS_GPUTEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"

#ifndef GT_SEED
#error "define GT_SEED before including gputest.h"
#endif

static uint64_t gs_state = GT_SEED;

static inline uint64_t splitmix(void)
{
    uint64_t z = (gs_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define GK(call)                                                                     \
    do {                                                                             \
        if ((call) != GK_OK) {                                                       \
            printf("FAIL: %s: %s\n", #call, gk_error_text());                        \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

#endif
