/*
 * Ordering (quiet, fence, pe_quiet), progress and waiting with back-off.
 * The public ordering routines are in src/api/sync.c.
 */
#define _GNU_SOURCE
#include "core/shmemi.h"
#include <sched.h>
#include <time.h>

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
        if (tp && !shmemi_g.env.progress_thread)
            shmemi_progress();
        return 0;
    }
    atomic_fetch_add(&ctx->quieting, 1);
    atomic_exchange(ctx->dirty, 0);
    ret = tp->ops->quiet(tp);
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
        (ret = ctx->pes ? tp->ops->quiet(tp) : tp->ops->pe_quiet(tp, pes, (int)npes)))
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

__thread const shmemi_wait_site_t *shmemi_wait_site;
__thread shmemi_wait_what_t shmemi_wait_what;

const char *shmemi_cmp_name(int cmp)
{
    static const char *const names[] = { "==", "!=", ">", ">=", "<", "<=" };

    return cmp >= 0 && cmp < 6 ? names[cmp] : "?";
}

/* The watchdog's state of the calling thread: the wait it times (by its
 * counter's address), since when, whether it reported it, and whether
 * shmemi_wait_what describes it (noted just before it began). */
static __thread struct {
    unsigned long *iter_p;
    double since;
    int reported, own;
    unsigned calls;
} wd;

static double wd_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The report of a wait that lasted secs: what shmemi_wait_note and
 * shmemi_wait_site said, when they are of this wait. */
static void __attribute__((noinline, cold)) wd_report(double secs)
{
    const shmemi_wait_what_t *w = &shmemi_wait_what;
    const shmemi_wait_site_t *site = shmemi_wait_site;
    char word[200] = "", more[1536] = "";
    uint64_t now = 0;

    if (w->addr && wd.own) {
        switch (w->size) {
        case 1: now = __atomic_load_n((const volatile uint8_t *)w->addr, __ATOMIC_RELAXED); break;
        case 2: now = __atomic_load_n((const volatile uint16_t *)w->addr, __ATOMIC_RELAXED); break;
        case 4: now = __atomic_load_n((const volatile uint32_t *)w->addr, __ATOMIC_RELAXED); break;
        default: now = __atomic_load_n((const volatile uint64_t *)w->addr, __ATOMIC_RELAXED);
        }
        if (w->nelems)
            snprintf(word, sizeof(word), "; it waits for %s %zu words at %p to compare %s "
                     "%llu (the first holds %llu)", w->nelems == 1 ? "the" : "some of the",
                     w->nelems, (const void *)w->addr, w->cmp, (unsigned long long)w->value,
                     (unsigned long long)now);
        else
            snprintf(word, sizeof(word), "; it waits until the word at %p is %s %llu (0x%llx); "
                     "it holds %llu (0x%llx)", (const void *)w->addr, w->cmp,
                     (unsigned long long)w->value, (unsigned long long)w->value,
                     (unsigned long long)now, (unsigned long long)now);
    }
    if (site && site->describe)
        site->describe(site, w->addr, w->value, more, sizeof(more));
    shmemi_log_emit(shmemi_g.env.watchdog_abort ? SHMEMI_LOG_ERR : SHMEMI_LOG_WARN,
                    "watchdog: PE %d has waited %.1f s in %s%s%s%s",
                    shmemi_g.my_pe, secs,
                    site ? site->rtn : wd.own && w->rtn ? w->rtn : "a wait",
                    word, more[0] ? "; " : "",  more);
    if (shmemi_g.env.watchdog_abort)
        shmemi_fatal("watchdog: PE %d waited more than FABSHMEM_WATCHDOG=%ld s "
                     "(FABSHMEM_WATCHDOG_ABORT=1 ends the job)", shmemi_g.my_pe,
                     shmemi_g.env.watchdog);
}

/* The watchdog's part of a wait's iteration (FABSHMEM_WATCHDOG > 0): the
 * clock is read once per 256 iterations of the thread's waits.  A wait
 * begins when the counter is another one or at 0: a wait that restarts
 * its counter (traffic came in) is timed anew. */
static void __attribute__((noinline)) wd_tick(unsigned long *iter_p, unsigned long it)
{
    double t;

    if (wd.iter_p != iter_p || it == 0) {
        if (shmemi_wait_what.fresh)
            wd.own = 1;
        else if (wd.iter_p != iter_p)
            wd.own = 0;
        shmemi_wait_what.fresh = 0;
        wd.iter_p = iter_p;
        wd.since = wd_now();
        wd.reported = 0;
        wd.calls = 0;
        return;
    }
    if (wd.reported || (++wd.calls & 255))
        return;
    t = wd_now() - wd.since;
    if (t >= (double)shmemi_g.env.watchdog) {
        wd.reported = 1;
        wd_report(t);
    }
}

void shmemi_wait_backoff(unsigned long *iter_p)
{
    unsigned long it = (*iter_p)++;
    unsigned long spin = (unsigned long)shmemi_g.wait_spin;

    if (SHMEMI_UNLIKELY(shmemi_g.env.watchdog))
        wd_tick(iter_p, it);

    /* Progress after the first polls, not before: on mapped peers the
     * answer usually comes within them, and a provider poll costs more
     * than the whole wait.  Traffic taken in (a target in a barrier, one
     * side of a ping-pong) puts the wait back to polling, so a PE that
     * keeps receiving answers at polling speed; a wait with nothing coming
     * in yields a while, then sleeps. */
    if (it < spin) {
        if (it % 16 == 15 && shmemi_progress() > 0)
            *iter_p = 0;
        shmemi_cpu_relax();
    } else if (it < spin + SHMEMI_WAIT_YIELDS) {
        /* A yield costs as much as a provider poll: poll every time, or a
         * request that comes in now waits for up to 16 yields. */
        if (shmemi_progress() > 0)
            *iter_p = 0;
        sched_yield();
    } else {
        /* Sleep for a sixteenth of the time asleep so far, from 2 us to
         * 1 ms: a long wait ends at most about 6 % late, and wakes about 16
         * times per factor e of its length (a wait of 50 ms: 60 times).
         * Naps that grew by a factor of 2 every 64 sleeps woke 640 times
         * before they reached 1 ms (65 ms, or more: a nap under the timer
         * slack lasts 50 us), and each wake-up and provider poll took the
         * core from a PE or a stream's kernel that computed on it. */
        static __thread struct timespec asleep_since;
        struct timespec now, ts = { 0, 0 };
        long ns;

        clock_gettime(CLOCK_MONOTONIC, &now);
        if (it == spin + SHMEMI_WAIT_YIELDS)
            asleep_since = now;
        ns = ((now.tv_sec - asleep_since.tv_sec) * 1000000000L +
              (now.tv_nsec - asleep_since.tv_nsec)) / 16;
        ts.tv_nsec = ns < 2000 ? 2000 : ns > 1000000 ? 1000000 : ns;

        if (shmemi_progress() > 0) {
            *iter_p = 0;
            return;
        }
        /* Block on the provider where it can wake us: traffic that came in
         * puts the wait back to polling, so a PE that keeps receiving (a
         * target in a barrier, one side of a ping-pong) answers at polling
         * speed and never pays a thread wake-up per message. */
        if (shmemi_progress_needed() && shmemi_g.tp->ops->idle) {
            if (shmemi_g.tp->ops->idle(shmemi_g.tp, (unsigned long)ts.tv_nsec / 1000))
                *iter_p = 0;
        } else {
            nanosleep(&ts, NULL);
        }
    }
}
