/*
 * The library's own GPU kernels (core/cuda.h, src/core/cuda_kern.cu): the
 * PTX that the build embedded, loaded through the driver at the first use
 * on the library's context, and launched on the library's stream or the
 * caller's; and a scratch block of GPU memory for the collectives that
 * need one.
 */
#include "core/cuda_drv.h"
#include "core/error.h"
#include "core/rtype.h"
#include <stdio.h>

/* The element suffix of the kernel of (tc, op) in cuda_kern.cu, or NULL
 * when there is none: integers compute as unsigned but for the max and
 * min of signed ones; reals have sum, prod, max and min; complex sum and
 * prod; long double nothing (the GPU has no such type). */
static const char *kern_suffix(int tc, int op)
{
    static const char *const uns[4] = { "u8", "u16", "u32", "u64" };
    static const char *const sig[4] = { "s8", "s16", "s32", "s64" };
    int minmax = op == SHMEMI_ROP_MAX || op == SHMEMI_ROP_MIN;
    int arith = op == SHMEMI_ROP_SUM || op == SHMEMI_ROP_PROD;

    if (op < 0 || op >= SHMEMI_ROP_COUNT)
        return NULL;
    switch (tc) {
    case SHMEMI_RT_I8: case SHMEMI_RT_I16: case SHMEMI_RT_I32: case SHMEMI_RT_I64:
        return (minmax ? sig : uns)[tc - SHMEMI_RT_I8];
    case SHMEMI_RT_U8: case SHMEMI_RT_U16: case SHMEMI_RT_U32: case SHMEMI_RT_U64:
        return uns[tc - SHMEMI_RT_U8];
    case SHMEMI_RT_F32: return minmax || arith ? "f32" : NULL;
    case SHMEMI_RT_F64: return minmax || arith ? "f64" : NULL;
    case SHMEMI_RT_C32: return arith ? "c32" : NULL;
    case SHMEMI_RT_C64: return arith ? "c64" : NULL;
    default: return NULL;
    }
}

int shmemi_cuda_reduce_ok(int tc, int op)
{
    return kern_suffix(tc, op) != NULL;
}

#ifdef HAVE_CUDA
#include <string.h>

extern const char shmemi_cuda_kern_ptx[];

/* The names of the operations in the kernels' names (SHMEMI_ROP_*). */
static const char *const op_names[SHMEMI_ROP_COUNT] = {
    [SHMEMI_ROP_AND] = "and", [SHMEMI_ROP_OR] = "or", [SHMEMI_ROP_XOR] = "xor",
    [SHMEMI_ROP_MAX] = "max", [SHMEMI_ROP_MIN] = "min", [SHMEMI_ROP_SUM] = "sum",
    [SHMEMI_ROP_PROD] = "prod"
};

static CUmodule kern_mod;
/* The reduction kernels, looked up at their first use. */
static CUfunction kern_red[SHMEMI_RT_COUNT][SHMEMI_ROP_COUNT];
static CUdeviceptr scratch;
static size_t scratch_len;

/* Loads the module (the context is current). */
static int kern_load(const char *rtn)
{
    CUresult r;

    if (kern_mod)
        return 0;
    if ((r = shmemi_cu.cuModuleLoadData(&kern_mod, shmemi_cuda_kern_ptx)) != CUDA_SUCCESS) {
        kern_mod = NULL;
        return shmemi_cu_fail(rtn, "cuModuleLoadData of the library's kernels", r);
    }
    return 0;
}

/* The reduction kernel of (tc, op), which has one, into *f: the module
 * loaded and the kernel looked up at the first need (the context is
 * current). */
static int kern_red_get(int tc, int op, CUfunction *f, const char *rtn)
{
    char name[48];
    CUresult r;
    int rc;

    if (kern_red[tc][op]) {
        *f = kern_red[tc][op];
        return 0;
    }
    if ((rc = kern_load(rtn)))
        return rc;
    snprintf(name, sizeof(name), "shmemi_red_%s_%s", op_names[op], kern_suffix(tc, op));
    if ((r = shmemi_cu.cuModuleGetFunction(&kern_red[tc][op], kern_mod, name)) !=
        CUDA_SUCCESS) {
        kern_red[tc][op] = NULL;
        return shmemi_cu_fail(rtn, "cuModuleGetFunction of a reduction kernel", r);
    }
    *f = kern_red[tc][op];
    return 0;
}

int shmemi_cuda_reduce(int tc, int op, void *dst, const void *const *src, int n, size_t count,
                       void *stream, const char *rtn)
{
    struct { const void *p[SHMEMI_CUDA_RED_MAXSRC]; } s;
    size_t blocks = (count + 255) / 256;
    CUstream st = stream ? (CUstream)stream : shmemi_cu_stream;
    CUfunction f = NULL;
    void *args[4];
    CUresult r;
    int pushed, rc;

    if (!kern_suffix(tc, op))
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "GPU memory: %s", tc == SHMEMI_RT_LD ?
                          "long double cannot be reduced on the GPU (it has no such type)" :
                          "the GPU has no kernel for this type and operation");
    if (n < 1 || n > SHMEMI_CUDA_RED_MAXSRC)
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: internal: a GPU reduction of %d "
                                "sources", rtn, n);
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
    rc = kern_red_get(tc, op, &f, rtn);
    if (!rc) {
        r = shmemi_cu.cuLaunchKernel(f, (unsigned)blocks, 1, 1, 256, 1, 1, 0, st, args, NULL);
        /* On the library's stream the launcher waits; on the caller's,
         * the stream orders what follows. */
        if (r == CUDA_SUCCESS && !stream)
            r = shmemi_cu.cuStreamSynchronize(st);
        if (r != CUDA_SUCCESS)
            rc = shmemi_cu_fail(rtn, "the library's reduction kernel", r);
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
    memset(kern_red, 0, sizeof(kern_red));
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

int shmemi_cuda_reduce(int tc, int op, void *dst, const void *const *src, int n, size_t count,
                       void *stream, const char *rtn)
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
