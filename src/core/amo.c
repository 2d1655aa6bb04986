/*
 * Atomic memory operations: the size-based core under the typed families.
 * See the atomicity rule in shmemi.h.
 */
#include "core/shmemi.h"

int shmemi_amo_direct;
int shmemi_amo_cpu_tp;
int shmemi_amo_cpu;

#define CPU_AMO(T, p, op, operand, compare, fetch)                                          \
    do {                                                                                    \
        T *w_ = (T *)(p), v_ = *(const T *)(operand), r_ = 0;                               \
        switch (op) {                                                                       \
        case SHMEMT_AOP_SET: __atomic_store_n(w_, v_, __ATOMIC_SEQ_CST); break;             \
        case SHMEMT_AOP_FETCH: r_ = __atomic_load_n(w_, __ATOMIC_SEQ_CST); break;           \
        case SHMEMT_AOP_SWAP: r_ = __atomic_exchange_n(w_, v_, __ATOMIC_SEQ_CST); break;    \
        case SHMEMT_AOP_CSWAP:                                                              \
            r_ = *(const T *)(compare);                                                     \
            __atomic_compare_exchange_n(w_, &r_, v_, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
            break;                                                                          \
        case SHMEMT_AOP_ADD: r_ = __atomic_fetch_add(w_, v_, __ATOMIC_SEQ_CST); break;      \
        case SHMEMT_AOP_AND: r_ = __atomic_fetch_and(w_, v_, __ATOMIC_SEQ_CST); break;      \
        case SHMEMT_AOP_OR: r_ = __atomic_fetch_or(w_, v_, __ATOMIC_SEQ_CST); break;        \
        case SHMEMT_AOP_XOR: r_ = __atomic_fetch_xor(w_, v_, __ATOMIC_SEQ_CST); break;      \
        }                                                                                   \
        if (fetch)                                                                          \
            *(T *)(fetch) = r_;                                                             \
    } while (0)

static void cpu_amo(void *p, int op, const void *operand, const void *compare, void *fetch,
                    size_t size)
{
    if (size == 8)
        CPU_AMO(uint64_t, p, op, operand, compare, fetch);
    else
        CPU_AMO(uint32_t, p, op, operand, compare, fetch);
}

static void __attribute__((noinline, cold))
amo_bad(const char *rtn, const void *dest, size_t size, int pe)
{
    if (pe < 0 || pe >= shmemi_g.n_pes)
        shmemi_user_error(rtn, "pe %d is out of range (the job has %d PEs: 0 to %d)", pe,
                          shmemi_g.n_pes, shmemi_g.n_pes - 1);
    if ((uintptr_t)dest % size)
        shmemi_user_error(rtn, "dest %p is not aligned to %zu bytes", dest, size);
    shmemi_user_error(rtn, "dest %p is not inside a symmetric object%s", dest,
                      shmemi_dev_note(dest, rtn));
}

void shmemi_amo(shmem_ctx_t ctx, void *dest, int op, const void *operand, const void *compare,
                void *fetch, size_t size, int pe, int nbi, const char *rtn)
{
    shmemi_amo_w(ctx, dest, op, operand, compare, fetch, size, shmemi_ctx_pe_must(ctx, pe, rtn), nbi,
                 rtn);
}

void shmemi_amo_w(shmem_ctx_t ctx, void *dest, int op, const void *operand,
                  const void *compare, void *fetch, size_t size, int pe, int nbi,
                  const char *rtn)
{
    uintptr_t off = (uintptr_t)dest - (uintptr_t)shmemi_g.heap_base;
    uint64_t soff;
    shmemt_t *tp;
    int seg, ret;
    char *local;

    if (SHMEMI_LIKELY(shmemi_amo_cpu && (unsigned)pe < (unsigned)shmemi_g.n_pes &&
                      off < shmemi_g.heap_size && off % size == 0 && shmemi_g.peer_heap[pe])) {
        cpu_amo(shmemi_g.peer_heap[pe] + off, op, operand, compare, fetch, size);
        return;
    }
    /* Globals (mapped data segment), by the same rule (shmemi_amo_local). */
    if ((uintptr_t)dest % size == 0 && (local = shmemi_amo_local(dest, size, pe)) != NULL) {
        cpu_amo(local, op, operand, compare, fetch, size);
        return;
    }
    SHMEMI_CHECK_INIT(rtn);
    if (pe < 0 || pe >= shmemi_g.n_pes || (uintptr_t)dest % size ||
        shmemi_addr_seg(dest, size, &seg, &soff))
        amo_bad(rtn, dest, size, pe);
    if (ctx == SHMEM_CTX_INVALID)
        shmemi_user_error(rtn, "ctx is SHMEM_CTX_INVALID");
    tp = shmemi_ctx_tp_issue(ctx);
    if (!tp) {
        /* A one-PE job: the CPU is the only path. */
        cpu_amo(dest, op, operand, compare, fetch, size);
        return;
    }
    if (!(tp->caps & SHMEMT_CAP_ATOMIC))
        shmemi_fatal("%s: the provider %s has no atomics", rtn, tp->prov_name);
    ret = tp->ops->atomic(tp, pe, seg, soff, op, operand, compare, fetch, size);
    shmemi_ctx_issued(ctx);
    if (ret)
        shmemi_fatal("%s: atomic on PE %d failed: %s", rtn, pe, strerror(-ret));
    (void)nbi; /* The transport's fetching atomics complete before returning. */
}
