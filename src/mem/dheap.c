/*
 * The device heap: symmetric memory in the GPU of each PE (docs/gpu.md).
 *
 * Each PE makes one allocation of physical GPU memory with the CUDA
 * virtual memory management API (cuMemCreate, exportable as a POSIX file
 * descriptor), reserves a range of virtual addresses for it
 * (cuMemAddressReserve), maps it there (cuMemMap) and gives its device
 * access (cuMemSetAccess).  The allocator of the host heap (alloc.c)
 * hands out offsets of it, the same on every PE.  The PEs of a node pass
 * their descriptors to each other (fdpass.c), and each imports the others'
 * allocations (cuMemImportFromShareableHandle) and maps them into ranges
 * of its own with access for its device: shmem_ptr of a device object then
 * gives an address that the caller's kernels load from and store to, and
 * a copy engine reaches it over NVLink.  A node maps all or nothing: when
 * some PE of it cannot map a peer's heap (GPUs without peer access,
 * another network namespace), none of its PEs maps any, so that the
 * decision and TEAM_SHARED are the same for all of them.
 */
#include "mem/mem.h"
#include "mem/dheap_int.h"
#include "core/dev.h"
#include <stdlib.h>
#include <unistd.h>

static shmemi_alloc_t *dheap_alloc;
/* Why this PE has no device heap (shmemi_dheap_why). */
static char dheap_why[320];

void shmemi_dheap_none(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(dheap_why, sizeof(dheap_why), fmt, ap);
    va_end(ap);
}

const char *shmemi_dheap_why(void)
{
    return dheap_why[0] ? dheap_why : "the device heap was not set up";
}

#ifdef HAVE_CUDA

static struct {
    CUmemGenericAllocationHandle handle;
    int have_handle;
    int fd;                         /* the exported handle, until the peers have it */
    CUdeviceptr va;                 /* the reserved range (dheap_base) */
    size_t size;                    /* the heap */
    size_t span;                    /* the range: the heap, then the window of registered
                                     * GPU memory (dheap_ext.c) */
    int mapped;
    struct dheap_peer {             /* [n_pes]: the peers' heaps mapped here */
        CUmemGenericAllocationHandle handle;
        CUdeviceptr va;
    } *peer;
    int *pids;                      /* [n_pes]: each PE's process id */
} dh = { .fd = -1 };

/* The properties of an allocation on this PE's device, exportable as a
 * file descriptor (and usable by a NIC where the device allows it). */
static CUmemAllocationProp dheap_prop(void)
{
    CUmemAllocationProp prop;
    int rdma = 0;

    memset(&prop, 0, sizeof(prop));
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = shmemi_cuda.device;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    if (shmemi_cu.cuDeviceGetAttribute(&rdma,
                                       CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED,
                                       (CUdevice)shmemi_cuda.device) == CUDA_SUCCESS && rdma)
        prop.allocFlags.gpuDirectRDMACapable = 1;
    return prop;
}

CUresult shmemi_dheap_map_at(CUdeviceptr va, size_t size, size_t offset,
                             CUmemGenericAllocationHandle h, const char **what_p)
{
    CUmemAccessDesc acc;
    CUresult r;

    *what_p = "cuMemMap";
    if ((r = shmemi_cu.cuMemMap(va, size, offset, h, 0)))
        return r;
    memset(&acc, 0, sizeof(acc));
    acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc.location.id = shmemi_cuda.device;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    *what_p = "cuMemSetAccess";
    if ((r = shmemi_cu.cuMemSetAccess(va, size, &acc, 1)))
        shmemi_cu.cuMemUnmap(va, size);
    return r;
}

/* Maps allocation h of size bytes at the start of a new range of dh.span
 * bytes of this process (the rest is the window of registered GPU memory)
 * with read and write access for this PE's device: *va_p.  0, or the
 * failing call's result with its name in *what_p. */
static CUresult dheap_map(CUmemGenericAllocationHandle h, size_t size, size_t align,
                          CUdeviceptr *va_p, const char **what_p)
{
    CUdeviceptr va = 0;
    CUresult r;

    *what_p = "cuMemAddressReserve";
    if ((r = shmemi_cu.cuMemAddressReserve(&va, dh.span, align, 0, 0)))
        return r;
    if ((r = shmemi_dheap_map_at(va, size, 0, h, what_p))) {
        shmemi_cu.cuMemAddressFree(va, dh.span);
        return r;
    }
    *va_p = va;
    return CUDA_SUCCESS;
}

