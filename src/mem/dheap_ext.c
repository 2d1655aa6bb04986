/*
 * GPU memory the program registers as symmetric (docs/gpu.md, "Registered
 * GPU memory"): a buffer of the CUDA virtual memory management API
 * (cuMemCreate and cuMemMap, such as cuda.core's VirtualMemoryResource)
 * passed to shmemx_buffer_register_symmetric, nvshmem4py's
 * register_external_buffer and register_external_array.
 *
 * Every path on GPU memory works from device-heap offsets: PE pe's copy is
 * peer_dheap[pe] + off where pe is mapped, staging names the offset to
 * the target, the kernels take those pointers.  So a registered buffer is
 * given offsets of its own: each PE maps its buffer's allocation a second
 * time into the window reserved right after its device heap
 * (FABSHMEM_DEVICE_REGISTER_SPACE bytes), at the same offset on every PE,
 * and the node peers that map each other's heaps import it (its POSIX
 * file descriptor, passed as the heap's is) and map it at that offset of
 * their range of its heap.  shmemi_dev_range then finds the program's
 * address in shmemi_g.dext and answers with the offset, and nothing else
 * changes.  The buffer must be one whole allocation's mapping as
 * cuMemGetAddressRange reports it (NCCL's buffer registration takes the
 * same), and the node peers can map it only if it was made exportable as
 * a POSIX file descriptor (cuda.core's handle_type "posix_fd").  A
 * registration is all or nothing on every PE, like the heap's mapping.
 */
#include "mem/mem.h"
#include "mem/dheap_int.h"
#include "core/dev.h"
#include <stdlib.h>
#include <unistd.h>

int shmemi_dheap_ext_overlaps(uintptr_t a, size_t len)
{
    int i;

    if (a < (uintptr_t)shmemi_g.dheap_base + shmemi_g.dheap_span &&
        (uintptr_t)shmemi_g.dheap_base < a + len)
        return 1;
    for (i = 0; i < SHMEMI_DEXT_MAX; i++)
        if (shmemi_g.dext[i].len && a < shmemi_g.dext[i].base + shmemi_g.dext[i].len &&
            shmemi_g.dext[i].base < a + len)
            return 1;
    return 0;
}

int shmemi_dheap_ext_find(const void *addr, size_t length)
{
    int i;

    for (i = 0; i < SHMEMI_DEXT_MAX; i++)
        if (shmemi_g.dext[i].len && shmemi_g.dext[i].base == (uintptr_t)addr)
            return shmemi_g.dext[i].len == length ? i : -2;
    return -1;
}

uint32_t shmemi_dheap_ext_used(void)
{
    uint32_t used = 0;
    int i;

    for (i = 0; i < SHMEMI_DEXT_MAX; i++)
        if (shmemi_g.dext[i].len)
            used |= 1u << i;
    return used;
}

#ifdef HAVE_CUDA

/* The window's allocator (offsets from dheap_size to dheap_span), and what
 * each slot mapped: the window offset, and each PE's mapped length (0: not
 * mapped here). */
static shmemi_alloc_t *win;
static struct dext_maps {
    uint64_t woff;
    size_t *len; /* [n_pes] */
} maps[SHMEMI_DEXT_MAX];

/* What each PE found about its buffer. */
struct dext_card {
    int32_t ok;
    int32_t pad;
    uint64_t len;     /* the registered length */
    uint64_t head;    /* the buffer's offset in its allocation's mapping */
    uint64_t map_len; /* the mapping's length (the allocation's) */
    uint64_t gran;    /* its granularity */
    char why[224];
};

/* Marks c failed with the reason (the first one kept): -1. */
static int card_fail(struct dext_card *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int card_fail(struct dext_card *c, const char *fmt, ...)
{
    va_list ap;

    if (!c->ok)
        return -1;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof(c->why), fmt, ap);
    va_end(ap);
    c->ok = 0;
    return -1;
}

/* Unmaps slot's mappings here (this PE's own and its node peers'). */
static void dext_unmap(int slot)
{
    struct dext_maps *m = &maps[slot];
    int pe;

    for (pe = 0; m->len && pe < shmemi_g.n_pes; pe++)
        if (m->len[pe] && shmemi_g.peer_dheap[pe])
            shmemi_cu.cuMemUnmap((CUdeviceptr)(uintptr_t)(shmemi_g.peer_dheap[pe] + m->woff),
                                 m->len[pe]);
    if (m->len)
        shmemi_alloc_put(win, (size_t)m->woff);
    free(m->len);
    m->len = NULL;
    m->woff = 0;
}

/* This PE's own part: its buffer's allocation (*h_p, retained; exported
 * into *fd_p when node peers map this PE) and its card: 0, or -1 with the
 * reason in the card. */
