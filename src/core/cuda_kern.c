/*
 * The library's own GPU kernels (core/cuda.h, src/core/cuda_kern.cu): the
 * PTX that the build embedded, loaded through the driver at the first use
 * on the library's context, and launched on the library's stream; and a
 * scratch block of GPU memory for the collectives that need one.
 */
#include "core/cuda_drv.h"
#include "core/error.h"

#ifdef HAVE_CUDA
#include <string.h>

extern const char shmemi_cuda_kern_ptx[];

static CUmodule kern_mod;
static CUfunction kern_sum[4];
static CUdeviceptr scratch;
static size_t scratch_len;

/* Loads the module and looks its kernels up (the context is current). */
static int kern_load(const char *rtn)
{
    static const char *names[4] = { "shmemi_sum_f32", "shmemi_sum_f64", "shmemi_sum_u32",
                                    "shmemi_sum_u64" };
    CUresult r;
    int i;

    if (kern_mod)
        return 0;
    if ((r = shmemi_cu.cuModuleLoadData(&kern_mod, shmemi_cuda_kern_ptx)) != CUDA_SUCCESS) {
        kern_mod = NULL;
        return shmemi_cu_fail(rtn, "cuModuleLoadData of the library's kernels", r);
    }
    for (i = 0; i < 4; i++)
        if ((r = shmemi_cu.cuModuleGetFunction(&kern_sum[i], kern_mod, names[i])) !=
            CUDA_SUCCESS) {
            shmemi_cu.cuModuleUnload(kern_mod);
            kern_mod = NULL;
            return shmemi_cu_fail(rtn, "cuModuleGetFunction", r);
        }
    return 0;
}

int shmemi_cuda_sum(int type, void *dst, const void *const *src, int n, size_t count,
                    const char *rtn)
{
    struct { const void *p[SHMEMI_CUDA_SUM_MAXSRC]; } s;
    size_t blocks = (count + 255) / 256;
    void *args[4];
    CUresult r;
    int pushed, rc;

    if (n < 1 || n > SHMEMI_CUDA_SUM_MAXSRC || type < 0 || type > SHMEMI_CUDA_U64)
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: internal: a sum of %d sources of "
                                "type %d", rtn, n, type);
    if (count == 0)
        return 0;
    memset(&s, 0, sizeof(s));
    memcpy(s.p, src, sizeof(void *) * (size_t)n);
    args[0] = &dst;
    args[1] = &s;
    args[2] = &n;
    args[3] = &count;
    /* A grid-stride loop: at most 4096 blocks of 256 threads. */
    if (blocks > 4096)
        blocks = 4096;
    pushed = shmemi_cuda_push();
    rc = kern_load(rtn);
    if (!rc) {
        r = shmemi_cu.cuLaunchKernel(kern_sum[type], (unsigned)blocks, 1, 1, 256, 1, 1, 0,
                                     shmemi_cu_stream, args, NULL);
        if (r == CUDA_SUCCESS)
            r = shmemi_cu.cuStreamSynchronize(shmemi_cu_stream);
        if (r != CUDA_SUCCESS)
            rc = shmemi_cu_fail(rtn, "the library's sum kernel", r);
    }
    shmemi_cuda_pop(pushed);
    return rc;
}

void *shmemi_cuda_scratch(size_t n, const char *rtn)
{
    CUresult r = CUDA_SUCCESS;
    int pushed;

    if (n <= scratch_len)
        return (void *)(uintptr_t)scratch;
    pushed = shmemi_cuda_push();
    if (scratch)
        shmemi_cu.cuMemFree(scratch);
    scratch = 0;
    scratch_len = 0;
    r = shmemi_cu.cuMemAlloc(&scratch, n);
    shmemi_cuda_pop(pushed);
    if (r != CUDA_SUCCESS) {
        scratch = 0;
        shmemi_cu_fail(rtn, "cuMemAlloc of the collectives' scratch", r);
        return NULL;
    }
    scratch_len = n;
    return (void *)(uintptr_t)scratch;
}

void shmemi_cuda_kern_fini(void)
{
    int pushed;

    if (!kern_mod && !scratch)
        return;
    pushed = shmemi_cuda_push();
    if (kern_mod)
        shmemi_cu.cuModuleUnload(kern_mod);
    if (scratch)
        shmemi_cu.cuMemFree(scratch);
    shmemi_cuda_pop(pushed);
    kern_mod = NULL;
    scratch = 0;
    scratch_len = 0;
}

int shmemi_cu_kernel(const char *name, CUfunction *f, const char *rtn)
{
    CUresult r;
    int rc;

    if ((rc = kern_load(rtn)))
        return rc;
    if ((r = shmemi_cu.cuModuleGetFunction(f, kern_mod, name)) != CUDA_SUCCESS)
        return shmemi_cu_fail(rtn, "cuModuleGetFunction", r);
    return 0;
}

#else /* !HAVE_CUDA */

int shmemi_cuda_sum(int type, void *dst, const void *const *src, int n, size_t count,
                    const char *rtn)
{
    return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "GPU memory: %s", shmemi_cuda.why);
}

void *shmemi_cuda_scratch(size_t n, const char *rtn)
{
    shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "GPU memory: %s", shmemi_cuda.why);
    return NULL;
}

void shmemi_cuda_kern_fini(void)
{
}

#endif
