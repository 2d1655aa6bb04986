/*
 * Put bandwidth: a window of shmem_putmem_nbi (64 by default, -w) to the
 * same destination, then shmem_quiet, PE 0 to PE 1, for sizes from 8 B to
 * 4 MiB. Reports the median bandwidth in GB/s (1e9 bytes per second).
 */
#include "common.h"

int main(int argc, char **argv)
{
    bench_opts_t o = { .iters = 10000, .min_size = 8, .max_size = 4u << 20,
                       .reps = 5, .budget_ms = 20, .window = 64 };
    unsigned char *dst, *src;
    int me, target;

    if (bench_parse(argc, argv, &o, NULL) != 0)
        return 1;
    target = bench_start("put bandwidth: window of shmem_putmem_nbi + shmem_quiet (GB/s)", &o);
    me = shmem_my_pe();
    bench_alloc_pair(&o, &dst, &src);
    bench_report_mapping(dst, target);

    for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
        if (me == target)
            memset(dst, 0, size);
        shmem_barrier_all();
        if (me == 0) {
            double sec;
            int w = o.window;

            bench_fill(src, size);
            sec = BENCH_MEASURE(&o,
                                for (int k = 0; k < w; k++)
                                    shmem_putmem_nbi(dst, src, size, target);
                                shmem_quiet());
            bench_result("put_bw", size, (double)size * w / sec * 1e-9, "GB/s");
        }
        shmem_barrier_all();
        if (me == target) {
            size_t bad = bench_check(dst, size);

            if (bad != size)
                BENCH_FAIL("put_nbi of %zu bytes: byte %zu is %u, expected %u", size, bad,
                           dst[bad], bench_pattern(size, bad));
        }
    }
    shmem_free(src);
    shmem_free(dst);
    return bench_finish();
}
