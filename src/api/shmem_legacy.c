/*
 * The pre-1.2 names, still used by old programs and benchmarks: start_pes
 * (shmem_init, and shmem_finalize at exit), _my_pe, _num_pes, the
 * allocation names (shmalloc, ...) and the cache management of OpenSHMEM
 * 1.2 (deprecated in 1.3).
 */
#include "api/api.h"
#include "init/init.h"

SHMEM_API void start_pes(int npes)
{
    int rc;

    (void)npes; /* unused, as the specification says */
    rc = shmemi_start_pes("start_pes");
    if (rc)
        shmemi_api_init_fail(rc, "start_pes");
}

SHMEM_API int _my_pe(void) { return pshmem_my_pe(); }
SHMEM_API int _num_pes(void) { return pshmem_n_pes(); }

SHMEM_API void *shmalloc(size_t size) { return pshmem_malloc(size); }
SHMEM_API void shfree(void *ptr) { pshmem_free(ptr); }
SHMEM_API void *shrealloc(void *ptr, size_t size) { return pshmem_realloc(ptr, size); }
SHMEM_API void *shmemalign(size_t alignment, size_t size) { return pshmem_align(alignment, size); }

/* Cache management: the machines fabshmem runs on keep caches coherent,
 * so there is nothing to do. */
SHMEM_API void shmem_set_cache_inv(void) {}
SHMEM_API void shmem_set_cache_line_inv(void *target) { (void)target; }
SHMEM_API void shmem_clear_cache_inv(void) {}
SHMEM_API void shmem_clear_cache_line_inv(void *target) { (void)target; }
SHMEM_API void shmem_udcflush(void) {}
SHMEM_API void shmem_udcflush_line(void *target) { (void)target; }
