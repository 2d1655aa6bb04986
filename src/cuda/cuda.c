/*
 * The CUDA driver, loaded at run time.  The library is compiled against
 * the toolkit's cuda.h and never linked with libcuda: shmemi_cuda_open
 * opens libcuda.so.1 with dlopen and fills the table of the entry points
 * it calls (cuda/cuda_drv.h), so that a CUDA build loads and runs on a
 * machine without a GPU or a driver, where the device heap is simply
 * absent.  The symbols are looked up by the names cuda.h maps them to
 * (cuMemcpyHtoD_v2 for cuMemcpyHtoD), the ABI this cuda.h describes.
 */
#include "base/state.h"
#include "cuda/cuda_drv.h"
#include <dlfcn.h>

shmemi_cuda_t shmemi_cuda;

#ifdef HAVE_CUDA

shmemi_cu_fns_t shmemi_cu;
CUcontext shmemi_cu_ctx;
CUstream shmemi_cu_stream;
shmemi_cu_func_load_t shmemi_cu_func_load;
/* cuModuleGetLoadingMode (drivers of CUDA 11.7 and later; NULL before). */
static CUresult (*cu_loading_mode)(CUmoduleLoadingMode *);

#define CU_STR_(x) #x
#define CU_STR(x) CU_STR_(x)

const char *shmemi_cu_str(CUresult r, char *buf, size_t len)
{
    const char *name = NULL, *text = NULL;

    if (shmemi_cuda.loaded) {
        shmemi_cu.cuGetErrorName(r, &name);
        shmemi_cu.cuGetErrorString(r, &text);
    }
    snprintf(buf, len, "%s: %s", name ? name : "CUDA error", text ? text : "unknown");
    if (!name)
        snprintf(buf, len, "CUDA error %d", (int)r);
    return buf;
}

int shmemi_cu_fail(const char *rtn, const char *what, CUresult r)
{
    char buf[160];

    return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: %s failed: %s", rtn, what,
                            shmemi_cu_str(r, buf, sizeof(buf)));
}

/* Loads libcuda.so.1 (noload: only if the process has loaded it already)
 * and fills the table; 0, or -1 with the reason in shmemi_cuda.why. */
static int cuda_load(int noload)
{
    static void *lib;
    const char *missing = NULL;

    if (shmemi_cuda.loaded)
        return 0;
    if (!lib)
        lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | (noload ? RTLD_NOLOAD : 0));
    if (!lib) {
        if (noload)
            snprintf(shmemi_cuda.why, sizeof(shmemi_cuda.why), "the process had not loaded the "
                     "CUDA driver by shmem_init (FABSHMEM_CUDA=auto: call the CUDA runtime, "
                     "e.g. cudaSetDevice, before shmem_init, or set FABSHMEM_CUDA=1)");
        else
            snprintf(shmemi_cuda.why, sizeof(shmemi_cuda.why), "no CUDA driver: dlopen "
                     "libcuda.so.1: %s", dlerror());
        return -1;
    }
#define CU_LOAD(f)                                                                    \
    if (!missing &&                                                                   \
        !(shmemi_cu.f = (__typeof__(shmemi_cu.f))dlsym(lib, CU_STR(f))))              \
        missing = CU_STR(f);
    SHMEMI_CU_FNS(CU_LOAD)
#undef CU_LOAD
    if (missing) {
        snprintf(shmemi_cuda.why, sizeof(shmemi_cuda.why), "the CUDA driver (libcuda.so.1) "
                 "lacks %s: it is older than the toolkit fabshmem was built with", missing);
        return -1;
    }
    /* Optional: older drivers lack it (kernels then load at first use). */
    shmemi_cu_func_load = (shmemi_cu_func_load_t)dlsym(lib, "cuFuncLoad");
    cu_loading_mode = (CUresult(*)(CUmoduleLoadingMode *))dlsym(lib, "cuModuleGetLoadingMode");
    shmemi_cuda.loaded = 1;
    return 0;
}

