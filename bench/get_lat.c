/*
 * Get latency: one blocking shmem_getmem, PE 0 reads from PE 1, for sizes
 * from 8 B to 4 MiB. Reports the median over the repetitions of the mean
 * time of one get, in microseconds.
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
    target = bench_start("get latency: shmem_getmem (us)", &o);
    me = shmem_my_pe();
    bench_alloc_pair(&o, &dst, &src);
    bench_report_mapping(src, target);

    for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
        /* The target holds this size's pattern; PE 0 reads it into dst. */
        if (me == target)
            bench_fill(src, size);
        if (me == 0)
            memset(dst, 0, size);
        shmem_barrier_all();
        if (me == 0) {
            double sec;
            size_t bad;

            sec = BENCH_MEASURE(&o, shmem_getmem(dst, src, size, target));
            bench_result("get_lat", size, sec * 1e6, "us");
            bad = bench_check(dst, size);
            if (bad != size)
                BENCH_FAIL("get of %zu bytes: byte %zu is %u, expected %u", size, bad,
                           dst[bad], bench_pattern(size, bad));
        }
        shmem_barrier_all();
    }
    shmem_free(src);
    shmem_free(dst);
    return bench_finish();
}
