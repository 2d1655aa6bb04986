/*
 * Ordering (quiet, fence), progress and waiting with back-off.
 */
#ifndef SHMEMI_SYNC_H
#define SHMEMI_SYNC_H

#include "core/ctx.h"

/* ---- ordering and waiting ---- */
/* Marks that an operation was handed to the transport (call it after the
 * operation was issued: a concurrent quiet that clears the mark then
 * covers the operation). */
static inline void shmemi_tp_issued(void)
{
    if (!atomic_load_explicit(&shmemi_g.tp_dirty, memory_order_relaxed))
        atomic_store_explicit(&shmemi_g.tp_dirty, 1, memory_order_release);
}
/* The same for an operation on ctx. */
static inline void shmemi_ctx_issued(shmem_ctx_t ctx)
{
    if (!atomic_load_explicit(ctx->dirty, memory_order_relaxed))
        atomic_store_explicit(ctx->dirty, 1, memory_order_release);
}
/* Completes ctx's outstanding operations (ctx may be SHMEM_CTX_DEFAULT or
 * any live context; the caller checked it).  0, or the class of the
 * transport's failure, recorded as rtn's. */
int shmemi_quiet(shmem_ctx_t ctx, const char *rtn) SHMEMI_WUR;
/* The cores of shmem_quiet/shmem_ctx_quiet, shmem_fence/shmem_ctx_fence
 * and shmem_pe_quiet/shmem_ctx_pe_quiet: they check that the library is
 * initialized, pe_quiet that target_pes[0 .. npes) are PEs of ctx; 0, or
 * the class of the error, recorded.  On SHMEM_CTX_INVALID each does
 * nothing and succeeds, as OpenSHMEM 1.6 says ("no operation is
 * performed").  The quiet's checks are
 * inline: shmem_quiet makes one call, as it did before it returned a
 * status (put + quiet latency). */
SHMEMI_INLINE SHMEMI_WUR int shmemi_ctx_quiet(shmem_ctx_t ctx, const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (SHMEMI_UNLIKELY(rc))
        return rc;
    if (SHMEMI_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        return 0;
    return shmemi_quiet(ctx, rtn);
}
int shmemi_fence(shmem_ctx_t ctx, const char *rtn) SHMEMI_WUR;
int shmemi_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes, const char *rtn)
    SHMEMI_WUR;
/* Drives the provider once (cheap when nothing is outstanding); > 0 when
 * it took in traffic, 0 when none or nothing can come through it. */
int shmemi_progress(void);
/* Without the progress thread, nothing drives the provider but the PE's
 * own calls, and the inline paths of gets and fetching AMOs on mapped
 * words (and shmem_signal_fetch) never reach it: a PE that spins on its own word (a compare_swap
 * lock, an atomic fetch or a g in a loop) would starve the peers whose
 * requests need its progress (active-message atomics and gets over tcp).
 * shmemi_progress_poll is set at init when the transport runs without the
 * thread; those paths then call shmemi_poll_tick, which drives the
 * provider once every SHMEMI_PROGRESS_TICK calls of the thread (one load
 * and a branch otherwise). */
extern int shmemi_progress_poll SHMEMI_HIDDEN;
#define SHMEMI_PROGRESS_TICK 32u
void shmemi_progress_tick(void);
static inline void shmemi_poll_tick(void)
{
    if (SHMEMI_UNLIKELY(shmemi_progress_poll))
        shmemi_progress_tick();
}
/* Called in every iteration of a wait loop: progress, then after the spin
 * budget (a time that follows how long the thread's recent waits lasted,
 * providers/shmemt_spin.h; or FABSHMEM_WAIT_SPIN polls) yield, then sleep
 * with growing pauses (up to 1 ms).
 * With FABSHMEM_WATCHDOG it also times the wait (a wait is known by
 * iter_p, its counter) and reports one that lasts too long (below). */
void shmemi_wait_backoff(unsigned long *iter_p);
/* The same for a wait until the 64-bit word w (in the symmetric heap)
 * reaches value: asleep, it sleeps on the word's futex, and the word's
 * writers wake it (shmemi_wake) when it is written by a CPU store. */
void shmemi_wait_backoff_word(unsigned long *iter_p, const volatile uint64_t *w, uint64_t value);
/* The same for a wait on the program's words (wait_until, signal_wait_until)
 * until done(arg) returns nonzero: asleep, it sleeps on the PE's doorbell,
 * which the node path's writes into the PE's memory ring (shmemi_ring);
 * done is called there, after the doorbell is armed and before the sleep. */
void shmemi_wait_backoff_cond(unsigned long *iter_p, int (*done)(const void *arg),
                              const void *arg);
/* After a store to a word of the symmetric heap that a node peer may
 * await with shmemi_wait_backoff_word: wakes its sleepers, when any thread
 * of the node sleeps (one load of the node's count otherwise). */
