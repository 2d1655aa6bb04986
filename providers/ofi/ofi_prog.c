/*
 * libfabric transport: passive-target progress.  The helper thread that
 * drives the provider while no application thread does, and the idle wait
 * of an application thread (the transport's idle op), which blocks on the
 * CQ's wait fd so that traffic wakes it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* ppoll */
#endif
#include "ofi.h"
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

void ofi_prog_wake(shmemt_ofi_t *r)
{
    uint64_t one = 1;

    /* A full counter (it cannot be: the thread reads it) is a wake-up
     * already pending, so a failed write loses nothing. */
    if (r->prog_wake_fd >= 0 && write(r->prog_wake_fd, &one, sizeof(one)) < 0)
        return;
}

/* The thread sleeps for us microseconds, or until its wake-up fd is
 * written (ofi_prog_kick, ofi_prog_stop) or, with cq_fd >= 0, until the
 * CQ's wait fd is readable.  Returns 1 when the CQ woke it. */
static int ofi_prog_block(shmemt_ofi_t *o, int cq_fd, uint64_t us)
{
    struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
    struct pollfd pfd[2];
    uint64_t v;
    int n = 1;

    pfd[0].fd = o->prog_wake_fd;
    pfd[0].events = POLLIN;
    pfd[0].revents = 0;
    if (cq_fd >= 0) {
        pfd[1].fd = cq_fd;
        pfd[1].events = POLLIN;
        pfd[1].revents = 0;
        n = 2;
    }
    if (ppoll(pfd, (nfds_t)n, &ts, NULL) <= 0)
        return 0;
    if ((pfd[0].revents & POLLIN) && read(o->prog_wake_fd, &v, sizeof(v)) < 0)
        v = 0;
    return n == 2 && (pfd[1].revents & POLLIN);
}

static void ofi_prog_sleep_us(shmemt_ofi_t *o, uint64_t us)
{
    ofi_prog_block(o, -1, us);
}

/* The helper thread for passive-target progress.  It drives the provider
 * only while no application thread does: an application thread that
 * polled within the last OFI_PROG_ACTIVE_US and did not announce a nap of
 * more than OFI_PROG_NAP_US (ofi_app_naps: the sleeping phase of a
 * back-off) is polling, and the thread checks back after OFI_PROG_DEFER_US,
 * doubled at each look that finds it still polling, up to
 * OFI_PROG_DEFER_MAX_US.  A napping application leaves the thread in
 * charge, so incoming traffic does not wait for the application's next
 * wake-up; a polling one keeps the thread out of its way (a thread woken
 * by traffic would otherwise compete for the core, and for the provider's
 * locks, with the application that waits for that very traffic).
 *
 * When idle the thread sleeps in the kernel, and sleeps longer the less
 * there is to do, because every wake-up takes a core from a PE that
 * computes (4 PEs on 2 cores: see docs/perf/progress-idle.md).  With a
 * wait fd (tcp) it blocks in ppoll on the CQ's wait fd, woken by incoming
 * traffic (after a wake-up it keeps polling for OFI_PROG_SPIN_US to catch
 * the next message of a ping-pong without another wake-up): with nothing
 * of this PE outstanding (ofi_prog_quiet) for OFI_PROG_SAFETY_US, a safety
 * net only; with operations outstanding (their sends may need our
 * progress, which no fd announces) for the progress interval, doubled at
 * each time-out up to OFI_PROG_NAP_MAX_US.  Without a wait fd (shm, see
 * fd_blind in ofi_quirks.c) nothing tells it that traffic comes in, so it
 * polls on a timer: OFI_PROG_BLIND_US after signs of traffic (CQ entries,
 * operations issued, the application's polls), doubled at each poll that
 * finds nothing new, up to the progress interval (which it keeps outside
 * the window of OFI_PROG_WARM_WINDOW_US after traffic); timer slack 1 us (the default 50 us
 * would make a 10 us sleep last 60).  shm with the direct path off, 2 PEs,
 * the target in a barrier: fetch-add 110 -> 25 us with 10 us polls (20 us
 * polls: 40 us).  Sleeping on the wait fd longer than the interval, the
 * thread sets prog_deep, and the next operation posted wakes it
 * (ofi_prog_kick) so that it does not wait out the sleep. */
#define OFI_PROG_SPIN_US 50
#define OFI_PROG_ACTIVE_US 200
/* How long the thread leaves a polling application alone before it looks
 * again.  Every look wakes the thread on a core that a polling PE holds:
 * at 200 us the wake-ups cost about 3 us of every round trip on 2 cores
 * (tcp fetch-add 18.4 us, 16.2 us at 1 ms, 15.7 us with no thread); a PE
 * that leaves the library to compute is taken over within this plus
 * OFI_PROG_ACTIVE_US. */
