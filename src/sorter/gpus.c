/* gpus.c: the GPUs this machine shows (see sorter.h): counted for --device, described
 * for --version. Built with or without CUDA. */
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

void sorter_describe_gpus(void)
{
#ifdef HAVE_CUDA
    int v = gk_runtime_version(), count = gk_device_count();
    printf("CUDA support: built in (CUDA runtime %d.%d, linked statically)\n", v / 1000,
           v % 1000 / 10);
    puts("GPU chunk sort (--algorithm): radix (CUB's DeviceRadixSort, the default) or "
         "bitonic (gpusort's own kernels)");
    if (count == 0)
        puts("GPUs: none usable (no driver or no device): sorting on the CPU");
    for (int d = 0; d < count; d++) {
        gk_device_t info;
        if (gk_device_info(d, &info) == GK_OK)
            printf("GPU %d: %s, %.1f GiB, compute capability %d.%d\n", d, info.name,
                   info.total_bytes / (double)(1u << 30), info.major, info.minor);
    }
#else
    puts("CUDA support: not built in (this build sorts on the CPU)");
#endif
}
