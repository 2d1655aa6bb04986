/*
 * Atomic memory operations: the size-based core under the typed families,
 * and the atomicity rule.
 */
#ifndef SHMEMI_AMO_H
#define SHMEMI_AMO_H

#include "core/addr.h"
#include "core/ctx.h"

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
 * the provider.  shmemi_amo_direct
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
    uintptr_t off = (uintptr_t)dest - (uintptr_t)shmemi_g.heap_base;
    char *p = NULL;
    if ((unsigned)pe >= (unsigned)shmemi_g.n_pes)
        return NULL;
    /* A heap word is in no registered buffer. */
    if (off < shmemi_g.heap_size && size <= shmemi_g.heap_size - off)
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

/* Puts len bytes from src to dest on (world) pe and updates the 8-byte
 * signal word sig there with aop (SHMEMT_AOP_SET or SHMEMT_AOP_ADD) in one
 * operation of transport tp, when its AMOs are applied by the target
 * (SHMEMT_CAP_AMO_CPU) and it can: 0 when done, -ENOTSUP when the caller
 * must put, fence and signal itself (also for addresses the usual path
 * will name in its error), another negative errno when it failed.  The
 * caller accounts for the issued operation. */
int shmemi_tp_put_signal(shmemt_t *tp, const void *dest, const void *src, size_t len,
                         const volatile uint64_t *sig, uint64_t value, int aop, int pe);

/* op: SHMEMT_AOP_*; size 4 or 8 (integers; float/double as their bits for
 * fetch, set, swap, cswap).  operand/compare/fetch point to size bytes;
 * fetch may be NULL for non-fetching ops.  nbi: fetch valid after quiet.
 * pe is a PE of ctx (shmemi_amo_w: a world PE). */
void shmemi_amo(shmem_ctx_t ctx, void *dest, int op, const void *operand, const void *compare,
                void *fetch, size_t size, int pe, int nbi, const char *rtn);
void shmemi_amo_w(shmem_ctx_t ctx, void *dest, int op, const void *operand,
                  const void *compare, void *fetch, size_t size, int pe, int nbi,
                  const char *rtn);

#endif
