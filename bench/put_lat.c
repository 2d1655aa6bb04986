/*
 * Put latency: one shmem_putmem followed by shmem_quiet, PE 0 to PE 1, for
 * sizes from 8 B to 4 MiB. Reports the median over the repetitions of the
 * mean time of one put + quiet, in microseconds.
 */
#include "common.h"

int main(int argc, char **argv)
{
    bench_opts_t o = { .iters = 100000, .min_size = 8, .max_size = 4u << 20,
                       .reps = 5, .budget_ms = 20, .window = 64 };
    unsigned char *dst, *src;
    int me, target;

    if (bench_parse(argc, argv, &o, NULL) != 0)
        return 1;
    target = bench_start("put latency: shmem_putmem + shmem_quiet (us)", &o);
    me = shmem_my_pe();
    bench_alloc_pair(&o, &dst, &src);
    bench_report_mapping(dst, target);

    for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
        if (me == target)
            memset(dst, 0, size);
        shmem_barrier_all();
        if (me == 0) {
            double sec;

            bench_fill(src, size);
            sec = BENCH_MEASURE(&o, shmem_putmem(dst, src, size, target); shmem_quiet());
            bench_result("put_lat", size, sec * 1e6, "us");
        }
        shmem_barrier_all();
        if (me == target) {
            size_t bad = bench_check(dst, size);

            if (bad != size)
                BENCH_FAIL("put of %zu bytes: byte %zu is %u, expected %u", size, bad,
                           dst[bad], bench_pattern(size, bad));
        }
    }
    shmem_free(src);
    shmem_free(dst);
    return bench_finish();
}
