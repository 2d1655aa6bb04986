/*
 * fcollect latency: shmem_fcollect64 over all PEs (active set 0, 0, n);
 * the size is each PE's block in bytes, then a barrier (see
 * coll_common.h).  Checks every PE's copy of every block.
 */
#include "coll_common.h"

static long psync[SHMEM_COLLECT_SYNC_SIZE];

static unsigned char blk_val(int pe, size_t size, size_t i)
{
    return (unsigned char)(bench_pattern(size, i) + pe * 7);
}

int main(int argc, char **argv)
{
    bench_opts_t o = { .iters = 100000, .min_size = 8, .max_size = 1u << 20,
                       .reps = 5, .budget_ms = 20, .window = 64 };
    unsigned char *dst, *src;
    long *ctl;
    int me, npes;

    if (bench_parse(argc, argv, &o, NULL) != 0)
        return 1;
    if (o.min_size < 8)
        o.min_size = 8;
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    bench_start("shmem_fcollect64 latency, block size per PE, then a barrier (us)", &o);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    src = shmem_malloc(o.max_size);
    dst = shmem_malloc(o.max_size * npes);
    ctl = shmem_malloc(sizeof(long));
    if (!src || !dst || !ctl)
        BENCH_FAIL("shmem_malloc of %zu bytes failed", o.max_size * (npes + 1));
    bench_report_mapping(dst, 1);
    COLL_SWEEP(&o, ctl, "fcollect",
               {
                   for (size_t i = 0; i < size; i++)
                       src[i] = blk_val(me, size, i);
                   memset(dst, 0, size * npes);
               },
               shmem_fcollect64(dst, src, size / 8, 0, 0, npes, psync),
               {
                   for (int pe = 0; pe < npes; pe++)
                       for (size_t i = 0; i < size; i++)
                           if (dst[pe * size + i] != blk_val(pe, size, i))
                               BENCH_FAIL("fcollect of %zu bytes: block %d byte %zu differs",
                                          size, pe, i);
               });
    shmem_free(ctl);
    shmem_free(dst);
    shmem_free(src);
    return bench_finish();
}
