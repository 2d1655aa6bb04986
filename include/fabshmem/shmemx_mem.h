/*
 * fabshmem extensions: memory the application allocated itself (included
 * by shmemx.h), modelled on NVSHMEM's nvshmemx_buffer_register family and
 * nvshmem4py's register_external_array.
 */
#ifndef FABSHMEMX_MEM_H
#define FABSHMEMX_MEM_H

/*
 * Local buffers.  shmemx_buffer_register makes [addr, addr+length) a
 * zero-copy source or destination of RMA on providers that need
 * registered local buffers (verbs, efa: FI_MR_LOCAL); elsewhere it is
 * recorded and costs nothing.  The range must not overlap a symmetric
 * object or another registered buffer.  shmemx_buffer_unregister takes the
 * address that was registered.  Both return SHMEMX_SUCCESS, or after
 * printing what was wrong (the registration is then unchanged)
 * SHMEMX_ERROR_INVALID_VALUE (NULL, length 0, an overflowing or overlapping
 * range, an address that is not registered), SHMEMX_ERROR_OUT_OF_MEMORY or
 * SHMEMX_ERROR_TRANSPORT (the provider refused the registration).  Registrations end
 * with shmemx_buffer_unregister_all or shmem_finalize.
 */
SHMEM_API int shmemx_buffer_register(void *addr, size_t length);
SHMEM_API int shmemx_buffer_unregister(void *addr);
SHMEM_API void shmemx_buffer_unregister_all(void);

/*
 * Symmetric buffers.  shmemx_buffer_register_symmetric is collective over
 * SHMEM_TEAM_WORLD: every PE passes a buffer of its own (any allocation:
 * malloc, mmap, a static array outside the data segment) of the same
 * length, and from then on the buffer is a symmetric object, addressed as
 * usual by each PE's own address of it: puts, gets, atomics, signals and
 * collectives reach the same offset of another PE's buffer.  Traffic to it
 * always goes through the provider, node peers included (the memory is
 * private to its process), so shmem_ptr returns NULL for another PE, and
 * atomics need a provider with atomics (not shm).  flags must be 0.
 * Returns addr, or NULL on every PE after printing the reason when a PE's
 * arguments are wrong (NULL, length 0, lengths that differ, overlap with
 * symmetric memory), or SHMEMX_BUFFER_SYMMETRIC_MAX buffers are
 * registered already.
 *
 * shmemx_buffer_unregister_symmetric (collective, the same addr and
 * length as registered) completes this PE's operations on every context,
 * waits until every PE is there and removes the registration.  Returns
 * SHMEMX_SUCCESS, or on every PE when some PE's arguments do not name one
 * of its symmetric buffers (nothing is unregistered):
 * SHMEMX_ERROR_INVALID_VALUE on the PEs whose own arguments are wrong,
 * SHMEMX_ERROR_SYMMETRY on the others.
 */
#define SHMEMX_BUFFER_SYMMETRIC_MAX 16
SHMEM_API void *shmemx_buffer_register_symmetric(void *addr, size_t length, int flags);
SHMEM_API int shmemx_buffer_unregister_symmetric(void *addr, size_t length);

#endif
