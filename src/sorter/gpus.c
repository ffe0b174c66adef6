/* SPDX-License-Identifier: MIT */
/* gpus.c: the GPUs this machine shows, counted for --device, and what GPU support
 * this build has, for --version (see sorter.h). Built with or without CUDA. */
#include <config.h>

#include <stdio.h>

#include "sorter/sorter.h"
#ifdef HAVE_CUDA
#include "kernels.h"
#endif

int sorter_gpu_count(void)
{
#ifdef HAVE_CUDA
    return gk_device_count();
#else
    return 0;
#endif
}

void sorter_describe_build(void)
{
#ifdef HAVE_CUDA
    int v = gk_runtime_version();
    printf("  CUDA runtime %d.%d, linked statically (needs only the NVIDIA driver)\n",
           v / 1000, v % 1000 / 10);
    printf("  GPU code for compute capabilities %s (and PTX of the last)\n",
           GS_CUDA_ARCHS);
    puts("  GPU chunk sorts: CUB's radix sort, gpusort's bitonic sort (--algorithm)");
#else
    puts("  no GPU support (this build sorts on the CPU)");
#endif
}
