/*
 * The library's own GPU kernels (cuda/cuda.h, src/cuda/cuda_kern.cu): the
 * PTX that the build embedded, loaded through the driver at the first use
 * on the library's context, and launched on the library's stream or the
 * caller's; and a scratch block of GPU memory for the collectives that
 * need one.
 */
#include "cuda/cuda_drv.h"
#include "base/error.h"
#include "base/rtype.h"
#include "fabshmem/device/proxy.h"
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
#include <pthread.h>
#include <string.h>

extern const char shmemi_cuda_kern_ptx[];

/* The names of the operations in the kernels' names (SHMEMI_ROP_*). */
static const char *const op_names[SHMEMI_ROP_COUNT] = {
    [SHMEMI_ROP_AND] = "and", [SHMEMI_ROP_OR] = "or", [SHMEMI_ROP_XOR] = "xor",
    [SHMEMI_ROP_MAX] = "max", [SHMEMI_ROP_MIN] = "min", [SHMEMI_ROP_SUM] = "sum",
    [SHMEMI_ROP_PROD] = "prod"
};

static CUmodule kern_mod;
/* The reduction kernels, looked up at their first use: [0] the plain
 * ones (shmemi_red_*), [1] the fused ones (shmemi_redf_*). */
static CUfunction kern_red[2][SHMEMI_RT_COUNT][SHMEMI_ROP_COUNT];
static CUdeviceptr scratch;
static size_t scratch_len;
/* The fused put with signal (shmemi_put_sig), looked up once at preload:
 * it is on the latency path of every small put with signal on a CUDA
 * stream, where a lookup by name each time would cost. */
static CUfunction kern_put_sig;
/* The one-thread atomic (shmemi_amo), looked up once at preload too, and
 * its old value's word of pinned host memory, one call at a time (callers
 * on several threads: the program's, the staging thread, the proxy). */
static CUfunction kern_amo;
static unsigned long long *amo_old;
static pthread_mutex_t amo_lock = PTHREAD_MUTEX_INITIALIZER;

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

/* The reduction kernel of (tc, op), which has one, into *f (fused: the
 * one with the synchronizations inside): the module loaded and the kernel
 * looked up at the first need (the context is current). */
static int kern_red_get(int tc, int op, int fused, CUfunction *f, const char *rtn)
{
    CUfunction *slot = &kern_red[fused][tc][op];
    char name[48];
    CUresult r;
    int rc;

    if (*slot) {
        *f = *slot;
        return 0;
    }
    if ((rc = kern_load(rtn)))
        return rc;
    snprintf(name, sizeof(name), "shmemi_red%s_%s_%s", fused ? "f" : "", op_names[op],
             kern_suffix(tc, op));
    if ((r = shmemi_cu.cuModuleGetFunction(slot, kern_mod, name)) != CUDA_SUCCESS) {
        *slot = NULL;
        return shmemi_cu_fail(rtn, "cuModuleGetFunction of a reduction kernel", r);
    }
    *f = *slot;
    return 0;
}

/* The refusals that both launchers make: a pair without a kernel, and a
 * count of sources out of range. */
static int red_check(int tc, int op, int n, const char *rtn)
{
    if (!kern_suffix(tc, op))
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "GPU memory: %s", tc == SHMEMI_RT_LD ?
                          "long double cannot be reduced on the GPU (it has no such type)" :
                          "the GPU has no kernel for this type and operation");
    if (n < 1 || n > SHMEMI_CUDA_RED_MAXSRC)
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: internal: a GPU reduction of %d "
                                "sources", rtn, n);
    return 0;
}

