/*
 * Symmetric memory: the heap and the data segment (heap.c), the
 * deterministic allocator (alloc.c), collective allocation (mem.c) and
 * the buffers the application registers (mem_reg.c, mem_share.c).
 */
#ifndef SHMEMI_MEM_H
#define SHMEMI_MEM_H

#include "core/shmemi.h"

/* ---- the heap and the data segment (heap.c) ---- */
/* Creates this PE's heap of size bytes (one shared-memory object, at an
 * address aligned to SHMEMI_HEAP_ALIGN).  0, or the class of the failure,
 * recorded, with the errno behind it in *err_p (the other PEs name it). */
int shmemi_heap_create(size_t size, int *err_p) SHMEMI_WUR;
/* Maps the heaps (and with map_data the data segments) of the PEs of this
 * (possibly virtual) node.  Collective.  0 or the class, recorded. */
int shmemi_heap_map_peers(int direct, int map_data) SHMEMI_WUR;
/* Unmaps the peers' heaps and data and releases this PE's heap. */
void shmemi_heap_destroy(void);
/* Finds the executable's writable data (.data and .bss, without the part
 * made read-only after relocation).  Its address differs between PEs
 * (ASLR), the layout does not: a symmetric variable is the same offset. */
void shmemi_data_segment_find(void);
/* Removes the shared-memory names that PEs killed inside shmem_init left
 * behind (their pid is gone). */
void shmemi_shm_cleanup_stale(void);

/* ---- the heap allocator (alloc.c; pure logic, unit tested) ---- */
typedef struct shmemi_alloc shmemi_alloc_t;
int shmemi_alloc_create(size_t base_off, size_t size, shmemi_alloc_t **a_p);
void shmemi_alloc_destroy(shmemi_alloc_t *a);
/* Offset of a new block of size bytes aligned to align (a power of two), or
 * -ENOMEM.  Same sequence of calls -> same offsets on every PE. */
int shmemi_alloc_get(shmemi_alloc_t *a, size_t size, size_t align, size_t *off_p);
/* Frees the block at off; -EINVAL if no block starts there. */
int shmemi_alloc_put(shmemi_alloc_t *a, size_t off);
/* Size of the block at off, or 0. */
size_t shmemi_alloc_size(shmemi_alloc_t *a, size_t off);
/* Bytes free in the largest hole. */
size_t shmemi_alloc_largest(shmemi_alloc_t *a);

/* ---- collective allocation (mem.c) ---- */
/* Sets up (0 or the class, recorded) and releases the allocator of the
 * heap's user part, the bytes after shmemi_g.reserved_size. */
int shmemi_mem_init(void) SHMEMI_WUR;
void shmemi_mem_fini(void);
/* The allocation routines of the API, collective over the world: every PE
 * passes the same arguments (FABSHMEM_CHECKS=1 compares them:
 * SHMEMX_ERROR_SYMMETRY on every PE when they differ).  Each returns 0
 * with the block in *p_p (NULL for 0 bytes; after shmemi_mem_realloc to 0
 * bytes, which frees ptr), or the class of the failure, recorded: a bad
 * argument (SHMEMX_ERROR_INVALID_VALUE, at once), or a heap that cannot
 * hold the block (SHMEMX_ERROR_OUT_OF_MEMORY, recorded as a warning, on
 * every PE alike, after the barrier; realloc then keeps ptr as it was).
 * rtn names the public routine in messages. */
int shmemi_mem_malloc(size_t size, void **p_p, const char *rtn) SHMEMI_WUR;
int shmemi_mem_malloc_hints(size_t size, long hints, void **p_p, const char *rtn) SHMEMI_WUR;
int shmemi_mem_calloc(size_t count, size_t size, void **p_p, const char *rtn) SHMEMI_WUR;
int shmemi_mem_align(size_t alignment, size_t size, void **p_p, const char *rtn) SHMEMI_WUR;
int shmemi_mem_realloc(void *ptr, size_t size, void **p_p, const char *rtn) SHMEMI_WUR;
/* Frees the block at ptr (NULL: nothing) after a barrier. */
int shmemi_mem_free(void *ptr, const char *rtn) SHMEMI_WUR;

/* ---- registered buffers (mem_reg.c) ----
 * The routines of include/fabshmem/shmemx_mem.h, less the check that the
 * library is initialized (the API's): 0 or the class, recorded, as that
 * header describes.  rtn names the public routine in messages. */
int shmemi_buffer_register(void *addr, size_t length, const char *rtn) SHMEMI_WUR;
int shmemi_buffer_unregister(void *addr, const char *rtn) SHMEMI_WUR;
void shmemi_buffer_unregister_all(void);
/* Collective over the world; a failure is the same on every PE (a PE
 * whose own arguments were good gets SHMEMX_ERROR_SYMMETRY when another
 * PE's were not). */
int shmemi_buffer_register_symmetric(void *addr, size_t length, int flags,
                                     const char *rtn) SHMEMI_WUR;
int shmemi_buffer_load_store(const void *addr, const char *rtn) SHMEMI_WUR;
int shmemi_buffer_unregister_symmetric(void *addr, size_t length, const char *rtn) SHMEMI_WUR;
int shmemi_buffer_unregister_symmetric_all(const char *rtn) SHMEMI_WUR;
/* Releases the buffers registered by shmemx_buffer_register* (finalize). */
void shmemi_mem_reg_fini(void);

#endif
