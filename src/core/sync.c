/*
 * Ordering (quiet, fence, pe_quiet), progress and waiting with back-off.
 * The public ordering routines are in src/api/shmem_sync.c.
 */
#define _GNU_SOURCE
#include "core/amo.h"
#include "core/sync.h"
#include "providers/shmemt_spin.h"
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* What a quiet that the transport does not complete waits for (the
 * watchdog's report). */
static void quiet_describe(const shmemi_wait_site_t *site, const volatile void *addr,
                           uint64_t value, char *buf, size_t len)
{
    (void)site;
    (void)addr;
    (void)value;
    snprintf(buf, len, "the transport's quiet: the operations handed to the transport are not "
             "complete (a target that does not drive the provider's progress, with no progress "
             "thread and not calling the library, or that cannot be reached, holds them)");
}

/* The transport's quiet of tp (all of it, or pes[0 .. npes) with pes),
 * watched by FABSHMEM_WATCHDOG as the wait of rtn. */
static int tp_quiet(shmemt_t *tp, const int *pes, int npes, const char *rtn)
{
    shmemi_wait_site_t site = { rtn, quiet_describe, tp };
    shmemi_wait_block_t b;
    int ret;

    shmemi_wait_block_begin(&b, &site);
    ret = pes ? tp->ops->pe_quiet(tp, pes, npes) : tp->ops->quiet(tp);
    shmemi_wait_block_end(&b);
    return ret;
}

/* Quiet on ctx: its transport (the default one or the context's own
 * endpoint), when something was handed to it since the last quiet.
 *
 * Several threads may quiet one context (the application's and a stream
 * worker's barrier on the default context).  A thread that finds the
 * dirty flag clear may skip the transport's quiet only when no other
 * quiet is in progress: the one that cleared the flag may not have
 * completed the operations yet.  A quiet marks itself in progress before
 * it clears the flag, and the transport's quiet waits for everything
 * counted before it started, which includes every operation whose issuer
 * had set the flag. */
int shmemi_quiet(shmem_ctx_t ctx, const char *rtn)
{
    shmemt_t *tp = shmemi_ctx_tp(ctx);
    int ret;

    atomic_thread_fence(memory_order_seq_cst);
    if (!tp || (!atomic_load_explicit(ctx->dirty, memory_order_seq_cst) &&
                !atomic_load_explicit(&ctx->quieting, memory_order_seq_cst))) {
        /* Nothing of ours to complete.  Without the progress thread the
         * quiet still drives the provider once: a program that polls a
         * flag with a quiet in the loop waits for a put that needs this
         * PE's progress to land (tcp, 4 PEs: rma_nbi's fence rounds hung
         * until this). */
        if (tp && shmemi_progress_poll)
            shmemi_progress();
        return 0;
    }
    atomic_fetch_add(&ctx->quieting, 1);
    atomic_exchange(ctx->dirty, 0);
    ret = tp_quiet(tp, NULL, 0, rtn);
    atomic_fetch_sub(&ctx->quieting, 1);
    if (ret)
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT),
                                "%s: completing outstanding operations failed: %s", rtn,
                                strerror(-ret));
    return 0;
}

/* The checks of the API's ordering routines: 0 to go on, -1 for
 * SHMEM_CTX_INVALID (nothing to do, by OpenSHMEM 1.6: "if ctx has the
 * value SHMEM_CTX_INVALID, no operation is performed"), or the class of
 * the error, recorded. */
static inline int check_ctx(shmem_ctx_t ctx, const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (SHMEMI_UNLIKELY(rc))
        return rc;
    return SHMEMI_UNLIKELY(ctx == SHMEM_CTX_INVALID) ? -1 : 0;
}

int shmemi_fence(shmem_ctx_t ctx, const char *rtn)
{
    shmemt_t *tp;
    int ret = check_ctx(ctx, rtn);

    if (ret)
        return ret < 0 ? 0 : ret;
    tp = shmemi_ctx_tp(ctx);
    atomic_thread_fence(memory_order_release);
    if (tp && atomic_load_explicit(ctx->dirty, memory_order_acquire) &&
        (ret = tp->ops->fence(tp)))
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT),
                                "%s: ordering outstanding operations failed: %s", rtn,
                                strerror(-ret));
    return 0;
}

/* target_pes are PEs of ctx (team indices for a team context, which take
 * a full quiet of the context rather than a translated list). */
