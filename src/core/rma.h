/*
 * The RMA core (size based; the typed routines of the API sit on top): the
 * inline direct path to mapped peers, the slow path, strided transfers.
 */
#ifndef SHMEMI_RMA_H
#define SHMEMI_RMA_H

#include "core/addr.h"
#include "core/ctx.h"

/* ---- RMA core (size based; typed wrappers sit on top) ---- */
/* Each checks its arguments (pe range, symmetric range, size overflow) and
 * ends the job naming rtn on bad input. */
void shmemi_put_slow(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe,
                     int nbi, const char *rtn);
void shmemi_get_slow(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe,
                     int nbi, const char *rtn);

/* The put and get cores: pe is a world PE (shmemi_put_w ...) or a PE of
 * the context (shmemi_put ...: the user's number, translated first). */
static inline void shmemi_put_w(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                                int pe, int nbi, const char *rtn)
{
    char *p = shmemi_direct(dest, nbytes, pe);
    if (SHMEMI_LIKELY(p != NULL))
        memcpy(p, src, nbytes);
    else
        shmemi_put_slow(ctx, dest, src, nbytes, pe, nbi, rtn);
}

static inline void shmemi_get_w(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                                int pe, int nbi, const char *rtn)
{
    char *p = shmemi_direct(src, nbytes, pe);
    if (SHMEMI_LIKELY(p != NULL))
        memcpy(dest, p, nbytes);
    else
        shmemi_get_slow(ctx, dest, src, nbytes, pe, nbi, rtn);
}

static inline void shmemi_put(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                              int pe, const char *rtn)
{
    shmemi_put_w(ctx, dest, src, nbytes, shmemi_ctx_pe(ctx, pe, rtn), 0, rtn);
}

static inline void shmemi_put_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                                  int pe, const char *rtn)
{
    shmemi_put_w(ctx, dest, src, nbytes, shmemi_ctx_pe(ctx, pe, rtn), 1, rtn);
}

static inline void shmemi_get(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                              int pe, const char *rtn)
{
    shmemi_get_w(ctx, dest, src, nbytes, shmemi_ctx_pe(ctx, pe, rtn), 0, rtn);
}

static inline void shmemi_get_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                                  int pe, const char *rtn)
{
    shmemi_get_w(ctx, dest, src, nbytes, shmemi_ctx_pe(ctx, pe, rtn), 1, rtn);
}

/* Strided forms: element size elsize, blocks of bsize elements, strides in
 * elements (tst for the target, sst for the source), nblocks blocks.
 * iput/iget are the bsize == 1 case.  pe is a PE of ctx. */
void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t tst, ptrdiff_t sst,
                 size_t bsize, size_t nblocks, size_t elsize, int pe, const char *rtn);
void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t tst, ptrdiff_t sst,
                 size_t bsize, size_t nblocks, size_t elsize, int pe, const char *rtn);

/* Multiplies count by elsize, ending the job naming rtn on overflow. */
static inline size_t shmemi_nbytes(size_t count, size_t elsize, const char *rtn)
{
    size_t n;
    if (SHMEMI_UNLIKELY(__builtin_mul_overflow(count, elsize, &n)))
        shmemi_user_error(rtn, "nelems %zu times element size %zu overflows size_t", count, elsize);
    return n;
}

#endif
