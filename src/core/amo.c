/*
 * Atomic memory operations: the slow path of the size-based core under the
 * typed families (the inline fast path is in core/amo.h).  See the
 * atomicity rule in core/amo.h.
 */
#include "core/amo.h"
#include "core/sync.h"
#include "core/dev.h"

int shmemi_amo_direct;
int shmemi_amo_cpu_tp;
int shmemi_amo_cpu;

static int __attribute__((noinline, cold))
amo_bad(const char *rtn, const void *dest, size_t size, int pe)
{
    if (pe < 0 || pe >= shmemi_g.n_pes)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "pe %d is out of range (the job has "
                          "%d PEs: 0 to %d)", pe, shmemi_g.n_pes, shmemi_g.n_pes - 1);
    if ((uintptr_t)dest % size)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "dest %p is not aligned to %zu bytes",
                          dest, size);
    return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "dest %p is not inside a symmetric "
                      "object%s", dest, shmemi_dev_note(dest, rtn));
}

static int __attribute__((noinline, cold)) amo_bad_ctx(const char *rtn)
{
    return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "ctx is SHMEM_CTX_INVALID");
}

int shmemi_amo_slow(shmem_ctx_t ctx, void *dest, int op, const void *operand,
                    const void *compare, void *fetch, size_t size, int pe, int nbi,
                    const char *rtn)
{
    uint64_t soff;
    shmemt_t *tp;
    int seg, ret;
    char *local;

    /* Globals (mapped data segment) and registered buffers, by the same
     * rule (shmemi_amo_local). */
    if ((uintptr_t)dest % size == 0 && (local = shmemi_amo_local(dest, size, pe)) != NULL) {
        shmemi_cpu_amo(local, op, operand, compare, fetch, size);
        shmemi_cpu_amo_ring(op, pe);
        return 0;
    }
    if ((ret = shmemi_check_init(rtn)))
        return ret;
    if (pe < 0 || pe >= shmemi_g.n_pes || (uintptr_t)dest % size ||
        shmemi_addr_seg(dest, size, &seg, &soff)) {
        /* GPU memory of the device heap: the GPU's atomics (dev_amo.c). */
        if (!(pe < 0 || pe >= shmemi_g.n_pes || (uintptr_t)dest % size) &&
            shmemi_g.dheap_size && shmemi_dev_range(dest, size, &soff))
            return ctx == SHMEM_CTX_INVALID ? amo_bad_ctx(rtn)
                                            : shmemi_dev_amo(soff, op, operand, compare, fetch,
                                                             size, pe, rtn);
        return amo_bad(rtn, dest, size, pe);
    }
    if (ctx == SHMEM_CTX_INVALID)
        return amo_bad_ctx(rtn);
    tp = shmemi_ctx_tp_issue(ctx);
    if (!tp) {
        /* A one-PE job: the CPU is the only path. */
        shmemi_cpu_amo(dest, op, operand, compare, fetch, size);
        shmemi_cpu_amo_ring(op, pe);
        return 0;
    }
    if (!(tp->caps & SHMEMT_CAP_ATOMIC))
        return shmemi_err_fatal(SHMEMX_ERROR_NOT_SUPPORTED, "%s: the provider %s has no atomics",
                                rtn, tp->prov_name);
    ret = tp->ops->atomic(tp, pe, seg, soff, op, operand, compare, fetch, size);
    shmemi_ctx_issued(ctx);
    if (ret)
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT),
                                "%s: atomic on PE %d failed: %s", rtn, pe, strerror(-ret));
    (void)nbi; /* The transport's fetching atomics complete before returning. */
    return 0;
}