int shmemi_pe_quiet(shmem_ctx_t ctx, const int *pes, size_t npes, const char *rtn)
{
    shmemt_t *tp;
    size_t i;
    int ret = check_ctx(ctx, rtn), n;

    if (ret)
        return ret < 0 ? 0 : ret;
    n = ctx->pes ? ctx->n_pes : shmemi_g.n_pes;
    if (npes && !pes)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "target_pes is NULL with npes %zu",
                          npes);
    for (i = 0; i < npes; i++)
        if (pes[i] < 0 || pes[i] >= n)
            return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "target_pes[%zu] = %d is out of "
                              "range (the %s has %d PEs)", i, pes[i],
                              ctx->pes ? "context's team" : "job", n);
    tp = shmemi_ctx_tp(ctx);
    atomic_thread_fence(memory_order_seq_cst);
    if (tp && npes && atomic_load_explicit(ctx->dirty, memory_order_acquire) &&
        (ret = tp_quiet(tp, ctx->pes ? NULL : pes, (int)npes, rtn)))
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT),
                                "%s: completing operations failed: %s", rtn, strerror(-ret));
    return 0;
}

/* When every PE maps every PE's heap and data and no symmetric buffer is
 * registered, nobody sends us anything through the provider (and our own
 * operations complete in quiet): a wait need not poll it, which matters
 * when PEs outnumber cores (a poll costs a microsecond, a scheduler round
 * trip many). */
static inline int shmemi_progress_needed(void)
{
    return shmemi_g.tp && !(shmemi_amo_direct && (shmemi_g.data_all_mapped || !shmemi_g.data_size) &&
                            !__atomic_load_n(&shmemi_g.n_ext, __ATOMIC_RELAXED));
}

int shmemi_progress(void)
{
    return shmemi_progress_needed() ? shmemi_g.tp->ops->progress(shmemi_g.tp) : 0;
}

int shmemi_progress_poll;

void shmemi_progress_tick(void)
{
    static __thread unsigned calls;

    if (++calls % SHMEMI_PROGRESS_TICK == 0)
        (void)shmemi_progress();
}

/* The wait policy (providers/shmemt_spin.h) for the waits on mapped
 * memory: a mapped word answers within a fraction of a microsecond when
 * its writer runs, so the spin budget's floor is low; it is lower still
 * when the PEs outnumber the cores (the peer is likely not running: 4
 * rather than 16 polls made 4 PEs on 2 cores faster, see base/state.h).
 * After the budget a wait yields for SHMEMI_WAIT_YIELD_NS while yields
 * pay, then sleeps.  2 PEs on 2 cores with one other process running,
 * barrier: 13 to 65 us with a fixed 2000 polls before the yields
 * (docs/perf/wait-load.md). */
#define SHMEMI_SPIN_MIN_NS 1000ULL
#define SHMEMI_SPIN_MIN_OVERSUB_NS 100ULL
#define SHMEMI_SPIN_MAX_NS 200000ULL
#define SHMEMI_SPIN_MAX_OVERSUB_NS 20000ULL
#define SHMEMI_WAIT_YIELD_NS 100000ULL

/* The calling thread's waits, for the policy: the running mean of their
 * lengths, the yields' record, and the wait under way (by its counter),
 * since when, when it was last seen going on, when it began to sleep, the
 * yield it made last (its length, 0: none pending) and whether it spins no
 * more.  A wait's end is not seen (its loop just stops calling): it is
 * accounted when the thread's next wait begins. */
static __thread struct {
    uint64_t mean_ns;
    unsigned paid;
    shmemt_yield_t y;
    const unsigned long *iter_p;
    uint64_t start_ns, seen_ns, sleep_ns, yield_d, yield_from;
    int phase;    /* of the last iteration (0 spin, 1 yield, 2 sleep) */
    int spun;     /* the spin is over: 1 yields, 2 sleeps at once */
    int yield_long; /* a yield of this wait took SHMEMI_YIELD_SHORT_NS or more */
    int probing;    /* this wait spins up to the ceiling */
    unsigned probe; /* waits that could have probed */
} sp;

static uint64_t spin_max_ns(void)
{
    return shmemi_g.oversubscribed ? SHMEMI_SPIN_MAX_OVERSUB_NS : SHMEMI_SPIN_MAX_NS;
}

