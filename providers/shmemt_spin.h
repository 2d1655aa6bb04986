/*
 * The wait policy (issue 18 item 9, issue 31), written once for the two
 * kinds of waits: the transport's (providers/ofi: a quiet, a blocking get
 * or fetching atomic, a post the provider refuses for now) and the core's
 * waits on mapped memory (src/core/sync.c: a barrier's signal, wait_until,
 * a lock).  docs/design/core.md (Waiting) has the numbers that chose it.
 *
 * A wait polls while it is younger than the budget, then yields while
 * yields pay, then sleeps.  The budget is twice the running mean of the
 * calling thread's recent waits when that fits under the ceiling: answers
 * that come within it are caught while polling.  When recent waits lasted
 * longer than the ceiling, polling would not have caught most of them:
 * when hardly any ended while spinning (the peer was not running: it
 * shares this core), the budget drops to the floor and the wait gives its
 * core up almost at once; when a quarter or more still did (the peer has
 * a core of its own, and other processes deschedule it now and then), it
 * is what a sleep costs (SHMEMT_SLEEP_COST_NS).  Whether yields pay is
 * measured too (below): a yield that hands the core to another process
 * loses a whole time slice, and a PE that sleeps instead keeps the
 * scheduler's favour (a task that has used little of its share preempts
 * the one that runs when it wakes).  Each user passes its own floor and
 * ceiling (a mapped word answers in nanoseconds, a provider in
 * microseconds).
 */
#ifndef SHMEMT_SPIN_H
#define SHMEMT_SPIN_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The clock of the waits, in ns. */
static inline uint64_t shmemt_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The budget (ns) for a thread whose recent waits lasted mean_ns on
 * average, between min_ns and max_ns.  paid (0 to 1024) is the share of
 * recent waits that ended while they spun: when waits last longer than
 * the ceiling but a quarter or more of them still end while spinning, the
 * PE waited for runs on another core and is only descheduled now and then
 * (busy processes share the cores): the budget is then
 * SHMEMT_SLEEP_COST_NS, what a sleep and its wake-up cost on a loaded core,
 * so that the waits the spin would catch are caught and the others pay at
 * most twice their length; not when the ceiling is lower than that (the
 * PEs outnumber the cores: the PE waited for may share this one, and a
 * spin holds it off). */
#define SHMEMT_SLEEP_COST_NS 50000ULL
static inline uint64_t shmemt_spin_budget(uint64_t mean_ns, unsigned paid, uint64_t min_ns,
                                          uint64_t max_ns)
{
    uint64_t b = 2 * mean_ns;

    if (b > max_ns)
        return paid >= 256 && max_ns > SHMEMT_SLEEP_COST_NS ? SHMEMT_SLEEP_COST_NS : min_ns;
    return b < min_ns ? min_ns : b;
}

/* How long a wait that does not yield (its yields do not pay) spins in
 * all (ns): on to SHMEMT_SLEEP_COST_NS while spinning pays (the PE waited
 * for runs on another core: the spin takes the place of yields that would
 * have cost a slice, and a wait it does not catch pays at most that on
 * top), else no longer than its budget; max_ns is the ceiling, as for
 * shmemt_spin_budget. */
static inline uint64_t shmemt_spin_on(unsigned paid, uint64_t max_ns)
{
    return paid >= 256 && max_ns > SHMEMT_SLEEP_COST_NS ? SHMEMT_SLEEP_COST_NS : 0;
}

/* A wait ended, while spinning (spun 1) or not (0): paid follows about the
 * last 16 waits. */
static inline void shmemt_spin_paid(unsigned *paid, int spun)
{
    *paid = *paid - *paid / 16 + (spun ? 1024 / 16 : 0);
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

/*
 * After the spin: yield, or sleep.  A yield costs about a poll when
 * nothing else waits for the core, and hands the core to the PE the wait
 * needs when that PE shares it (4 PEs on 2 cores, a ping-pong of two
 * processes on one core: 2.9 us a round trip through yields, 9.7 us
 * through a futex).  When another busy process shares the core, a yield
 * hands it a whole slice (EEVDF, Linux 6.18: 1.4 to 3.3 ms a round trip,
 * the 1-4 ms rows of issue 31), where a sleeper woken by the PE it waits
 * for preempts it (14 to 50 us a round trip).  So the thread keeps the
 * running mean of its yields that did not end the wait (a long one counts
 * as at most 10 ms): while it is under SHMEMT_YIELD_LONG_NS waits yield
 * after the spin; above, they do not, and one wait in SHMEMT_YIELD_PROBE
 * or more yields once to measure anew (twice as late after each probe
 * that gave a slice away again, up to one wait in 4096: 1 us a wait for a
 * slice of 4 ms).
 */
#define SHMEMT_YIELD_LONG_NS 20000ULL
#define SHMEMT_YIELD_PROBE 16

typedef struct shmemt_yield {
    uint64_t mean_ns; /* of the yields that did not end the wait */
    unsigned waits;   /* waits since the last probe */
    unsigned every;   /* waits between probes (0: SHMEMT_YIELD_PROBE) */
} shmemt_yield_t;

/* The tasks runnable on the host now (the fourth field of /proc/loadavg,
 * "runnable/total"), or -1 when unknown: a pread of an open file, a few
 * microseconds, made only after a long yield. */
static inline int shmemt_runnable(void)
{
    static int fd = -2;
    char b[128], *p = b;
    ssize_t n;
    int f = __atomic_load_n(&fd, __ATOMIC_ACQUIRE), i;

    if (f == -2) {
        int e = -2;

        f = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
        if (!__atomic_compare_exchange_n(&fd, &e, f, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            if (f >= 0)
                close(f);
            f = e;
        }
    }
    if (f < 0 || (n = pread(f, b, sizeof(b) - 1, 0)) <= 0)
        return -1;
    b[n] = 0;
    for (i = 0; i < 3 && p; i++)
        if ((p = strchr(p, ' ')))
            p++;
    return p ? atoi(p) : -1;
}

/* Whether a wait that has spun its budget yields (1) or not (0). */
static inline int shmemt_yield_pays(shmemt_yield_t *y)
{
    if (y->mean_ns < SHMEMT_YIELD_LONG_NS)
        return 1;
    if (++y->waits < (y->every ? y->every : SHMEMT_YIELD_PROBE))
        return 0;
    y->waits = 0;
    return 1;
}

/* A yield of d_ns ended and the wait goes on: it did not pay by d_ns.
 * own: the PEs of the job on this host when they outnumber its cores (0
 * otherwise): a long yield while no more tasks than those are runnable
 * handed the core to a PE of the job, which needed it, and counts as
 * cheap. */
static inline void shmemt_yield_account(shmemt_yield_t *y, uint64_t d_ns, int own)
{
    unsigned every = y->every ? y->every : SHMEMT_YIELD_PROBE;
    int r;

    if (d_ns >= SHMEMT_YIELD_LONG_NS && own > 0 && (r = shmemt_runnable()) >= 0 && r <= own)
        d_ns = 0;

    if (d_ns > 10000000)
        d_ns = 10000000;
    if (y->mean_ns >= SHMEMT_YIELD_LONG_NS && d_ns >= SHMEMT_YIELD_LONG_NS) /* a probe */
        y->every = every >= 4096 ? 4096 : 2 * every;
    y->mean_ns = y->mean_ns - y->mean_ns / 8 + d_ns / 8;
    if (y->mean_ns < SHMEMT_YIELD_LONG_NS)
        y->every = 0;
}

#endif