static int dext_mine(void *addr, size_t length, int peers, CUmemGenericAllocationHandle *h_p,
                     int *have_h, int *fd_p, struct dext_card *me)
{
    CUmemAllocationProp prop;
    CUdeviceptr b = 0;
    size_t s = 0, g = 0;
    char buf[160];
    CUresult r;

    if (!shmemi_g.dheap_size)
        return card_fail(me, "PE %d has no device heap (%s)", shmemi_g.my_pe,
                               shmemi_dheap_why());
    if (shmemi_g.dheap_remote == SHMEMI_DEV_REMOTE_HMEM)
        return card_fail(me, "GPU memory of PEs that are not mapped goes through the "
                               "provider (FI_HMEM), which has only the device heap registered; "
                               "FABSHMEM_CUDA_REMOTE=staged takes registered GPU memory too");
    if (!shmemi_cuda_is_own_device(addr))
        return card_fail(me, "PE %d: addr %p is not memory of the PE's GPU %d",
                         shmemi_g.my_pe, addr, shmemi_cuda.device);
    if ((r = shmemi_cu.cuMemRetainAllocationHandle(h_p, addr)) != CUDA_SUCCESS)
        return card_fail(me, "PE %d: addr %p is not memory of the CUDA virtual memory "
                               "management API (cuMemCreate and cuMemMap; cuMemRetainAllocation"
                               "Handle: %s): cudaMalloc's cannot be shared this way, allocate "
                               "it with shmem_malloc_with_hints(SHMEMX_MALLOC_DEVICE)",
                               shmemi_g.my_pe, addr, shmemi_cu_str(r, buf, sizeof(buf)));
    *have_h = 1;
    if ((r = shmemi_cu.cuMemGetAllocationPropertiesFromHandle(&prop, *h_p)) ||
        (r = shmemi_cu.cuMemGetAllocationGranularity(&g, &prop,
                                                     CU_MEM_ALLOC_GRANULARITY_MINIMUM)) ||
        (r = shmemi_cu.cuMemGetAddressRange(&b, &s, (CUdeviceptr)(uintptr_t)addr)))
        return card_fail(me, "PE %d: the properties of addr %p's allocation: %s",
                               shmemi_g.my_pe, addr, shmemi_cu_str(r, buf, sizeof(buf)));
    if (!g || s % g || (uintptr_t)addr + length > b + s)
        return card_fail(me, "PE %d: addr %p, length %zu does not lie in one allocation's "
                               "mapping (%p, %zu bytes, granularity %zu)", shmemi_g.my_pe,
                               addr, length, (void *)(uintptr_t)b, s, g);
    me->head = (uintptr_t)addr - b;
    me->map_len = s;
    me->gran = g;
    if (!peers)
        return 0;
    if (!(prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ||
        (r = shmemi_cu.cuMemExportToShareableHandle(fd_p, *h_p,
                                                    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0))) {
        *fd_p = -1;
        return card_fail(me, "PE %d: its node peers map its GPU memory, and addr %p's "
                         "allocation is not exportable as a POSIX file descriptor (cuMemCreate's "
                         "requestedHandleTypes without CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR; "
                         "cuda.core: VirtualMemoryResourceOptions(handle_type=\"posix_fd\"))",
                         shmemi_g.my_pe, addr);
    }
    return 0;
}

/* Every PE's card agrees with this PE's: 0, or the class, recorded. */
static int dext_agree(const struct dext_card *all, const struct dext_card *me, const char *rtn)
{
    int pe;

    for (pe = 0; pe < shmemi_g.n_pes; pe++)
        if (!all[pe].ok)
            return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "GPU memory cannot be "
                              "registered: %s; nothing was registered", all[pe].why);
    for (pe = 0; pe < shmemi_g.n_pes; pe++) {
        if (all[pe].len != me->len)
            return shmemi_err(SHMEMX_ERROR_SYMMETRY, rtn, "PE %d passed length %llu, this PE "
                              "%llu (every PE must pass the same length)", pe,
                              (unsigned long long)all[pe].len, (unsigned long long)me->len);
        if (all[pe].head != me->head)
            return shmemi_err(SHMEMX_ERROR_SYMMETRY, rtn, "PE %d's buffer starts %llu bytes "
                              "into its allocation, this PE's %llu (each must start at the "
                              "same place in its allocation)", pe,
                              (unsigned long long)all[pe].head, (unsigned long long)me->head);
    }
    return 0;
}

/* Maps the slot's window part: this PE's allocation h, and its node
 * peers' whose descriptors came (fds[i] of pes[i]; closed here).  How it
 * went in *out. */