/* A wait begins (its counter is at 0): the one before it ended.  A wait
 * that spinning did not end (it ended while the thread yielded or slept)
 * counts as longer than the ceiling, whatever it lasted: when the PE it
 * waited for shares its core, the answer comes right after the yield, and
 * a budget of twice such waits would grow with every wait (2 PEs on one
 * core: 64 us a barrier with 2000 polls, 108 us with that budget).  Two
 * exceptions, where the job's PEs have a core each, so that a thread
 * whose answers come after microseconds to a hundred (through the
 * provider, or from a peer that computes before it answers) is not caught
 * for good, its first long wait having set the budget to the floor and
 * each later wait then ending in the yields or asleep and counting as
 * beyond the ceiling again:
 *   - a wait whose yields were all short (none took SHMEMI_YIELD_SHORT_NS:
 *     no other task wanted the core) got its answer from another core,
 *     and counts with its length, as one that ended spinning;
 *   - one wait in SHMEMI_SPIN_PROBE of a thread whose budget is below the
 *     ceiling because its waits run long spins up to the ceiling (a probe,
 *     wait_phase); when its answer comes while it spins, the running mean
 *     becomes its length at once.
 * docs/design/core.md (Waiting) has the numbers. */
#define SHMEMI_YIELD_SHORT_NS 2000ULL
#define SHMEMI_SPIN_PROBE 16
static void spin_begin(const unsigned long *iter_p, uint64_t now)
{
    uint64_t len = sp.seen_ns - sp.start_ns;
    int caught = !sp.phase || (sp.phase == 1 && !sp.yield_long && !shmemi_g.oversubscribed);

    if (sp.start_ns) {
        shmemt_spin_paid(&sp.paid, caught);
        if (sp.probing && !sp.phase)
            sp.mean_ns = len; /* a probe that caught its answer */
        else
            shmemt_spin_account(&sp.mean_ns, caught ? len : UINT64_MAX / 8, spin_max_ns());
    }
    sp.iter_p = iter_p;
    sp.start_ns = sp.seen_ns = now;
    sp.sleep_ns = sp.yield_d = 0;
    sp.phase = sp.spun = sp.yield_long = 0;
    /* Twice the mean over the ceiling: the budget is the floor or
     * SHMEMT_SLEEP_COST_NS, below the ceiling (shmemt_spin_budget). */
    sp.probing = 2 * sp.mean_ns > spin_max_ns() && !shmemi_g.oversubscribed &&
                 ++sp.probe % SHMEMI_SPIN_PROBE == 0;
}

/* The phase of a wait of age ns at iteration it: 0 while it spins
 * (younger than the budget), 1 while it yields (for SHMEMI_WAIT_YIELD_NS
 * more, while yields pay), 2 when it sleeps; a wait that does not yield
 * spins on while spinning pays (shmemt_spin_on).  With
 * FABSHMEM_WAIT_SPIN set, the budget is that many polls and the yields are
 * SHMEMI_WAIT_YIELDS (the fixed policy). */
static inline int wait_phase(unsigned long it, uint64_t age)
{
    uint64_t budget, max = spin_max_ns();

    if (shmemi_g.wait_spin >= 0)
        return it < (unsigned long)shmemi_g.wait_spin ? 0 :
               it < (unsigned long)shmemi_g.wait_spin + SHMEMI_WAIT_YIELDS ? 1 : 2;
    if (!sp.spun) {
        budget = shmemt_spin_budget(sp.mean_ns, sp.paid, shmemi_g.oversubscribed ?
                                    SHMEMI_SPIN_MIN_OVERSUB_NS : SHMEMI_SPIN_MIN_NS, max);
        if (sp.probing) /* spin_begin */
            budget = max;
        if (age < budget)
            return 0;
        sp.spun = shmemt_yield_pays(&sp.y) ? 1 : 2;
        sp.yield_from = age;
    }
    if (sp.spun == 2)
        return age < shmemt_spin_on(sp.paid, max) ? 0 : 2;
    return age < sp.yield_from + SHMEMI_WAIT_YIELD_NS ? 1 : 2;
}

/* The 32-bit half of the 64-bit word w that a futex on it compares: its
 * low half, which every increment changes. */