/* cuInit and the count of GPUs; 0, or -1 with the reason. */
static int cuda_init_driver(void)
{
    char buf[160];
    CUresult r = shmemi_cu.cuInit(0);

    if (r == CUDA_SUCCESS)
        r = shmemi_cu.cuDeviceGetCount(&shmemi_cuda.n_devices);
    if (r != CUDA_SUCCESS || shmemi_cuda.n_devices <= 0) {
        snprintf(shmemi_cuda.why, sizeof(shmemi_cuda.why), "no GPU: %s",
                 r != CUDA_SUCCESS ? shmemi_cu_str(r, buf, sizeof(buf))
                                   : "the CUDA driver sees no device");
        return -1;
    }
    shmemi_cu.cuDriverGetVersion(&shmemi_cuda.driver_version);
    return 0;
}

/* The device's name, PCI bus id and UUID into shmemi_cuda. */
static void cuda_describe_device(CUdevice dev)
{
    CUuuid u;

    shmemi_cu.cuDeviceGetName(shmemi_cuda.name, sizeof(shmemi_cuda.name), dev);
    shmemi_cu.cuDeviceGetPCIBusId(shmemi_cuda.pci, sizeof(shmemi_cuda.pci), dev);
    if (shmemi_cu.cuDeviceGetUuid(&u, dev) == CUDA_SUCCESS)
        memcpy(shmemi_cuda.uuid, u.bytes, sizeof(shmemi_cuda.uuid));
}

/* The device of the context current on this thread, or (none) device
 * local_rank % n_devices with its primary context, made current. */
static int cuda_pick_device(int local_rank, const char *rtn)
{
    CUcontext cur = NULL;
    CUdevice dev;
    CUresult r;

    if (shmemi_cu.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur &&
        shmemi_cu.cuCtxGetDevice(&dev) == CUDA_SUCCESS) {
        shmemi_cu_ctx = cur;
        shmemi_cuda.ctx_retained = 0;
    } else {
        if ((r = shmemi_cu.cuDeviceGet(&dev, local_rank % shmemi_cuda.n_devices)))
            return shmemi_cu_fail(rtn, "cuDeviceGet", r);
        if ((r = shmemi_cu.cuDevicePrimaryCtxRetain(&shmemi_cu_ctx, dev)))
            return shmemi_cu_fail(rtn, "cuDevicePrimaryCtxRetain", r);
        shmemi_cuda.ctx_retained = 1;
        if ((r = shmemi_cu.cuCtxSetCurrent(shmemi_cu_ctx))) {
            shmemi_cu.cuDevicePrimaryCtxRelease(dev);
            shmemi_cuda.ctx_retained = 0;
            return shmemi_cu_fail(rtn, "cuCtxSetCurrent", r);
        }
    }
    shmemi_cuda.device = (int)dev;
    cuda_describe_device(dev);
    return 0;
}

int shmemi_cuda_open(int want, int local_rank, const char *rtn)
{
    int rc, pushed;
    CUresult r;

    memset(&shmemi_cuda, 0, sizeof(shmemi_cuda));
    shmemi_cuda.loaded = shmemi_cu.cuInit != NULL; /* the table outlives finalize */
    shmemi_cuda.device = -1;
    if (want == 0) {
        snprintf(shmemi_cuda.why, sizeof(shmemi_cuda.why), "FABSHMEM_CUDA=0");
        return 0;
    }
    if (cuda_load(want == -1) || cuda_init_driver()) {
        if (want > 0)
            return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, "FABSHMEM_CUDA", "1 requires a GPU: "
                              "%s", shmemi_cuda.why);
        return 0;
    }
    if ((rc = cuda_pick_device(local_rank, rtn)))
        return rc;
    pushed = shmemi_cuda_push();
    r = shmemi_cu.cuStreamCreate(&shmemi_cu_stream, CU_STREAM_NON_BLOCKING);
    shmemi_cuda_pop(pushed);
    if (r) {
        shmemi_cuda_close();
        return shmemi_cu_fail(rtn, "cuStreamCreate", r);
    }
    shmemi_cuda.on = 1;
    /* CU_DEVICE_ATTRIBUTE_MPS_ENABLED (133, CUDA 12.1 and up). */
    if (shmemi_cu.cuDeviceGetAttribute(&shmemi_cuda.mps, (CUdevice_attribute)133,
                                       (CUdevice)shmemi_cuda.device) != CUDA_SUCCESS)
        shmemi_cuda.mps = -1;
    {
        CUmoduleLoadingMode m;
        shmemi_cuda.lazy = !cu_loading_mode || cu_loading_mode(&m) != CUDA_SUCCESS ? -1
                           : m == CU_MODULE_LAZY_LOADING;
    }
    shmemi_debug("GPU: device %d of %d (%s, %s), %s", shmemi_cuda.device, shmemi_cuda.n_devices,
                 shmemi_cuda.name, shmemi_cuda.pci, shmemi_cuda.ctx_retained
                 ? "its primary context, made current (no context was current)"
                 : "the context current at init");
    return 0;
}

