/*
 * Signals: put with signal (typed, sized, mem; blocking and nbi; ctx
 * forms), signal_fetch, signal_add, signal_set, signal_wait_until and
 * shmemx_signal_op.
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
 * The signal update itself is an AMO through shmemi_amo, which follows the
 * atomicity rule of shmemi.h.  When that AMO would go to a provider without
 * atomics, a SET signal (one writer) is an 8-byte put after the ordering
 * step, and an ADD ends the job with an error naming the routine.
 */
#include "core/shmemi.h"
#include <pshmem.h>

/* 1 when an AMO on the heap or data word sig_addr of pe is done by the
 * CPU (see the atomicity rule), 0 when it goes through the transport. */
static inline int sig_by_cpu(const uint64_t *sig_addr, int pe)
{
    return !shmemi_g.tp || shmemi_amo_local(sig_addr, sizeof(uint64_t), pe);
}

/* 1 when a put of nbytes to dest on pe went through the transport. */
static inline int data_by_transport(const void *dest, size_t nbytes, int pe)
{
    if (!nbytes || !shmemi_g.tp)
        return 0;
    return !shmemi_direct(dest, nbytes, pe);
}

static void __attribute__((noinline, cold)) bad_sig_op(int sig_op, const char *rtn)
{
    shmemi_user_error(rtn, "sig_op %d is neither SHMEM_SIGNAL_SET (%d) nor SHMEM_SIGNAL_ADD (%d)",
                      sig_op, SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD);
}

/* SET as an 8-byte put through a transport without atomics. */
static void __attribute__((noinline)) signal_put(shmem_ctx_t ctx, const uint64_t *sig_addr,
                                                 uint64_t signal, int pe, const char *rtn)
{
    shmemt_t *tp = shmemi_ctx_tp_issue(ctx);
    uint64_t off;
    int seg, ret;

    if (pe < 0 || pe >= shmemi_g.n_pes)
        shmemi_user_error(rtn, "pe %d is out of range (the job has %d PEs: 0 to %d)", pe,
                          shmemi_g.n_pes, shmemi_g.n_pes - 1);
    if ((uintptr_t)sig_addr % sizeof(uint64_t) ||
        shmemi_addr_seg(sig_addr, sizeof(uint64_t), &seg, &off))
        shmemi_user_error(rtn, "sig_addr %p is not an aligned word of a symmetric object%s",
                          (const void *)sig_addr, shmemi_dev_note(sig_addr, rtn));
    ret = tp->ops->put(tp, pe, seg, off, &signal, sizeof(signal));
    shmemi_ctx_issued(ctx);
    if (ret)
        shmemi_fatal("%s: signalling PE %d failed: %s", rtn, pe, strerror(-ret));
}

/* The signal update after the data went (through the transport when
 * via_tp).  sig_op has been checked; pe is a world PE. */
static void signal_update(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int sig_op,
                          int pe, int via_tp, const char *rtn)
{
    int cpu = sig_by_cpu(sig_addr, pe), ret;
    shmemt_t *tp = shmemi_ctx_tp(ctx);

    if (via_tp) {
        if (cpu) {
            shmemi_quiet(ctx);
        } else {
            atomic_thread_fence(memory_order_release);
            if ((ret = tp->ops->fence(tp)))
                shmemi_fatal("%s: ordering the data before the signal failed: %s", rtn,
                             strerror(-ret));
        }
    } else {
        atomic_thread_fence(memory_order_release);
    }
    if (!cpu && !(tp->caps & SHMEMT_CAP_ATOMIC)) {
        if (sig_op == SHMEM_SIGNAL_ADD)
            shmemi_user_error(rtn, "provider %s has no atomics: SHMEM_SIGNAL_ADD needs them",
                              tp->prov_name);
        signal_put(ctx, sig_addr, signal, pe, rtn);
        return;
    }
    shmemi_amo_w(ctx, sig_addr, sig_op == SHMEM_SIGNAL_ADD ? SHMEMT_AOP_ADD : SHMEMT_AOP_SET,
               &signal, NULL, NULL, sizeof(uint64_t), pe, 0, rtn);
}

int shmemi_tp_put_signal(shmemt_t *tp, const void *dest, const void *src, size_t len,
                         const volatile uint64_t *sig, uint64_t value, int aop, int pe)
{
    uint64_t off, sig_off;
    int seg, sig_seg;

    if (!(tp->caps & SHMEMT_CAP_AMO_CPU) || (uintptr_t)sig % sizeof(uint64_t) ||
        shmemi_addr_seg(dest, len, &seg, &off) ||
        shmemi_addr_seg((const void *)sig, sizeof(uint64_t), &sig_seg, &sig_off))
        return -ENOTSUP;
    return tp->ops->put_signal(tp, pe, seg, off, src, len, sig_seg, sig_off, value, aop);
}

/* The data and the signal in one transport operation (shmemi_tp_put_signal)
 * on ctx: 0 when done, -ENOTSUP when the usual path must do it. */
static int put_signal_fused(shmem_ctx_t ctx, void *dest, const void *source, size_t nbytes,
                            uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                            const char *rtn)
{
    int ret;

    if (!(shmemi_g.tp->caps & SHMEMT_CAP_AMO_CPU))
        return -ENOTSUP;
    ret = shmemi_tp_put_signal(shmemi_ctx_tp_issue(ctx), dest, source, nbytes, sig_addr, signal,
                               sig_op == SHMEM_SIGNAL_ADD ? SHMEMT_AOP_ADD : SHMEMT_AOP_SET, pe);
    if (ret == -ENOTSUP)
        return ret;
    shmemi_ctx_issued(ctx);
    if (ret)
        shmemi_fatal("%s: put with signal to PE %d failed: %s", rtn, pe, strerror(-ret));
    return 0;
}

