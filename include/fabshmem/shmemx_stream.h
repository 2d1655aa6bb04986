/*
 * fabshmem extensions: streams (included by shmemx.h).
 *
 * A stream is an ordered queue of work that runs asynchronously to the
 * thread that enqueues it, as NVSHMEM's *_on_stream family does on CUDA
 * streams.  Each stream has a worker thread (asleep while the stream is
 * empty) and its own communication context, so work on different streams
 * proceeds at the same time and a stream's quiet waits only for its own
 * traffic.
 *
 * Every *_on_stream routine returns at once (but the g forms, which wait
 * for their value).  Buffers it names, and the teams of collectives, must
 * stay valid and unmodified until the stream has executed it
 * (shmemx_stream_sync or shmemx_stream_query tell).  Every argument is
 * checked when the work is enqueued (PE range, symmetric addresses and
 * their extents, PE_root, teams, signal and comparison operators, sizes
 * that overflow, strides): bad work is not enqueued, and the stream
 * remembers the first error, which shmemx_stream_sync prints (naming the
 * routine and the argument; in SHMEMX_ERRORS_RETURN mode it records it for
 * shmemx_error_get instead) and returns.  A put, get or quiet that the
 * transport fails when the stream executes it is such an error too
 * (SHMEMX_ERROR_TRANSPORT), as is a registered buffer unregistered before
 * the stream used it; the stream goes on with the work behind it.  A
 * transport failure of a signal or inside a collective ends the job, as
 * it does off streams, with a message naming the on-stream routine.  A
 * handle that is not a stream, or a call before shmem_init, ends the job
 * (in SHMEMX_ERRORS_RETURN mode the routine returns with the error
 * recorded, SHMEMX_ERROR_INVALID_VALUE or SHMEMX_ERROR_INVALID_STATE).
 *
 * Remote completion follows OpenSHMEM: a put executed by the stream is
 * visible at its target after shmemx_quiet_on_stream (or a barrier on the
 * stream) has executed; shmemx_stream_sync also quiets the stream's
 * context before it returns.
 *
 * Each stream has a context of its own for the work its worker does; the
 * context takes an endpoint from the FABSHMEM_CTX_ENDPOINTS pool the first
 * time it reaches the provider.  When the pool is used up (or no context
 * could be made) the stream shares the default endpoint, which works but
 * makes its quiets wait for the default context's traffic too: a warning
 * says so once per process.  Calls into a provider that is not safe for
 * concurrent threads (shm) are serialized from the first stream on.
 *
 * Offload: on providers with triggered operations (FI_TRIGGER) a stream's
 * puts, gets and signals to PEs that are not mapped are posted to the
 * provider at once, chained on the stream's completion counter: each
 * starts when everything before it on the stream is complete at its
 * target, except that consecutive puts start together (FABSHMEM_STREAM_
 * OFFLOAD: auto, 1 or 0; shmemx_stream_offloaded).  SHMEM_INFO=1 prints
 * which way streams run, and fabshmem_info which way they would.
 *
 * The family follows NVSHMEM's host API (nvshmemx_*_on_stream) on the
 * OpenSHMEM types: put, get and their _nbi forms, p, g, iput, iget, put
 * with signal (and _nbi) in typed, sized (8, 16, 32, 64, 128 bits) and mem
 * forms, signal_op, signal_wait_until, the typed wait_until, quiet,
 * barrier_all, sync_all, barrier, team_sync, broadcast, fcollect,
 * alltoall (typed and mem), the team reductions and reducescatter.
 */
#ifndef FABSHMEMX_STREAM_H
#define FABSHMEMX_STREAM_H

typedef struct shmemx_stream *shmemx_stream_t;

/* SHMEMX_SUCCESS, or with a message SHMEMX_ERROR_INVALID_VALUE (stream is
 * NULL), SHMEMX_ERROR_NOT_SUPPORTED (FABSHMEM_STREAM_OFFLOAD=1 on a provider
 * without triggered operations), SHMEMX_ERROR_OUT_OF_MEMORY. */
