/*
 * Symmetric memory management: collective allocation over TEAM_WORLD.
 * Every PE makes the same sequence of calls, so the deterministic allocator
 * hands out the same offsets everywhere and an address is symmetric by
 * construction.
 *
 * Each routine returns 0 or the class of its failure, recorded
 * (base/error.h); the public routines are in src/api/shmem_mem.c.  A bad
 * argument (an alignment that is not a power of two, a pointer that is not
 * a block of the heap, a calloc whose size overflows) fails at once, before
 * any communication.  A heap that cannot hold the block is not an error of
 * the program but the NULL the standard gives: it is recorded as a warning
 * (SHMEMX_ERROR_OUT_OF_MEMORY), and every PE still takes part in the
 * routine's barriers, so that no PE waits for another even if their heaps
 * disagreed (they cannot, unless the program broke the collective rules).
 */
#include "mem/mem.h"
#include "team/team.h"
#include "core/dev.h"
#include <stdlib.h>

static shmemi_alloc_t *heap_alloc;

/* The library's part of the heap (the team area) comes first; the rest is
 * the user's. */
int shmemi_mem_init(void)
{
    int ret = shmemi_alloc_create(shmemi_g.reserved_size,
                                  shmemi_g.heap_size - shmemi_g.reserved_size, &heap_alloc);

    if (ret)
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_INTERNAL),
                                "cannot set up the allocator of the symmetric heap (%zu bytes): "
                                "%s", shmemi_g.heap_size - shmemi_g.reserved_size,
                                strerror(-ret));
    return 0;
}

void shmemi_mem_fini(void)
{
    if (heap_alloc)
        shmemi_alloc_destroy(heap_alloc);
    heap_alloc = NULL;
}

/* The barrier that ends every collective allocation: nobody uses a block
 * before every PE has it, and nobody still writes into a block that is
 * freed.  The team layer's world barrier (a status, recorded). */
static int mem_barrier(void)
{
    return shmemi_team_barrier_world();
}

/* With FABSHMEM_CHECKS=1, checks that every PE passed the same arguments:
 * SHMEMX_ERROR_SYMMETRY on every PE when they differ. */
static int check_agree(const char *rtn, const char *what, uint64_t v1, uint64_t v2)
{
    uint64_t mine[2] = { v1, v2 }, *all;
    int pe, ret, rc = 0;

    if (!shmemi_g.env.checks || shmemi_g.n_pes == 1)
        return 0;
    all = malloc(sizeof(mine) * shmemi_g.n_pes);
    if (!all)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    ret = shmemi_g.boot->allgather(shmemi_g.boot, mine, all, sizeof(mine));
    if (ret) {
        free(all);
        return shmemi_err_fatal(SHMEMX_ERROR_BOOTSTRAP, "%s: allgather failed", rtn);
    }
    for (pe = 0; pe < shmemi_g.n_pes && !rc; pe++)
        if (all[2 * pe] != v1 || all[2 * pe + 1] != v2)
            rc = shmemi_err(SHMEMX_ERROR_SYMMETRY, rtn, "%s differs between PEs: PE %d passed "
                            "%llu/%llu, PE %d passed %llu/%llu (collective arguments must agree)",
                            what, shmemi_g.my_pe, (unsigned long long)v1, (unsigned long long)v2,
                            pe, (unsigned long long)all[2 * pe],
                            (unsigned long long)all[2 * pe + 1]);
    free(all);
    return rc;
}

/* A block of size bytes aligned to align, without the closing barrier. */
static int heap_get(size_t size, size_t align, void **p_p, const char *rtn)
{
    size_t off;
    int ret = shmemi_alloc_get(heap_alloc, size, align, &off);

    if (ret == -ENOMEM)
        return shmemi_err_warn(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "cannot allocate %zu bytes: the "
                               "symmetric heap has %zu bytes (largest free block %zu bytes); "
                               "raise SHMEM_SYMMETRIC_SIZE", size,
                               shmemi_g.heap_size - shmemi_g.reserved_size,
                               shmemi_alloc_largest(heap_alloc));
    if (ret)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "cannot allocate %zu bytes aligned "
                          "to %zu: %s", size, align, strerror(-ret));
    *p_p = shmemi_g.heap_base + off;
    return 0;
}