#define OFI_PROG_DEFER_US 1000
/* The longest look-back interval while the application keeps polling: a
 * PE that leaves the library to compute after polling for long is taken
 * over within this plus OFI_PROG_ACTIVE_US. */
#define OFI_PROG_DEFER_MAX_US 8000
/* The longest timed sleep when repeated wake-ups find nothing to do, and
 * the safety time-out of a sleep on the wait fd with nothing outstanding. */
#define OFI_PROG_NAP_MAX_US 50000
#define OFI_PROG_SAFETY_US 100000
/* An application that sleeps longer than this between polls (it said so
 * with ofi_app_naps) leaves the progress to the thread. */
#define OFI_PROG_NAP_US 20
#define OFI_PROG_WARM_US 50
#define OFI_PROG_BLIND_US 10
#define OFI_PROG_WARM_WINDOW_US 20000
/* An application thread polls: it polled within OFI_PROG_ACTIVE_US and
 * does not sleep for longer than OFI_PROG_NAP_US before its next poll. */
static inline int ofi_app_active(shmemt_ofi_t *o, uint64_t now)
{
    if (atomic_load_explicit(&o->app_fd_waiting, memory_order_relaxed) > 0)
        return 1;
    return (int64_t)(now - atomic_load_explicit(&o->app_poll_us, memory_order_relaxed)) <
               OFI_PROG_ACTIVE_US &&
           (int64_t)(atomic_load_explicit(&o->app_nap_until_us, memory_order_relaxed) - now) <
               OFI_PROG_NAP_US;
}

int ofi_idle(shmemt_ofi_t *o, uint64_t us)
{
    struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
    struct pollfd pfd;
    struct fid *fids[1];
    int n;

    /* Only the default transport's CQ has a wait fd; it is where other
     * PEs' traffic arrives (children complete their own operations, which
     * their owners poll for). */
    /* Replies still queued (acknowledgements wait for a poll) go before we
     * sleep; any the provider cannot take yet keep us polling. */
    if (o->am_rbufs && atomic_load_explicit(&o->am_npend_hint, memory_order_relaxed)) {
        ofi_am_flush_replies(o);
        if (atomic_load_explicit(&o->am_npend_hint, memory_order_relaxed))
            return 1;
    }
    if (o->parent || o->wait_fd < 0) {
        ofi_app_naps(o, us);
        nanosleep(&ts, NULL);
        return 0;
    }
    fids[0] = &o->cq->fid;
    if (fi_trywait(o->fabric, fids, 1) != FI_SUCCESS)
        return 1;
    pfd.fd = o->wait_fd;
    pfd.events = POLLIN;
    pfd.revents = 0;
    atomic_fetch_add_explicit(&o->app_fd_waiting, 1, memory_order_relaxed);
    n = ppoll(&pfd, 1, &ts, NULL);
    atomic_fetch_sub_explicit(&o->app_fd_waiting, 1, memory_order_relaxed);
    ofi_app_polled(o);
    return n > 0;
}

/* A provider that is not thread safe (shmemt_t.serial): the thread drives
 * it only under the lock that the core holds around its calls when
 * several threads use the transport, and never blocks on it: a thread
 * that holds it is inside the provider and drives it while it waits
 * (ofi_wait_step).  Returns 0 when the thread may go on (*m_p to give
 * back, or NULL). */
static int ofi_prog_enter(shmemt_ofi_t *o, pthread_mutex_t **m_p)
{
    *m_p = ofi_serial(o);
    return *m_p && pthread_mutex_trylock(*m_p) ? -EBUSY : 0;
}

static void ofi_prog_leave(pthread_mutex_t *m)
{
    if (m)
        pthread_mutex_unlock(m);
}

/* One poll of the thread: the default CQ and the children's; returns what
 * ofi_poll_children returns.  A failure has no caller to go to: it is
 * logged (by the poll) and kept for the next quiet (providers/shmemt.h). */
static uint64_t ofi_prog_poll(shmemt_ofi_t *o)
{
    int ret = ofi_cq_poll(o);

    if (ret)
        ofi_keep_err(o, ret);
    return ofi_poll_children(o);
}

/* Polls for OFI_PROG_SPIN_US after a sign of traffic (a wake-up on the
 * wait fd, or, with seen_p, CQ entries read), so that the next message of
 * a ping-pong or a burst does not wait for another wake-up.  With seen_p
 * (no wait fd) every new CQ entry starts the window again and the thread
 * yields between polls.  Stops early when an application thread polls or
 * holds the provider, or the thread is asked to stop. */