SHMEM_API int shmemx_stream_create(shmemx_stream_t *stream);
/* A stream over a CUDA stream of the program's: cuda_stream is a
 * cudaStream_t or CUstream (NULL: the legacy default stream) of the
 * PE's GPU, the device current at shmem_init.  The on-stream routines
 * then order their work on that CUDA stream, with the program's kernels
 * and copies: what the GPU can do alone (puts and gets between GPU memory
 * and the device heaps this PE maps, signals and waits on device-heap
 * words, barriers and collectives on device buffers of teams within
 * SHMEM_TEAM_SHARED) is queued on it directly; on providers with
 * triggered operations (FABSHMEM_STREAM_OFFLOAD as above), puts, gets
 * and signals between host buffers to PEs that are not mapped are posted
 * as triggered operations that the CUDA stream releases when it reaches
 * them, and it waits until they are complete at their targets; the rest
 * is run by the stream's host thread when the CUDA stream reaches it, and
 * the CUDA stream waits for it (docs/gpu.md, "CUDA streams").
 * shmemx_stream_sync
 * waits for the CUDA stream; shmemx_stream_destroy leaves the CUDA stream
 * to the program.  The members of a team use streams of the same kind
 * for the team's on-stream barriers and collectives.  SHMEMX_SUCCESS, or
 * with a message SHMEMX_ERROR_NOT_SUPPORTED (no GPU),
 * SHMEMX_ERROR_INVALID_VALUE (stream NULL, cuda_stream not a stream of
 * the PE's GPU's context), and as shmemx_stream_create for
 * FABSHMEM_STREAM_OFFLOAD=1. */
SHMEM_API int shmemx_stream_create_cuda(shmemx_stream_t *stream, void *cuda_stream);
/* Waits for the stream's work (as shmemx_stream_sync), then frees it.
 * Returns what that sync returned. */
SHMEM_API int shmemx_stream_destroy(shmemx_stream_t stream);
/* Waits until all work enqueued so far has executed and is complete
 * (quiet).  Returns SHMEMX_SUCCESS, or the code of the first error since
 * the last sync, which is printed with its routine and argument (and the
 * count of the errors after it), then forgotten:
 * SHMEMX_ERROR_INVALID_VALUE for work refused when it was enqueued or a
 * buffer unregistered before the stream used it, SHMEMX_ERROR_TRANSPORT
 * (or another class of the provider's error) for an operation the
 * transport failed, triggered or run by the worker. */
SHMEM_API int shmemx_stream_sync(shmemx_stream_t stream);
/* 0 when every enqueued work item has executed, 1 while some has not;
 * never blocks.  -1 for an invalid stream. */
SHMEM_API int shmemx_stream_query(shmemx_stream_t stream);

/* 1 when the stream offloads its RMA and signals to the provider as
 * triggered operations (FABSHMEM_STREAM_OFFLOAD, providers with
 * FI_TRIGGER), 0 when its worker thread runs all of its work, -1 for an
 * invalid stream. */
SHMEM_API int shmemx_stream_offloaded(shmemx_stream_t stream);

/* Host "kernels": fn(arg) runs on the stream's worker in stream order.
 * SHMEMX_SUCCESS, or SHMEMX_ERROR_INVALID_VALUE for a NULL fn (which the
 * next sync reports too). */
SHMEM_API int shmemx_launch_on_stream(shmemx_stream_t stream, void (*fn)(void *arg), void *arg);

/* RMA, signals and ordering.  The _nbi forms enqueue the same work as the
 * blocking ones: a stream's puts are non-blocking among themselves (the
 * next item that is not a put, or shmemx_quiet_on_stream, completes them),
 * and its gets complete before the next item runs. */