/* The collective allocation of every routine: the agreement check (what,
 * v1, v2), the block (zeroed with zero), the barrier, which every PE takes
 * whether its heap could hold the block or not.  size 0: NULL, at once. */
static int mem_alloc(size_t size, size_t align, int zero, const char *what, uint64_t v1,
                     uint64_t v2, void **p_p, const char *rtn)
{
    void *p = NULL;
    int rc, brc;

    if ((rc = check_agree(rtn, what, v1, v2)))
        return rc;
    if (size == 0) {
        *p_p = NULL;
        return 0;
    }
    rc = heap_get(size, align, &p, rtn);
    if (!rc && zero)
        memset(p, 0, size);
    brc = mem_barrier();
    if (rc)
        return rc;
    if (brc)
        return brc;
    *p_p = p;
    return 0;
}

int shmemi_mem_malloc(size_t size, void **p_p, const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (rc)
        return rc;
    return mem_alloc(size, 64, 0, "size", size, 0, p_p, rtn);
}

/* GPU memory: a block of the device heap (the same collective rules as
 * the heap's), refused on every PE alike when the PEs have no device heap
 * (init agrees on it; shmemi_mem_malloc_hints calls it then only in a job
 * that asked for GPUs with FABSHMEM_CUDA=1). */
static int dev_alloc(size_t size, long hints, void **p_p, const char *rtn)
{
    void *p = NULL;
    int rc, brc;

    if (!shmemi_g.dheap_size)
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "hints has SHMEMX_MALLOC_DEVICE, but "
                          "the PEs have no device heap (and FABSHMEM_CUDA=1 asks for GPU "
                          "memory): %s", shmemi_dheap_why());
    if ((rc = check_agree(rtn, "size and hints", size, (uint64_t)hints)))
        return rc;
    if (size == 0) {
        *p_p = NULL;
        return 0;
    }
    rc = shmemi_dheap_get(size, SHMEMI_DEV_ALIGN, &p, rtn);
    brc = mem_barrier();
    if (rc)
        return rc;
    if (brc)
        return brc;
    *p_p = p;
    return 0;
}

int shmemi_mem_malloc_hints(size_t size, long hints, void **p_p, const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (rc)
        return rc;
    if (hints & SHMEMX_MALLOC_DEVICE) {
        static int noted;

        if (shmemi_g.dheap_size || shmemi_g.env.cuda == SHMEMI_ENV_CUDA_ON)
            return dev_alloc(size, hints, p_p, rtn);
        /* Hints are advice (OpenSHMEM 1.6: a hint the implementation cannot
         * use behaves as shmem_malloc), and a word of unknown bits, such as
         * ~SHMEM_MALLOC_ATOMICS_REMOTE, has this one too: without a device
         * heap the block is host memory.  A job that must have GPU memory
         * says so with FABSHMEM_CUDA=1 (or asks shmemx_cuda_device). */
        if (!__atomic_exchange_n(&noted, 1, __ATOMIC_RELAXED))
            shmemi_debug("%s: hints 0x%lx has SHMEMX_MALLOC_DEVICE, but the PEs have no device "
                         "heap (%s): the block is host memory, as shmem_malloc's (said once)",
                         rtn, (unsigned long)hints, shmemi_dheap_why());
    }
    /* The other hints, known or not, are performance advice; every block
     * supports every use. */
    return mem_alloc(size, 64, 0, "size and hints", size, (uint64_t)hints, p_p, rtn);
}

int shmemi_mem_calloc(size_t count, size_t size, void **p_p, const char *rtn)
{
    int rc = shmemi_check_init(rtn);
    size_t n;

    if (rc)
        return rc;
    if (__builtin_mul_overflow(count, size, &n))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "count %zu times size %zu overflows "
                          "size_t", count, size);
    return mem_alloc(n, 64, 1, "count and size", count, size, p_p, rtn);
}