static void dheap_unmap(CUdeviceptr va)
{
    shmemi_cu.cuMemUnmap(va, dh.size);
    shmemi_cu.cuMemAddressFree(va, dh.span);
}

const int *shmemi_dheap_pids(void)
{
    return dh.pids;
}

/* dh.span: the heap of size bytes and the window for registered GPU
 * memory after it (FABSHMEM_DEVICE_REGISTER_SPACE), both multiples of
 * gran.  0 or the class, recorded. */
static int dheap_span(size_t size, size_t gran)
{
    size_t win = shmemi_g.env.device_register_space;

    win = win > SIZE_MAX - gran ? SIZE_MAX : (win + gran - 1) / gran * gran;
    if (win > SIZE_MAX / 2 - size)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, "FABSHMEM_DEVICE_REGISTER_SPACE",
                          "%zu bytes is too large", shmemi_g.env.device_register_space);
    dh.span = size + win;
    return 0;
}

/* Creates the allocation, maps it and exports it: 0 or the class,
 * recorded. */
int shmemi_dheap_create(size_t size, const char *rtn)
{
    CUmemAllocationProp prop = dheap_prop();
    size_t gran = 0;
    const char *what = "cuMemGetAllocationGranularity";
    int pushed = shmemi_cuda_push(), rc;
    CUresult r;

    r = shmemi_cu.cuMemGetAllocationGranularity(&gran, &prop,
                                                CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
    if (r)
        goto err;
    if (gran == 0 || size > SIZE_MAX - gran) {
        shmemi_cuda_pop(pushed);
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, "FABSHMEM_DEVICE_HEAP_SIZE", "%zu bytes is "
                          "too large", size);
    }
    size = (size + gran - 1) / gran * gran;
    if ((rc = dheap_span(size, gran))) {
        shmemi_cuda_pop(pushed);
        return rc;
    }
    what = "cuMemCreate";
    r = shmemi_cu.cuMemCreate(&dh.handle, size, &prop, 0);
    if (r && prop.allocFlags.gpuDirectRDMACapable) {
        /* Memory that a NIC may reach where the device allows it, else
         * plain device memory (a provider with FI_HMEM then refuses it). */
        prop.allocFlags.gpuDirectRDMACapable = 0;
        r = shmemi_cu.cuMemCreate(&dh.handle, size, &prop, 0);
    }
    if (r)
        goto err;
    dh.have_handle = 1;
    if ((r = dheap_map(dh.handle, size, gran, &dh.va, &what)))
        goto err_release;
    dh.size = size;
    dh.mapped = 1;
    what = "cuMemExportToShareableHandle";
    r = shmemi_cu.cuMemExportToShareableHandle(&dh.fd, dh.handle,
                                                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    if (r) {
        dh.fd = -1;
        goto err_unmap;
    }
    shmemi_cuda_pop(pushed);
    if (shmemi_alloc_create(0, size, &dheap_alloc)) {
        shmemi_dheap_destroy();
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    }
    shmemi_g.dheap_base = (char *)(uintptr_t)dh.va;
    shmemi_g.dheap_size = size;
    shmemi_g.dheap_span = dh.span;
    shmemi_g.dheap_any = 1;
    shmemi_debug("device heap: %zu bytes at %p on GPU %d (granularity %zu%s)", size,
                 (void *)shmemi_g.dheap_base, shmemi_cuda.device, gran,
                 prop.allocFlags.gpuDirectRDMACapable ? ", GPUDirect RDMA capable" : "");
    return 0;

err_unmap:
    dh.size = size;
    dheap_unmap(dh.va);
    dh.mapped = 0;
err_release:
    shmemi_cu.cuMemRelease(dh.handle);
    dh.have_handle = 0;
err:
    shmemi_cuda_pop(pushed);
    {
        char buf[160];
        rc = shmemi_err_fatal(r == CUDA_ERROR_OUT_OF_MEMORY ? SHMEMX_ERROR_OUT_OF_MEMORY
                                                            : SHMEMX_ERROR_INTERNAL,
                              "%s: cannot create a device heap of %zu bytes "
                              "(FABSHMEM_DEVICE_HEAP_SIZE) on GPU %d (%s): %s failed: %s", rtn,
                              size, shmemi_cuda.device, shmemi_cuda.name, what,
                              shmemi_cu_str(r, buf, sizeof(buf)));
    }
    return rc;
}

/* Imports the allocation behind descriptor fd (PE pe's heap of size
 * bytes) and maps it; closes fd.  0, or -1 with the reason in why. */
static int dheap_import(int pe, int fd, size_t size, char *why, size_t whylen)
{
    CUmemGenericAllocationHandle h;
    const char *what = "cuMemImportFromShareableHandle";
    char buf[160];
    CUdeviceptr va;
    CUresult r;

    r = shmemi_cu.cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd,
                                                 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    close(fd);
    if (r == CUDA_SUCCESS) {
        r = dheap_map(h, size, 0, &va, &what);
        if (r)
            shmemi_cu.cuMemRelease(h);
    }
    if (r) {
        snprintf(why, whylen, "PE %d cannot map PE %d's device heap: %s failed: %s",
                 shmemi_g.my_pe, pe, what, shmemi_cu_str(r, buf, sizeof(buf)));
        return -1;
    }
    dh.peer[pe] = (struct dheap_peer){ h, va };
    shmemi_g.peer_dheap[pe] = (char *)(uintptr_t)va;
    shmemi_debug("device heap of PE %d mapped at %p", pe, (void *)(uintptr_t)va);
    return 0;
}

/* Unmaps the peers' heaps (this PE's own stays). */
static void dheap_unmap_peers(void)
{
    int pe;

    for (pe = 0; dh.peer && pe < shmemi_g.n_pes; pe++) {
        if (dh.peer[pe].va) {
            dheap_unmap(dh.peer[pe].va);
            shmemi_cu.cuMemRelease(dh.peer[pe].handle);
        }
        dh.peer[pe].va = 0;
        if (shmemi_g.peer_dheap && pe != shmemi_g.my_pe)
            shmemi_g.peer_dheap[pe] = NULL;
    }
}

/* What each PE reports after trying to map its node peers' heaps. */
typedef struct dheap_outcome {
    int ok;
    char why[200];
} dheap_outcome_t;

/* Imports the heaps whose descriptors came; *out: how it went. */
static void dheap_import_all(const int *pes, const int *fds, int n, dheap_outcome_t *out)
{
    char why[200];
    int i;

    for (i = 0; i < n; i++) {
        if (pes[i] == shmemi_g.my_pe || fds[i] < 0)
            continue;
        if (out->ok && dheap_import(pes[i], fds[i], dh.size, why, sizeof(why))) {
            out->ok = 0;
            snprintf(out->why, sizeof(out->why), "%s", why);
        } else if (!out->ok) {
            close(fds[i]);
        }
    }
}

/* Keeps the mappings only if every PE of this node mapped every other's:
 * the outcomes of all PEs, *all_mapped_p as shmemi_dheap_map_peers says. */
static void dheap_decide(const dheap_outcome_t *all, int direct, int *all_mapped_p)
{
    int pe, mine = shmemi_g.node_of[shmemi_g.my_pe], ok = 1, bad = -1;

    *all_mapped_p = shmemi_g.n_pes == 1 || (direct && shmemi_g.n_nodes == 1);
    for (pe = 0; pe < shmemi_g.n_pes; pe++) {
        if (!all[pe].ok)
            *all_mapped_p = 0;
        if (shmemi_g.node_of[pe] == mine && !all[pe].ok && ok) {
            ok = 0;
            bad = pe;
        }
    }
    if (ok)
        return;
    dheap_unmap_peers();
    if (shmemi_g.my_pe == bad)
        shmemi_warn("the PEs of this node do not map each other's device heaps (%s): GPU memory "
                    "between them goes through the provider", all[bad].why);
}

int shmemi_dheap_map_peers(int direct, const int *pids, int *all_mapped_p, const char *rtn)
{
    int n = 0, pe, ret, pushed, *pes = malloc(sizeof(int) * (size_t)shmemi_g.n_pes);
    int *fds = malloc(sizeof(int) * (size_t)shmemi_g.n_pes);
    dheap_outcome_t mine = { .ok = 1 }, *all = calloc((size_t)shmemi_g.n_pes, sizeof(*all));

    dh.peer = calloc((size_t)shmemi_g.n_pes, sizeof(*dh.peer));
    dh.pids = malloc(sizeof(int) * (size_t)shmemi_g.n_pes);
    if (!pes || !fds || !all || !dh.peer || !dh.pids) {
        free(pes);
        free(fds);
        free(all);
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    }
    memcpy(dh.pids, pids, sizeof(int) * (size_t)shmemi_g.n_pes);
    shmemi_g.peer_dheap[shmemi_g.my_pe] = shmemi_g.dheap_base;
    for (pe = 0; direct && pe < shmemi_g.n_pes; pe++)
        if (shmemi_g.node_of[pe] == shmemi_g.node_of[shmemi_g.my_pe])
            pes[n++] = pe;
    if (shmemi_fd_exchange(dh.fd, pes, n, pids, fds, mine.why, sizeof(mine.why)))
        mine.ok = 0;
    pushed = shmemi_cuda_push();
    dheap_import_all(pes, fds, n, &mine);
    shmemi_cuda_pop(pushed);
    ret = shmemi_g.boot->allgather(shmemi_g.boot, &mine, all, sizeof(mine));
    if (!ret) {
        pushed = shmemi_cuda_push();
        dheap_decide(all, direct, all_mapped_p);
        shmemi_cuda_pop(pushed);
    }
    free(pes);
    free(fds);
    free(all);
    /* Every peer holds the allocation now (or never will): our descriptor
     * has done its job. */
    close(dh.fd);
    dh.fd = -1;
    if (ret)
        return shmemi_err_fatal(SHMEMX_ERROR_BOOTSTRAP, "%s: the exchange of the device heaps' "
                                "mappings failed", rtn);
    return 0;
}

void shmemi_dheap_destroy(void)
{
    int pushed;

    if (!shmemi_cuda.loaded)
        return;
    /* The registered GPU memory's mappings first: they lie in the ranges
     * released here. */
    shmemi_dheap_ext_fini();
    pushed = shmemi_cuda_push();
    dheap_unmap_peers();
    free(dh.peer);
    dh.peer = NULL;
    free(dh.pids);
    dh.pids = NULL;
    if (dh.fd >= 0)
        close(dh.fd);
    dh.fd = -1;
    if (dh.mapped)
        dheap_unmap(dh.va);
    dh.mapped = 0;
    if (dh.have_handle)
        shmemi_cu.cuMemRelease(dh.handle);
    dh.have_handle = 0;
    shmemi_cuda_pop(pushed);
    shmemi_alloc_destroy(dheap_alloc);
    dheap_alloc = NULL;
    shmemi_g.dheap_base = NULL;
    shmemi_g.dheap_size = 0;
    shmemi_g.dheap_span = 0;
    shmemi_g.dheap_any = 0;
}

#else /* !HAVE_CUDA: no device heap is ever made. */

const int *shmemi_dheap_pids(void)
{
    return NULL;
}

int shmemi_dheap_create(size_t size, const char *rtn)
{
    return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "no device heap: %s", shmemi_cuda.why);
}

