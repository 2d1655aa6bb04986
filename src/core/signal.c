/*
 * Signals: put with signal, the signal update (signal_add, signal_set,
 * shmemx_signal_op), signal_fetch and signal_wait_until.  The public
 * routines are in src/api/shmem_signal.c.
 *
 * Whoever sees the signal must see the data.  The data moves first (a
 * memcpy to a mapped peer or a put through the transport), then an
 * ordering step, then the signal update:
 *   - data by memcpy: a release fence, so the stores are visible before the
 *     signal word changes, whichever path the signal takes;
 *   - data through the transport, signal through the transport too: the
 *     transport's fence (a full quiet on providers without FI_FENCE);
 *   - data through the transport, signal by a CPU atomic (the data is in
 *     the data segment while heap atomics are direct): a quiet, since the
 *     transport cannot order its puts with a CPU store.
 * When both go through a transport whose AMOs are applied by the target
 * (active messages), the transport's put_signal does all three in one
 * message: the target copies the data, then updates the signal.
 * The signal update itself is an AMO through shmemi_amo_w, which follows
 * the atomicity rule of core/amo.h.  A signal word in GPU memory of the
 * device heap is updated by the GPU's atomic (src/core/dev_amo.c) after
 * the ordering step of a CPU atomic (the data through the transport:
 * quieted), and shmem_signal_fetch reads it with the GPU's atomic load.  When that AMO would go to a provider
 * without atomics, a SET signal (one writer) is an 8-byte put after the
 * ordering step, and an ADD fails, before the data moves, with an error
 * naming the routine.
 */
#include "core/rma.h"
#include "core/signal.h"
#include "core/sync.h"
#include "core/dev.h"
#include "core/wait.h"

/* 1 when an AMO on the heap or data word sig_addr of pe is done by the
 * CPU (see the atomicity rule), 0 when it goes through the transport. */
static inline int sig_by_cpu(const uint64_t *sig_addr, int pe)
{
    return !shmemi_g.tp || shmemi_amo_local(sig_addr, sizeof(uint64_t), pe);
}

/* 1 when the signal word is GPU memory of the device heap (its AMO is the
 * GPU's: src/core/dev_amo.c). */
static inline int sig_on_gpu(const uint64_t *sig_addr)
{
    uint64_t off;

    return SHMEMI_UNLIKELY(shmemi_g.dheap_size) &&
           shmemi_dev_range(sig_addr, sizeof(uint64_t), &off);
}

/* 1 when a put of nbytes to dest on pe went through the transport. */
static inline int data_by_transport(const void *dest, size_t nbytes, int pe)
{
    if (!nbytes || !shmemi_g.tp)
        return 0;
    return !shmemi_direct(dest, nbytes, pe);
}

static int __attribute__((noinline, cold)) bad_sig_op(int sig_op, const char *rtn)
{
    return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "sig_op %d is neither SHMEM_SIGNAL_SET "
                      "(%d) nor SHMEM_SIGNAL_ADD (%d)", sig_op, SHMEM_SIGNAL_SET,
                      SHMEM_SIGNAL_ADD);
}

static int __attribute__((noinline, cold)) bad_sig_addr(const uint64_t *sig_addr,
                                                       const char *rtn)
{
    uint64_t off;

    if (shmemi_g.dheap_size && shmemi_dev_range(sig_addr, 1, &off))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "sig_addr %p (GPU memory of the "
                          "device heap) is not an aligned 8-byte word", (const void *)sig_addr);
    return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "sig_addr %p is not an aligned word of a "
                      "symmetric object%s", (const void *)sig_addr,
                      shmemi_dev_note(sig_addr, rtn));
}

/* The checks every signal update makes before anything moves: sig_op,
 * ctx, the signal word (an aligned symmetric word: a heap word is one
 * comparison), *pe_p from a PE of ctx to a world PE, and that PE. */
static inline int check_signal(shmem_ctx_t ctx, const uint64_t *sig_addr, int sig_op, int *pe_p,
                               const char *rtn)
{
    int rc = shmemi_check_init(rtn), seg;
    uintptr_t off;
    uint64_t soff;

    if (SHMEMI_UNLIKELY(rc))
        return rc;
    if (SHMEMI_UNLIKELY(sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD))
        return bad_sig_op(sig_op, rtn);
    if (SHMEMI_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "ctx is SHMEM_CTX_INVALID");
    if (SHMEMI_UNLIKELY(!shmemi_heap_off(sig_addr, sizeof(uint64_t), &off) ||
                        off % sizeof(uint64_t)) &&
        ((uintptr_t)sig_addr % sizeof(uint64_t) ||
         (shmemi_addr_seg(sig_addr, sizeof(uint64_t), &seg, &soff) && !sig_on_gpu(sig_addr))))
        return bad_sig_addr(sig_addr, rtn);
    if (SHMEMI_UNLIKELY((rc = shmemi_ctx_pe(ctx, pe_p, rtn))))
        return rc;
    if (SHMEMI_UNLIKELY((unsigned)*pe_p >= (unsigned)shmemi_g.n_pes))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "pe %d is out of range (the job has "
                          "%d PEs: 0 to %d)", *pe_p, shmemi_g.n_pes, shmemi_g.n_pes - 1);
    /* An ADD that would go to a provider without atomics. */
    if (SHMEMI_UNLIKELY(sig_op == SHMEM_SIGNAL_ADD && shmemi_g.tp &&
                        !(shmemi_ctx_tp(ctx)->caps & SHMEMT_CAP_ATOMIC)) &&
        !sig_by_cpu(sig_addr, *pe_p) && !sig_on_gpu(sig_addr))
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "provider %s has no atomics: "
                          "SHMEM_SIGNAL_ADD needs them", shmemi_ctx_tp(ctx)->prov_name);
    return 0;
}