static void ofi_prog_poll_window(shmemt_ofi_t *o, uint64_t *seen_p)
{
    pthread_mutex_t *serial;
    uint64_t now, t_end = ofi_now_us() + OFI_PROG_SPIN_US, cqe;

    while ((now = ofi_now_us()) < t_end && !ofi_app_active(o, now) &&
           !atomic_load_explicit(&o->prog_stop, memory_order_acquire) &&
           !ofi_prog_enter(o, &serial)) {
        ofi_prog_poll(o);
        ofi_prog_leave(serial);
        if (!seen_p)
            continue;
        cqe = atomic_load_explicit(&o->n_cqe, memory_order_relaxed);
        if (cqe != *seen_p) {
            *seen_p = cqe;
            t_end = now + OFI_PROG_SPIN_US;
        }
        /* More PEs than cores: the others' turn first. */
        sched_yield();
    }
}

/* Without a wait fd: when the last poll read CQ entries (requests coming
 * in: a ping-pong, a burst of AMOs), the poll window, as after a wake-up
 * on the wait fd (shm with the direct path off, 2 PEs: fetch-add 30 -> 1
 * us, lock cycle 6 -> 3 us).  Not when the PEs outnumber the cores: the
 * PEs need those cycles (4-PE collectives on 2 cores came out slower).
 * Returns 1 when it polled. */
static int ofi_prog_spin_on_cqe(shmemt_ofi_t *o, uint64_t *seen_p)
{
    uint64_t cqe = atomic_load_explicit(&o->n_cqe, memory_order_relaxed);

    if (cqe == *seen_p || o->oversubscribed)
        return 0;
    *seen_p = cqe;
    ofi_prog_poll_window(o, seen_p);
    return 1;
}

/* Nothing of this PE waits for its progress: no operation outstanding
 * (issued and not counted complete), no request unacknowledged, no reply
 * queued, no context (they have no wait fd).  Called with prog_deep set,
 * so that an operation posted after the issued counts were read wakes the
 * thread (ofi_prog_kick); completions read after them can only be
 * counted too many when such an operation was posted meanwhile. */
static int ofi_prog_quiet(shmemt_ofi_t *o)
{
    uint64_t pi = atomic_load_explicit(&o->put_issued, memory_order_seq_cst);
    uint64_t gi = atomic_load_explicit(&o->get_issued, memory_order_seq_cst);

    if (atomic_load_explicit(&o->n_children, memory_order_relaxed) ||
        atomic_load_explicit(&o->am_npend_hint, memory_order_relaxed) ||
        atomic_load_explicit(&o->am_acked, memory_order_seq_cst) <
            atomic_load_explicit(&o->am_issued, memory_order_seq_cst))
        return 0;
    if (pi != atomic_load_explicit(&o->put_done_upto, memory_order_relaxed) &&
        fi_cntr_read(o->put_cntr) + fi_cntr_readerr(o->put_cntr) +
                atomic_load_explicit(&o->put_failed, memory_order_seq_cst) < pi)
        return 0;
    return gi == atomic_load_explicit(&o->get_done_upto, memory_order_relaxed) ||
           fi_cntr_read(o->get_cntr) + fi_cntr_readerr(o->get_cntr) +
                   atomic_load_explicit(&o->get_failed, memory_order_seq_cst) >= gi;
}

static uint64_t ofi_prog_ops(shmemt_ofi_t *o)
{
    return atomic_load_explicit(&o->put_issued, memory_order_relaxed) +
           atomic_load_explicit(&o->get_issued, memory_order_relaxed) +
           atomic_load_explicit(&o->am_issued, memory_order_relaxed);
}

