/*
 * The RMA core (size based; the typed routines of the API sit on top): the
 * inline direct path to mapped peers, the slow path, strided transfers.
 */
#ifndef SHMEMI_RMA_H
#define SHMEMI_RMA_H

#include "core/addr.h"
#include "core/ctx.h"
#include "core/sync.h"
#include "core/dev.h"

/* ---- RMA core ----
 * Every routine checks its arguments (the PE, the symmetric range, the
 * size) and returns 0 or the class of the error, recorded (base/error.h).
 * pe is a world PE in the _w forms and a PE of ctx (the user's number,
 * translated first) in the others; nbi: the transfer may complete at the
 * next quiet. */

/* The slow path of a contiguous transfer: checks, then GPU memory, a
 * mapped peer or self (whose inline path a local buffer that may be GPU
 * memory sent here), or the transport. */
int shmemi_put_slow(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe,
                    int nbi, const char *rtn) SHMEMI_WUR;
int shmemi_get_slow(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe,
                    int nbi, const char *rtn) SHMEMI_WUR;

SHMEMI_INLINE SHMEMI_WUR int shmemi_put_w(shmem_ctx_t ctx, void *dest, const void *src,
                                          size_t nbytes, int pe, int nbi, const char *rtn)
{
    char *p = shmemi_direct(dest, nbytes, pe);
    if (SHMEMI_LIKELY(p != NULL) && SHMEMI_LIKELY(!shmemi_dev_maybe(src))) {
        memcpy(p, src, nbytes);
        shmemi_ring(pe);
        return 0;
    }
    return shmemi_put_slow(ctx, dest, src, nbytes, pe, nbi, rtn);
}

SHMEMI_INLINE SHMEMI_WUR int shmemi_get_w(shmem_ctx_t ctx, void *dest, const void *src,
                                          size_t nbytes, int pe, int nbi, const char *rtn)
{
    char *p = shmemi_direct(src, nbytes, pe);
    if (SHMEMI_LIKELY(p != NULL) && SHMEMI_LIKELY(!shmemi_dev_maybe(dest))) {
        memcpy(dest, p, nbytes);
        shmemi_poll_tick();
        return 0;
    }
    return shmemi_get_slow(ctx, dest, src, nbytes, pe, nbi, rtn);
}

/* count * elsize into *n_p; SHMEMX_ERROR_INVALID_VALUE on overflow. */
int shmemi_nbytes_overflow(size_t count, size_t elsize, const char *rtn) SHMEMI_WUR;
SHMEMI_INLINE SHMEMI_WUR int shmemi_nbytes(size_t count, size_t elsize, size_t *n_p,
                                           const char *rtn)
{
    if (SHMEMI_UNLIKELY(__builtin_mul_overflow(count, elsize, n_p)))
        return shmemi_nbytes_overflow(count, elsize, rtn);
    return 0;
}

/* The checks of the slow path without the transfer, for a caller that
 * runs the transfer later (a stream's enqueue): the library is
 * initialized, ctx is not SHMEM_CTX_INVALID, world PE pe is in range and
 * [remote, remote + nbytes) is symmetric host memory (dest of a put,
 * source of a get; not the device heap, which the slow path hands to
 * shmemi_dev_rma). */
int shmemi_rma_check(shmem_ctx_t ctx, const void *remote, size_t nbytes, int pe, int is_put,
                     const char *rtn) SHMEMI_WUR;
/* [addr, addr + len) lies inside one symmetric segment (len 0: nothing to
 * check); what names the argument in the message. */
int shmemi_check_sym(const void *addr, size_t len, const char *what, const char *rtn)
    SHMEMI_WUR;

/* nelems elements of elsize bytes between dest and src on pe, a PE of ctx
 * (is_put: to pe; nbi as above). */
SHMEMI_INLINE SHMEMI_WUR int shmemi_rma(shmem_ctx_t ctx, void *dest, const void *src,
                                        size_t nelems, size_t elsize, int pe, int is_put,
                                        int nbi, const char *rtn)
{
    size_t n;
    int rc = shmemi_nbytes(nelems, elsize, &n, rtn);

    if (SHMEMI_UNLIKELY(rc))
        return rc;
    if (SHMEMI_UNLIKELY((rc = shmemi_ctx_pe(ctx, &pe, rtn))))
        return rc;
    return is_put ? shmemi_put_w(ctx, dest, src, n, pe, nbi, rtn)
                  : shmemi_get_w(ctx, dest, src, n, pe, nbi, rtn);
}

SHMEMI_INLINE SHMEMI_WUR int shmemi_put(shmem_ctx_t ctx, void *dest, const void *src,
                                        size_t nbytes, int pe, const char *rtn)
{
    return shmemi_rma(ctx, dest, src, nbytes, 1, pe, 1, 0, rtn);
}
SHMEMI_INLINE SHMEMI_WUR int shmemi_put_nbi(shmem_ctx_t ctx, void *dest, const void *src,
                                            size_t nbytes, int pe, const char *rtn)
{
    return shmemi_rma(ctx, dest, src, nbytes, 1, pe, 1, 1, rtn);
}
SHMEMI_INLINE SHMEMI_WUR int shmemi_get(shmem_ctx_t ctx, void *dest, const void *src,
                                        size_t nbytes, int pe, const char *rtn)
{
    return shmemi_rma(ctx, dest, src, nbytes, 1, pe, 0, 0, rtn);
}
SHMEMI_INLINE SHMEMI_WUR int shmemi_get_nbi(shmem_ctx_t ctx, void *dest, const void *src,
                                            size_t nbytes, int pe, const char *rtn)
{
    return shmemi_rma(ctx, dest, src, nbytes, 1, pe, 0, 1, rtn);
}

/* Strided forms: element size elsize, blocks of bsize elements, strides in
 * elements (tst for the target, sst for the source), nblocks blocks.
 * iput/iget are the bsize == 1 case.  pe is a PE of ctx. */
int shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t tst, ptrdiff_t sst,
                size_t bsize, size_t nblocks, size_t elsize, int pe, const char *rtn) SHMEMI_WUR;
int shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t tst, ptrdiff_t sst,
                size_t bsize, size_t nblocks, size_t elsize, int pe, const char *rtn) SHMEMI_WUR;
/* iput whose puts through the transport complete at the next quiet (the
 * sources are not reusable before it): a stream's executor. */
int shmemi_iput_nbi(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t tst, ptrdiff_t sst,
                    size_t bsize, size_t nblocks, size_t elsize, int pe, const char *rtn)
    SHMEMI_WUR;
/* The checks of a strided transfer without the transfer: *pe_p from a PE
 * of ctx to a world PE, then the checks of the slow path over the remote
 * extent (the lowest and the highest block; rst its stride). */
int shmemi_strided_check(shmem_ctx_t ctx, const void *remote, ptrdiff_t rst, size_t bsize,
                         size_t nblocks, size_t elsize, int *pe_p, int is_put, const char *rtn)
    SHMEMI_WUR;

#endif
