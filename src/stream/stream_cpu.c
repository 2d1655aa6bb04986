/*
 * Stream workers that run at the same time on different CPUs.
 *
 * A stream's worker sleeps while its queue is empty, and the scheduler
 * places it where it wakes up, usually by the CPU of the thread that
 * enqueued the work.  Two workers woken one after the other by the same
 * thread (a host kernel on one stream, puts on another) then often start
 * on the same CPU while the other CPU idles, and stay there: Linux moves
 * a task that ran a moment ago only after several balancing intervals,
 * longer than a burst of stream work lasts.  Measured with
 * bench/stream_overlap on the node path (2 PEs on 2 cores): in 4 launches
 * of 12 the kernel and the put worker shared one CPU for every rep (both
 * 3.2-3.7 ms against 1.6-1.8 ms when apart, overlap ratio 1.8-2.0).
 *
 * A worker woken onto the CPU of a busy one does not even run until that
 * one's kernel ends, so it cannot move itself.  Two measures:
 *   - the thread that wakes a sleeping worker first narrows the worker's
 *     affinity to the allowed CPUs where no worker of this process is busy
 *     (when there are some), so the wake-up lands there; the worker puts
 *     its own affinity back when it starts the batch, so the scheduler
 *     stays free to move it later;
 *   - a worker about to run a batch (awake already, or woken before the
 *     other got busy) on a CPU where another worker of ours is busy moves
 *     itself to an allowed CPU with none (a one-CPU affinity, then its own
 *     back).
 * Two syscalls on a collision, an atomic increment and decrement per batch
 * otherwise.  Other processes' threads are not counted: the scheduler sees
 * them.
 */
#define _GNU_SOURCE
#include "stream/stream_int.h"

#include <pthread.h>

#define SPREAD_CPUS 1024

/* Workers of this process running a batch, per CPU. */
static int busy_on[SPREAD_CPUS];

static int busy(int c)
{
    return c < SPREAD_CPUS && __atomic_load_n(&busy_on[c], __ATOMIC_RELAXED) > 0;
}

void shmemi_stream_cpu_init(struct shmemi_stream_cpu *sc)
{
    sc->narrowed = 0;
    sc->n = 0;
    if (pthread_getaffinity_np(pthread_self(), sizeof(sc->allowed), &sc->allowed) == 0)
        sc->n = CPU_COUNT(&sc->allowed);
}

void shmemi_stream_cpu_steer(struct shmemi_stream_cpu *sc, pthread_t worker)
{
    cpu_set_t free_set;
    int nfree = 0, nbusy = 0;

    if (sc->n < 2)
        return;
    CPU_ZERO(&free_set);
    for (int c = 0; c < CPU_SETSIZE && nfree + nbusy < sc->n; c++) {
        if (!CPU_ISSET(c, &sc->allowed))
            continue;
        if (busy(c)) {
            nbusy++;
        } else {
            CPU_SET(c, &free_set);
            nfree++;
        }
    }
    if (nbusy && nfree && pthread_setaffinity_np(worker, sizeof(free_set), &free_set) == 0)
        sc->narrowed = 1;
}

int shmemi_stream_cpu_enter(struct shmemi_stream_cpu *sc)
{
    int cpu;
    cpu_set_t one;

    if (sc->narrowed) {
        pthread_setaffinity_np(pthread_self(), sizeof(sc->allowed), &sc->allowed);
        sc->narrowed = 0;
    }
    cpu = sched_getcpu();
    if (cpu < 0 || cpu >= SPREAD_CPUS)
        return -1;
    if (busy(cpu) && sc->n > 1) {
        for (int c = 0; c < SPREAD_CPUS && c < CPU_SETSIZE; c++) {
            if (c == cpu || !CPU_ISSET(c, &sc->allowed) || busy(c))
                continue;
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) == 0) {
                pthread_setaffinity_np(pthread_self(), sizeof(sc->allowed), &sc->allowed);
                shmemi_debug("stream: worker moved from CPU %d to %d, where no other worker "
                             "is busy", cpu, c);
                cpu = sched_getcpu();
                if (cpu < 0 || cpu >= SPREAD_CPUS)
                    return -1;
            }
            break;
        }
    }
    __atomic_fetch_add(&busy_on[cpu], 1, __ATOMIC_RELAXED);
    return cpu;
}

void shmemi_stream_cpu_leave(int cpu)
{
    if (cpu >= 0)
        __atomic_fetch_sub(&busy_on[cpu], 1, __ATOMIC_RELAXED);
}