int shmemi_cuda_reduce(int tc, int op, void *const *dst, int nd, const void *const *src, int n,
                       size_t lo, size_t hi, void *stream, const char *rtn)
{
    struct { const void *p[SHMEMI_CUDA_RED_MAXSRC]; } s;
    struct { void *p[SHMEMI_CUDA_RED_MAXSRC]; } d;
    /* A grid-stride loop of four elements a thread a round: at least one
     * block of 256 threads, at most 4096. */
    size_t blocks = hi > lo ? (hi - lo + 1023) / 1024 : 0;
    CUstream st = stream ? (CUstream)stream : shmemi_cu_stream;
    CUfunction f = NULL;
    void *args[6];
    CUresult r;
    int pushed, rc;

    if ((rc = red_check(tc, op, n, rtn)))
        return rc;
    if (nd < 1 || nd > SHMEMI_CUDA_RED_MAXSRC)
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: internal: a GPU reduction into %d "
                                "destinations", rtn, nd);
    if (blocks == 0)
        return 0;
    memset(&s, 0, sizeof(s));
    memcpy(s.p, src, sizeof(void *) * (size_t)n);
    memset(&d, 0, sizeof(d));
    memcpy(d.p, dst, sizeof(void *) * (size_t)nd);
    args[0] = &d;
    args[1] = &s;
    args[2] = &nd;
    args[3] = &n;
    args[4] = &lo;
    args[5] = &hi;
    if (blocks > 4096)
        blocks = 4096;
    pushed = shmemi_cuda_push();
    rc = kern_red_get(tc, op, 0, &f, rtn);
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

/* The synchronizations of a fused reduction, laid out as struct
 * shmemi_fsync of cuda_kern.cu (the kernel's last argument). */
struct shmemi_cuda_fsync {
    uint64_t *mine;
    void *peer[SHMEMI_CUDA_RED_MAXSRC];
    int me;
    uint64_t k1, k2;
    unsigned *counter;
};

int shmemi_cuda_reduce_fused(int tc, int op, void *dst, const void *const *src, int n,
                             size_t count, uint64_t *mine, void *const *peer, int me, uint64_t k1,
                             uint64_t k2, unsigned *counter, void *stream, const char *rtn)
{
    struct { const void *p[SHMEMI_CUDA_RED_MAXSRC]; } s;
    struct shmemi_cuda_fsync fs;
    /* Every block must be resident at once (they wait for each other's
     * members): at most 128 blocks of 256 threads, and at least one even
     * for no elements, which still synchronizes. */
    size_t blocks = (count + 255) / 256;
    CUfunction f = NULL;
    void *args[5];
    CUresult r;
    int pushed, rc;

    if ((rc = red_check(tc, op, n, rtn)))
        return rc;
    if (blocks > 128)
        blocks = 128;
    if (blocks < 1)
        blocks = 1;
    memset(&s, 0, sizeof(s));
    memcpy(s.p, src, sizeof(void *) * (size_t)n);
    memset(&fs, 0, sizeof(fs));
    fs.mine = mine;
    memcpy(fs.peer, peer, sizeof(void *) * (size_t)n);
    fs.me = me;
    fs.k1 = k1;
    fs.k2 = k2;
    fs.counter = counter;
    args[0] = &dst;
    args[1] = &s;
    args[2] = &n;
    args[3] = &count;
    args[4] = &fs;
    pushed = shmemi_cuda_push();
    rc = kern_red_get(tc, op, 1, &f, rtn);
    if (!rc && (r = shmemi_cu.cuLaunchKernel(f, (unsigned)blocks, 1, 1, 256, 1, 1, 0,
                                             (CUstream)stream, args, NULL)) != CUDA_SUCCESS)
        rc = shmemi_cu_fail(rtn, "the library's fused reduction kernel", r);
    shmemi_cuda_pop(pushed);
    return rc;
}

int shmemi_cuda_put_signal_on(void *cs, void *dst, const void *src, size_t n, uint64_t *sig,
                              uint64_t v, int add, const char *rtn)
{
    /* One block (the signal follows the whole block's stores: a barrier,
     * not a grid-wide count), a thread per 16 bytes up to 512 threads,
     * whole warps. */
    size_t units = (n + 15) / 16;
    unsigned threads = units >= 512 ? 512 : units <= 32 ? 32 : (unsigned)(units + 31) / 32 * 32;
    void *args[6] = { &dst, &src, &n, &sig, &v, &add };
    CUfunction f = kern_put_sig;
    CUresult r = CUDA_SUCCESS;
    int pushed = shmemi_cuda_push(), rc = 0;

    /* Looked up at init (shmemi_cuda_kern_preload); by name here only if
     * that did not run, and then not kept (callers on several threads). */
    if (!f)
        rc = shmemi_cu_kernel("shmemi_put_sig", &f, rtn);
    if (!rc)
        r = shmemi_cu.cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, 0, (CUstream)cs, args, NULL);
    shmemi_cuda_pop(pushed);
    if (!rc && r != CUDA_SUCCESS)
        rc = shmemi_cu_fail(rtn, "the library's put-with-signal kernel", r);
    return rc;
}

