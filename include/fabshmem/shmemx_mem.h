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
 * with shmemx_buffer_unregister_all or shmem_finalize.  Unregistering
 * first completes this PE's operations on every context: when that quiet
 * fails, the job ends in SHMEMX_ERRORS_ABORT mode; in SHMEMX_ERRORS_RETURN
 * mode shmemx_buffer_unregister returns its class (SHMEMX_ERROR_TRANSPORT)
 * and shmemx_buffer_unregister_all returns with it in shmemx_error_get,
 * nothing unregistered.
 */
SHMEM_API int shmemx_buffer_register(void *addr, size_t length);
SHMEM_API int shmemx_buffer_unregister(void *addr);
SHMEM_API void shmemx_buffer_unregister_all(void);

/*
 * Symmetric buffers.  shmemx_buffer_register_symmetric is collective over
 * SHMEM_TEAM_WORLD: every PE passes a buffer of its own (any allocation:
 * malloc, mmap, a static array outside the data segment) of the same
 * length and the same flags, and from then on the buffer is a symmetric
 * object, addressed as usual by each PE's own address of it: puts, gets,
 * atomics, signals and collectives reach the same offset of another PE's
 * buffer, through the provider and, where node peers map each other's
 * copies, by load/store and CPU atomics like the heap.
 *
 * Node peers (the PEs of SHMEMX_TEAM_NODE, virtual nodes included) map
 * each other's copies when every copy on the node is memory that another
 * process can open, and the direct path is on (FABSHMEM_DIRECT):
 *   - a MAP_SHARED mapping of a memfd (memfd_create) or of any file (in
 *     /dev/shm, tmpfs, hugetlbfs or on a disk) while the process holds a
 *     descriptor of it or its path still names it;
 *   - a System V segment (shmget and shmat), while it exists;
 *   - MAP_SHARED | MAP_ANONYMOUS memory, and an unlinked file that no
 *     descriptor holds, only with CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE
 *     (through /proc/PID/map_files).
 * Private memory (malloc, the stack, MAP_PRIVATE mappings) cannot be
 * shared after it was allocated: node peers reach it through the provider.
 * The buffer must lie in one writable mapping (or adjacent ones of the
 * same object).  The decision is the same for every PE of a node: all map
 * all the node's copies, or none does.  Then shmem_ptr and shmem_team_ptr
 * give a node peer's copy (or NULL, as the specification says for memory
 * that is not load/store accessible), and shmemx_buffer_load_store tells
 * why not.
 *
 * flags is 0 or SHMEMX_BUFFER_LOAD_STORE, which requires load/store
 * access: when the PEs of some node cannot map each other's copies, the
 * registration fails on every PE (NULL, after a message naming the PE,
 * the buffer and the reason).  Returns addr, or NULL on every PE after
 * printing the reason when a PE's arguments are wrong (NULL, length 0,
 * lengths or flags that differ, unknown flags, overlap with symmetric
 * memory), SHMEMX_BUFFER_SYMMETRIC_MAX buffers are registered already, or
 * the required load/store access is impossible.
 *
 * shmemx_buffer_load_store (local, not collective) returns SHMEMX_SUCCESS
 * when addr lies in a buffer registered with
 * shmemx_buffer_register_symmetric that the PEs of this PE's node reach
 * by load/store (shmem_ptr gives every node peer's copy), and otherwise,
 * with a message naming the buffer's address and the reason (the PE whose
 * copy could not be mapped and why, or FABSHMEM_DIRECT=0),
 * SHMEMX_ERROR_NOT_SUPPORTED; SHMEMX_ERROR_INVALID_VALUE when addr is not
 * in such a buffer.
 *
 * shmemx_buffer_unregister_symmetric (collective, the same addr and
 * length as registered) completes this PE's operations on every context,
 * waits until every PE is there, unmaps node peers' copies and removes the
 * registration.  Returns SHMEMX_SUCCESS, or on every PE when some PE's
 * arguments do not name one of its symmetric buffers (nothing is
 * unregistered): SHMEMX_ERROR_INVALID_VALUE on the PEs whose own arguments
 * are wrong, SHMEMX_ERROR_SYMMETRY on the others.
 * shmemx_buffer_unregister_symmetric_all (collective) does the same for
 * every symmetric buffer; SHMEMX_SUCCESS, or SHMEMX_ERROR_SYMMETRY on
 * every PE (nothing unregistered) if the PEs' registrations differ.  A
 * quiet that fails in either ends the job in SHMEMX_ERRORS_ABORT mode; in
 * SHMEMX_ERRORS_RETURN mode that PE returns its class and the others
 * SHMEMX_ERROR_SYMMETRY (nothing unregistered).
 * shmemx_buffer_unregister_all concerns local buffers only (as NVSHMEM's);
 * shmem_finalize releases whatever is left.
 */
