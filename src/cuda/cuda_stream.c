/*
 * Work on a CUDA stream of the program's (cuda/cuda.h): the driver calls
 * that the CUDA kind of stream (src/stream/stream_cuda.c) and the
 * collectives on streams (src/coll/coll_dev_stream.c) queue on it.  Every
 * routine queues and returns; what goes wrong later shows in the stream's
 * sync (cuStreamSynchronize).
 */
#include "cuda/cuda_drv.h"
#include "base/error.h"
#include <shmem.h>

#ifdef HAVE_CUDA
#include <string.h>

/* Runs the driver call expression E with the library's context current,
 * into CUresult r. */
#define IN_CTX(r, E) \
    do { \
        int pushed_ = shmemi_cuda_push(); \
        (r) = (E); \
        shmemi_cuda_pop(pushed_); \
    } while (0)

static int on_fail(const char *rtn, const char *what, CUresult r)
{
    return shmemi_cu_fail(rtn, what, r);
}

int shmemi_cuda_stream_check(void *cs, const char *rtn)
{
    CUcontext c = NULL;
    CUresult r;
    char buf[160];

    if (!shmemi_cuda.on)
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "a CUDA stream needs the PE's GPU, "
                          "and there is none (%s)", shmemi_cuda.why);
    /* The legacy and per-thread default streams (0, 1, 2) belong to the
     * current context: the library's while it is pushed. */
    if ((uintptr_t)cs <= 2)
        return 0;
    IN_CTX(r, shmemi_cu.cuStreamGetCtx((CUstream)cs, &c));
    if (r != CUDA_SUCCESS)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "cuda_stream %p is not a CUDA stream "
                          "(cuStreamGetCtx: %s)", cs, shmemi_cu_str(r, buf, sizeof(buf)));
    if (c != shmemi_cu_ctx)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "cuda_stream %p belongs to another "
                          "CUDA context than the one of the PE's GPU (device %d), which the "
                          "device heap is on", cs, shmemi_cuda.device);
    return 0;
}

int shmemi_cuda_copy_on(void *cs, void *dst, const void *src, size_t n, const char *rtn)
{
    CUresult r;

    if (n == 0)
        return 0;
    IN_CTX(r, shmemi_cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst,
                                      (CUdeviceptr)(uintptr_t)src, n, (CUstream)cs));
    return r == CUDA_SUCCESS ? 0 : on_fail(rtn, "cuMemcpyAsync on the CUDA stream", r);
}

int shmemi_cuda_write_on(void *cs, void *addr, uint64_t v, size_t size, const char *rtn)
{
    CUresult r;

    if (size == 8)
        IN_CTX(r, shmemi_cu.cuStreamWriteValue64((CUstream)cs, (CUdeviceptr)(uintptr_t)addr,
                                                 (cuuint64_t)v, 0));
    else
        IN_CTX(r, shmemi_cu.cuStreamWriteValue32((CUstream)cs, (CUdeviceptr)(uintptr_t)addr,
                                                 (cuuint32_t)v, 0));
    return r == CUDA_SUCCESS ? 0 : on_fail(rtn, "cuStreamWriteValue", r);
}

/* Launches the library's one-thread kernel name with args on cs. */
static int launch1(void *cs, const char *name, void **args, const char *rtn)
{
    CUfunction f;
    CUresult r = CUDA_SUCCESS;
    int pushed = shmemi_cuda_push(), rc;

    rc = shmemi_cu_kernel(name, &f, rtn);
    if (!rc)
        r = shmemi_cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, (CUstream)cs, args, NULL);
    shmemi_cuda_pop(pushed);
    if (!rc && r != CUDA_SUCCESS)
        rc = on_fail(rtn, name, r);
    return rc;
}

int shmemi_cuda_add_on(void *cs, uint64_t *addr, uint64_t v, const char *rtn)
{
    void *args[2] = { &addr, &v };

    return launch1(cs, "shmemi_sig_add", args, rtn);
}

