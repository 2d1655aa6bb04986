/*
 * Ordering (quiet, fence), progress and waiting with back-off.
 */
#ifndef SHMEMI_SYNC_H
#define SHMEMI_SYNC_H

#include "core/ctx.h"

/* ---- ordering and waiting ---- */
/* Marks that an operation was handed to the transport (call it after the
 * operation was issued: a concurrent quiet that clears the mark then
 * covers the operation). */
static inline void shmemi_tp_issued(void)
{
    if (!atomic_load_explicit(&shmemi_g.tp_dirty, memory_order_relaxed))
        atomic_store_explicit(&shmemi_g.tp_dirty, 1, memory_order_release);
}
/* The same for an operation on ctx. */
static inline void shmemi_ctx_issued(shmem_ctx_t ctx)
{
    if (!atomic_load_explicit(ctx->dirty, memory_order_relaxed))
        atomic_store_explicit(ctx->dirty, 1, memory_order_release);
}
/* Completes ctx's outstanding operations (ctx may be SHMEM_CTX_DEFAULT or
 * any live context; the caller checked it).  0, or the class of the
 * transport's failure, recorded as rtn's. */
int shmemi_quiet(shmem_ctx_t ctx, const char *rtn) SHMEMI_WUR;
/* The cores of shmem_quiet/shmem_ctx_quiet, shmem_fence/shmem_ctx_fence
 * and shmem_pe_quiet/shmem_ctx_pe_quiet: they check that the library is
 * initialized, pe_quiet that target_pes[0 .. npes) are PEs of ctx; 0, or
 * the class of the error, recorded.  On SHMEM_CTX_INVALID each does
 * nothing and succeeds, as OpenSHMEM 1.6 says ("no operation is
 * performed").  The quiet's checks are
 * inline: shmem_quiet makes one call, as it did before it returned a
 * status (put + quiet latency). */
SHMEMI_INLINE SHMEMI_WUR int shmemi_ctx_quiet(shmem_ctx_t ctx, const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (SHMEMI_UNLIKELY(rc))
        return rc;
    if (SHMEMI_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        return 0;
    return shmemi_quiet(ctx, rtn);
}
int shmemi_fence(shmem_ctx_t ctx, const char *rtn) SHMEMI_WUR;
int shmemi_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes, const char *rtn)
    SHMEMI_WUR;
/* Drives the provider once (cheap when nothing is outstanding); > 0 when
 * it took in traffic, 0 when none or nothing can come through it. */
int shmemi_progress(void);
/* Called in every iteration of a wait loop: progress, then after
 * env.wait_spin polls yield, then sleep with growing pauses (up to 1 ms). */
void shmemi_wait_backoff(unsigned long *iter_p);

#endif