int shmemi_mem_align(size_t alignment, size_t size, void **p_p, const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (rc)
        return rc;
    if (alignment == 0 || (alignment & (alignment - 1)))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "alignment %zu is not a power of two",
                          alignment);
    if (alignment > SHMEMI_HEAP_ALIGN)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "alignment %zu is larger than the "
                          "largest supported (%zu)", alignment, SHMEMI_HEAP_ALIGN);
    return mem_alloc(size, alignment < 16 ? 16 : alignment, 0, "alignment and size", alignment,
                     size, p_p, rtn);
}

/* The heap offset of the block at ptr. */
static int block_off(void *ptr, size_t *off_p, const char *rtn)
{
    uintptr_t off = (uintptr_t)ptr - (uintptr_t)shmemi_g.heap_base;

    if (off >= shmemi_g.heap_size || shmemi_alloc_size(heap_alloc, off) == 0)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "ptr %p is not a block of the "
                          "symmetric heap (already freed, or not returned by shmem_malloc)", ptr);
    *off_p = off;
    return 0;
}

int shmemi_mem_free(void *ptr, const char *rtn)
{
    size_t off = 0;
    int rc = shmemi_check_init(rtn);

    if (rc || ptr == NULL)
        return rc;
    if (shmemi_dheap_block(ptr)) {
        /* GPU memory: the same, in the device heap. */
        if ((rc = mem_barrier()))
            return rc;
        shmemi_dheap_put(ptr);
        return 0;
    }
    if ((rc = block_off(ptr, &off, rtn)))
        return rc;
    /* Nobody may still write into the block: quiet and barrier first. */
    if ((rc = mem_barrier()))
        return rc;
    shmemi_alloc_put(heap_alloc, off);
    return 0;
}

/* shmem_realloc of a block of the device heap: a new block, the GPU's
 * copy of the contents, the old block freed (kept when the new one cannot
 * be had). */
static int dev_realloc(void *ptr, size_t size, void **p_p, const char *rtn)
{
    size_t old = shmemi_dheap_block(ptr);
    void *p = NULL;
    int rc, brc;

    if ((rc = check_agree(rtn, "size", size, 0)))
        return rc;
    if ((rc = mem_barrier()))
        return rc;
    rc = shmemi_dheap_get(size, SHMEMI_DEV_ALIGN, &p, rtn);
    if (!rc && !(rc = shmemi_cuda_copy(p, ptr, old < size ? old : size, rtn)))
        shmemi_dheap_put(ptr);
    brc = mem_barrier();
    if (rc)
        return rc;
    if (brc)
        return brc;
    *p_p = p;
    return 0;
}

int shmemi_mem_realloc(void *ptr, size_t size, void **p_p, const char *rtn)
{
    size_t off = 0, old;
    void *p = NULL;
    int rc = shmemi_check_init(rtn), brc;

    if (rc)
        return rc;
    if (ptr == NULL)
        return mem_alloc(size, 64, 0, "size", size, 0, p_p, rtn);
    if (size == 0) {
        if ((rc = shmemi_mem_free(ptr, rtn)))
            return rc;
        *p_p = NULL;
        return 0;
    }
    if (shmemi_dheap_block(ptr))
        return dev_realloc(ptr, size, p_p, rtn);
    if ((rc = block_off(ptr, &off, rtn)))
        return rc;
    old = shmemi_alloc_size(heap_alloc, off);
    if ((rc = check_agree(rtn, "size", size, 0)))
        return rc;
    /* Earlier remote writes into the old block must have landed. */
    if ((rc = mem_barrier()))
        return rc;
    /* A heap that cannot hold the new block leaves the old one as it is. */
    rc = heap_get(size, 64, &p, rtn);
    if (!rc) {
        memcpy(p, ptr, old < size ? old : size);
        shmemi_alloc_put(heap_alloc, off);
    }
    brc = mem_barrier();
    if (rc)
        return rc;
    if (brc)
        return brc;
    *p_p = p;
    return 0;
}