int shmemi_cuda_wait_on(void *cs, const void *addr, size_t size, int is_signed, int cmp,
                        uint64_t v, const char *rtn)
{
    static const char *names[2][2] = { { "shmemi_wait_u32", "shmemi_wait_i32" },
                                       { "shmemi_wait_u64", "shmemi_wait_i64" } };
    unsigned flags = 0;
    uint64_t target = v;
    uint32_t v32 = (uint32_t)v;
    void *args[3];
    CUresult r;

    if (size == 8 && !is_signed &&
        (cmp == SHMEM_CMP_EQ || ((cmp == SHMEM_CMP_GE || cmp == SHMEM_CMP_GT) &&
                                 v < (UINT64_C(1) << 62)))) {
        flags = cmp == SHMEM_CMP_EQ ? CU_STREAM_WAIT_VALUE_EQ : CU_STREAM_WAIT_VALUE_GEQ;
        if (cmp == SHMEM_CMP_GT)
            target = v + 1;
        IN_CTX(r, shmemi_cu.cuStreamWaitValue64((CUstream)cs, (CUdeviceptr)(uintptr_t)addr,
                                                (cuuint64_t)target, flags));
        if (r == CUDA_SUCCESS)
            return 0;
        if (r != CUDA_ERROR_NOT_SUPPORTED)
            return on_fail(rtn, "cuStreamWaitValue64", r);
        /* Stream waits are off on this device: the kernel waits. */
    }
    args[0] = &addr;
    args[1] = &cmp;
    args[2] = size == 8 ? (void *)&v : (void *)&v32;
    return launch1(cs, names[size == 8][!!is_signed], args, rtn);
}

int shmemi_cuda_host_fn_on(void *cs, void (*fn)(void *), void *arg, const char *rtn)
{
    CUresult r;

    IN_CTX(r, shmemi_cu.cuLaunchHostFunc((CUstream)cs, fn, arg));
    return r == CUDA_SUCCESS ? 0 : on_fail(rtn, "cuLaunchHostFunc", r);
}

void *shmemi_cuda_alloc_on(void *cs, size_t n, const char *rtn)
{
    CUdeviceptr p = 0;
    CUresult r;

    IN_CTX(r, shmemi_cu.cuMemAllocAsync(&p, n ? n : 1, (CUstream)cs));
    if (r != CUDA_SUCCESS) {
        on_fail(rtn, "cuMemAllocAsync", r);
        return NULL;
    }
    return (void *)(uintptr_t)p;
}

int shmemi_cuda_free_on(void *cs, void *p, const char *rtn)
{
    CUresult r;

    IN_CTX(r, shmemi_cu.cuMemFreeAsync((CUdeviceptr)(uintptr_t)p, (CUstream)cs));
    return r == CUDA_SUCCESS ? 0 : on_fail(rtn, "cuMemFreeAsync", r);
}

int shmemi_cuda_stream_sync(void *cs, const char *rtn)
{
    CUresult r;

    IN_CTX(r, shmemi_cu.cuStreamSynchronize((CUstream)cs));
    return r == CUDA_SUCCESS ? 0 : on_fail(rtn, "cuStreamSynchronize", r);
}

int shmemi_cuda_stream_busy(void *cs)
{
    CUresult r;

    IN_CTX(r, shmemi_cu.cuStreamQuery((CUstream)cs));
    return r == CUDA_SUCCESS ? 0 : r == CUDA_ERROR_NOT_READY ? 1 : -1;
}

void *shmemi_cuda_host_alloc(size_t n, const char *rtn)
{
    void *p = NULL;
    CUresult r;

    IN_CTX(r, shmemi_cu.cuMemAllocHost(&p, n));
    if (r != CUDA_SUCCESS) {
        on_fail(rtn, "cuMemAllocHost", r);
        return NULL;
    }
    memset(p, 0, n);
    return p;
}

