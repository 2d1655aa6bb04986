/*
 * Kernels and CUDA runtime calls of the GPU tests (gpu_kern.h), compiled
 * by nvcc (NVCCFLAGS, -arch=sm_90 by default) into an object that the test
 * programs link with the static CUDA runtime.
 */
#define FABSHMEM_TEST_CUDA 1
#include "gpu_kern.h"
#include <cuda.h>
#include <cuda_runtime.h>
#include <string.h>

__device__ static unsigned char dev_pattern(unsigned seed, size_t i)
{
    return (unsigned char)((seed * 131u + (unsigned)(i % 65521u) * 7u + (unsigned)(i >> 16)) % 251u + 1u);
}

__global__ static void k_fill(unsigned char *d, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        d[i] = dev_pattern(seed, i);
}

__global__ static void k_find(const unsigned char *d, size_t n, unsigned seed,
                              unsigned long long *first)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        if (d[i] != dev_pattern(seed, i))
            atomicMin(first, (unsigned long long)i);
}

__global__ static void k_store(uint64_t *p, size_t n, uint64_t v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = v + i;
}

static unsigned grid_for(size_t n)
{
    size_t b = (n + 255) / 256;
    return b == 0 ? 1 : b > 1024 ? 1024 : (unsigned)b;
}

extern "C" int gpu_count(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

extern "C" int gpu_current(void)
{
    int d = -1;
    return cudaGetDevice(&d) == cudaSuccess ? d : -1;
}

extern "C" int gpu_fill(void *d, size_t n, unsigned seed)
{
    k_fill<<<grid_for(n), 256>>>((unsigned char *)d, n, seed);
    cudaError_t e = cudaGetLastError();
    return e != cudaSuccess ? (int)e : (int)cudaDeviceSynchronize();
}

extern "C" long long gpu_find_mismatch(const void *d, size_t n, unsigned seed)
{
    unsigned long long *first = NULL, h = ~0ULL;

    if (cudaMalloc(&first, sizeof(*first)) != cudaSuccess)
        return -2;
    cudaMemcpy(first, &h, sizeof(h), cudaMemcpyHostToDevice);
    k_find<<<grid_for(n), 256>>>((const unsigned char *)d, n, seed, first);
    if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpy(&h, first, sizeof(h), cudaMemcpyDeviceToHost) != cudaSuccess) {
        cudaFree(first);
        return -2;
    }
    cudaFree(first);
    return h == ~0ULL ? -1 : (long long)h;
}

extern "C" int gpu_store_u64(uint64_t *p, size_t n, uint64_t v)
{
    k_store<<<grid_for(n), 256>>>(p, n, v);
    cudaError_t e = cudaGetLastError();
    return e != cudaSuccess ? (int)e : (int)cudaDeviceSynchronize();
}

extern "C" void *gpu_malloc(size_t n)
{
    void *p = NULL;
    return cudaMalloc(&p, n) == cudaSuccess ? p : NULL;
}

extern "C" void gpu_free(void *p)
{
    cudaFree(p);
}

extern "C" int gpu_copy(void *dst, const void *src, size_t n)
{
    /* A copy between two device buffers returns before it is done. */
    cudaError_t e = cudaMemcpy(dst, src, n, cudaMemcpyDefault);
    return e != cudaSuccess ? (int)e : (int)cudaDeviceSynchronize();
}

extern "C" const char *gpu_error(int code)
{
    return cudaGetErrorString((cudaError_t)code);
}

/* Spins for ns nanoseconds of the GPU's global timer. */
__global__ static void k_delay(unsigned long long ns)
{
    unsigned long long start, now, dt;

    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        dt = now - start;
    } while (dt < ns);
}

extern "C" void *gpu_stream_create(void)
{
    cudaStream_t st = NULL;
    return cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess ? (void *)st
                                                                               : NULL;
}

