/*
 * Symmetric memory: the heap and the data segment (heap.c), the
 * deterministic allocator (alloc.c), collective allocation (mem.c) and
 * the buffers the application registers (mem_reg.c, mem_share.c).
 */
#ifndef SHMEMI_MEM_H
#define SHMEMI_MEM_H

#include "base/error.h"

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
/* Finds the executable's symmetric data: its .data and .bss, byte for
 * byte, without RELRO and without .got.plt (src/mem/data_seg.c).  Its
 * address differs between PEs (ASLR), the layout does not: a symmetric
 * variable is the same offset. */
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

/* ---- the device heap (dheap.c; docs/gpu.md) ----
 * GPU memory of this PE's device (cuda/cuda.h) with the CUDA virtual
 * memory management API: one allocation exported as a POSIX file
 * descriptor, mapped into a reserved range here and by node peers into
 * theirs. */
/* Creates this PE's device heap of at least size bytes (rounded up to the
 * device's granularity) into shmemi_g.dheap_base/dheap_size.  0, or the
 * class of the failure, recorded (the heap is then absent). */
int shmemi_dheap_create(size_t size, const char *rtn) SHMEMI_WUR;
/* Maps the device heaps of the PEs of this (possibly virtual) node into
 * shmemi_g.peer_dheap (with the direct path on); every PE must have a
 * device heap (pids: each PE's process id).  A node whose PEs cannot all
 * map each other's heaps maps none (each of them says why once).
 * Collective.  *all_mapped_p: every PE maps every PE's device heap.  0 or
 * the class of a failure of the exchange itself, recorded. */
int shmemi_dheap_map_peers(int direct, const int *pids, int *all_mapped_p,
                           const char *rtn) SHMEMI_WUR;
/* Unmaps the peers' device heaps and releases this PE's. */
void shmemi_dheap_destroy(void);
/* A block of size bytes aligned to align of the device heap (the
 * allocator of alloc.c, the same sequence on every PE), *p_p its address;
 * 0, SHMEMX_ERROR_OUT_OF_MEMORY (recorded as a warning naming rtn) or
 * SHMEMX_ERROR_INVALID_VALUE. */
int shmemi_dheap_get(size_t size, size_t align, void **p_p, const char *rtn) SHMEMI_WUR;
/* The size asked for the block that starts at ptr, or 0 when ptr is not
 * the start of a device heap block. */
size_t shmemi_dheap_block(const void *ptr);
/* Frees the block at ptr (a block, as shmemi_dheap_block says). */
void shmemi_dheap_put(void *ptr);
/* Why this PE has no device heap, for the messages of the routines that
 * need one; shmemi_dheap_none records it (init). */
const char *shmemi_dheap_why(void);

/* ---- GPU memory registered as symmetric (dheap_ext.c) ---- */
/* Collective: makes the program's GPU memory [addr, addr + length) (of
 * the CUDA VMM API, on this PE's GPU) a symmetric object with device-heap
 * offsets of its own (shmemi_g.dext), mapped by the node peers that map
 * each other's heaps.  All or nothing on every PE: 0 or the class,
 * recorded (the reason of the PE that could not, on every PE). */
int shmemi_dheap_register(void *addr, size_t length, const char *rtn) SHMEMI_WUR;
/* The slot of the registered GPU buffer at addr: -1 when there is none,
 * -2 when its length is not length. */
int shmemi_dheap_ext_find(const void *addr, size_t length);
/* The used slots as a bit mask. */
uint32_t shmemi_dheap_ext_used(void);
/* Whether [a, a + len) touches the device heap's range or a registered
 * GPU buffer. */
int shmemi_dheap_ext_overlaps(uintptr_t a, size_t len);
/* Ends slot's registration here (every PE does, after a barrier: no PE
 * uses it any more). */
void shmemi_dheap_ext_release(int slot);
/* Ends them all (shmemi_dheap_destroy). */
void shmemi_dheap_ext_fini(void);
void shmemi_dheap_none(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Passes descriptor fd to the PEs listed in pes[0..n) (this PE among
 * them), which call this together, and receives theirs into fds[i] (-1
 * for this PE and for a peer whose descriptor did not come, with the
 * first reason in why).  Over a Unix socket of the abstract namespace with
 * SCM_RIGHTS; a connection is taken only from the listed processes
 * (pids[pe], checked with SO_PEERCRED).  Collective over the world (a
 * bootstrap barrier).  0, or -1 when some descriptor did not come. */
int shmemi_fd_exchange(int fd, const int *pes, int n, const int *pids, int *fds, char *why,
                       size_t whylen);

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
int shmemi_buffer_unregister_all(const char *rtn) SHMEMI_WUR;
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