void shmemi_cuda_host_free(void *p)
{
    CUresult r;

    if (p)
        IN_CTX(r, shmemi_cu.cuMemFreeHost(p));
    (void)r;
}

void *shmemi_cuda_dev_alloc(size_t n, const char *rtn)
{
    CUdeviceptr p = 0;
    CUresult r;

    IN_CTX(r, shmemi_cu.cuMemAlloc(&p, n));
    if (r != CUDA_SUCCESS) {
        on_fail(rtn, "cuMemAlloc", r);
        return NULL;
    }
    if (shmemi_cuda_zero((void *)(uintptr_t)p, n, rtn)) {
        IN_CTX(r, shmemi_cu.cuMemFree(p));
        return NULL;
    }
    return (void *)(uintptr_t)p;
}

void shmemi_cuda_dev_free(void *p)
{
    CUresult r;

    if (p)
        IN_CTX(r, shmemi_cu.cuMemFree((CUdeviceptr)(uintptr_t)p));
    (void)r;
}

int shmemi_cuda_zero(void *dev, size_t n, const char *rtn)
{
    CUresult r;

    const char *what = "cuMemsetD8Async";
    int pushed = shmemi_cuda_push();

    /* On the library's stream, which does not wait for the program's
     * streams as the legacy default stream would (work held there may be
     * waiting for this PE), and complete at return. */
    r = shmemi_cu.cuMemsetD8Async((CUdeviceptr)(uintptr_t)dev, 0, n, shmemi_cu_stream);
    if (r == CUDA_SUCCESS) {
        what = "cuStreamSynchronize";
        r = shmemi_cu.cuStreamSynchronize(shmemi_cu_stream);
    }
    shmemi_cuda_pop(pushed);
    return r == CUDA_SUCCESS ? 0 : on_fail(rtn, what, r);
}

#else /* !HAVE_CUDA: no GPU, no CUDA stream (nothing below is reached) */

static int no_gpu(const char *rtn)
{
    return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "a CUDA stream needs the PE's GPU: %s",
                      shmemi_cuda.why);
}

int shmemi_cuda_stream_check(void *cs, const char *rtn) { return no_gpu(rtn); }
int shmemi_cuda_copy_on(void *cs, void *dst, const void *src, size_t n, const char *rtn)
{
    return no_gpu(rtn);
}
int shmemi_cuda_write_on(void *cs, void *addr, uint64_t v, size_t size, const char *rtn)
{
    return no_gpu(rtn);
}
int shmemi_cuda_add_on(void *cs, uint64_t *addr, uint64_t v, const char *rtn)
{
    return no_gpu(rtn);
}
int shmemi_cuda_wait_on(void *cs, const void *addr, size_t size, int is_signed, int cmp,
                        uint64_t v, const char *rtn)
{
    return no_gpu(rtn);
}
int shmemi_cuda_host_fn_on(void *cs, void (*fn)(void *), void *arg, const char *rtn)
{
    return no_gpu(rtn);
}
void *shmemi_cuda_alloc_on(void *cs, size_t n, const char *rtn)
{
    no_gpu(rtn);
    return NULL;
}
int shmemi_cuda_free_on(void *cs, void *p, const char *rtn) { return no_gpu(rtn); }
int shmemi_cuda_stream_sync(void *cs, const char *rtn) { return no_gpu(rtn); }
int shmemi_cuda_stream_busy(void *cs) { return -1; }
void *shmemi_cuda_host_alloc(size_t n, const char *rtn)
{
    no_gpu(rtn);
    return NULL;
}
void shmemi_cuda_host_free(void *p) {}
void *shmemi_cuda_dev_alloc(size_t n, const char *rtn)
{
    no_gpu(rtn);
    return NULL;
}
void shmemi_cuda_dev_free(void *p) {}
int shmemi_cuda_zero(void *dev, size_t n, const char *rtn) { return no_gpu(rtn); }

#endif