static void dext_map(int slot, CUmemGenericAllocationHandle h, const int *pes, const int *fds,
                     int n, const struct dext_card *all, struct dext_card *out)
{
    struct dext_maps *m = &maps[slot];
    const char *what;
    char buf[160];
    CUresult r;
    int i;

    r = shmemi_dheap_map_at((CUdeviceptr)(uintptr_t)(shmemi_g.dheap_base + m->woff),
                            all[shmemi_g.my_pe].map_len, 0, h, &what);
    if (r)
        card_fail(out, "PE %d cannot map its own buffer a second time: %s failed: %s",
                  shmemi_g.my_pe, what, shmemi_cu_str(r, buf, sizeof(buf)));
    else
        m->len[shmemi_g.my_pe] = all[shmemi_g.my_pe].map_len;
    for (i = 0; i < n; i++) {
        CUmemGenericAllocationHandle ph;
        int pe = pes[i];

        if (pe == shmemi_g.my_pe || fds[i] < 0)
            continue;
        what = "cuMemImportFromShareableHandle";
        r = out->ok ? shmemi_cu.cuMemImportFromShareableHandle(
                          &ph, (void *)(uintptr_t)fds[i], CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
                    : CUDA_ERROR_NOT_READY;
        close(fds[i]);
        if (r == CUDA_ERROR_NOT_READY)
            continue;
        if (!r) {
            r = shmemi_dheap_map_at((CUdeviceptr)(uintptr_t)(shmemi_g.peer_dheap[pe] + m->woff),
                                    all[pe].map_len, 0, ph, &what);
            /* The mapping holds the memory from now on. */
            shmemi_cu.cuMemRelease(ph);
        }
        if (r)
            card_fail(out, "PE %d cannot map PE %d's buffer: %s failed: %s", shmemi_g.my_pe,
                      pe, what, shmemi_cu_str(r, buf, sizeof(buf)));
        else
            m->len[pe] = all[pe].map_len;
    }
}

/* The node peers whose heaps this PE maps, itself included, into pes[]:
 * their count. */
static int dext_node(int *pes)
{
    int pe, n = 0;

    for (pe = 0; pe < shmemi_g.n_pes; pe++)
        if (shmemi_g.peer_dheap && shmemi_g.peer_dheap[pe])
            pes[n++] = pe;
    return n;
}

/* The slot's part of the window: as long as the longest mapping, at the
 * same offset on every PE (the same calls in the same order). */
static void dext_window(int slot, const struct dext_card *all, struct dext_card *me)
{
    size_t wlen = 0, gran = 1, woff;
    int i;

    for (i = 0; i < shmemi_g.n_pes; i++) {
        wlen = all[i].map_len > wlen ? all[i].map_len : wlen;
        gran = all[i].gran > gran ? all[i].gran : gran;
    }
    if (!win && shmemi_alloc_create(shmemi_g.dheap_size, shmemi_g.dheap_span -
                                    shmemi_g.dheap_size, &win))
        win = NULL;
    maps[slot].len = calloc((size_t)shmemi_g.n_pes, sizeof(size_t));
    if (!win || !maps[slot].len || shmemi_alloc_get(win, wlen, gran, &woff)) {
        free(maps[slot].len);
        maps[slot].len = NULL;
        card_fail(me, "PE %d: %zu bytes do not fit in the window for registered GPU memory "
                  "(FABSHMEM_DEVICE_REGISTER_SPACE, %zu bytes, largest free part %zu)",
                  shmemi_g.my_pe, wlen, shmemi_g.dheap_span - shmemi_g.dheap_size,
                  win ? shmemi_alloc_largest(win) : 0);
        return;
    }
    maps[slot].woff = woff;
}

/* The second step, once every PE's card agrees: the window's part, the
 * descriptors' passing (fd: this PE's, or -1; pes[n]: the PEs that map
 * each other here), the mappings, and the agreement on how they went.
 * 0 or the class, recorded (nothing stays mapped then). */
static int dext_setup(int slot, CUmemGenericAllocationHandle h, int fd, const int *pes, int n,
                      struct dext_card *all, struct dext_card *me, const char *rtn)
{
    int *fds = calloc((size_t)(n > 0 ? n : 1), sizeof(int)), pushed, ret, i, rc = 0;
    char why[200];

    if (!fds)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    me->ok = 1;
    me->why[0] = '\0';
    dext_window(slot, all, me);
    /* fd is open on every PE of a node with peers (the first agreement),
     * so all of them take part, even one that failed since (its peers then
     * get no descriptor rather than wait for one). */
    if (shmemi_fd_exchange(fd, pes, fd >= 0 ? n : 0, shmemi_dheap_pids(), fds, why,
                           sizeof(why)) && me->ok)
        card_fail(me, "%s", why);
    pushed = shmemi_cuda_push();
    if (me->ok)
        dext_map(slot, h, pes, fds, fd >= 0 ? n : 0, all, me);
    else
        for (i = 0; fd >= 0 && i < n; i++)
            if (fds[i] >= 0)
                close(fds[i]);
    shmemi_cuda_pop(pushed);
    free(fds);
    if ((ret = shmemi_g.boot->allgather(shmemi_g.boot, me, all, sizeof(*me))))
        rc = shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_BOOTSTRAP), "%s: "
                              "exchanging the mappings failed: %s", rtn, strerror(-ret));
    for (i = 0; i < shmemi_g.n_pes && !rc; i++)
        if (!all[i].ok)
            rc = shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "GPU memory cannot be "
                            "registered: %s; nothing was registered", all[i].why);
    if (rc && maps[slot].len) {
        pushed = shmemi_cuda_push();
        dext_unmap(slot);
        shmemi_cuda_pop(pushed);
    }
    return rc;
}

