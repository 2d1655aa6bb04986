/*
 * RMA slow paths: argument checks, self and transport traffic (on the
 * context's transport), strided transfers.  The fast path to mapped peers
 * is inline in core/rma.h.  Every routine returns 0 or the class of the
 * error, recorded (base/error.h).
 */
#include "core/rma.h"
#include "core/sync.h"
#include "core/dev.h"

static int __attribute__((noinline, cold))
bad_remote(const char *rtn, const char *argname, const void *addr, size_t nbytes)
{
    char dev[64] = "";

    if (shmemi_g.dheap_size)
        snprintf(dev, sizeof(dev), ", the device heap [%p, %p)", (void *)shmemi_g.dheap_base,
                 (void *)(shmemi_g.dheap_base + shmemi_g.dheap_size));
    return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "%s %p (%zu bytes) is not inside a "
                      "symmetric object (the heap is [%p, %p), the data segment [%p, %p)%s)",
                      argname, addr, nbytes, (void *)shmemi_g.heap_base,
                      (void *)(shmemi_g.heap_base + shmemi_g.heap_size),
                      (void *)shmemi_g.data_base, (void *)(shmemi_g.data_base + shmemi_g.data_size),
                      dev);
}

int shmemi_nbytes_overflow(size_t count, size_t elsize, const char *rtn)
{
    return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn,
                      "nelems %zu times element size %zu overflows size_t", count, elsize);
}

int shmemi_check_sym(const void *addr, size_t len, const char *what, const char *rtn)
{
    int seg;
    uint64_t off;

    if (len && shmemi_addr_seg(addr, len, &seg, &off))
        return bad_remote(rtn, what, addr, len);
    return 0;
}

/* The checks every transfer to a world PE makes. */
static inline int check_common(shmem_ctx_t ctx, int pe, const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (SHMEMI_UNLIKELY(rc))
        return rc;
    if (SHMEMI_UNLIKELY(pe < 0 || pe >= shmemi_g.n_pes))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "pe %d is out of range (the job has "
                          "%d PEs: 0 to %d)", pe, shmemi_g.n_pes, shmemi_g.n_pes - 1);
    if (SHMEMI_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "ctx is SHMEM_CTX_INVALID");
    return 0;
}

int shmemi_rma_check(shmem_ctx_t ctx, const void *remote, size_t nbytes, int pe, int is_put,
                     const char *rtn)
{
    int ret = check_common(ctx, pe, rtn), seg;
    uint64_t off;

    if (ret)
        return ret;
    /* GPU memory of the device heap: the slow path moves it (dev_rma.c). */
    if (SHMEMI_UNLIKELY(shmemi_g.dheap_size) && shmemi_dev_range(remote, nbytes ? nbytes : 1, &off))
        return 0;
    /* As the slow path: a range of 0 bytes must be symmetric too. */
    if (shmemi_addr_seg(remote, nbytes, &seg, &off))
        return bad_remote(rtn, is_put ? "dest" : "source", remote, nbytes);
    return 0;
}

/* The slow path of a put (is_put: local to remote) or a get (remote to
 * local) of nbytes on world PE pe. */
static int rma_slow(shmem_ctx_t ctx, void *local, void *remote, size_t nbytes, int pe, int nbi,
                    int is_put, const char *rtn)
{
    shmemt_t *tp;
    char *peer;
    int seg, ret;
    uint64_t off;

    if ((ret = check_common(ctx, pe, rtn)))
        return ret;
    /* GPU memory (the device heap) on either side: core/dev.h. */
    if (SHMEMI_UNLIKELY(shmemi_g.dheap_any) && shmemi_dev_rma_case(local, remote, nbytes, pe))
        return nbytes ? shmemi_dev_rma(ctx, local, remote, nbytes, pe, nbi, is_put, rtn) : 0;
    /* Nothing to move: any pointers will do (NULL ones too, which
     * OpenSHMEM allows with nelems 0). */
    if (nbytes == 0)
        return 0;
    /* Mapped (the inline path sends a local buffer here that may be GPU
     * memory, shmemi_dev_maybe, but was not), or self. */
    if (!(peer = shmemi_direct(remote, nbytes, pe))) {
        if (shmemi_addr_seg(remote, nbytes, &seg, &off))
            return bad_remote(rtn, is_put ? "dest" : "source", remote, nbytes);
        if (pe == shmemi_g.my_pe)
            peer = remote;
    }
    if (peer) {
        if (is_put) {
            memmove(peer, local, nbytes);
            shmemi_ring(pe);
        } else
            memmove(local, peer, nbytes);
        return 0;
    }
    tp = shmemi_ctx_tp_issue(ctx);
    if (is_put)
        ret = nbi ? tp->ops->put_nbi(tp, pe, seg, off, local, nbytes)
                  : tp->ops->put(tp, pe, seg, off, local, nbytes);
    else
        ret = nbi ? tp->ops->get_nbi(tp, pe, seg, off, local, nbytes)
                  : tp->ops->get(tp, pe, seg, off, local, nbytes);
    shmemi_ctx_issued(ctx);
    if (ret)
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT),
                                "%s: %s of %zu bytes %s PE %d failed: %s", rtn,
                                is_put ? "put" : "get", nbytes, is_put ? "to" : "from", pe,
                                strerror(-ret));
    return 0;
}

int shmemi_put_slow(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, int nbi,
                    const char *rtn)
{
    return rma_slow(ctx, (void *)src, dest, nbytes, pe, nbi, 1, rtn);
}

int shmemi_get_slow(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, int nbi,
                    const char *rtn)
{
    return rma_slow(ctx, dest, (void *)src, nbytes, pe, nbi, 0, rtn);
}

