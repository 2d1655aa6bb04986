/*
 * All-to-all fetch-add: every PE does shmem_long_atomic_fetch_add of 1 on
 * every other PE's counter, round after round (PE me starts at me + 1, so
 * the targets of one round are spread), for -n rounds (default 200) or
 * until -t ms (default 2000) have passed on PE 0, whichever comes first
 * (PE 0 broadcasts the round count it reached, so every PE does the same).
 * Reports the time of one fetch-add on the slowest PE (us), the total
 * wall time of the timed part (s), and checks every counter: it must hold
 * (npes - 1) * rounds.  This is the case of issue 18 item 9: with more
 * PEs than cores, a PE that waits for an answer holds the core that the
 * PE it waits for needs.
 */
#include "common.h"

int main(int argc, char **argv)
{
    bench_opts_t o = { .iters = 200, .min_size = 8, .max_size = 8,
                       .reps = 1, .budget_ms = 2000, .window = 1 };
    static long ctr, rounds_sym, t_sym;
    static long psync[SHMEM_REDUCE_SYNC_SIZE];
    static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    long rounds, r, bad = 0;
    double t0, t;
    int me, npes, i;

    if (bench_parse(argc, argv, &o, NULL) != 0)
        return 1;
    bench_start("all-to-all fetch-add, every PE on every other PE (us per op)", &o);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    /* One warm-up round makes the connections. */
    for (i = 1; i < npes; i++)
        (void)shmem_long_atomic_fetch_add(&ctr, 1, (me + i) % npes);
    shmem_barrier_all();
    /* PE 0 finds how many rounds fit the budget from a timed round. */
    t0 = bench_now();
    for (i = 1; i < npes; i++)
        (void)shmem_long_atomic_fetch_add(&ctr, 1, (me + i) % npes);
    t = bench_now() - t0;
    rounds = (long)(o.budget_ms * 1e-3 / (t > 1e-9 ? t : 1e-9));
    rounds_sym = rounds < 1 ? 1 : rounds > o.iters ? o.iters : rounds;
    shmem_barrier_all();
    shmem_long_broadcast(SHMEM_TEAM_WORLD, &rounds_sym, &rounds_sym, 1, 0);
    rounds = rounds_sym;
    shmem_barrier_all();
    t0 = bench_now();
    for (r = 0; r < rounds; r++)
        for (i = 1; i < npes; i++)
            (void)shmem_long_atomic_fetch_add(&ctr, 1, (me + i) % npes);
    t = bench_now() - t0;
    t_sym = (long)(t * 1e9);
    shmem_barrier_all();
    shmem_long_max_to_all(&t_sym, &t_sym, 1, 0, 0, npes, pwrk, psync);
    if (ctr != (npes - 1) * (rounds + 2))
        bad = 1;
    if (bad)
        BENCH_FAIL("PE %d: counter %ld, expected %ld", me, ctr, (npes - 1) * (rounds + 2));
    if (me == 0) {
        printf("# %ld rounds of %d fetch-adds per PE\n", rounds, npes - 1);
        bench_result("amo_a2a_fadd", (size_t)npes,
                     (double)t_sym * 1e-3 / (double)(rounds * (npes - 1)), "us");
        bench_result("amo_a2a_wall", (size_t)npes, (double)t_sym * 1e-9, "s");
    }
    return bench_finish();
}