/* The launch of shmemi_amo and its wait, under amo_lock (the context
 * pushed): 0 or the class.  A SET whose old value nobody wants is the
 * stream's own write instead (cuStreamWriteValue, fenced: a memory
 * operation of the GPU's front end, which needs no SM, so it lands even
 * while the program's kernels hold every SM, waiting for it). */
static int amo_launch(void *word, int amo, int width, uint64_t value, uint64_t cmp, int want_old,
                      const char *rtn)
{
    void *args[6] = { &word, &amo, &width, &value, &cmp, &amo_old };
    CUdeviceptr w = (CUdeviceptr)(uintptr_t)word;
    CUfunction f = kern_amo;
    CUresult r;
    int rc = 0;

    if (amo == SHMEMD_AMO_SET && !want_old) {
        r = width == 8 ? shmemi_cu.cuStreamWriteValue64(shmemi_cu_stream, w, (cuuint64_t)value, 0)
                       : shmemi_cu.cuStreamWriteValue32(shmemi_cu_stream, w, (cuuint32_t)value,
                                                        0);
        if (r == CUDA_SUCCESS)
            r = shmemi_cu.cuStreamSynchronize(shmemi_cu_stream);
        return r == CUDA_SUCCESS ? 0 : shmemi_cu_fail(rtn, "cuStreamWriteValue of an atomic set",
                                                      r);
    }

    if (!amo_old && shmemi_cu.cuMemAllocHost((void **)&amo_old, sizeof(*amo_old)) !=
                        CUDA_SUCCESS) {
        amo_old = NULL;
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: cuMemAllocHost of the GPU "
                                "atomics' result word failed", rtn);
    }
    if (!f && (rc = shmemi_cu_kernel("shmemi_amo", &f, rtn)))
        return rc;
    r = shmemi_cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, shmemi_cu_stream, args, NULL);
    if (r == CUDA_SUCCESS)
        r = shmemi_cu.cuStreamSynchronize(shmemi_cu_stream);
    return r == CUDA_SUCCESS ? 0 : shmemi_cu_fail(rtn, "the library's atomic kernel", r);
}

int shmemi_cuda_amo(void *word, int amo, size_t width, uint64_t value, uint64_t cmp,
                    uint64_t *old, const char *rtn)
{
    int pushed, rc;

    if (!shmemi_cuda.on)
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "GPU memory: %s", shmemi_cuda.why);
    if ((width != 4 && width != 8) || (uintptr_t)word % width || amo < SHMEMD_AMO_SET ||
        amo >= SHMEMD_AMO_OPS_)
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: internal: a GPU atomic %d of %zu "
                                "bytes at %p", rtn, amo, width, word);
    pthread_mutex_lock(&amo_lock);
    pushed = shmemi_cuda_push();
    rc = amo_launch(word, amo, (int)width, value, cmp, old != NULL, rtn);
    shmemi_cuda_pop(pushed);
    if (!rc && old)
        *old = width == 4 ? (uint32_t)*(volatile unsigned long long *)amo_old
                          : *(volatile unsigned long long *)amo_old;
    pthread_mutex_unlock(&amo_lock);
    return rc;
}

void *shmemi_cuda_scratch(size_t n, const char *rtn)
{
    CUresult r = CUDA_SUCCESS;
    int pushed;

    if (n <= scratch_len)
        return (void *)(uintptr_t)scratch;
    /* Stream-ordered on the library's stream, then that stream waited
     * for: cuMemFree and cuMemAlloc may wait for every stream of the
     * device, which deadlocks when this runs for a CUDA stream's host
     * thread while that stream waits for it (held collectives). */
    pushed = shmemi_cuda_push();
    if (scratch)
        shmemi_cu.cuMemFreeAsync(scratch, shmemi_cu_stream);
    scratch = 0;
    scratch_len = 0;
    r = shmemi_cu.cuMemAllocAsync(&scratch, n, shmemi_cu_stream);
    if (r == CUDA_SUCCESS)
        r = shmemi_cu.cuStreamSynchronize(shmemi_cu_stream);
    shmemi_cuda_pop(pushed);
    if (r != CUDA_SUCCESS) {
        scratch = 0;
        shmemi_cu_fail(rtn, "cuMemAllocAsync of the collectives' scratch", r);
        return NULL;
    }
    scratch_len = n;
    return (void *)(uintptr_t)scratch;
}