int shmemi_signal_check(shmem_ctx_t ctx, const uint64_t *sig_addr, int sig_op, int pe,
                        const char *rtn)
{
    return check_signal(ctx, sig_addr, sig_op, &pe, rtn);
}

/* SET as an 8-byte put through a transport without atomics (pe and
 * sig_addr were checked: the segment lookup cannot fail). */
static int __attribute__((noinline)) signal_put(shmem_ctx_t ctx, const uint64_t *sig_addr,
                                                uint64_t signal, int pe, const char *rtn)
{
    shmemt_t *tp = shmemi_ctx_tp_issue(ctx);
    uint64_t off;
    int seg, ret;

    if ((uintptr_t)sig_addr % sizeof(uint64_t) ||
        shmemi_addr_seg(sig_addr, sizeof(uint64_t), &seg, &off))
        return bad_sig_addr(sig_addr, rtn);
    ret = tp->ops->put(tp, pe, seg, off, &signal, sizeof(signal));
    shmemi_ctx_issued(ctx);
    if (ret)
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT),
                                "%s: signalling PE %d failed: %s", rtn, pe, strerror(-ret));
    return 0;
}

/* The signal update after the data went (through the transport when
 * via_tp).  sig_op has been checked; pe is a world PE. */
static int signal_update(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int sig_op,
                         int pe, int via_tp, const char *rtn)
{
    /* A signal in GPU memory is ordered as a CPU atomic is: the
     * transport's fence cannot order its puts with the GPU's atomic. */
    int gpu = sig_on_gpu(sig_addr), cpu = gpu || sig_by_cpu(sig_addr, pe), ret;
    shmemt_t *tp = shmemi_ctx_tp(ctx);

    if (via_tp) {
        if (cpu) {
            if ((ret = shmemi_quiet(ctx, rtn)))
                return ret;
        } else {
            atomic_thread_fence(memory_order_release);
            if ((ret = tp->ops->fence(tp)))
                return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT),
                                        "%s: ordering the data before the signal failed: %s",
                                        rtn, strerror(-ret));
        }
    } else {
        atomic_thread_fence(memory_order_release);
    }
    /* A SET to a provider without atomics (check_signal refused an ADD). */
    if (!cpu && !(tp->caps & SHMEMT_CAP_ATOMIC))
        return signal_put(ctx, sig_addr, signal, pe, rtn);
    return shmemi_amo_w(ctx, sig_addr, sig_op == SHMEM_SIGNAL_ADD ? SHMEMT_AOP_ADD
                                                                  : SHMEMT_AOP_SET,
                        &signal, NULL, NULL, sizeof(uint64_t), pe, 0, rtn);
}

int shmemi_tp_put_signal(shmemt_t *tp, const void *dest, const void *src, size_t len,
                         const volatile uint64_t *sig, uint64_t value, int aop, int pe,
                         int *done_p, const char *rtn)
{
    uint64_t off, sig_off;
    int seg, sig_seg, ret;

    *done_p = 0;
    if (!(tp->caps & SHMEMT_CAP_AMO_CPU) || (uintptr_t)sig % sizeof(uint64_t) ||
        shmemi_addr_seg(dest, len, &seg, &off) ||
        shmemi_addr_seg((const void *)sig, sizeof(uint64_t), &sig_seg, &sig_off))
        return 0;
    ret = tp->ops->put_signal(tp, pe, seg, off, src, len, sig_seg, sig_off, value, aop);
    if (ret == -ENOTSUP)
        return 0;
    *done_p = 1;
    if (ret)
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT),
                                "%s: put with signal to PE %d failed: %s", rtn, pe,
                                strerror(-ret));
    return 0;
}

