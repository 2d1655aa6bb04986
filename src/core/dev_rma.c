/*
 * RMA on GPU memory (docs/gpu.md): the RMA slow path hands over every
 * transfer whose symmetric side lies in the device heap, and those whose
 * local side does while the symmetric side is host memory of a PE that is
 * not mapped.  Every transfer here is complete when it returns: a copy of
 * the GPU is waited for, a staged one is acknowledged by its target, and
 * one through a provider that moves GPU memory is quieted.
 */
#include "core/rma.h"
#include "core/dev.h"

/* put: local (GPU memory of the device heap) to host symmetric remote on
 * pe, which the CPU does not reach (not mapped); get: the reverse.  In
 * chunks through the bounce buffer (a provider that takes GPU memory
 * moves the device heap, which is registered, without this:
 * shmemi_dev_rma_case). */
static int dev_local(shmem_ctx_t ctx, char *local, char *remote, size_t n, int pe, int is_put,
                     const char *rtn)
{
    size_t cap, done, len;
    char *bounce;
    int rc = 0;

    bounce = shmemi_dev_bounce_get(&cap);
    for (done = 0; done < n && !rc; done += len) {
        len = n - done < cap ? n - done : cap;
        if (is_put) {
            if (!(rc = shmemi_cuda_copy(bounce, local + done, len, rtn)))
                rc = shmemi_put_slow(ctx, remote + done, bounce, len, pe, 0, rtn);
        } else if (!(rc = shmemi_get_slow(ctx, bounce, remote + done, len, pe, 0, rtn))) {
            rc = shmemi_cuda_copy(local + done, bounce, len, rtn);
        }
    }
    shmemi_dev_bounce_put();
    return rc;
}

/* Through a provider that moves GPU memory: offset off of pe's device heap
 * (transport segment SHMEMT_SEG_DEV).  A local buffer the provider can
 * take (host memory, or the device heap, which is registered) goes as it
 * is; other GPU memory through the bounce buffer. */
static int dev_hmem(shmem_ctx_t ctx, char *local, uint64_t off, size_t n, int pe, int is_put,
                    const char *rtn)
{
    shmemt_t *tp = shmemi_ctx_tp_issue(ctx);
    size_t cap, done, len;
    uint64_t loff;
    char *bounce, *buf;
    int ret = 0, rc = 0;

    if (shmemi_dev_range(local, n, &loff) || !shmemi_cuda_is_device(local)) {
        ret = is_put ? tp->ops->put(tp, pe, SHMEMT_SEG_DEV, off, local, n)
                     : tp->ops->get(tp, pe, SHMEMT_SEG_DEV, off, local, n);
    } else {
        bounce = shmemi_dev_bounce_get(&cap);
        for (done = 0; done < n && !ret && !rc; done += len) {
            len = n - done < cap ? n - done : cap;
            buf = local + done;
            if (is_put && !(rc = shmemi_cuda_copy(bounce, buf, len, rtn)))
                ret = tp->ops->put(tp, pe, SHMEMT_SEG_DEV, off + done, bounce, len);
            else if (!is_put && !(ret = tp->ops->get(tp, pe, SHMEMT_SEG_DEV, off + done, bounce,
                                                     len)))
                rc = shmemi_cuda_copy(buf, bounce, len, rtn);
        }
        shmemi_dev_bounce_put();
    }
    if (!ret && !rc)
        ret = tp->ops->quiet(tp);
    if (ret)
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT),
                                "%s: %s of %zu bytes of GPU memory %s PE %d failed: %s", rtn,
                                is_put ? "put" : "get", n, is_put ? "to" : "from", pe,
                                strerror(-ret));
    return rc;
}

static __thread int dev_thread_stages;

void shmemi_dev_thread_stages(int on)
{
    dev_thread_stages = on;
}

int shmemi_dev_hmem_copies(void)
{
    return shmemi_g.dheap_remote == SHMEMI_DEV_REMOTE_HMEM && shmemi_g.tp &&
           (shmemi_g.tp->caps & SHMEMT_CAP_HMEM_COPY);
}

int shmemi_dev_rma(shmem_ctx_t ctx, void *local, void *remote, size_t nbytes, int pe, int nbi,
                   int is_put, const char *rtn)
{
    char *peer;
    uint64_t off;

    (void)nbi; /* Every transfer is complete at return. */
    if (!shmemi_dev_range(remote, nbytes, &off)) {
        /* Host memory that this PE's CPU reaches (its own, a mapped
         * peer's): a copy of the GPU, which reads and writes both. */
        if ((peer = shmemi_direct(remote, nbytes, pe))) {
            int rc = is_put ? shmemi_cuda_copy(peer, local, nbytes, rtn)
                            : shmemi_cuda_copy(local, peer, nbytes, rtn);
            if (!rc && is_put)
                shmemi_ring(pe);
            return rc;
        }
        return dev_local(ctx, local, remote, nbytes, pe, is_put, rtn);
    }
    peer = shmemi_g.peer_dheap[pe];
    if (peer)
        return is_put ? shmemi_cuda_copy(peer + off, local, nbytes, rtn)
                      : shmemi_cuda_copy(local, peer + off, nbytes, rtn);
    if (shmemi_g.dheap_remote == SHMEMI_DEV_REMOTE_HMEM &&
        !(dev_thread_stages && shmemi_dev_hmem_copies()))
        return dev_hmem(ctx, local, off, nbytes, pe, is_put, rtn);
    return shmemi_dev_staged(local, off, nbytes, pe, is_put, rtn);
}

const char *shmemi_dev_note(const void *addr, const char *rtn)
{
    static __thread char buf[192];
    uint64_t off;

    if (!shmemi_dev_range(addr, 1, &off))
        return "";
    snprintf(buf, sizeof(buf), " (it is GPU memory of the device heap, which %s does not take "
             "yet: docs/gpu.md lists what does)", rtn);
    return buf;
}
