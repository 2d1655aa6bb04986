/*
 * The scheduler's floor for a barrier of N processes on this machine
 * (issue 31 item 1, bench/load_compare.sh): N processes that do nothing
 * but a central barrier in shared memory, which every PE of a real
 * library's barrier must at least do too (each process must run once per
 * barrier), waiting one of three ways:
 *
 *   futex    the last to arrive wakes the others (FUTEX_WAKE); the
 *            others sleep at once (FUTEX_WAIT): the cheapest hand-over
 *            from a busy core, paid in wake-ups
 *   pinned   the same with process p bound to allowed core p mod cores
 *   yield    the others call sched_yield until the barrier ends: no
 *            sleep, at the mercy of whatever else is runnable
 *
 * No library is involved.  Each run prints per mode the mean time of a
 * barrier over the timed iterations, in us, as "mode run us".
 *
 *   sched_floor [--np N] [--runs R] [--iters I]
 *
 * (the yield mode runs I / 5 iterations: on a loaded machine each of its
 * barriers takes milliseconds).  Exit status 0 when every run finished.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { WARMUP = 50 };

struct shared {
    _Atomic unsigned count;
    _Atomic unsigned gen; /* the futex word: the barriers completed */
    double us;            /* process 0's mean barrier time */
};

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void barrier(struct shared *s, int np, int yield)
{
    unsigned g = atomic_load(&s->gen);
    if (atomic_fetch_add(&s->count, 1) == (unsigned)np - 1) {
        atomic_store(&s->count, 0);
        atomic_store(&s->gen, g + 1);
        if (!yield)
            syscall(SYS_futex, &s->gen, FUTEX_WAKE, np, NULL, NULL, 0);
        return;
    }
    while (atomic_load(&s->gen) == g) {
        if (yield)
            sched_yield();
        else
            syscall(SYS_futex, &s->gen, FUTEX_WAIT, g, NULL, NULL, 0);
    }
}

/* One run of a mode: np processes, iters timed barriers; the mean in us,
 * or a negative value when a process failed. */
static double run(struct shared *s, int np, int iters, const char *mode)
{
    int yield = !strcmp(mode, "yield"), pin = !strcmp(mode, "pinned");
    cpu_set_t allowed;
    int cores[CPU_SETSIZE], ncores = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &allowed))
                cores[ncores++] = c;
    memset(s, 0, sizeof *s);
    s->us = -1;
    for (int p = 0; p < np; p++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("sched_floor: fork");
            return -1;
        }
        if (pid)
            continue;
        if (pin && ncores) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cores[p % ncores], &one);
            sched_setaffinity(0, sizeof one, &one);
        }
        for (int i = 0; i < WARMUP; i++)
            barrier(s, np, yield);
        double t0 = now_us();
        for (int i = 0; i < iters; i++)
            barrier(s, np, yield);
        if (p == 0)
            s->us = (now_us() - t0) / iters;
        _exit(0);
    }
    int ok = 1, st;
    for (int p = 0; p < np; p++)
        if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            ok = 0;
    return ok ? s->us : -1;
}

int main(int argc, char **argv)
{
    int np = 4, runs = 5, iters = 1000;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--np"))
            np = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--runs"))
            runs = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--iters"))
            iters = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--np N] [--runs R] [--iters I]\n", argv[0]);
            return 2;
        }
    }
    if (np < 2 || runs < 1 || iters < 5) {
        fprintf(stderr, "sched_floor: --np must be at least 2, --runs 1, --iters 5\n");
        return 2;
    }
    struct shared *s =
        mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED) {
        perror("sched_floor: mmap");
        return 1;
    }
    static const char *const modes[] = {"futex", "pinned", "yield"};
    int status = 0;
    printf("# sched_floor: %d processes, %d runs, %d iterations (yield: %d)\n", np, runs, iters,
           iters / 5);
    for (int r = 0; r < runs; r++)
        for (int m = 0; m < 3; m++) {
            double us = run(s, np, m == 2 ? iters / 5 : iters, modes[m]);
            if (us < 0)
                status = 1;
            else
                printf("%s %d %.2f\n", modes[m], r, us);
            fflush(stdout);
        }
    return status;
}