static uint64_t ofi_min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* The thread without a wait fd, after its poll: the poll window after
 * CQ entries, else a timed sleep (see ofi_prog_main's comment); *nap_p is
 * the sleep, fresh says the poll saw signs of traffic, last_act when the
 * PE last communicated. */
static void ofi_prog_blind_sleep(shmemt_ofi_t *o, uint64_t *nap_p, int fresh, uint64_t *last_act,
                                 uint64_t *spin_cqe)
{
    uint64_t interval = (uint64_t)o->prog_interval_us, now = ofi_now_us();

    if (ofi_prog_spin_on_cqe(o, spin_cqe)) {
        /* Messages came in: the window of polling after them ended, or
         * the application took over. */
        *last_act = ofi_now_us();
        *nap_p = ofi_min_u64(OFI_PROG_BLIND_US, interval);
        return;
    }
    /* Outside the window of traffic the interval at once: what the
     * thread serves there (a peer's RMA, a chunk of a large transfer)
     * leaves no CQ entry here, so it cannot tell a busy target from an
     * idle one, and a longer sleep delays every step of a peer's transfer
     * (tests/core/progress: 50 ms steps made 14 rounds take 1.6 s). */
    if (fresh)
        *nap_p = ofi_min_u64(OFI_PROG_BLIND_US, interval);
    else if (now - *last_act < OFI_PROG_WARM_WINDOW_US)
        *nap_p = ofi_min_u64(*nap_p * 2, interval);
    else
        *nap_p = interval;
    ofi_prog_sleep_us(o, *nap_p);
}

/* The thread with a wait fd, after its poll (with the serial lock, given
 * back here): blocks on the CQ's wait fd, for long when nothing of ours is
 * outstanding, else for *nap_p, which time-outs double. */
static void ofi_prog_fd_sleep(shmemt_ofi_t *o, pthread_mutex_t *serial, uint64_t *nap_p,
                              int *busy_p)
{
    uint64_t interval = (uint64_t)o->prog_interval_us, us;
    struct fid *fids[1];
    int armed, quiet;

    atomic_store_explicit(&o->prog_deep, 1, memory_order_seq_cst);
    quiet = ofi_prog_quiet(o);
    us = quiet ? OFI_PROG_SAFETY_US : *nap_p;
    if (us <= interval)
        atomic_store_explicit(&o->prog_deep, 0, memory_order_relaxed);
    fids[0] = &o->cq->fid;
    armed = !atomic_load_explicit(&o->am_npend_hint, memory_order_relaxed) &&
            fi_trywait(o->fabric, fids, 1) == FI_SUCCESS;
    ofi_prog_leave(serial);
    if (armed) {
        if (ofi_prog_block(o, o->wait_fd, us)) {
            ofi_prog_poll_window(o, NULL);
            *nap_p = interval;
        } else if (!quiet) {
            *nap_p = ofi_min_u64(*nap_p * 2, OFI_PROG_NAP_MAX_US);
        }
        *busy_p = 0;
    } else if (++*busy_p > 64) {
        /* Something keeps the wait object armed; do not spin. */
        ofi_prog_sleep_us(o, interval);
        *busy_p = 0;
    }
    atomic_store_explicit(&o->prog_deep, 0, memory_order_relaxed);
}

void *ofi_prog_main(void *arg)
{
    shmemt_ofi_t *o = arg;
    pthread_mutex_t *serial;
    uint64_t interval = (uint64_t)o->prog_interval_us, now, last_poll, ops, cqe;
    uint64_t seen_ops = 0, seen_cqe = 0, seen_poll = 0, last_act = 0, spin_cqe = 0;
    uint64_t defer = OFI_PROG_DEFER_US, nap = interval;
    int busy = 0, fresh;

    if (o->thread_start)
        o->thread_start();
#ifdef PR_SET_TIMERSLACK
    if (o->wait_fd < 0)
        prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
#endif
    while (!atomic_load_explicit(&o->prog_stop, memory_order_acquire)) {
        now = ofi_now_us();
        last_poll = atomic_load_explicit(&o->app_poll_us, memory_order_relaxed);
        if (ofi_app_active(o, now)) {
            /* The application is polling, or blocked on the wait fd (it
             * wakes on traffic by itself): let it.  Children have no wait
             * fd, so they are driven here all the same. */
            if (atomic_load_explicit(&o->app_fd_waiting, memory_order_relaxed) > 0 &&
                atomic_load_explicit(&o->n_children, memory_order_relaxed) > 0)
                ofi_poll_children(o);
            ofi_prog_sleep_us(o, ofi_min_u64(interval, defer));
            defer = ofi_min_u64(defer * 2, OFI_PROG_DEFER_MAX_US);
            continue;
        }
        defer = OFI_PROG_DEFER_US;
        if (ofi_prog_enter(o, &serial)) {
            /* An application thread is inside the provider: let it. */
            ofi_prog_sleep_us(o, ofi_min_u64(interval, OFI_PROG_WARM_US));
            continue;
        }
        ops = ofi_prog_poll(o) + ofi_prog_ops(o);
        /* Acknowledgements that this poll queued go out before we sleep
         * (as in ofi_idle): the peer's quiet waits for them. */
        if (o->am_rbufs && atomic_load_explicit(&o->am_npend_hint, memory_order_relaxed))
            ofi_am_flush_replies(o);
        /* Signs of traffic since the last round: operations issued, CQ
         * entries read (by anyone), the application's polls. */
        cqe = atomic_load_explicit(&o->n_cqe, memory_order_relaxed);
        fresh = ops != seen_ops || cqe != seen_cqe || last_poll != seen_poll;
        seen_ops = ops;
        seen_cqe = cqe;
        seen_poll = last_poll;
        if (fresh)
            last_act = now > last_poll ? now : last_poll;
        if (o->wait_fd < 0) {
            ofi_prog_leave(serial);
            ofi_prog_blind_sleep(o, &nap, fresh, &last_act, &spin_cqe);
            continue;
        }
        if (fresh)
            nap = interval;
        ofi_prog_fd_sleep(o, serial, &nap, &busy);
    }
    return NULL;
}