static inline const volatile uint32_t *futex_half(const volatile void *w)
{
    return (const volatile uint32_t *)w + (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
}

/* What a wait sleeps on: the word w until it reaches value (a team's
 * signal: its writers wake the word's futex, shmemi_wake), or, without w,
 * until done(arg) (a wait on the program's words: the PE's doorbell, which
 * the node path's writes into the PE's memory ring, shmemi_ring). */
typedef struct {
    const volatile uint64_t *w;
    uint64_t value;
    int (*done)(const void *arg);
    const void *arg;
} wait_on_t;

/* Sleeps on the futex of the word or the doorbell of on until a writer
 * wakes it or for ns, unless the wait is over already.  The node's count of
 * sleepers (of the doorbells' for the doorbell) tells writers to look:
 * the count goes up before the word is
 * read (or the doorbell armed), and a writer stores before it reads the
 * count, so a wake-up is lost only when the writer's store is still in its
 * store buffer after this thread read the word and entered the kernel,
 * which compares the futex word again (then the nap's time-out ends the
 * sleep).  The doorbell is armed by making it odd (an atomic OR, after
 * which done reads the program's words): the writer that finds it odd
 * makes it even and wakes its futex, so a stream of puts into a sleeping
 * PE makes one system call per sleep, not one per put.  Returns 1 when the
 * wait was over before the sleep. */
static int wait_futex(const wait_on_t *on, long ns)
{
    const volatile uint64_t *f = on->w;
    uint32_t *count = f ? shmemi_g.sleepers : shmemi_g.bell_sleepers;
    struct timespec ts = { 0, ns };
    uint64_t cur;
    int over;

    __atomic_fetch_add(count, 1, __ATOMIC_SEQ_CST);
    if (f) {
        cur = __atomic_load_n(f, __ATOMIC_ACQUIRE);
        over = cur >= on->value;
    } else {
        uint64_t *bell = (uint64_t *)(shmemi_g.heap_base + shmemi_g.bell_off);
        cur = __atomic_or_fetch(bell, 1, __ATOMIC_SEQ_CST);
        over = on->done(on->arg);
        f = bell;
    }
    if (!over)
        syscall(SYS_futex, futex_half(f), FUTEX_WAIT, (uint32_t)cur, &ts, NULL, 0);
    __atomic_fetch_sub(count, 1, __ATOMIC_RELAXED);
    return over;
}

void shmemi_wake_slow(const volatile void *w)
{
    syscall(SYS_futex, futex_half(w), FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* No fence before the read of the doorbell (a thread of the node asleep
 * on its doorbell would make every write of the node pay one): a wake-up
 * is lost only as in wait_futex, to the nap's time-out. */
void shmemi_ring_slow(int pe)
{
    char *heap = shmemi_g.peer_heap ? shmemi_g.peer_heap[pe] : NULL;
    uint64_t *bell, b;

    if (!heap)
        return;
    bell = (uint64_t *)(heap + shmemi_g.bell_off);
    b = __atomic_load_n(bell, __ATOMIC_RELAXED);
    if ((b & 1) && __atomic_compare_exchange_n(bell, &b, b + 1, 0, __ATOMIC_SEQ_CST,
                                               __ATOMIC_RELAXED))
        shmemi_wake_slow(bell);
}

/* A nap of ns shorter than the kernel's default timer slack (50 us, by
 * which it may end late) gets a slack of a quarter of its length for the
 * calling thread; the thread's slack before, to be put back after the nap,
 * or -1 when it is left alone. */
static long nap_slack(long ns)
{
    long old;

    if (ns >= (long)SHMEMT_SLEEP_COST_NS || (old = prctl(PR_GET_TIMERSLACK)) < 0 || old <= ns / 4)
        return -1;
    prctl(PR_SET_TIMERSLACK, (unsigned long)(ns / 4 > 1000 ? ns / 4 : 1000));
    return old;
}

/* The sleeping phase of a wait asleep since sp.sleep_ns: progress, then a
 * nap of a sixteenth of the time asleep so far, from 2 us to 1 ms: a long
 * wait ends at most about 6 % late, and wakes about 16 times per factor e
 * of its length (a wait of 50 ms: 60 times).  Naps that grew by a factor
 * of 2 every 64 sleeps woke 640 times before they reached 1 ms (65 ms, or
 * more: a nap under the timer slack lasts 50 us), and each wake-up and
 * provider poll took the core from a PE or a stream's kernel that computed
 * on it.  A wait that names its word (shmemi_wait_backoff_word) or its
 * condition (shmemi_wait_backoff_cond), when no traffic comes through the
 * provider, naps on the word's futex or the PE's doorbell: its writer
 * wakes it at once.  Returns 1 when traffic came in (or the wait was over
 * before the nap). */
static int wait_sleep(uint64_t now, const wait_on_t *on)
{
    uint64_t ns = (now - sp.sleep_ns) / 16;
    struct timespec ts = { 0, (long)(ns < 2000 ? 2000 : ns > 1000000 ? 1000000 : ns) };
    long slack;
    int traffic = 0;

    if (!shmemi_progress_needed()) {
        if ((on->w || on->done) && shmemi_g.sleepers)
            return wait_futex(on, ts.tv_nsec);
        nanosleep(&ts, NULL);
        return 0;
    }
    if (shmemi_progress() > 0)
        return 1;
    /* Block on the provider where it can wake us: traffic that came in
     * puts the wait back to polling, so a PE that keeps receiving (a
     * target in a barrier, one side of a ping-pong) answers at polling
     * speed and never pays a thread wake-up per message.  A write that
     * the provider puts into this PE's memory makes no traffic on this
     * side (shm's copies), and only the nap's time-out ends the sleep:
     * a short nap is kept short (nap_slack). */
    slack = nap_slack(ts.tv_nsec);
    if (shmemi_g.tp->ops->idle)
        traffic = shmemi_g.tp->ops->idle(shmemi_g.tp, (unsigned long)ts.tv_nsec / 1000) != 0;
    else
        nanosleep(&ts, NULL);
    if (slack >= 0)
        prctl(PR_SET_TIMERSLACK, (unsigned long)slack);
    return traffic;
}

static void wait_backoff(unsigned long *iter_p, const wait_on_t *on)
{
    unsigned long it = (*iter_p)++;
    uint64_t now, age;
    int phase;

    if (SHMEMI_UNLIKELY(shmemi_g.env.watchdog))
        shmemi_wd_tick(iter_p, it);
    /* The clock is read every fourth poll while the wait spins (a read
     * costs about a poll), and at every yield and nap. */
    if (it == 0 || sp.iter_p != iter_p) {
        spin_begin(iter_p, now = shmemt_now_ns());
    } else if (sp.phase || it % 4 == 0) {
        sp.seen_ns = now = shmemt_now_ns();
    } else {
        now = sp.seen_ns;
    }
    age = now - sp.start_ns;
    /* The last yield did not end the wait. */
    if (sp.yield_d) {
        shmemt_yield_account(&sp.y, sp.yield_d, shmemi_g.oversubscribed ? shmemi_g.host_pes : 0);
        if (sp.y.mean_ns >= SHMEMT_YIELD_LONG_NS)
            sp.spun = 2; /* no more yields in this wait */
        sp.yield_d = 0;
    }

    /* Progress after the first polls, not before: on mapped peers the
     * answer usually comes within them, and a provider poll costs more
     * than the whole wait.  Traffic taken in (a target in a barrier, one
     * side of a ping-pong) puts the wait back to polling, so a PE that
     * keeps receiving answers at polling speed; a wait with nothing coming
     * in yields while yields pay, then sleeps. */
    sp.phase = phase = sp.sleep_ns ? 2 : wait_phase(it, age);
    if (phase == 0) {
        if (it % 16 == 15 && shmemi_progress() > 0)
            *iter_p = 0;
        shmemi_cpu_relax();
    } else if (phase == 1) {
        /* A yield costs as much as a provider poll: poll every time, or a
         * request that comes in now waits for up to 16 yields. */
        if (shmemi_progress() > 0) {
            *iter_p = 0;
        } else {
            sched_yield();
            if (shmemi_g.wait_spin < 0) {
                sp.yield_d = shmemt_now_ns() - now + 1;
                sp.yield_long |= sp.yield_d >= SHMEMI_YIELD_SHORT_NS;
            }
        }
    } else {
        if (!sp.sleep_ns)
            sp.sleep_ns = now;
        if (wait_sleep(now, on))
            *iter_p = 0;
    }
}

void shmemi_wait_backoff_word(unsigned long *iter_p, const volatile uint64_t *w, uint64_t value)
{
    wait_on_t on = { w, value, NULL, NULL };

    wait_backoff(iter_p, &on);
}

void shmemi_wait_backoff_cond(unsigned long *iter_p, int (*done)(const void *arg),
                              const void *arg)
{
    wait_on_t on = { NULL, 0, done, arg };

    wait_backoff(iter_p, &on);
}

void shmemi_wait_backoff(unsigned long *iter_p)
{
    wait_on_t on = { NULL, 0, NULL, NULL };

    wait_backoff(iter_p, &on);
}
