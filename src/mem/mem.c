/*
 * Symmetric memory management: collective allocation over TEAM_WORLD.
 * Every PE makes the same sequence of calls, so the deterministic allocator
 * hands out the same offsets everywhere and an address is symmetric by
 * construction.
 */
#include "mem/mem.h"
#include "team/team.h"
#include <stdlib.h>

static shmemi_alloc_t *heap_alloc;

int shmemi_mem_init(void)
{
    return shmemi_alloc_create(shmemi_g.reserved_size, shmemi_g.heap_size - shmemi_g.reserved_size,
                               &heap_alloc);
}

void shmemi_mem_fini(void)
{
    if (heap_alloc)
        shmemi_alloc_destroy(heap_alloc);
    heap_alloc = NULL;
}

/* With FABSHMEM_CHECKS=1, checks that every PE passed the same arguments. */
static void check_agree(const char *rtn, const char *what, uint64_t v1, uint64_t v2)
{
    uint64_t mine[2] = { v1, v2 }, *all;
    int pe;

    if (!shmemi_g.env.checks || shmemi_g.n_pes == 1)
        return;
    all = malloc(sizeof(mine) * shmemi_g.n_pes);
    if (!all)
        shmemi_fatal("%s: out of memory", rtn);
    if (shmemi_g.boot->allgather(shmemi_g.boot, mine, all, sizeof(mine)))
        shmemi_fatal("%s: allgather failed", rtn);
    for (pe = 0; pe < shmemi_g.n_pes; pe++)
        if (all[2 * pe] != v1 || all[2 * pe + 1] != v2)
            shmemi_user_error(rtn, "%s differs between PEs: PE %d passed %llu/%llu, PE %d passed "
                              "%llu/%llu (collective arguments must agree)", what,
                              shmemi_g.my_pe, (unsigned long long)v1, (unsigned long long)v2, pe,
                              (unsigned long long)all[2 * pe], (unsigned long long)all[2 * pe + 1]);
    free(all);
}

/* Allocates without the closing barrier; ends the job on exhaustion. */
static void *alloc_nobarrier(size_t size, size_t align, const char *rtn)
{
    size_t off;
    int ret = shmemi_alloc_get(heap_alloc, size, align, &off);

    if (ret == -ENOMEM)
        shmemi_user_error(rtn, "cannot allocate %zu bytes: the symmetric heap has %zu bytes "
                          "(largest free block %zu bytes); raise SHMEM_SYMMETRIC_SIZE", size,
                          shmemi_g.heap_size - shmemi_g.reserved_size, shmemi_alloc_largest(heap_alloc));
    if (ret)
        shmemi_user_error(rtn, "cannot allocate %zu bytes aligned to %zu: %s", size, align,
                          strerror(-ret));
    return shmemi_g.heap_base + off;
}

static size_t block_off(void *ptr, const char *rtn)
{
    uintptr_t off = (uintptr_t)ptr - (uintptr_t)shmemi_g.heap_base;

    if (off >= shmemi_g.heap_size || shmemi_alloc_size(heap_alloc, off) == 0)
        shmemi_user_error(rtn, "ptr %p is not a block of the symmetric heap (already freed, or "
                          "not returned by shmem_malloc)", ptr);
    return off;
}

SHMEM_API void *pshmem_malloc(size_t size)
{
    void *p;

    SHMEMI_CHECK_INIT("shmem_malloc");
    check_agree("shmem_malloc", "size", size, 0);
    if (size == 0)
        return NULL;
    p = alloc_nobarrier(size, 64, "shmem_malloc");
    shmemi_must(shmemi_team_barrier_world());
    return p;
}
SHMEMI_ALIAS(shmem_malloc)

SHMEM_API void *pshmem_malloc_with_hints(size_t size, long hints)
{
    void *p;

    SHMEMI_CHECK_INIT("shmem_malloc_with_hints");
    check_agree("shmem_malloc_with_hints", "size and hints", size, (uint64_t)hints);
    if (size == 0)
        return NULL;
    /* The hints are performance advice; every block supports every use. */
    p = alloc_nobarrier(size, 64, "shmem_malloc_with_hints");
    shmemi_must(shmemi_team_barrier_world());
    return p;
}
SHMEMI_ALIAS(shmem_malloc_with_hints)

SHMEM_API void *pshmem_calloc(size_t count, size_t size)
{
    size_t n;
    void *p;

    SHMEMI_CHECK_INIT("shmem_calloc");
    if (__builtin_mul_overflow(count, size, &n))
        shmemi_user_error("shmem_calloc", "count %zu times size %zu overflows size_t", count, size);
    check_agree("shmem_calloc", "count and size", count, size);
    if (n == 0)
        return NULL;
    p = alloc_nobarrier(n, 64, "shmem_calloc");
    memset(p, 0, n);
    shmemi_must(shmemi_team_barrier_world());
    return p;
}
SHMEMI_ALIAS(shmem_calloc)

SHMEM_API void *pshmem_align(size_t alignment, size_t size)
{
    void *p;

    SHMEMI_CHECK_INIT("shmem_align");
    if (alignment == 0 || (alignment & (alignment - 1)))
        shmemi_user_error("shmem_align", "alignment %zu is not a power of two", alignment);
    if (alignment > SHMEMI_HEAP_ALIGN)
        shmemi_user_error("shmem_align", "alignment %zu is larger than the largest supported "
                          "(%zu)", alignment, SHMEMI_HEAP_ALIGN);
    check_agree("shmem_align", "alignment and size", alignment, size);
    if (size == 0)
        return NULL;
    p = alloc_nobarrier(size, alignment < 16 ? 16 : alignment, "shmem_align");
    shmemi_must(shmemi_team_barrier_world());
    return p;
}
SHMEMI_ALIAS(shmem_align)

SHMEM_API void pshmem_free(void *ptr)
{
    size_t off;

    SHMEMI_CHECK_INIT("shmem_free");
    if (ptr == NULL)
        return;
    off = block_off(ptr, "shmem_free");
    /* Nobody may still write into the block: quiet and barrier first. */
    shmemi_must(shmemi_team_barrier_world());
    shmemi_alloc_put(heap_alloc, off);
}
SHMEMI_ALIAS(shmem_free)

SHMEM_API void *pshmem_realloc(void *ptr, size_t size)
{
    size_t off, old;
    void *p;

    SHMEMI_CHECK_INIT("shmem_realloc");
    if (ptr == NULL)
        return pshmem_malloc(size);
    if (size == 0) {
        pshmem_free(ptr);
        return NULL;
    }
    off = block_off(ptr, "shmem_realloc");
    old = shmemi_alloc_size(heap_alloc, off);
    check_agree("shmem_realloc", "size", size, 0);
    /* Earlier remote writes into the old block must have landed. */
    shmemi_must(shmemi_team_barrier_world());
    p = alloc_nobarrier(size, 64, "shmem_realloc");
    memcpy(p, ptr, old < size ? old : size);
    shmemi_alloc_put(heap_alloc, off);
    shmemi_must(shmemi_team_barrier_world());
    return p;
}
SHMEMI_ALIAS(shmem_realloc)

/* The pre-1.2 names, still used by old programs and benchmarks. */
SHMEM_API void *shmalloc(size_t size) { return pshmem_malloc(size); }
SHMEM_API void shfree(void *ptr) { pshmem_free(ptr); }
SHMEM_API void *shrealloc(void *ptr, size_t size) { return pshmem_realloc(ptr, size); }
SHMEM_API void *shmemalign(size_t alignment, size_t size) { return pshmem_align(alignment, size); }