extern "C" int gpu_stream_sync(void *st)
{
    return (int)cudaStreamSynchronize((cudaStream_t)st);
}

extern "C" int gpu_stream_destroy(void *st)
{
    return (int)cudaStreamDestroy((cudaStream_t)st);
}

extern "C" int gpu_fill_on(void *d, size_t n, unsigned seed, void *st)
{
    k_fill<<<grid_for(n), 256, 0, (cudaStream_t)st>>>((unsigned char *)d, n, seed);
    return (int)cudaGetLastError();
}

extern "C" int gpu_copy_on(void *dst, const void *src, size_t n, void *st)
{
    return (int)cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, (cudaStream_t)st);
}

extern "C" int gpu_delay_on(unsigned us, void *st)
{
    k_delay<<<1, 1, 0, (cudaStream_t)st>>>((unsigned long long)us * 1000ull);
    return (int)cudaGetLastError();
}

extern "C" void *gpu_host_alloc(size_t n)
{
    void *p = NULL;
    return cudaMallocHost(&p, n) == cudaSuccess ? p : NULL;
}

extern "C" void gpu_host_free(void *p)
{
    cudaFreeHost(p);
}

/* ---- memory of the CUDA VMM API (gpu_reg) ----
 * The driver's entry points through the runtime, so that the tests need
 * no libcuda at link time. */
struct vmm_fns {
    CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                       unsigned long long);
    CUresult (*release)(CUmemGenericAllocationHandle);
    CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
    CUresult (*free)(CUdeviceptr, size_t);
    CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                    unsigned long long);
    CUresult (*unmap)(CUdeviceptr, size_t);
    CUresult (*access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
    CUresult (*gran)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);
};

static int vmm_load(struct vmm_fns *f)
{
    static const char *const names[] = { "cuMemCreate", "cuMemRelease", "cuMemAddressReserve",
                                         "cuMemAddressFree", "cuMemMap", "cuMemUnmap",
                                         "cuMemSetAccess", "cuMemGetAllocationGranularity" };
    void **slot = (void **)f;
    cudaDriverEntryPointQueryResult q;

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (cudaGetDriverEntryPointByVersion(names[i], &slot[i], 12000, cudaEnableDefault, &q) !=
                cudaSuccess || q != cudaDriverEntryPointSuccess)
            return -1;
    return 0;
}

extern "C" void *gpu_vmm_alloc(size_t n, int exportable, size_t *len_p)
{
    struct vmm_fns f;
    CUmemAllocationProp prop;
    CUmemAccessDesc acc;
    CUmemGenericAllocationHandle h;
    CUdeviceptr va = 0;
    size_t g = 0;
    int dev = 0;

    if (vmm_load(&f) || cudaGetDevice(&dev) != cudaSuccess)
        return NULL;
    memset(&prop, 0, sizeof(prop));
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.requestedHandleTypes = exportable ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
                                           : CU_MEM_HANDLE_TYPE_NONE;
    if (f.gran(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) || !g)
        return NULL;
    n = (n + g - 1) / g * g;
    if (f.create(&h, n, &prop, 0))
        return NULL;
    if (f.reserve(&va, n, g, 0, 0)) {
        f.release(h);
        return NULL;
    }
    memset(&acc, 0, sizeof(acc));
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (f.map(va, n, 0, h, 0) || f.access(va, n, &acc, 1)) {
        f.unmap(va, n);
        f.free(va, n);
        f.release(h);
        return NULL;
    }
    /* The mapping holds the memory until it is unmapped. */
    f.release(h);
    *len_p = n;
    return (void *)(uintptr_t)va;
}

extern "C" void gpu_vmm_free(void *p, size_t len)
{
    struct vmm_fns f;

    if (p && !vmm_load(&f)) {
        cudaDeviceSynchronize();
        f.unmap((CUdeviceptr)(uintptr_t)p, len);
        f.free((CUdeviceptr)(uintptr_t)p, len);
    }
}
