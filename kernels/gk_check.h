/* SPDX-License-Identifier: MIT */
/* gk_check.h: the one macro that checks every CUDA call in kernels/, shared by the
 * .cu files. It records "CALL failed at FILE:LINE: REASON" for gk_error_text() and
 * returns the matching GK_E* code from the enclosing function. */
#ifndef GS_GK_CHECK_H
#define GS_GK_CHECK_H

#include <cuda_runtime.h>

/* Record a failure of call (a string) with CUDA's error err; the GK_E* code. */
int gk_fail(cudaError_t err, const char *call, const char *file, int line);

#define GK_CHECK(call)                                                    \
    do {                                                                  \
        cudaError_t gk_err_ = (call);                                     \
        if (gk_err_ != cudaSuccess)                                       \
            return gk_fail(gk_err_, #call, __FILE__, __LINE__);           \
    } while (0)

/* After a kernel launch: the launch error, if any. */
#define GK_CHECK_LAUNCH() GK_CHECK(cudaGetLastError())

#endif