int shmemi_dheap_register(void *addr, size_t length, const char *rtn)
{
    struct dext_card me, *all = calloc((size_t)shmemi_g.n_pes, sizeof(*all));
    int *pes = calloc((size_t)shmemi_g.n_pes, sizeof(int));
    CUmemGenericAllocationHandle h = 0;
    int have_h = 0, fd = -1, n, slot = -1, i, pushed, ret, rc;

    if (!all || !pes) {
        free(all);
        free(pes);
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    }
    memset(&me, 0, sizeof(me));
    me.ok = 1;
    me.len = length;
    n = dext_node(pes);
    for (i = 0; i < SHMEMI_DEXT_MAX && slot < 0; i++)
        if (!shmemi_g.dext[i].len && !maps[i].len)
            slot = i;
    pushed = shmemi_cuda_push();
    if (slot < 0)
        card_fail(&me, "PE %d has %d GPU buffers registered already (the most there can be)",
                  shmemi_g.my_pe, SHMEMI_DEXT_MAX);
    else if (shmemi_dheap_ext_overlaps((uintptr_t)addr, length))
        card_fail(&me, "PE %d: addr %p, length %zu overlaps the device heap or a registered GPU "
                  "buffer", shmemi_g.my_pe, addr, length);
    else
        (void)dext_mine(addr, length, n > 1, &h, &have_h, &fd, &me); /* the card says */
    shmemi_cuda_pop(pushed);
    if ((ret = shmemi_g.boot->allgather(shmemi_g.boot, &me, all, sizeof(me))))
        rc = shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_BOOTSTRAP), "%s: "
                              "exchanging the registrations failed: %s", rtn, strerror(-ret));
    else if (!(rc = dext_agree(all, &me, rtn)) &&
             !(rc = dext_setup(slot, h, fd, pes, n, all, &me, rtn))) {
        shmemi_g.dext[slot].base = (uintptr_t)addr;
        shmemi_g.dext[slot].off = maps[slot].woff + me.head;
        __atomic_store_n(&shmemi_g.dext[slot].len, length, __ATOMIC_RELEASE);
        __atomic_fetch_add(&shmemi_g.n_dext, 1, __ATOMIC_RELEASE);
        shmemi_debug("%s: GPU memory %p, %zu bytes: device-heap offset %llu (%d PEs map each "
                     "other here)", rtn, addr, length,
                     (unsigned long long)shmemi_g.dext[slot].off, n);
    }
    if (fd >= 0)
        close(fd);
    if (have_h) {
        pushed = shmemi_cuda_push();
        shmemi_cu.cuMemRelease(h);
        shmemi_cuda_pop(pushed);
    }
    free(all);
    free(pes);
    return rc;
}

void shmemi_dheap_ext_release(int slot)
{
    int pushed;

    if (slot < 0 || slot >= SHMEMI_DEXT_MAX || !shmemi_g.dext[slot].len)
        return;
    __atomic_fetch_sub(&shmemi_g.n_dext, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&shmemi_g.dext[slot].len, 0, __ATOMIC_RELEASE);
    shmemi_g.dext[slot].base = 0;
    shmemi_g.dext[slot].off = 0;
    pushed = shmemi_cuda_push();
    /* The library's own copies on it are complete. */
    shmemi_cu.cuStreamSynchronize(shmemi_cu_stream);
    dext_unmap(slot);
    shmemi_cuda_pop(pushed);
}

void shmemi_dheap_ext_fini(void)
{
    int i;

    for (i = 0; i < SHMEMI_DEXT_MAX; i++)
        shmemi_dheap_ext_release(i);
    shmemi_g.n_dext = 0;
    shmemi_alloc_destroy(win);
    win = NULL;
}

#else /* !HAVE_CUDA */

int shmemi_dheap_register(void *addr, size_t length, const char *rtn)
{
    /* Every PE gets here together (mem_reg.c agreed on GPU memory first),
     * so they fail together without an exchange. */
    return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "addr %p, length %zu: GPU memory: %s",
                      addr, length, shmemi_cuda.why);
}

void shmemi_dheap_ext_release(int slot)
{
    (void)slot;
}

void shmemi_dheap_ext_fini(void)
{
}

#endif