void shmemi_cuda_close(void)
{
    int pushed;

    shmemi_cuda_kern_fini();
    if (shmemi_cu_stream) {
        pushed = shmemi_cuda_push();
        shmemi_cu.cuStreamDestroy(shmemi_cu_stream);
        shmemi_cuda_pop(pushed);
        shmemi_cu_stream = NULL;
    }
    if (shmemi_cuda.ctx_retained)
        shmemi_cu.cuDevicePrimaryCtxRelease((CUdevice)shmemi_cuda.device);
    shmemi_cuda.ctx_retained = 0;
    shmemi_cu_ctx = NULL;
    shmemi_cuda.on = 0;
    shmemi_cuda.device = -1;
}

int shmemi_cuda_push(void)
{
    CUcontext cur = NULL;

    if (!shmemi_cuda.on) /* no device chosen (a proxy with a CPU producer) */
        return 0;
    if (shmemi_cu.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == shmemi_cu_ctx)
        return 0;
    return shmemi_cu.cuCtxPushCurrent(shmemi_cu_ctx) == CUDA_SUCCESS;
}

void shmemi_cuda_pop(int pushed)
{
    CUcontext c;

    if (pushed)
        shmemi_cu.cuCtxPopCurrent(&c);
}

int shmemi_cuda_copy(void *dst, const void *src, size_t n, const char *rtn)
{
    int pushed;
    CUresult r;
    const char *what = "cuMemcpyAsync";

    if (n == 0)
        return 0;
    pushed = shmemi_cuda_push();
    r = shmemi_cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, n,
                                shmemi_cu_stream);
    if (r == CUDA_SUCCESS) {
        what = "cuStreamSynchronize";
        r = shmemi_cu.cuStreamSynchronize(shmemi_cu_stream);
    }
    shmemi_cuda_pop(pushed);
    if (r != CUDA_SUCCESS) {
        char buf[160];
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: copy of %zu bytes from %p to %p: "
                                "%s failed: %s", rtn, n, src, dst, what,
                                shmemi_cu_str(r, buf, sizeof(buf)));
    }
    return 0;
}

int shmemi_cuda_copyv(void *const *dst, const void *const *src, const size_t *len, int n,
                      const char *rtn)
{
    int pushed, i;
    CUresult r = CUDA_SUCCESS;
    const char *what = "cuMemcpyAsync";

    pushed = shmemi_cuda_push();
    for (i = 0; i < n && r == CUDA_SUCCESS; i++)
        if (len[i])
            r = shmemi_cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst[i],
                                        (CUdeviceptr)(uintptr_t)src[i], len[i],
                                        shmemi_cu_stream);
    if (r == CUDA_SUCCESS) {
        what = "cuStreamSynchronize";
        r = shmemi_cu.cuStreamSynchronize(shmemi_cu_stream);
    }
    shmemi_cuda_pop(pushed);
    if (r != CUDA_SUCCESS) {
        char buf[160];
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: %d copies of GPU memory: %s "
                                "failed: %s", rtn, n, what, shmemi_cu_str(r, buf, sizeof(buf)));
    }
    return 0;
}