void shmemi_cuda_kern_fini(void)
{
    int pushed;

    if (!kern_mod && !scratch && !amo_old)
        return;
    pushed = shmemi_cuda_push();
    if (amo_old)
        shmemi_cu.cuMemFreeHost(amo_old);
    amo_old = NULL;
    kern_amo = NULL;
    if (kern_mod)
        shmemi_cu.cuModuleUnload(kern_mod);
    if (scratch) {
        shmemi_cu.cuMemFreeAsync(scratch, shmemi_cu_stream);
        shmemi_cu.cuStreamSynchronize(shmemi_cu_stream);
    }
    shmemi_cuda_pop(pushed);
    kern_mod = NULL;
    memset(kern_red, 0, sizeof(kern_red));
    kern_put_sig = NULL;
    scratch = 0;
    scratch_len = 0;
}

int shmemi_cuda_kern_preload(const char *rtn)
{
    static const char *const others[] = { "shmemi_sig_add", "shmemi_wait_i32", "shmemi_wait_u32",
                                          "shmemi_wait_i64", "shmemi_wait_u64" };
    CUfunction f;
    CUresult r = CUDA_SUCCESS;
    int pushed = shmemi_cuda_push(), rc = 0, tc, op, fused;
    size_t i;

    /* Each stops at the first failure (rc, or a cuFuncLoad's r). */
    for (tc = 0; tc < SHMEMI_RT_COUNT && !rc && !r; tc++)
        for (op = 0; op < SHMEMI_ROP_COUNT && !rc && !r; op++)
            for (fused = 0; fused < 2 && kern_suffix(tc, op) && !rc && !r; fused++)
                if (!(rc = kern_red_get(tc, op, fused, &f, rtn)) && shmemi_cu_func_load)
                    r = shmemi_cu_func_load(f);
    for (i = 0; i < sizeof(others) / sizeof(others[0]) && !rc && !r; i++)
        if (!(rc = shmemi_cu_kernel(others[i], &f, rtn)) && shmemi_cu_func_load)
            r = shmemi_cu_func_load(f);
    if (!rc && !r && !(rc = shmemi_cu_kernel("shmemi_put_sig", &f, rtn))) {
        kern_put_sig = f;
        if (shmemi_cu_func_load)
            r = shmemi_cu_func_load(f);
    }
    if (!rc && !r && !(rc = shmemi_cu_kernel("shmemi_amo", &f, rtn))) {
        kern_amo = f;
        if (shmemi_cu_func_load)
            r = shmemi_cu_func_load(f);
        /* Its result word now too: an allocation at the first AMO could
         * wait for the program's streams as a module load does. */
        if (!r && !amo_old && (r = shmemi_cu.cuMemAllocHost((void **)&amo_old,
                                                            sizeof(*amo_old))) != CUDA_SUCCESS)
            amo_old = NULL;
    }
    shmemi_cuda_pop(pushed);
    if (!rc && r != CUDA_SUCCESS)
        rc = shmemi_cu_fail(rtn, "cuFuncLoad of the library's kernels", r);
    return rc;
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

int shmemi_cuda_reduce(int tc, int op, void *const *dst, int nd, const void *const *src, int n,
                       size_t lo, size_t hi, void *stream, const char *rtn)
{
    return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "GPU memory: %s", shmemi_cuda.why);
}

int shmemi_cuda_reduce_fused(int tc, int op, void *dst, const void *const *src, int n,
                             size_t count, uint64_t *mine, void *const *peer, int me, uint64_t k1,
                             uint64_t k2, unsigned *counter, void *stream, const char *rtn)
{
    return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "GPU memory: %s", shmemi_cuda.why);
}

int shmemi_cuda_put_signal_on(void *cs, void *dst, const void *src, size_t n, uint64_t *sig,
                              uint64_t v, int add, const char *rtn)
{
    return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "GPU memory: %s", shmemi_cuda.why);
}

int shmemi_cuda_amo(void *word, int amo, size_t width, uint64_t value, uint64_t cmp,
                    uint64_t *old, const char *rtn)
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

int shmemi_cuda_kern_preload(const char *rtn)
{
    (void)rtn;
    return 0;
}

#endif