void shmemi_wake_slow(const volatile void *w);
static inline void shmemi_wake(const volatile void *w)
{
    if (shmemi_g.sleepers && SHMEMI_UNLIKELY(__atomic_load_n(shmemi_g.sleepers, __ATOMIC_RELAXED)))
        shmemi_wake_slow(w);
}
/* After a CPU store or atomic into (world) pe's symmetric memory by the node
 * path (the direct puts, p, AMOs, signals): rings pe's doorbell, which wakes
 * its threads asleep in shmemi_wait_backoff_cond, when any thread of the
 * node sleeps on a doorbell (one load of the node's count of them
 * otherwise, as shmemi_wake); the system call only when one of pe's
 * threads armed it. */
void shmemi_ring_slow(int pe);
static inline void shmemi_ring(int pe)
{
    if (shmemi_g.bell_sleepers &&
        SHMEMI_UNLIKELY(__atomic_load_n(shmemi_g.bell_sleepers, __ATOMIC_RELAXED)))
        shmemi_ring_slow(pe);
}

/* ---- the hang diagnostic (FABSHMEM_WATCHDOG) ----
 * A wait loop that is about to wait (its first test failed) notes what it
 * waits for: the word and the value (shmemi_wait_note), and a layer above
 * may name the operation around it (shmemi_wait_site: the routine, and a
 * function that describes more, such as a collective's team, algorithm
 * and the signals it last got from each member).  Both are per thread and
 * cost a branch when FABSHMEM_WATCHDOG is 0.  shmemi_wait_backoff prints
 * the report once per wait after FABSHMEM_WATCHDOG seconds, then the wait
 * goes on (or, with FABSHMEM_WATCHDOG_ABORT=1, the job ends). */
typedef struct shmemi_wait_site {
    const char *rtn; /* the routine that waits */
    /* Appends what else is known to buf (may be NULL). */
    void (*describe)(const struct shmemi_wait_site *site, const volatile void *addr,
                     uint64_t value, char *buf, size_t len);
    const void *arg; /* describe's */
} shmemi_wait_site_t;
extern __thread const shmemi_wait_site_t *shmemi_wait_site SHMEMI_HIDDEN;
/* What the wait of the calling thread waits for. */
typedef struct shmemi_wait_what {
    const volatile void *addr; /* the word */
    uint64_t value;            /* the value compared with */
    unsigned size;             /* bytes of the word (1, 2, 4, 8) */
    const char *cmp;           /* ">=", "==" ...; or what the wait is, "any of" ... */
    size_t nelems;             /* words of a set (0: one word) */
    const char *rtn;           /* the routine, when no site names it */
    int fresh;                 /* noted, and no wait has taken it yet */
} shmemi_wait_what_t;
extern __thread shmemi_wait_what_t shmemi_wait_what SHMEMI_HIDDEN;
static inline void shmemi_wait_note(const volatile void *addr, uint64_t value, unsigned size,
                                    const char *cmp, size_t nelems, const char *rtn)
{
    if (SHMEMI_UNLIKELY(shmemi_g.env.watchdog)) {
        shmemi_wait_what.addr = addr;
        shmemi_wait_what.value = value;
        shmemi_wait_what.size = size;
        shmemi_wait_what.cmp = cmp;
        shmemi_wait_what.nelems = nelems;
        shmemi_wait_what.rtn = rtn;
        shmemi_wait_what.fresh = 1;
    }
}
/* The polled waits' part (shmemi_wait_backoff calls it with the wait's
 * counter and its value before the call). */
void shmemi_wd_tick(unsigned long *iter_p, unsigned long it);
/* A wait that blocks rather than polls (the transport's quiet, inside the
 * provider; a stream sync, on a condition variable): its thread names it
 * (site: the routine, and what describe adds) before it blocks and ends it
 * after; a watchdog thread reports it when it lasts too long.  b and site
 * live until the end.  A branch when FABSHMEM_WATCHDOG is 0. */
typedef struct shmemi_wait_block {
    const shmemi_wait_site_t *site;
    double since;
    int reported;
    struct shmemi_wait_block *next;
} shmemi_wait_block_t;
void shmemi_wait_block_begin_wd(shmemi_wait_block_t *b, const shmemi_wait_site_t *site);
void shmemi_wait_block_end_wd(shmemi_wait_block_t *b);
static inline void shmemi_wait_block_begin(shmemi_wait_block_t *b, const shmemi_wait_site_t *site)
{
    if (SHMEMI_UNLIKELY(shmemi_g.env.watchdog))
        shmemi_wait_block_begin_wd(b, site);
}
static inline void shmemi_wait_block_end(shmemi_wait_block_t *b)
{
    if (SHMEMI_UNLIKELY(shmemi_g.env.watchdog))
        shmemi_wait_block_end_wd(b);
}
/* The name of comparison cmp (SHMEM_CMP_*). */
const char *shmemi_cmp_name(int cmp);

#endif
