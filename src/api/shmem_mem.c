/*
 * The symmetric allocation routines: thin wrappers over src/mem/mem.c.
 * shmem_malloc and its kin return NULL, with a warning, when the heap
 * cannot hold the block (on every PE: the allocation is collective and
 * the same everywhere); any other failure is an error (base/error.h).
 */
#include "api/api.h"
#include "mem/mem.h"

SHMEM_API void *pshmem_malloc(size_t size)
{
    void *p = NULL;
    int rc = shmemi_mem_malloc(size, &p, "shmem_malloc");

    return shmemi_api_ptr(rc, p);
}
SHMEMI_ALIAS(shmem_malloc)

SHMEM_API void *pshmem_malloc_with_hints(size_t size, long hints)
{
    void *p = NULL;
    int rc = shmemi_mem_malloc_hints(size, hints, &p, "shmem_malloc_with_hints");

    return shmemi_api_ptr(rc, p);
}
SHMEMI_ALIAS(shmem_malloc_with_hints)

SHMEM_API void *pshmem_calloc(size_t count, size_t size)
{
    void *p = NULL;
    int rc = shmemi_mem_calloc(count, size, &p, "shmem_calloc");

    return shmemi_api_ptr(rc, p);
}
SHMEMI_ALIAS(shmem_calloc)

SHMEM_API void *pshmem_align(size_t alignment, size_t size)
{
    void *p = NULL;
    int rc = shmemi_mem_align(alignment, size, &p, "shmem_align");

    return shmemi_api_ptr(rc, p);
}
SHMEMI_ALIAS(shmem_align)

SHMEM_API void pshmem_free(void *ptr)
{
    shmemi_api_check(shmemi_mem_free(ptr, "shmem_free"));
}
SHMEMI_ALIAS(shmem_free)

SHMEM_API void *pshmem_realloc(void *ptr, size_t size)
{
    void *p = NULL;
    int rc = shmemi_mem_realloc(ptr, size, &p, "shmem_realloc");

    return shmemi_api_ptr(rc, p);
}
SHMEMI_ALIAS(shmem_realloc)
