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
 * address aligned to SHMEMI_HEAP_ALIGN).  0 or a negative errno. */
int shmemi_heap_create(size_t size);
/* Maps the heaps (and with map_data the data segments) of the PEs of this
 * (possibly virtual) node.  Collective. */
int shmemi_heap_map_peers(int direct, int map_data);
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
/* Sets up and releases the allocator of the heap's user part. */
int shmemi_mem_init(void);
void shmemi_mem_fini(void);

/* ---- registered buffers (mem_reg.c) ---- */
/* Releases the buffers registered by shmemx_buffer_register* (finalize). */
void shmemi_mem_reg_fini(void);

#endif
