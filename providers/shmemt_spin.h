/*
 * The spin budget of a wait (issue 18 item 9), written once for the two
 * kinds of waits: the transport's (providers/ofi: a quiet, a blocking get
 * or fetching atomic, a post the provider refuses for now) and the core's
 * waits on mapped memory (src/core/sync.c: a barrier's signal, wait_until,
 * a lock).
 *
 * A wait polls while it is younger than the budget, then yields, then
 * sleeps.  The budget is twice the running mean of the calling thread's
 * recent waits when that fits under the ceiling: answers that come within
 * it are caught while polling.  When recent waits lasted longer than the
 * ceiling, polling would not have caught them (the peer was not running:
 * the PEs outnumber the cores, or other processes hold the cores), and the
 * budget drops to the floor: the wait gives its core up almost at once,
 * and a PE that sleeps keeps the scheduler's favour (a task that has used
 * little of its share preempts the one that runs when it wakes), where a
 * PE that spun for a fixed count of polls and then yielded gave its core
 * to the other process for a whole time slice, every time.  Each user
 * passes its own floor and ceiling (a mapped word answers in nanoseconds,
 * a provider in microseconds).
 */
#ifndef SHMEMT_SPIN_H
#define SHMEMT_SPIN_H

#include <stdint.h>
#include <time.h>

/* The clock of the waits, in ns. */
static inline uint64_t shmemt_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The budget (ns) for a thread whose recent waits lasted mean_ns on
 * average, between min_ns and max_ns. */
static inline uint64_t shmemt_spin_budget(uint64_t mean_ns, uint64_t min_ns, uint64_t max_ns)
{
    uint64_t b = 2 * mean_ns;

    if (b > max_ns)
        return min_ns;
    return b < min_ns ? min_ns : b;
}

/* A wait of the thread ended after d_ns: the mean follows about the last
 * 8 waits (a wait counts as 4 ceilings at the most, so that the mean comes
 * back under the ceiling after a few short waits). */
static inline void shmemt_spin_account(uint64_t *mean_p, uint64_t d_ns, uint64_t max_ns)
{
    if (d_ns > 4 * max_ns)
        d_ns = 4 * max_ns;
    *mean_p = *mean_p - *mean_p / 8 + d_ns / 8;
}

#endif
