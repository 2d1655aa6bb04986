/*
 * Sum reduction latency: shmem_long_sum_to_all over all PEs (active set
 * 0, 0, n); the size is the array in bytes (longs), then a barrier (see
 * coll_common.h).  Checks every element of the result on every PE.
 */
#include "coll_common.h"

static long psync[SHMEM_REDUCE_SYNC_SIZE];

int main(int argc, char **argv)
{
    bench_opts_t o = { .iters = 100000, .min_size = 8, .max_size = 1u << 20,
                       .reps = 5, .budget_ms = 20, .window = 64 };
    long *dst, *src, *wrk, *ctl;
    size_t nmax, nwrk;
    int me, npes;

    if (bench_parse(argc, argv, &o, NULL) != 0)
        return 1;
    if (o.min_size < 8)
        o.min_size = 8;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    bench_start("shmem_long_sum_to_all latency, array size in bytes, then a barrier (us)", &o);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    nmax = o.max_size / sizeof(long);
    nwrk = nmax / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? nmax / 2 + 1
                                                         : SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    src = shmem_malloc(o.max_size);
    dst = shmem_malloc(o.max_size);
    wrk = shmem_malloc(nwrk * sizeof(long));
    ctl = shmem_malloc(sizeof(long));
    if (!src || !dst || !wrk || !ctl)
        BENCH_FAIL("shmem_malloc of %zu bytes failed", 3 * o.max_size);
    bench_report_mapping(dst, 1);
    COLL_SWEEP(&o, ctl, "sum_reduce",
               {
                   for (size_t i = 0; i < size / sizeof(long); i++)
                       src[i] = (long)(i % 1000) + me;
                   memset(dst, 0, size);
               },
               shmem_long_sum_to_all(dst, src, (int)(size / sizeof(long)), 0, 0, npes, wrk, psync),
               {
                   for (size_t i = 0; i < size / sizeof(long); i++) {
                       long want = (long)(i % 1000) * npes + (long)npes * (npes - 1) / 2;
                       if (dst[i] != want)
                           BENCH_FAIL("sum of %zu bytes: element %zu is %ld, expected %ld", size,
                                      i, dst[i], want);
                   }
               });
    shmem_free(ctl);
    shmem_free(wrk);
    shmem_free(dst);
    shmem_free(src);
    return bench_finish();
}