/*
 * GPU memory (docs/gpu.md).  With a CUDA build and a GPU, each PE has a
 * device heap in the memory of its GPU: the device of the CUDA context
 * current at shmem_init (as NVSHMEM takes it), or without one the GPU
 * numbered (the PE's rank among its host's PEs) modulo the GPUs it sees,
 * whose primary context the library then makes current.  Its size is
 * FABSHMEM_DEVICE_HEAP_SIZE.  FABSHMEM_CUDA=auto (the default) brings the
 * GPU up only in a process that loaded the CUDA driver before shmem_init
 * (it called the CUDA runtime or driver, e.g. cudaSetDevice); 1 always, 0
 * never.
 *
 * shmem_malloc_with_hints(size, SHMEMX_MALLOC_DEVICE) allocates a
 * symmetric block of the device heap (collective, the same rules as
 * shmem_malloc; shmem_free and shmem_realloc take it).  Without a device
 * heap the hint is advice that cannot be followed and the block is host
 * memory, as shmem_malloc's (OpenSHMEM 1.6 on hints; said once under
 * SHMEM_DEBUG), except in a job with FABSHMEM_CUDA=1, where it fails on
 * every PE with SHMEMX_ERROR_NOT_SUPPORTED and a message naming the
 * routine and the reason; shmemx_cuda_device() says beforehand which it
 * will be.  Bits of hints that no hint defines are ignored.  The RMA routines (put, get, their
 * nbi, typed, sized, p, g, iput and iget forms) take device objects as
 * their symmetric side and host or GPU memory as their local side; the
 * transfer is complete when the call returns.  shmem_ptr on a device
 * object gives the address at which a node peer's copy is mapped (NULL
 * where it is not), for the caller's kernels to load from and store to;
 * the CPU cannot.  Collectives take device buffers, and CUDA streams
 * (shmemx_stream_create_cuda) the on-stream routines; atomics and
 * blocking waits on device words are refused, with a message naming the
 * routine (docs/gpu.md lists what is supported).
 *
 * shmemx_buffer_register_symmetric also takes GPU memory of the program's
 * own, of the CUDA virtual memory management API (cuMemCreate and
 * cuMemMap; one whole allocation's mapping, on the PE's GPU; exportable as
 * a POSIX file descriptor where node peers map each other's device heaps),
 * flags 0: it becomes a symmetric object like the device heap's (shmem_ptr
 * for node peers' copies, RMA, collectives, CUDA streams), within
 * FABSHMEM_DEVICE_REGISTER_SPACE.  Other GPU memory (cudaMalloc's) is
 * refused on every PE with SHMEMX_ERROR_NOT_SUPPORTED and the reason.
 */
#define SHMEMX_MALLOC_DEVICE (1L << 30)
/* The CUDA device ordinal (in this process's numbering) of the GPU whose
 * memory holds this PE's device heap, or -1 when it has none. */
SHMEM_API int shmemx_cuda_device(void);

#define SHMEMX_BUFFER_SYMMETRIC_MAX 16
#define SHMEMX_BUFFER_LOAD_STORE (1 << 0)
SHMEM_API void *shmemx_buffer_register_symmetric(void *addr, size_t length, int flags);
SHMEM_API int shmemx_buffer_load_store(const void *addr);
SHMEM_API int shmemx_buffer_unregister_symmetric(void *addr, size_t length);
SHMEM_API int shmemx_buffer_unregister_symmetric_all(void);

#endif
