/*
 * Distributed locks: the cores of shmem_set_lock, shmem_test_lock and
 * shmem_clear_lock (the public routines are in src/api/shmem_lock.c).
 *
 * An MCS queue lock built on AMOs, so that PEs under contention wait in
 * line, each on a word of its own PE, instead of hammering one word.  The
 * user's symmetric long (zero at first) is seen as two 32-bit halves:
 *   - half 0 of PE 0's copy is the queue tail: the last PE in line plus
 *     one, or 0 when the lock is free;
 *   - half 1 of every PE's copy is that PE's queue node: bit 0 is the 'go'
 *     flag its predecessor sets when it hands the lock over, bits 1 to 31
 *     are its successor plus one (0: none yet).  The two fields are set
 *     with atomic OR, so neither write can undo the other.
 * set_lock resets its node, swaps itself into the tail and, when there was
 * a previous tail, links itself behind it (OR into its node) and waits for
 * its own go flag.  clear_lock quiets, then tries to swing the tail from
 * itself back to 0; if a successor got in line meanwhile, it waits until
 * the successor has linked itself and sets the successor's go flag.
 * Every access to these words is a 4-byte shmemi_amo (the atomicity rule),
 * so a provider without atomics cannot serve locks reached through it.
 */
#include "core/amo.h"
#include "core/sync.h"
#include "core/lock.h"

#define LOCK_GO 1u

static inline uint32_t *tail_word(long *lock) { return (uint32_t *)(void *)lock; }
static inline uint32_t *node_word(long *lock) { return (uint32_t *)(void *)lock + 1; }

/* A 4-byte AMO on the lock word w of pe; the old value into *old_p. */
static int lk_amo(uint32_t *w, int op, uint32_t v, uint32_t cmp, int pe, uint32_t *old_p,
                  const char *rtn)
{
    *old_p = 0;
    return shmemi_amo(SHMEM_CTX_DEFAULT, w, op, &v, &cmp, old_p, sizeof(uint32_t), pe, 0, rtn);
}

/* The checks before a lock routine touches the lock. */
static int lock_check(long *lock, const char *rtn)
{
    int rc = shmemi_check_init(rtn), seg;
    uint64_t off;

    if (rc)
        return rc;
    if ((uintptr_t)lock % sizeof(long))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "lock %p is not aligned to %zu bytes",
                          (void *)lock, sizeof(long));
    if (shmemi_addr_seg(lock, sizeof(long), &seg, &off))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "lock %p is not inside a symmetric "
                          "object", (void *)lock);
    if (shmemi_g.tp && !shmemi_amo_local(lock, sizeof(long), 0) &&
        !(shmemi_g.tp->caps & SHMEMT_CAP_ATOMIC))
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "provider %s has no atomics: the "
                          "locks need them", shmemi_g.tp->prov_name);
    return 0;
}

/* Waits until my node satisfies (node & mask) != 0 and returns the node.
 * It polls with loads of my own word, as wait_until does: a load never
 * breaks the atomicity of the AMOs that others apply to the word (it only
 * reads), so it is sound whichever path those AMOs take, and it costs no
 * round trip through the provider. */
static uint32_t node_wait(long *lock, uint32_t mask)
{
    unsigned long it = 0;
    uint32_t v;

    while (!((v = __atomic_load_n(node_word(lock), __ATOMIC_ACQUIRE)) & mask))
        shmemi_wait_backoff(&it);
    return v;
}

/* Resets my node before I get in line: nobody else writes it then (my
 * last successor has been handed the lock and no predecessor knows me
 * yet), so a local store is enough. */
static void node_reset(long *lock)
{
    __atomic_store_n(node_word(lock), 0, __ATOMIC_RELEASE);
}

int shmemi_set_lock(long *lock, const char *rtn)
{
    uint32_t me1, prev, old;
    int rc = lock_check(lock, rtn);

    if (rc)
        return rc;
    me1 = (uint32_t)shmemi_g.my_pe + 1;
    node_reset(lock);
    if ((rc = lk_amo(tail_word(lock), SHMEMT_AOP_SWAP, me1, 0, 0, &prev, rtn)))
        return rc;
    if (prev) {
        if ((rc = lk_amo(node_word(lock), SHMEMT_AOP_OR, me1 << 1, 0, (int)prev - 1, &old, rtn)))
            return rc;
        node_wait(lock, LOCK_GO);
    }
    atomic_thread_fence(memory_order_acquire);
    return 0;
}

int shmemi_test_lock(long *lock, int *busy_p, const char *rtn)
{
    uint32_t me1, prev;
    int rc = lock_check(lock, rtn);

    if (rc)
        return rc;
    me1 = (uint32_t)shmemi_g.my_pe + 1;
    node_reset(lock);
    if ((rc = lk_amo(tail_word(lock), SHMEMT_AOP_CSWAP, me1, 0, 0, &prev, rtn)))
        return rc;
    if (prev) {
        shmemi_progress();
        *busy_p = 1;
        return 0;
    }
    atomic_thread_fence(memory_order_acquire);
    *busy_p = 0;
    return 0;
}

int shmemi_clear_lock(long *lock, const char *rtn)
{
    uint32_t me1, old, node;
    int rc = lock_check(lock, rtn);

    if (rc)
        return rc;
    /* Clearing a lock implies a quiet: the critical section's writes are
     * complete before the next holder gets in. */
    if ((rc = shmemi_quiet(SHMEM_CTX_DEFAULT, rtn)))
        return rc;
    me1 = (uint32_t)shmemi_g.my_pe + 1;
    if ((rc = lk_amo(tail_word(lock), SHMEMT_AOP_CSWAP, 0, me1, 0, &old, rtn)))
        return rc;
    if (old == me1)
        return 0;
    /* The swap found another value and changed nothing. */
    if (!old)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "the lock %p is not held (it is free)",
                          (void *)lock);
    node = node_wait(lock, ~LOCK_GO);
    return lk_amo(node_word(lock), SHMEMT_AOP_OR, LOCK_GO, 0, (int)(node >> 1) - 1, &old, rtn);
}