int shmemi_put_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                      size_t elsize, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                      int nbi, const char *rtn)
{
    size_t nbytes;
    int rc, done = 0;

    if (SHMEMI_UNLIKELY((rc = shmemi_nbytes(nelems, elsize, &nbytes, rtn))) ||
        SHMEMI_UNLIKELY((rc = check_signal(ctx, sig_addr, sig_op, &pe, rtn))))
        return rc;
    /* No data (dest and source may be NULL): the signal alone. */
    if (nbytes == 0)
        return signal_update(ctx, sig_addr, signal, sig_op, pe, 0, rtn);
    /* The data and the signal in one transport operation where it can. */
    if (shmemi_g.tp && (shmemi_g.tp->caps & SHMEMT_CAP_AMO_CPU) &&
        data_by_transport(dest, nbytes, pe) && !sig_by_cpu(sig_addr, pe) &&
        !sig_on_gpu(sig_addr)) {
        rc = shmemi_tp_put_signal(shmemi_ctx_tp_issue(ctx), dest, source, nbytes, sig_addr,
                                  signal, sig_op == SHMEM_SIGNAL_ADD ? SHMEMT_AOP_ADD
                                                                     : SHMEMT_AOP_SET,
                                  pe, &done, rtn);
        if (done)
            shmemi_ctx_issued(ctx);
        if (rc || done)
            return rc;
    }
    if ((rc = shmemi_put_w(ctx, dest, source, nbytes, pe, nbi, rtn)))
        return rc;
    return signal_update(ctx, sig_addr, signal, sig_op, pe, data_by_transport(dest, nbytes, pe),
                         rtn);
}

int shmemi_signal_op(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                     const char *rtn)
{
    int rc = check_signal(ctx, sig_addr, sig_op, &pe, rtn);

    if (SHMEMI_UNLIKELY(rc))
        return rc;
    return signal_update(ctx, sig_addr, signal, sig_op, pe, 0, rtn);
}

/* The signal word is read with a local atomic load: an AMO that fetches
 * from my own PE is a CPU load on every path (the provider does self
 * atomics with the CPU too), and a load works without provider atomics. */
int shmemi_signal_fetch(const uint64_t *sig_addr, uint64_t *value_p, const char *rtn)
{
    int rc = shmemi_check_init(rtn);
    uint64_t off;

    if (SHMEMI_UNLIKELY(rc))
        return rc;
    if (SHMEMI_UNLIKELY(!sig_addr))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "sig_addr is NULL");
    /* GPU memory: an atomic load by the GPU. */
    if (SHMEMI_UNLIKELY(shmemi_g.dheap_size) &&
        shmemi_dev_range(sig_addr, sizeof(uint64_t), &off)) {
        if (off % sizeof(uint64_t))
            return bad_sig_addr(sig_addr, rtn);
        return shmemi_dev_amo(off, SHMEMT_AOP_FETCH, NULL, NULL, value_p, sizeof(uint64_t),
                              shmemi_g.my_pe, rtn);
    }
    *value_p = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
    shmemi_poll_tick(); /* a loop of fetches waits (sync.h) */
    return 0;
}

static int sig_satisfied(uint64_t v, int cmp, uint64_t c)
{
    switch (cmp) {
    case SHMEM_CMP_EQ: return v == c;
    case SHMEM_CMP_NE: return v != c;
    case SHMEM_CMP_GT: return v > c;
    case SHMEM_CMP_GE: return v >= c;
    case SHMEM_CMP_LT: return v < c;
    default: return v <= c;
    }
}

/* The condition a sleeping signal wait checks (shmemi_wait_backoff_cond). */
struct sig_wait {
    const uint64_t *sig_addr;
    int cmp;
    uint64_t cmp_value;
    uint64_t value; /* a signal word in GPU memory: the last copy's value */
};
static int sig_done(const void *arg)
{
    const struct sig_wait *a = arg;

    return sig_satisfied(__atomic_load_n(a->sig_addr, __ATOMIC_ACQUIRE), a->cmp, a->cmp_value);
}
/* The same on a copy of a signal word in GPU memory (shmemi_dev_wait). */
static int sig_copy_done(void *arg, const void *copy)
{
    struct sig_wait *a = arg;

    memcpy(&a->value, copy, sizeof(a->value));
    return sig_satisfied(a->value, a->cmp, a->cmp_value);
}

int shmemi_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value, uint64_t *value_p,
                             const char *rtn)
{
    struct sig_wait sw = { sig_addr, cmp, cmp_value, 0 };
    unsigned long it = 0;
    uint64_t v;
    int rc = shmemi_check_init(rtn);

    if (SHMEMI_UNLIKELY(rc))
        return rc;
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "cmp %d is not a comparison "
                          "operator (SHMEM_CMP_EQ ... SHMEM_CMP_LE)", cmp);
    if (!sig_addr)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "sig_addr is NULL");
    if (SHMEMI_UNLIKELY(shmemi_dev_local(sig_addr, sizeof(uint64_t)))) {
        rc = shmemi_dev_wait(sig_addr, sizeof(uint64_t), 1, sig_copy_done, &sw, rtn);
        *value_p = sw.value;
        return rc;
    }
    if (!sig_satisfied(v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE), cmp, cmp_value)) {
        shmemi_wait_note(sig_addr, cmp_value, sizeof(uint64_t), shmemi_cmp_name(cmp), 0, rtn);
        do
            shmemi_wait_backoff_cond(&it, sig_done, &sw);
        while (!sig_satisfied(v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE), cmp, cmp_value));
    }
    *value_p = v;
    return 0;
}