/* Checks that every block of a strided transfer lies inside one symmetric
 * segment: the lowest and the highest byte touched. */
static int check_strided(const void *remote, ptrdiff_t st, size_t bsize, size_t nblocks,
                         size_t elsize, int is_put, const char *rtn)
{
    size_t blen, span;
    int seg1, seg2;
    uint64_t off, off2;
    const char *lo, *hi;

    if (__builtin_mul_overflow(bsize, elsize, &blen) ||
        __builtin_mul_overflow((size_t)(st < 0 ? -st : st), (nblocks - 1), &span) ||
        __builtin_mul_overflow(span, elsize, &span))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "stride %s %td, block size %zu and "
                          "%zu blocks overflow the address space", is_put ? "dst" : "sst", st,
                          bsize, nblocks);
    lo = st < 0 ? (const char *)remote - span : (const char *)remote;
    hi = lo + span;
    /* GPU memory, the first and last blocks in one object (the device heap
     * or one registered buffer): each block through shmemi_dev_rma. */
    if (shmemi_dev_range(lo, blen, &off) && shmemi_dev_range(hi, blen, &off2) &&
        off2 - off == span)
        return 0;
    if (shmemi_addr_seg(lo, blen, &seg1, &off) || shmemi_addr_seg(hi, blen, &seg2, &off) ||
        seg1 != seg2)
        return bad_remote(rtn, is_put ? "dest" : "source", lo, span + blen);
    return 0;
}

int shmemi_strided_check(shmem_ctx_t ctx, const void *remote, ptrdiff_t rst, size_t bsize,
                         size_t nblocks, size_t elsize, int *pe_p, int is_put, const char *rtn)
{
    int ret;

    if ((ret = shmemi_ctx_pe(ctx, pe_p, rtn)) || (ret = check_common(ctx, *pe_p, rtn)))
        return ret;
    if (nblocks == 0 || bsize == 0)
        return 0;
    return check_strided(remote, rst, bsize, nblocks, elsize, is_put, rtn);
}

/* The strided transfers: nblocks blocks of bsize elements; block i is at
 * element i * tst of the target array (dest) and i * sst of the source.
 * pe is a PE of ctx.  nbi: the puts through the transport may complete at
 * the next quiet (the gets are complete at return either way). */
static int strided(shmem_ctx_t ctx, char *dest, const char *src, ptrdiff_t tst, ptrdiff_t sst,
                   size_t bsize, size_t nblocks, size_t elsize, int pe, int is_put, int nbi,
                   const char *rtn)
{
    const char *remote = is_put ? dest : src;
    ptrdiff_t rst = is_put ? tst : sst, es = (ptrdiff_t)elsize;
    size_t i, blen = bsize * elsize;
    char *peer;
    shmemt_t *tp;
    int ret, dev;

    if ((ret = shmemi_strided_check(ctx, remote, rst, bsize, nblocks, elsize, &pe, is_put, rtn)))
        return ret;
    if (nblocks == 0 || bsize == 0)
        return 0;
    peer = pe == shmemi_g.my_pe ? (char *)remote : shmemi_peer_addr(remote, pe);
    /* GPU memory: not for the CPU's memcpy; each block complete at return
     * (shmemi_dev_rma), so the gets need no quiet. */
    dev = shmemi_g.dheap_any && shmemi_dev_rma_case(is_put ? src : dest, remote, 1, pe);
    if (dev)
        peer = NULL;
    if (peer) {
        /* Mapped (or self): copy the blocks straight to or from the heap. */
        for (i = 0; i < nblocks; i++) {
            ptrdiff_t r = (ptrdiff_t)i * rst * es;
            if (is_put)
                memcpy(peer + r, src + (ptrdiff_t)i * sst * es, blen);
            else
                memcpy(dest + (ptrdiff_t)i * tst * es, peer + r, blen);
        }
        if (is_put)
            shmemi_ring(pe);
        return 0;
    }
    /* Through the transport: one blocking put per block (each leaves the
     * source reusable on return; nbi: all in flight at once); the gets all
     * in flight at once, then one completion wait. */
    for (i = 0; i < nblocks; i++) {
        char *d = dest + (ptrdiff_t)i * tst * es;
        const char *s = src + (ptrdiff_t)i * sst * es;
        ret = is_put ? shmemi_put_slow(ctx, d, s, blen, pe, nbi, rtn)
                     : shmemi_get_slow(ctx, d, s, blen, pe, 1, rtn);
        if (ret)
            return ret;
    }
    tp = shmemi_ctx_tp(ctx);
    if (!is_put && !dev && (ret = tp->ops->quiet(tp)))
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT),
                                "%s: completing strided get from PE %d failed: %s", rtn, pe,
                                strerror(-ret));
    return 0;
}

int shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t tst, ptrdiff_t sst,
                size_t bsize, size_t nblocks, size_t elsize, int pe, const char *rtn)
{
    return strided(ctx, dest, src, tst, sst, bsize, nblocks, elsize, pe, 1, 0, rtn);
}

int shmemi_iput_nbi(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t tst, ptrdiff_t sst,
                    size_t bsize, size_t nblocks, size_t elsize, int pe, const char *rtn)
{
    return strided(ctx, dest, src, tst, sst, bsize, nblocks, elsize, pe, 1, 1, rtn);
}

int shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t tst, ptrdiff_t sst,
                size_t bsize, size_t nblocks, size_t elsize, int pe, const char *rtn)
{
    return strided(ctx, dest, src, tst, sst, bsize, nblocks, elsize, pe, 0, 0, rtn);
}
