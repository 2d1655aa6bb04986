/*
 * shmem_barrier_all latency. Every PE runs the same number of barriers:
 * PE 0 times a warm-up, chooses the count for the time budget and sends it
 * to the others before the timed repetitions. Reports PE 0's median time of
 * one barrier in microseconds. The check at the end verifies that the
 * barrier completes a put issued before it (barrier_all implies quiet).
 */
#include "common.h"

#define WARMUP 100

int main(int argc, char **argv)
{
    bench_opts_t o = { .iters = 100000, .min_size = 8, .max_size = 4u << 20,
                       .reps = 5, .budget_ms = 20, .window = 64 };
    double times[BENCH_MAX_REPS];
    long *sym;
    long iters;
    int me, npes, target, reps;

    if (bench_parse(argc, argv, &o, NULL) != 0)
        return 1;
    target = bench_start("shmem_barrier_all latency (us)", &o);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    reps = o.reps < BENCH_MAX_REPS ? o.reps : BENCH_MAX_REPS;
    sym = shmem_malloc(2 * sizeof(long));
    if (sym == NULL)
        BENCH_FAIL("shmem_malloc failed");
    sym[0] = sym[1] = 0;
    bench_report_mapping(sym, target);
    shmem_barrier_all();

    /* Warm up; PE 0 calibrates and sends the count to every PE. */
    double warm = BENCH_TIME(WARMUP, shmem_barrier_all());
    if (me == 0) {
        iters = bench_calibrate(&o, warm / WARMUP);
        for (int pe = 0; pe < npes; pe++)
            shmem_putmem(&sym[0], &iters, sizeof(long), pe);
        shmem_quiet();
    }
    shmem_barrier_all();
    iters = sym[0];
    if (iters < 1 || iters > o.iters)
        BENCH_FAIL("received iteration count %ld", iters);

    for (int r = 0; r < reps; r++)
        times[r] = BENCH_TIME(iters, shmem_barrier_all()) / (double)iters;
    if (me == 0)
        bench_result("barrier_all", (size_t)npes, bench_median(times, reps) * 1e6, "us");

    /* A put before a barrier must be visible on the target right after it. */
    if (me == 0) {
        long v = 0x5eed + iters;

        shmem_putmem(&sym[1], &v, sizeof(long), target);
    }
    shmem_barrier_all();
    if (me == target && sym[1] != 0x5eed + iters)
        BENCH_FAIL("put before barrier_all not visible after it: %ld", sym[1]);
    shmem_barrier_all();
    shmem_free(sym);
    return bench_finish();
}
