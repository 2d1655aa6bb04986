/*
 * RMA slow paths: argument checks, self and transport traffic (on the
 * context's transport), strided transfers.  The fast path to mapped peers
 * is inline in shmemi.h.
 */
#include "core/shmemi.h"

static void __attribute__((noinline, cold))
bad_remote(const char *rtn, const char *argname, const void *addr, size_t nbytes)
{
    shmemi_user_error(rtn, "%s %p (%zu bytes) is not inside a symmetric object (the heap is "
                      "[%p, %p), the data segment [%p, %p))", argname, addr, nbytes,
                      (void *)shmemi_g.heap_base, (void *)(shmemi_g.heap_base + shmemi_g.heap_size),
                      (void *)shmemi_g.data_base, (void *)(shmemi_g.data_base + shmemi_g.data_size));
}

static inline void check_common(shmem_ctx_t ctx, int pe, const char *rtn)
{
    SHMEMI_CHECK_INIT(rtn);
    if (SHMEMI_UNLIKELY(pe < 0 || pe >= shmemi_g.n_pes))
        shmemi_user_error(rtn, "pe %d is out of range (the job has %d PEs: 0 to %d)", pe,
                          shmemi_g.n_pes, shmemi_g.n_pes - 1);
    if (SHMEMI_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        shmemi_user_error(rtn, "ctx is SHMEM_CTX_INVALID");
}

void shmemi_put_slow(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, int nbi,
                     const char *rtn)
{
    shmemt_t *tp;
    int seg, ret;
    uint64_t off;

    check_common(ctx, pe, rtn);
    if (shmemi_addr_seg(dest, nbytes, &seg, &off))
        bad_remote(rtn, "dest", dest, nbytes);
    if (nbytes == 0)
        return;
    if (pe == shmemi_g.my_pe) {
        memmove(dest, src, nbytes);
        return;
    }
    tp = shmemi_ctx_tp_issue(ctx);
    ret = nbi ? tp->ops->put_nbi(tp, pe, seg, off, src, nbytes)
              : tp->ops->put(tp, pe, seg, off, src, nbytes);
    shmemi_ctx_issued(ctx);
    if (ret)
        shmemi_fatal("%s: put of %zu bytes to PE %d failed: %s", rtn, nbytes, pe, strerror(-ret));
}

void shmemi_get_slow(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, int nbi,
                     const char *rtn)
{
    shmemt_t *tp;
    int seg, ret;
    uint64_t off;

    check_common(ctx, pe, rtn);
    if (shmemi_addr_seg(src, nbytes, &seg, &off))
        bad_remote(rtn, "source", src, nbytes);
    if (nbytes == 0)
        return;
    if (pe == shmemi_g.my_pe) {
        memmove(dest, src, nbytes);
        return;
    }
    tp = shmemi_ctx_tp_issue(ctx);
    ret = nbi ? tp->ops->get_nbi(tp, pe, seg, off, dest, nbytes)
              : tp->ops->get(tp, pe, seg, off, dest, nbytes);
    shmemi_ctx_issued(ctx);
    if (ret)
        shmemi_fatal("%s: get of %zu bytes from PE %d failed: %s", rtn, nbytes, pe, strerror(-ret));
}

/* Checks that every block of a strided transfer lies inside one symmetric
 * segment: the lowest and the highest byte touched. */
static void check_strided(const void *remote, ptrdiff_t st, size_t bsize, size_t nblocks,
                          size_t elsize, const char *argname, const char *rtn)
{
    size_t blen, span;
    int seg1, seg2;
    uint64_t off;
    const char *lo, *hi;

    if (__builtin_mul_overflow(bsize, elsize, &blen) ||
        __builtin_mul_overflow((size_t)(st < 0 ? -st : st), (nblocks - 1), &span) ||
        __builtin_mul_overflow(span, elsize, &span))
        shmemi_user_error(rtn, "stride %td, block size %zu and %zu blocks overflow the address "
                          "space", st, bsize, nblocks);
    lo = st < 0 ? (const char *)remote - span : (const char *)remote;
    hi = lo + span;
    if (shmemi_addr_seg(lo, blen, &seg1, &off) || shmemi_addr_seg(hi, blen, &seg2, &off) ||
        seg1 != seg2)
        bad_remote(rtn, argname, lo, span + blen);
}

/* The strided transfers: nblocks blocks of bsize elements; block i is at
 * element i * tst of the target array (dest) and i * sst of the source.
 * pe is a PE of ctx. */
static void strided(shmem_ctx_t ctx, char *dest, const char *src, ptrdiff_t tst, ptrdiff_t sst,
                    size_t bsize, size_t nblocks, size_t elsize, int pe, int is_put,
                    const char *rtn)
{
    const char *remote = is_put ? dest : src;
    ptrdiff_t rst = is_put ? tst : sst, es = (ptrdiff_t)elsize;
    size_t i, blen = bsize * elsize;
    char *peer;
    shmemt_t *tp;
    int ret;

    pe = shmemi_ctx_pe(ctx, pe, rtn);
    check_common(ctx, pe, rtn);
    if (nblocks == 0 || bsize == 0)
        return;
    check_strided(remote, rst, bsize, nblocks, elsize, is_put ? "dest" : "source", rtn);
    peer = pe == shmemi_g.my_pe ? (char *)remote : shmemi_peer_addr(remote, pe);
    if (peer) {
        /* Mapped (or self): copy the blocks straight to or from the heap. */
        for (i = 0; i < nblocks; i++) {
            ptrdiff_t r = (ptrdiff_t)i * rst * es;
            if (is_put)
                memcpy(peer + r, src + (ptrdiff_t)i * sst * es, blen);
            else
                memcpy(dest + (ptrdiff_t)i * tst * es, peer + r, blen);
        }
        return;
    }
    /* Through the transport: one blocking put per block (each leaves the
     * source reusable on return); the gets all in flight at once, then one
     * completion wait. */
    for (i = 0; i < nblocks; i++) {
        char *d = dest + (ptrdiff_t)i * tst * es;
        const char *s = src + (ptrdiff_t)i * sst * es;
        if (is_put)
            shmemi_put_slow(ctx, d, s, blen, pe, 0, rtn);
        else
            shmemi_get_slow(ctx, d, s, blen, pe, 1, rtn);
    }
    tp = shmemi_ctx_tp(ctx);
    if (!is_put && (ret = tp->ops->quiet(tp)))
        shmemi_fatal("%s: completing strided get from PE %d failed: %s", rtn, pe, strerror(-ret));
}

void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t tst, ptrdiff_t sst,
                 size_t bsize, size_t nblocks, size_t elsize, int pe, const char *rtn)
{
    strided(ctx, dest, src, tst, sst, bsize, nblocks, elsize, pe, 1, rtn);
}

void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t tst, ptrdiff_t sst,
                 size_t bsize, size_t nblocks, size_t elsize, int pe, const char *rtn)
{
    strided(ctx, dest, src, tst, sst, bsize, nblocks, elsize, pe, 0, rtn);
}