int shmemi_cuda_is_device(const void *p)
{
    CUmemorytype t = (CUmemorytype)0;

    if (!shmemi_cuda.on)
        return 0;
    return shmemi_cu.cuPointerGetAttribute(&t, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                           (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS &&
           t == CU_MEMORYTYPE_DEVICE;
}

int shmemi_cuda_is_own_device(const void *p)
{
    int ord = -1;

    return shmemi_cuda_is_device(p) &&
           shmemi_cu.cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                           (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS &&
           ord == shmemi_cuda.device;
}

int shmemi_cuda_pin(void *p, size_t n)
{
    int pushed;
    CUresult r;

    if (!shmemi_cuda.on)
        return -1;
    pushed = shmemi_cuda_push();
    r = shmemi_cu.cuMemHostRegister(p, n, CU_MEMHOSTREGISTER_PORTABLE);
    shmemi_cuda_pop(pushed);
    return r == CUDA_SUCCESS ? 0 : -1;
}

void shmemi_cuda_unpin(void *p)
{
    int pushed;

    if (!shmemi_cuda.on)
        return;
    pushed = shmemi_cuda_push();
    shmemi_cu.cuMemHostUnregister(p);
    shmemi_cuda_pop(pushed);
}

void shmemi_cuda_describe(FILE *fp)
{
    char name[96], pci[32];
    CUdevice dev;
    int i;

    fprintf(fp, "CUDA:           built with the toolkit in %s; ", FABSHMEM_CUDA_DIR);
    if (cuda_load(0) || cuda_init_driver()) {
        fprintf(fp, "%s: no device heap\n", shmemi_cuda.why);
        return;
    }
    fprintf(fp, "driver %d.%d, %d GPU%s:\n", shmemi_cuda.driver_version / 1000,
            shmemi_cuda.driver_version % 1000 / 10, shmemi_cuda.n_devices,
            shmemi_cuda.n_devices == 1 ? "" : "s");
    for (i = 0; i < shmemi_cuda.n_devices; i++) {
        if (shmemi_cu.cuDeviceGet(&dev, i) != CUDA_SUCCESS)
            continue;
        name[0] = pci[0] = '\0';
        shmemi_cu.cuDeviceGetName(name, sizeof(name), dev);
        shmemi_cu.cuDeviceGetPCIBusId(pci, sizeof(pci), dev);
        fprintf(fp, "                %d: %s (%s)\n", i, name, pci);
    }
}

#else /* !HAVE_CUDA */

int shmemi_cuda_open(int want, int local_rank, const char *rtn)
{
    memset(&shmemi_cuda, 0, sizeof(shmemi_cuda));
    shmemi_cuda.device = -1;
    snprintf(shmemi_cuda.why, sizeof(shmemi_cuda.why), "this build of fabshmem has no CUDA "
             "(configure found no CUDA toolkit: --with-cuda)");
    if (want > 0)
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, "FABSHMEM_CUDA", "1 requires a GPU: %s",
                          shmemi_cuda.why);
    return 0;
}

void shmemi_cuda_close(void)
{
}

int shmemi_cuda_copy(void *dst, const void *src, size_t n, const char *rtn)
{
    return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "GPU memory: %s", shmemi_cuda.why);
}

int shmemi_cuda_copyv(void *const *dst, const void *const *src, const size_t *len, int n,
                      const char *rtn)
{
    return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "GPU memory: %s", shmemi_cuda.why);
}

int shmemi_cuda_is_device(const void *p)
{
    return 0;
}

int shmemi_cuda_is_own_device(const void *p)
{
    return 0;
}

int shmemi_cuda_push(void)
{
    return 0;
}

void shmemi_cuda_pop(int pushed)
{
}

int shmemi_cuda_pin(void *p, size_t n)
{
    return -1;
}

void shmemi_cuda_unpin(void *p)
{
}

void shmemi_cuda_describe(FILE *fp)
{
    fprintf(fp, "CUDA:           not built (configure found no CUDA toolkit; --with-cuda=DIR): "
            "no device heap\n");
}

#endif