int shmemi_dheap_map_peers(int direct, const int *pids, int *all_mapped_p, const char *rtn)
{
    *all_mapped_p = 0;
    return 0;
}

void shmemi_dheap_destroy(void)
{
}

#endif

int shmemi_dheap_get(size_t size, size_t align, void **p_p, const char *rtn)
{
    size_t off;
    int ret = shmemi_alloc_get(dheap_alloc, size, align, &off);

    if (ret == -ENOMEM)
        return shmemi_err_warn(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "cannot allocate %zu bytes of "
                               "GPU memory: the device heap has %zu bytes (largest free block "
                               "%zu bytes); raise FABSHMEM_DEVICE_HEAP_SIZE", size,
                               shmemi_g.dheap_size, shmemi_alloc_largest(dheap_alloc));
    if (ret)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "cannot allocate %zu bytes of GPU "
                          "memory aligned to %zu: %s", size, align, strerror(-ret));
    *p_p = shmemi_g.dheap_base + off;
    return 0;
}

size_t shmemi_dheap_block(const void *ptr)
{
    uint64_t off;

    if (!dheap_alloc || !shmemi_dev_range(ptr, 1, &off))
        return 0;
    return shmemi_alloc_size(dheap_alloc, off);
}

void shmemi_dheap_put(void *ptr)
{
    shmemi_alloc_put(dheap_alloc, (size_t)((char *)ptr - shmemi_g.dheap_base));
}
