/* SPDX-License-Identifier: MIT */
/* device.cu: devices, memory, streams, events and error text for the C side
 * (kernels.h). Thin wrappers: each checks its CUDA call with GK_CHECK. */
#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>

#include "gk_check.h"
#include "kernels.h"

static thread_local char gk_text[512];

int gk_fail(cudaError_t err, const char *call, const char *file, int line)
{
    const char *base = std::strrchr(file, '/');
    std::snprintf(gk_text, sizeof gk_text, "%s failed at %s:%d: %s", call,
                  base ? base + 1 : file, line, cudaGetErrorString(err));
    cudaGetLastError();   /* clear a sticky launch error where CUDA allows it */
    switch (err) {
    case cudaErrorMemoryAllocation:
        return GK_ENOMEM;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorInitializationError:
    case cudaErrorCompatNotSupportedOnDevice:
        return GK_ENODEV;
    default:
        return GK_EFAIL;
    }
}

extern "C" const char *gk_error_text(void)
{
    return gk_text;
}

extern "C" int gk_device_count(void)
{
    static int count = -1;
    if (count < 0) {
        int n = 0;
        count = cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
        cudaGetLastError();
    }
    return count;
}

extern "C" int gk_set_device(int dev)
{
    GK_CHECK(cudaSetDevice(dev));
    return GK_OK;
}

extern "C" int gk_device_info(int dev, gk_device_t *info)
{
    cudaDeviceProp p;
    GK_CHECK(cudaSetDevice(dev));
    GK_CHECK(cudaGetDeviceProperties(&p, dev));
    std::memset(info, 0, sizeof *info);
    std::snprintf(info->name, sizeof info->name, "%s", p.name);
    info->major = p.major;
    info->minor = p.minor;
    info->sms = p.multiProcessorCount;
    GK_CHECK(cudaMemGetInfo(&info->free_bytes, &info->total_bytes));
    return GK_OK;
}

extern "C" int gk_device_reset(int dev)
{
    GK_CHECK(cudaSetDevice(dev));
    GK_CHECK(cudaDeviceReset());
    return GK_OK;
}

extern "C" int gk_runtime_version(void)
{
    return CUDART_VERSION;   /* the runtime is linked statically: this one, and no call
                              * that could start the driver */
}

extern "C" int gk_malloc(void **d_ptr, size_t bytes)
{
    *d_ptr = nullptr;
    if (bytes == 0)
        return GK_OK;
    GK_CHECK(cudaMalloc(d_ptr, bytes));
    return GK_OK;
}

extern "C" void gk_free(void *d_ptr)
{
    if (d_ptr)
        cudaFree(d_ptr);
}

extern "C" int gk_host_alloc(void **h_ptr, size_t bytes)
{
    GK_CHECK(cudaHostAlloc(h_ptr, bytes, cudaHostAllocPortable));
    return GK_OK;
}

extern "C" void gk_host_free(void *h_ptr)
{
    if (h_ptr)
        cudaFreeHost(h_ptr);
}

extern "C" int gk_host_register(void *h_ptr, size_t bytes)
{
    GK_CHECK(cudaHostRegister(h_ptr, bytes, cudaHostRegisterPortable));
    return GK_OK;
}

extern "C" void gk_host_unregister(void *h_ptr)
{
    if (h_ptr)
        cudaHostUnregister(h_ptr);
}

extern "C" int gk_stream_create(gk_stream_t *stream)
{
    cudaStream_t s;
    GK_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    *stream = (gk_stream_t)s;
    return GK_OK;
}

extern "C" void gk_stream_destroy(gk_stream_t stream)
{
    if (stream)
        cudaStreamDestroy((cudaStream_t)stream);
}

extern "C" int gk_stream_sync(gk_stream_t stream)
{
    GK_CHECK(cudaStreamSynchronize((cudaStream_t)stream));
    return GK_OK;
}

extern "C" int gk_event_create(gk_event_t *event)
{
    cudaEvent_t e;
    GK_CHECK(cudaEventCreate(&e));
    *event = (gk_event_t)e;
    return GK_OK;
}

extern "C" void gk_event_destroy(gk_event_t event)
{
    if (event)
        cudaEventDestroy((cudaEvent_t)event);
}

extern "C" int gk_event_record(gk_event_t event, gk_stream_t stream)
{
    GK_CHECK(cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream));
    return GK_OK;
}

extern "C" int gk_event_sync(gk_event_t event)
{
    GK_CHECK(cudaEventSynchronize((cudaEvent_t)event));
    return GK_OK;
}

extern "C" int gk_stream_wait(gk_stream_t stream, gk_event_t event)
{
    GK_CHECK(cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)event, 0));
    return GK_OK;
}

extern "C" int gk_event_ms(gk_event_t start, gk_event_t end, float *ms)
{
    GK_CHECK(cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end));
    return GK_OK;
}

extern "C" int gk_copy_h2d(void *d_dst, const void *h_src, size_t bytes, gk_stream_t stream)
{
    GK_CHECK(cudaMemcpyAsync(d_dst, h_src, bytes, cudaMemcpyHostToDevice, (cudaStream_t)stream));
    return GK_OK;
}

extern "C" int gk_copy_d2h(void *h_dst, const void *d_src, size_t bytes, gk_stream_t stream)
{
    GK_CHECK(cudaMemcpyAsync(h_dst, d_src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)stream));
    return GK_OK;
}

extern "C" int gk_copy_d2d(void *d_dst, const void *d_src, size_t bytes, gk_stream_t stream)
{
    GK_CHECK(cudaMemcpyAsync(d_dst, d_src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream));
    return GK_OK;
}