#define SHMEMX_STREAM_RMA_FAMILY_DECL(T, PRE, SUF) \
    SHMEM_API void PRE##put##SUF##_on_stream(T *dest, const T *source, size_t nelems, int pe, \
                                             shmemx_stream_t stream); \
    SHMEM_API void PRE##put##SUF##_nbi_on_stream(T *dest, const T *source, size_t nelems, \
                                                 int pe, shmemx_stream_t stream); \
    SHMEM_API void PRE##get##SUF##_on_stream(T *dest, const T *source, size_t nelems, int pe, \
                                             shmemx_stream_t stream); \
    SHMEM_API void PRE##get##SUF##_nbi_on_stream(T *dest, const T *source, size_t nelems, \
                                                 int pe, shmemx_stream_t stream); \
    SHMEM_API void PRE##iput##SUF##_on_stream(T *dest, const T *source, ptrdiff_t dst, \
                                              ptrdiff_t sst, size_t nelems, int pe, \
                                              shmemx_stream_t stream); \
    SHMEM_API void PRE##iget##SUF##_on_stream(T *dest, const T *source, ptrdiff_t dst, \
                                              ptrdiff_t sst, size_t nelems, int pe, \
                                              shmemx_stream_t stream); \
    SHMEM_API void PRE##put##SUF##_signal_on_stream(T *dest, const T *source, size_t nelems, \
                                                    uint64_t *sig_addr, uint64_t signal, \
                                                    int sig_op, int pe, shmemx_stream_t stream); \
    SHMEM_API void PRE##put##SUF##_signal_nbi_on_stream(T *dest, const T *source, \
                                                        size_t nelems, uint64_t *sig_addr, \
                                                        uint64_t signal, int sig_op, int pe, \
                                                        shmemx_stream_t stream);
/* The typed forms add p (the value is copied at once) and g (waits until
 * the stream has executed everything before it and the get, and returns
 * the value; 0 when the get was refused; not from the stream's own
 * kernels). */
#define SHMEMX_STREAM_RMA_DECL(TYPE, TN) \
    SHMEMX_STREAM_RMA_FAMILY_DECL(TYPE, shmemx_##TN##_, ) \
    SHMEM_API void shmemx_##TN##_p_on_stream(TYPE *dest, TYPE value, int pe, \
                                             shmemx_stream_t stream); \
    SHMEM_API TYPE shmemx_##TN##_g_on_stream(const TYPE *source, int pe, shmemx_stream_t stream);
SHMEMI_RMA_TYPES(SHMEMX_STREAM_RMA_DECL)
#define SHMEMX_STREAM_RMA_SIZE_DECL(SIZE) SHMEMX_STREAM_RMA_FAMILY_DECL(void, shmemx_, SIZE)
SHMEMI_RMA_SIZES(SHMEMX_STREAM_RMA_SIZE_DECL)
#undef SHMEMX_STREAM_RMA_SIZE_DECL
#undef SHMEMX_STREAM_RMA_DECL
#undef SHMEMX_STREAM_RMA_FAMILY_DECL

/* The mem forms (nelems in bytes). */
SHMEM_API void shmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                                       shmemx_stream_t stream);
SHMEM_API void shmemx_putmem_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe,
                                           shmemx_stream_t stream);
SHMEM_API void shmemx_getmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                                       shmemx_stream_t stream);
SHMEM_API void shmemx_getmem_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe,
                                           shmemx_stream_t stream);
SHMEM_API void shmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nelems,
                                              uint64_t *sig_addr, uint64_t signal, int sig_op,
                                              int pe, shmemx_stream_t stream);
SHMEM_API void shmemx_putmem_signal_nbi_on_stream(void *dest, const void *source, size_t nelems,
                                                  uint64_t *sig_addr, uint64_t signal,
                                                  int sig_op, int pe, shmemx_stream_t stream);
/* sig_op: SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD. */
SHMEM_API void shmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                          shmemx_stream_t stream);
/* The stream waits (on this PE) until the word compares true; what follows
 * on the stream runs after. */
SHMEM_API void shmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                                  shmemx_stream_t stream);
#define SHMEMX_STREAM_WAIT_DECL(TYPE, TN) \
    SHMEM_API void shmemx_##TN##_wait_until_on_stream(TYPE *ivar, int cmp, TYPE cmp_value, \
                                                      shmemx_stream_t stream);
SHMEMI_P2P_TYPES(SHMEMX_STREAM_WAIT_DECL)
#undef SHMEMX_STREAM_WAIT_DECL
SHMEM_API void shmemx_quiet_on_stream(shmemx_stream_t stream);

