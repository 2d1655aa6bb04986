/*
 * Atomic latency on a 64-bit long of PE 1: shmem_long_atomic_fetch_add,
 * shmem_long_atomic_compare_swap (always succeeding, so every operation
 * swaps), and the non-fetching shmem_long_atomic_add followed by
 * shmem_quiet. Reports the median time of one operation in microseconds.
 * Every fetched value is checked, and the target checks the final values.
 */
#include "common.h"

int main(int argc, char **argv)
{
    bench_opts_t o = { .iters = 100000, .min_size = 8, .max_size = 4u << 20,
                       .reps = 5, .budget_ms = 20, .window = 64 };
    long *ctr;
    long expect_fadd = 0, expect_cswap = 0, expect_add = 0;
    long bad = 0;
    int me, target;

    if (bench_parse(argc, argv, &o, NULL) != 0)
        return 1;
    target = bench_start("64-bit atomic latency (us)", &o);
    me = shmem_my_pe();
    ctr = shmem_malloc(4 * sizeof(long));
    if (ctr == NULL)
        BENCH_FAIL("shmem_malloc failed");
    memset(ctr, 0, 4 * sizeof(long));
    bench_report_mapping(ctr, target);
    shmem_barrier_all();

    if (me == 0) {
        double sec;

        sec = BENCH_MEASURE(&o,
                            long v = shmem_long_atomic_fetch_add(&ctr[0], 1, target);
                            bad += (v != expect_fadd);
                            expect_fadd++);
        bench_result("amo_fadd", sizeof(long), sec * 1e6, "us");
        if (bad != 0)
            BENCH_FAIL("fetch_add returned %ld wrong values", bad);

        sec = BENCH_MEASURE(&o,
                            long v = shmem_long_atomic_compare_swap(&ctr[1], expect_cswap,
                                                                    expect_cswap + 1, target);
                            bad += (v != expect_cswap);
                            expect_cswap++);
        bench_result("amo_cswap", sizeof(long), sec * 1e6, "us");
        if (bad != 0)
            BENCH_FAIL("compare_swap returned %ld wrong values", bad);

        sec = BENCH_MEASURE(&o,
                            shmem_long_atomic_add(&ctr[2], 3, target);
                            shmem_quiet();
                            expect_add += 3);
        bench_result("amo_add_quiet", sizeof(long), sec * 1e6, "us");
    }
    /* PE 0 reads back the target's counters after the barrier. */
    shmem_barrier_all();
    if (me == 0) {
        long got[3];

        shmem_getmem(got, ctr, 3 * sizeof(long), target);
        if (got[0] != expect_fadd || got[1] != expect_cswap || got[2] != expect_add)
            BENCH_FAIL("target holds fadd %ld cswap %ld add %ld, expected %ld %ld %ld",
                       got[0], got[1], got[2], expect_fadd, expect_cswap, expect_add);
    }
    shmem_barrier_all();
    shmem_free(ctr);
    return bench_finish();
}
