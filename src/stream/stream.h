/*
 * Streams: ordered queues of work that run asynchronously to the thread
 * that enqueues them (include/fabshmem/shmemx_stream.h has the contract).
 * This header is what the layers above use: the public routines of
 * src/api/stream*.c wrap these, and init asks for the offload mode, the
 * path for SHMEM_INFO and the teardown.  The layer's own files share
 * stream_int.h.
 *
 * Every routine that returns int returns 0 or the class of the error
 * (base/error.h).  A failure before the work reaches a stream (the
 * library is not initialized, the handle is not a live stream) is the
 * calling thread's, recorded as everywhere.  Work that a stream's checks
 * refuse is the stream's: the checks are the core's own (the routine the
 * executor will call checks the same way when it runs), the record moves
 * to the stream, whose next sync reports the first error since the last
 * one, the calling thread's record is cleared, and the class is returned.
 * shmemi_api_stream (src/api/api.h) tells the two apart by the record.
 */
#ifndef SHMEMI_STREAM_H
#define SHMEMI_STREAM_H

#include "coll/coll_reduce.h"
#include "core/wait.h"

/* ---- lifetime and queries (stream_life.c) ---- */

/* A new stream into *stream_p (NULL on failure). */
int shmemi_stream_create(shmemx_stream_t *stream_p, const char *rtn) SHMEMI_WUR;
/* A stream over the CUDA stream cuda_stream (a CUstream or cudaStream_t
 * of the PE's GPU; NULL: the legacy default stream) into *stream_p: its
 * work is ordered on the CUDA stream (stream_cuda.c). */
int shmemi_stream_create_cuda(shmemx_stream_t *stream_p, void *cuda_stream, const char *rtn)
    SHMEMI_WUR;
/* Syncs, then frees the stream; returns what the sync returned. */
int shmemi_stream_destroy(shmemx_stream_t stream, const char *rtn) SHMEMI_WUR;
/* Waits until the work enqueued so far has executed and is complete;
 * then the stream's first error since the last sync (recorded on the
 * calling thread, naming rtn, with the count of the errors after it), or
 * 0. */
int shmemi_stream_sync(shmemx_stream_t stream, const char *rtn) SHMEMI_WUR;
/* 1 while some enqueued work has not executed, 0 when all has, -1 for a
 * handle that is not a live stream; never blocks. */
int shmemi_stream_query(shmemx_stream_t stream);
/* 1 when the stream offloads to the provider, 0 when not, -1 as above. */
int shmemi_stream_offloaded(shmemx_stream_t stream);
/* Synchronizes and destroys the streams still alive (shmem_finalize). */
void shmemi_streams_fini(void);

/* ---- configuration (stream_offload.c) ---- */

/* FABSHMEM_STREAM_OFFLOAD: 0 (off), 1 (on), 2 (auto). */
int shmemi_stream_offload_mode(void);
/* Which way streams run in this job, for SHMEM_INFO: found by making (and
 * closing) a triggered queue as shmemi_stream_create would. */
const char *shmemi_stream_path(void);

/* ---- work (stream_life.c: launch; stream_rma.c; stream_coll.c) ----
 * pe is a world PE; nelems counts elements of elsize bytes. */

/* fn(arg) on the stream's worker, in stream order. */
int shmemi_stream_launch(shmemx_stream_t stream, void (*fn)(void *), void *arg, const char *rtn)
    SHMEMI_WUR;
/* put (is_put) or get; the _nbi forms are the same work. */
int shmemi_stream_rma(shmemx_stream_t stream, int is_put, void *dest, const void *src,
                      size_t nelems, size_t elsize, int pe, const char *rtn) SHMEMI_WUR;
/* p: the size bytes at value are copied into the work item. */
int shmemi_stream_p(shmemx_stream_t stream, void *dest, const void *value, size_t size, int pe,
                    const char *rtn) SHMEMI_WUR;
/* g: waits until the stream has executed the get into value (left alone
 * when the get is refused). */
int shmemi_stream_g(shmemx_stream_t stream, void *value, const void *src, size_t size, int pe,
                    const char *rtn) SHMEMI_WUR;
/* iput (is_put) and iget: element i at element i * dst of dest and
 * i * sst of src. */
int shmemi_stream_strided(shmemx_stream_t stream, int is_put, void *dest, const void *src,
                          ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elsize, int pe,
                          const char *rtn) SHMEMI_WUR;
int shmemi_stream_put_signal(shmemx_stream_t stream, void *dest, const void *src, size_t nelems,
                             size_t elsize, uint64_t *sig_addr, uint64_t signal, int sig_op,
                             int pe, const char *rtn) SHMEMI_WUR;
int shmemi_stream_signal_op(shmemx_stream_t stream, uint64_t *sig_addr, uint64_t signal,
                            int sig_op, int pe, const char *rtn) SHMEMI_WUR;
int shmemi_stream_signal_wait(shmemx_stream_t stream, uint64_t *sig_addr, int cmp,
                              uint64_t cmp_value, const char *rtn) SHMEMI_WUR;
int shmemi_stream_quiet(shmemx_stream_t stream, const char *rtn) SHMEMI_WUR;
/* The typed waits: the stream waits until the symmetric *ivar of this PE
 * compares to cmp_value by cmp. */
#define SHMEMI_STREAM_WAIT_DECL(TYPE, TN) \
    int shmemi_stream_##TN##_wait_until(shmemx_stream_t stream, TYPE *ivar, int cmp, \
                                        TYPE cmp_value, const char *rtn) SHMEMI_WUR;
SHMEMI_P2P_TYPES(SHMEMI_STREAM_WAIT_DECL)
#undef SHMEMI_STREAM_WAIT_DECL

/* Barrier (quiet, then sync) or sync (sync_only) of team. */
int shmemi_stream_barrier(shmemx_stream_t stream, shmem_team_t team, int sync_only,
                          const char *rtn) SHMEMI_WUR;
/* broadcast (root: a member), fcollect and alltoall of nelems elements of
 * elsize bytes, as the team routines (coll.h). */
int shmemi_stream_bcast(shmemx_stream_t stream, shmem_team_t team, void *dest, const void *src,
                        size_t nelems, size_t elsize, int root, const char *rtn) SHMEMI_WUR;
int shmemi_stream_fcollect(shmemx_stream_t stream, shmem_team_t team, void *dest,
                           const void *src, size_t nelems, size_t elsize, const char *rtn)
    SHMEMI_WUR;
int shmemi_stream_alltoall(shmemx_stream_t stream, shmem_team_t team, void *dest,
                           const void *src, size_t nelems, size_t elsize, const char *rtn)
    SHMEMI_WUR;
/* The reduction (scatter 0) or reduce-scatter (scatter 1) of type code tc
 * and operation op (coll_reduce.h). */
int shmemi_stream_reduce(shmemx_stream_t stream, shmem_team_t team, int tc, int op,
                         size_t esize, void *dest, const void *src, size_t nreduce, int scatter,
                         const char *rtn) SHMEMI_WUR;

#endif