/* Synchronization of a team, in stream order (the team's members each
 * enqueue it on one of their streams).  The routines with a team, like the
 * collectives below, return 0 when the work is enqueued and
 * SHMEMX_ERROR_INVALID_VALUE when it is refused (a bad team or argument,
 * which the next shmemx_stream_sync reports too, naming the routine), as
 * NVSHMEM's on-stream team routines return int. */
SHMEM_API void shmemx_barrier_all_on_stream(shmemx_stream_t stream);
SHMEM_API void shmemx_sync_all_on_stream(shmemx_stream_t stream);
SHMEM_API int shmemx_barrier_on_stream(shmem_team_t team, shmemx_stream_t stream);
SHMEM_API int shmemx_team_sync_on_stream(shmem_team_t team, shmemx_stream_t stream);

/* Collectives in stream order: every member of the team enqueues the
 * collective on one of its streams, in the same order as its other
 * collectives on that team.  Same arguments as the team collectives of
 * OpenSHMEM 1.6 and the reducescatter of shmemx_coll.h, plus the stream. */
#define SHMEMX_STREAM_COLL_DECL(TYPE, TN) \
    SHMEM_API int shmemx_##TN##_broadcast_on_stream(shmem_team_t team, TYPE *dest, \
                                                    const TYPE *source, size_t nelems, \
                                                    int PE_root, shmemx_stream_t stream); \
    SHMEM_API int shmemx_##TN##_fcollect_on_stream(shmem_team_t team, TYPE *dest, \
                                                   const TYPE *source, size_t nelems, \
                                                   shmemx_stream_t stream); \
    SHMEM_API int shmemx_##TN##_alltoall_on_stream(shmem_team_t team, TYPE *dest, \
                                                   const TYPE *source, size_t nelems, \
                                                   shmemx_stream_t stream);
SHMEMI_RMA_TYPES(SHMEMX_STREAM_COLL_DECL)
#undef SHMEMX_STREAM_COLL_DECL
SHMEM_API int shmemx_broadcastmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                            size_t nelems, int PE_root, shmemx_stream_t stream);
SHMEM_API int shmemx_fcollectmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                           size_t nelems, shmemx_stream_t stream);
SHMEM_API int shmemx_alltoallmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                           size_t nelems, shmemx_stream_t stream);

#define SHMEMX_STREAM_RED_OP(TYPE, TN, OP) \
    SHMEM_API int shmemx_##TN##_##OP##_reduce_on_stream(shmem_team_t team, TYPE *dest, \
                                                        const TYPE *source, size_t nreduce, \
                                                        shmemx_stream_t stream); \
    SHMEM_API int shmemx_##TN##_##OP##_reducescatter_on_stream( \
        shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce, \
        shmemx_stream_t stream);
#define SHMEMX_STREAM_RED_BITWISE(TYPE, TN) \
    SHMEMX_STREAM_RED_OP(TYPE, TN, and) SHMEMX_STREAM_RED_OP(TYPE, TN, or) \
    SHMEMX_STREAM_RED_OP(TYPE, TN, xor)
#define SHMEMX_STREAM_RED_MINMAX(TYPE, TN) \
    SHMEMX_STREAM_RED_OP(TYPE, TN, max) SHMEMX_STREAM_RED_OP(TYPE, TN, min)
#define SHMEMX_STREAM_RED_ARITH(TYPE, TN) \
    SHMEMX_STREAM_RED_OP(TYPE, TN, sum) SHMEMX_STREAM_RED_OP(TYPE, TN, prod)
SHMEMI_REDUCE_BITWISE_TYPES(SHMEMX_STREAM_RED_BITWISE)
SHMEMI_REDUCE_MINMAX_TYPES(SHMEMX_STREAM_RED_MINMAX)
SHMEMI_REDUCE_ARITH_TYPES(SHMEMX_STREAM_RED_ARITH)
#ifndef __cplusplus
SHMEMI_REDUCE_COMPLEX_TYPES(SHMEMX_STREAM_RED_ARITH)
#endif
#undef SHMEMX_STREAM_RED_OP
#undef SHMEMX_STREAM_RED_BITWISE
#undef SHMEMX_STREAM_RED_MINMAX
#undef SHMEMX_STREAM_RED_ARITH

#endif
