/*
 * The CUDA driver's entry points, loaded at run time (src/cuda/cuda.c):
 * the library is built against the toolkit's cuda.h but never linked with
 * libcuda, so that a CUDA build runs where there is no GPU and no driver.
 * Only the files that call the driver include this header (it needs the
 * toolkit's include directory, CUDA_CPPFLAGS); the rest of the library
 * uses cuda/cuda.h, which has no CUDA type in it.
 */
#ifndef SHMEMI_CUDA_DRV_H
#define SHMEMI_CUDA_DRV_H

#include "cuda/cuda.h"

#ifdef HAVE_CUDA
#include <cuda.h>

/* Every driver entry point the library calls, X(name).  cuda.h maps some
 * names to versioned symbols (cuMemcpyHtoD is cuMemcpyHtoD_v2): the table
 * member and the symbol looked up take the mapped name, which is what a
 * program linked with libcuda against this cuda.h would bind. */
#define SHMEMI_CU_FNS(X)                                                               \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString)             \
    X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetUuid)          \
    X(cuDeviceGetPCIBusId) X(cuDeviceGetAttribute) X(cuDeviceCanAccessPeer)           \
    X(cuCtxGetCurrent) X(cuCtxSetCurrent) X(cuCtxGetDevice) X(cuCtxPushCurrent)       \
    X(cuCtxPopCurrent) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)       \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuMemcpyAsync)      \
    X(cuMemHostRegister) X(cuMemHostUnregister) X(cuPointerGetAttribute)              \
    X(cuMemGetAllocationGranularity) X(cuMemCreate) X(cuMemRelease)                   \
    X(cuMemAddressReserve) X(cuMemAddressFree) X(cuMemMap) X(cuMemUnmap)              \
    X(cuMemSetAccess) X(cuMemExportToShareableHandle) X(cuMemImportFromShareableHandle) \
    X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuLaunchKernel)      \
    X(cuMemAlloc) X(cuMemFree) X(cuStreamWriteValue32) X(cuStreamWriteValue64)          \
    X(cuStreamWaitValue64) X(cuLaunchHostFunc) X(cuMemAllocHost) X(cuMemFreeHost)      \
    X(cuStreamQuery) X(cuStreamGetCtx) X(cuMemAllocAsync) X(cuMemFreeAsync) X(cuMemsetD8Async) \
    X(cuMemRetainAllocationHandle) X(cuMemGetAllocationPropertiesFromHandle)             \
    X(cuMemGetAddressRange)

typedef struct shmemi_cu_fns {
#define SHMEMI_CU_MEMBER(f) __typeof__(&f) f;
    SHMEMI_CU_FNS(SHMEMI_CU_MEMBER)
#undef SHMEMI_CU_MEMBER
} shmemi_cu_fns_t;

/* The table, filled by shmemi_cuda_load (valid while shmemi_cuda.loaded). */
extern shmemi_cu_fns_t shmemi_cu SHMEMI_HIDDEN;

/* The library's context (the current one at init, or the primary context
 * of the device it chose) and its stream for copies (non-blocking: it
 * does not wait for the legacy default stream). */
extern CUcontext shmemi_cu_ctx SHMEMI_HIDDEN;
extern CUstream shmemi_cu_stream SHMEMI_HIDDEN;
/* cuFuncLoad (drivers of CUDA 12.4 and later; NULL before): loads a
 * function that lazy loading left partly loaded. */
typedef CUresult (*shmemi_cu_func_load_t)(CUfunction);
extern shmemi_cu_func_load_t shmemi_cu_func_load SHMEMI_HIDDEN;

/* Records the failure of driver call what with result r (a fatal error
 * naming rtn, the call and the driver's name and text for r) and returns
 * SHMEMX_ERROR_INTERNAL. */
int shmemi_cu_fail(const char *rtn, const char *what, CUresult r) __attribute__((cold));
/* The driver's name and text of r into buf ("CUDA_ERROR_OUT_OF_MEMORY: out
 * of memory"). */
const char *shmemi_cu_str(CUresult r, char *buf, size_t len);
/* The library's kernel called name (src/cuda/cuda_kern.cu) into *f, the
 * module loaded at the first call (the library's context is current):
 * 0 or the class, recorded naming rtn. */
int shmemi_cu_kernel(const char *name, CUfunction *f, const char *rtn) SHMEMI_WUR;
#endif

#endif