static inline void put_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nbytes,
                              uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, int nbi,
                              const char *rtn)
{
    SHMEMI_CHECK_INIT(rtn);
    if (SHMEMI_UNLIKELY(sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD))
        bad_sig_op(sig_op, rtn);
    if (SHMEMI_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        shmemi_user_error(rtn, "ctx is SHMEM_CTX_INVALID");
    pe = shmemi_ctx_pe_must(ctx, pe, rtn);
    if (data_by_transport(dest, nbytes, pe) && !sig_by_cpu(sig_addr, pe) &&
        put_signal_fused(ctx, dest, source, nbytes, sig_addr, signal, sig_op, pe, rtn) == 0)
        return;
    shmemi_must(shmemi_put_w(ctx, dest, source, nbytes, pe, nbi, rtn));
    signal_update(ctx, sig_addr, signal, sig_op, pe, data_by_transport(dest, nbytes, pe), rtn);
}

/* One routine and its ctx_ form (as in rma_typed.c). */
#define SHMEMI_UNPAREN(...) __VA_ARGS__
#define SHMEMI_DEF(name, ARGS, nbi, elsize) \
    void pshmem_##name ARGS \
    { \
        put_signal(SHMEM_CTX_DEFAULT, dest, source, \
                   shmemi_nbytes_must(nelems, elsize, "shmem_" #name), sig_addr, signal, sig_op, \
                   pe, nbi, "shmem_" #name); \
    } \
    SHMEMI_ALIAS(shmem_##name) \
    void pshmem_ctx_##name(shmem_ctx_t ctx, SHMEMI_UNPAREN ARGS) \
    { \
        put_signal(ctx, dest, source, shmemi_nbytes_must(nelems, elsize, "shmem_ctx_" #name), \
                   sig_addr, signal, sig_op, pe, nbi, "shmem_ctx_" #name); \
    } \
    SHMEMI_ALIAS(shmem_ctx_##name)

#define SHMEMI_A_SIG(T) \
    (T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, \
     int pe)

#define SHMEMI_TYPED(TYPE, TN) \
    SHMEMI_DEF(TN##_put_signal, SHMEMI_A_SIG(TYPE), 0, sizeof(TYPE)) \
    SHMEMI_DEF(TN##_put_signal_nbi, SHMEMI_A_SIG(TYPE), 1, sizeof(TYPE))
#define SHMEMI_SIZED(SIZE) \
    SHMEMI_DEF(put##SIZE##_signal, SHMEMI_A_SIG(void), 0, (SIZE) / 8) \
    SHMEMI_DEF(put##SIZE##_signal_nbi, SHMEMI_A_SIG(void), 1, (SIZE) / 8)

SHMEMI_RMA_TYPES(SHMEMI_TYPED)
SHMEMI_RMA_SIZES(SHMEMI_SIZED)
SHMEMI_DEF(putmem_signal, SHMEMI_A_SIG(void), 0, 1)
SHMEMI_DEF(putmem_signal_nbi, SHMEMI_A_SIG(void), 1, 1)

/* The signal word is read with a local atomic load: an AMO that fetches
 * from my own PE is a CPU load on every path (the provider does self
 * atomics with the CPU too), and a load works without provider atomics. */
uint64_t pshmem_signal_fetch(const uint64_t *sig_addr)
{
    SHMEMI_CHECK_INIT("shmem_signal_fetch");
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}
SHMEMI_ALIAS(shmem_signal_fetch)

static void signal_op(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                      const char *rtn)
{
    SHMEMI_CHECK_INIT(rtn);
    if (SHMEMI_UNLIKELY(sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD))
        bad_sig_op(sig_op, rtn);
    if (SHMEMI_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        shmemi_user_error(rtn, "ctx is SHMEM_CTX_INVALID");
    signal_update(ctx, sig_addr, signal, sig_op, shmemi_ctx_pe_must(ctx, pe, rtn), 0, rtn);
}

void pshmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_op(SHMEM_CTX_DEFAULT, sig_addr, signal, SHMEM_SIGNAL_ADD, pe, "shmem_signal_add");
}
SHMEMI_ALIAS(shmem_signal_add)

void pshmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_op(ctx, sig_addr, signal, SHMEM_SIGNAL_ADD, pe, "shmem_ctx_signal_add");
}
SHMEMI_ALIAS(shmem_ctx_signal_add)

void pshmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_op(SHMEM_CTX_DEFAULT, sig_addr, signal, SHMEM_SIGNAL_SET, pe, "shmem_signal_set");
}
SHMEMI_ALIAS(shmem_signal_set)

void pshmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_op(ctx, sig_addr, signal, SHMEM_SIGNAL_SET, pe, "shmem_ctx_signal_set");
}
SHMEMI_ALIAS(shmem_ctx_signal_set)

SHMEM_API void shmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    signal_op(SHMEM_CTX_DEFAULT, sig_addr, signal, sig_op, pe, "shmemx_signal_op");
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

uint64_t pshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    unsigned long it = 0;
    uint64_t v;

    SHMEMI_CHECK_INIT("shmem_signal_wait_until");
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
        shmemi_user_error("shmem_signal_wait_until",
                          "cmp %d is not a comparison operator (SHMEM_CMP_EQ ... SHMEM_CMP_LE)",
                          cmp);
    while (!sig_satisfied(v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE), cmp, cmp_value))
        shmemi_wait_backoff(&it);
    return v;
}
SHMEMI_ALIAS(shmem_signal_wait_until)
