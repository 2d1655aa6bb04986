/*
 * Put message rate: windows of 8-byte puts (shmem_putmem_nbi, or blocking
 * shmem_putmem with -b) to consecutive slots of PE 1, each window closed by
 * shmem_quiet. Reports the median rate in millions of messages per second.
 * -m chooses another message size; -s is accepted and ignored, so one set of
 * options serves every benchmark.
 */
#include "common.h"

int main(int argc, char **argv)
{
    bench_opts_t o = { .iters = 100000, .min_size = 8, .max_size = 4u << 20,
                       .reps = 5, .budget_ms = 20, .window = 64 };
    unsigned char *dst, *src;
    const char *name;
    size_t span;
    int me, target;

    if (bench_parse(argc, argv, &o, " [-b: blocking shmem_putmem]") != 0)
        return 1;
    name = o.flag ? "msg_rate_put" : "msg_rate";
    target = bench_start(o.flag ? "message rate: window of shmem_putmem + shmem_quiet (M msg/s)"
                                : "message rate: window of shmem_putmem_nbi + shmem_quiet (M msg/s)",
                         &o);
    me = shmem_my_pe();
    o.max_size = o.min_size;
    span = o.max_size * (size_t)o.window;
    dst = shmem_malloc(span);
    src = shmem_malloc(span);
    if (dst == NULL || src == NULL)
        BENCH_FAIL("shmem_malloc of %zu bytes failed", span);
    memset(dst, 0, span);
    memset(src, 0, span);
    bench_report_mapping(dst, target);

    for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
        size_t used = size * (size_t)o.window;

        if (me == target)
            memset(dst, 0, used);
        shmem_barrier_all();
        if (me == 0) {
            double sec;
            int w = o.window;

            bench_fill(src, used);
            if (o.flag)
                sec = BENCH_MEASURE(&o,
                                    for (int k = 0; k < w; k++)
                                        shmem_putmem(dst + k * size, src + k * size, size, target);
                                    shmem_quiet());
            else
                sec = BENCH_MEASURE(&o,
                                    for (int k = 0; k < w; k++)
                                        shmem_putmem_nbi(dst + k * size, src + k * size, size, target);
                                    shmem_quiet());
            bench_result(name, size, (double)w / sec * 1e-6, "Mmsg/s");
        }
        shmem_barrier_all();
        if (me == target) {
            size_t bad = bench_check(dst, used);

            if (bad != used)
                BENCH_FAIL("%zu-byte puts: byte %zu is %u, expected %u", size, bad,
                           dst[bad], bench_pattern(used, bad));
        }
    }
    shmem_free(src);
    shmem_free(dst);
    return bench_finish();
}
