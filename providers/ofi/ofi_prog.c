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

static void ofi_prog_sleep_us(uint64_t us)
{
    struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };

    nanosleep(&ts, NULL);
}

/* The helper thread for passive-target progress.  It drives the provider
 * only while no application thread does: an application thread that
 * polled within the last OFI_PROG_ACTIVE_US and did not announce a nap of
 * more than OFI_PROG_NAP_US (ofi_app_naps: the sleeping phase of a
 * back-off) is polling, and the thread checks back every
 * OFI_PROG_DEFER_US.  A napping application leaves the thread in charge,
 * so incoming traffic does not wait for the application's next wake-up;
 * a polling one keeps the thread out of its way (a thread woken by
 * traffic would otherwise compete for the core, and for the provider's
 * locks, with the application that waits for that very traffic).
 *
 * When idle the thread sleeps in the kernel: in ppoll on the CQ's wait fd
 * (woken by incoming traffic; after a wake-up it keeps polling for
 * OFI_PROG_SPIN_US to catch the next message of a ping-pong without
 * another wake-up) or, without a wait fd (shm, see fd_blind in
 * ofi_quirks.c), in nanosleep.  Without a wait fd nothing tells it that
 * traffic comes in, so it polls every OFI_PROG_BLIND_US while the PE
 * communicates (it issued operations or waited within the last
 * OFI_PROG_WARM_WINDOW_US) and only every progress interval otherwise,
 * with a timer slack of 1 us (the default 50 us would make a 10 us sleep
 * last 60).  shm with the direct path off, 2 PEs, the target in a
 * barrier: fetch-add 110 -> 25 us (20 us polls: 40 us); the thread then
 * wakes 100000 times a second, but only within 20 ms of traffic. */
#define OFI_PROG_SPIN_US 50
#define OFI_PROG_ACTIVE_US 200
/* How long the thread leaves a polling application alone before it looks
 * again.  Every look wakes the thread on a core that a polling PE holds:
 * at 200 us the wake-ups cost about 3 us of every round trip on 2 cores
 * (tcp fetch-add 18.4 us, 16.2 us at 1 ms, 15.7 us with no thread); a PE
 * that leaves the library to compute is taken over within this plus
 * OFI_PROG_ACTIVE_US. */
#define OFI_PROG_DEFER_US 1000
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

void *ofi_prog_main(void *arg)
{
    shmemt_ofi_t *o = arg;
    struct timespec ts;
    struct pollfd pfd;
    struct fid *fids[1];
    pthread_mutex_t *serial;
    uint64_t interval = (uint64_t)o->prog_interval_us, now, last_poll, ops;
    uint64_t seen_ops = 0, last_act = 0, seen_cqe = 0;
    int busy = 0, armed;

#ifdef PR_SET_TIMERSLACK
    if (o->wait_fd < 0)
        prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
#endif
    ts.tv_sec = o->prog_interval_us / 1000000;
    ts.tv_nsec = (long)(o->prog_interval_us % 1000000) * 1000;
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
            ofi_prog_sleep_us(interval < OFI_PROG_DEFER_US ? interval : OFI_PROG_DEFER_US);
            continue;
        }
        if (ofi_prog_enter(o, &serial)) {
            /* An application thread is inside the provider: let it. */
            ofi_prog_sleep_us(interval < OFI_PROG_WARM_US ? interval : OFI_PROG_WARM_US);
            continue;
        }
        ops = ofi_prog_poll(o);
        /* Acknowledgements that this poll queued go out before we sleep
         * (as in ofi_idle): the peer's quiet waits for them. */
        if (o->am_rbufs && atomic_load_explicit(&o->am_npend_hint, memory_order_relaxed))
            ofi_am_flush_replies(o);
        if (o->wait_fd < 0) {
            ofi_prog_leave(serial);
            ops += atomic_load_explicit(&o->put_issued, memory_order_relaxed) +
                   atomic_load_explicit(&o->get_issued, memory_order_relaxed);
            if (ops != seen_ops) {
                seen_ops = ops;
                last_act = now;
            }
            if (last_poll > last_act)
                last_act = last_poll;
            if (ofi_prog_spin_on_cqe(o, &seen_cqe)) {
                /* Messages came in: the window of polling after them
                 * ended, or the application took over. */
                last_act = ofi_now_us();
                continue;
            }
            ofi_prog_sleep_us(now - last_act < OFI_PROG_WARM_WINDOW_US &&
                              interval > OFI_PROG_BLIND_US ? OFI_PROG_BLIND_US : interval);
            continue;
        }
        fids[0] = &o->cq->fid;
        armed = !atomic_load_explicit(&o->am_npend_hint, memory_order_relaxed) &&
                fi_trywait(o->fabric, fids, 1) == FI_SUCCESS;
        ofi_prog_leave(serial);
        if (armed) {
            pfd.fd = o->wait_fd;
            pfd.events = POLLIN;
            pfd.revents = 0;
            if (ppoll(&pfd, 1, &ts, NULL) > 0)
                ofi_prog_poll_window(o, NULL);
            busy = 0;
        } else if (++busy > 64) {
            /* Something keeps the wait object armed; do not spin. */
            nanosleep(&ts, NULL);
            busy = 0;
        }
    }
    return NULL;
}
