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
void shmemi_quiet(shmem_ctx_t ctx);
/* The same, returning 0 or the transport's negative errno instead of
 * ending the job (the streams' worker reports it to shmemx_stream_sync). */
int shmemi_quiet_status(shmem_ctx_t ctx);
/* Drives the provider once (cheap when nothing is outstanding); > 0 when
 * it took in traffic, 0 when none or nothing can come through it. */
int shmemi_progress(void);
/* Called in every iteration of a wait loop: progress, then after
 * env.wait_spin polls yield, then sleep with growing pauses (up to 1 ms). */
void shmemi_wait_backoff(unsigned long *iter_p);

#endif
