/*
 * Atomic memory operations: the size-based core under the typed families,
 * and the atomicity rule.
 */
#ifndef SHMEMI_AMO_H
#define SHMEMI_AMO_H

#include "core/addr.h"
#include "core/ctx.h"
#include "core/sync.h"

/* ---- atomics (src/core/amo.c) ----
 * The atomicity rule: all AMOs on one word take one path.  When every PE
 * maps every other PE's heap (one node, direct path on), heap AMOs are CPU
 * atomics on the mapped word.  When the transport's atomics are CPU
 * atomics too, applied by the target (active messages: the transport
 * reports SHMEMT_CAP_AMO_CPU), AMOs on mapped words are CPU atomics and
 * the others go through the transport: both paths end in the same
 * instructions on the same word.  Otherwise every AMO, to self and node
 * peers included, goes through the provider, whose atomics are then the
 * only writers.  Words of the data segment (globals) follow the same rule
 * with the mapping of the data (FABSHMEM_MAP_DATA): CPU atomics when every
 * PE maps every PE's heap and data, or the transport's AMOs are CPU
 * atomics and the word is mapped, else the provider.  Words of registered
 * symmetric buffers too, with the mapping of the buffer: CPU atomics when
 * every PE maps every PE's copy, or the transport's AMOs are CPU atomics
 * and the word is mapped (ext[].amo_cpu, decided at registration), else
 * the provider.  Words of GPU memory of the device heap (and GPU memory
 * registered as symmetric) are the GPU's system-scope atomics on every
 * path, the kernels' included: this PE's GPU where the word is mapped,
 * else the target's GPU at the request of its staging thread
 * (shmemi_dev_amo, src/core/dev_amo.c).  shmemi_amo_direct
 * holds the first choice made at init (every heap mapped),
 * shmemi_amo_cpu_tp the second (the transport's capability), and
 * shmemi_amo_cpu either of them; shmemi_amo_local applies the rule to one
 * word. */
extern int shmemi_amo_direct SHMEMI_HIDDEN;
extern int shmemi_amo_cpu_tp SHMEMI_HIDDEN;
extern int shmemi_amo_cpu SHMEMI_HIDDEN;

/* The mapped address of the size-byte word dest on (world) pe when AMOs on
 * it are CPU atomics, else NULL. */
static inline char *shmemi_amo_local(const void *dest, size_t size, int pe)
{
    uintptr_t off;
    char *p = NULL;
    if ((unsigned)pe >= (unsigned)shmemi_g.n_pes)
        return NULL;
    /* A heap word is in no registered buffer. */
    if (shmemi_heap_off(dest, size, &off))
        return shmemi_amo_cpu && shmemi_g.peer_heap[pe] ? shmemi_g.peer_heap[pe] + off : NULL;
    if (shmemi_amo_cpu) {
        if (shmemi_g.data_all_mapped || shmemi_amo_cpu_tp)
            p = shmemi_data_direct(dest, size, pe);
    }
    /* Registered buffers decide for themselves (ext[].amo_cpu). */
    if (!p && SHMEMI_UNLIKELY(shmemi_g.n_ext_mapped))
        p = shmemi_ext_direct(dest, size, pe, 1);
    return p;
}

/* One AMO of type T by the CPU on the word at p (op: SHMEMT_AOP_*). */
#define SHMEMI_CPU_AMO(T, p, op, operand, compare, fetch)                                   \
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

/* An AMO by the CPU on the size-byte word at p (4 or 8).  Inline: where op
 * and size are constants (the typed routines) it is one instruction. */
SHMEMI_INLINE void shmemi_cpu_amo(void *p, int op, const void *operand, const void *compare,
                                  void *fetch, size_t size)
{
    if (size == 8)
        SHMEMI_CPU_AMO(uint64_t, p, op, operand, compare, fetch);
    else
        SHMEMI_CPU_AMO(uint32_t, p, op, operand, compare, fetch);
}
/* After a CPU AMO on pe's word by the node path: a fetch writes nothing;
 * the others ring pe's doorbell (a thread of pe may sleep on its words). */
SHMEMI_INLINE void shmemi_cpu_amo_ring(int op, int pe)
{
    if (op != SHMEMT_AOP_FETCH)
        shmemi_ring(pe);
}

/* op: SHMEMT_AOP_*; size 4 or 8 (integers; float/double as their bits for
 * fetch, set, swap, cswap).  operand/compare/fetch point to size bytes;
 * fetch may be NULL for non-fetching ops and is written only on success.
 * nbi: fetch valid after quiet.  pe is a world PE (shmemi_amo_w) or a PE
 * of ctx (shmemi_amo).  0, or the class of the error, recorded: a bad PE,
 * a target that is not an aligned word of a symmetric object, ctx
 * SHMEM_CTX_INVALID, a provider without atomics, a transport failure.
 *
 * The heap word of a mapped peer whose AMOs are CPU atomics (the atomicity
 * rule) takes the inline branch: no call.  Everything else (globals,
 * registered buffers, GPU memory, the transport, the checks) is
 * shmemi_amo_slow.  An AMO on GPU memory is complete at return, nbi or
 * not. */
int shmemi_amo_slow(shmem_ctx_t ctx, void *dest, int op, const void *operand,
                    const void *compare, void *fetch, size_t size, int pe, int nbi,
                    const char *rtn) SHMEMI_WUR;

SHMEMI_INLINE SHMEMI_WUR int shmemi_amo_w(shmem_ctx_t ctx, void *dest, int op,
                                          const void *operand, const void *compare, void *fetch,
                                          size_t size, int pe, int nbi, const char *rtn)
{
    uintptr_t off;

    if (SHMEMI_LIKELY(shmemi_amo_cpu && (unsigned)pe < (unsigned)shmemi_g.n_pes &&
                      shmemi_heap_off(dest, size, &off) && off % size == 0 &&
                      shmemi_g.peer_heap[pe])) {
        shmemi_cpu_amo(shmemi_g.peer_heap[pe] + off, op, operand, compare, fetch, size);
        shmemi_cpu_amo_ring(op, pe);
        if (fetch)
            shmemi_poll_tick();
        return 0;
    }
    return shmemi_amo_slow(ctx, dest, op, operand, compare, fetch, size, pe, nbi, rtn);
}

SHMEMI_INLINE SHMEMI_WUR int shmemi_amo(shmem_ctx_t ctx, void *dest, int op, const void *operand,
                                        const void *compare, void *fetch, size_t size, int pe,
                                        int nbi, const char *rtn)
{
    int rc = shmemi_ctx_pe(ctx, &pe, rtn);

    if (SHMEMI_UNLIKELY(rc))
        return rc;
    return shmemi_amo_w(ctx, dest, op, operand, compare, fetch, size, pe, nbi, rtn);
}

#endif
