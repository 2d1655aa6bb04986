/*
 * alltoall latency: shmem_alltoall64 over all PEs (active set 0, 0, n);
 * the size is the block each PE sends to each PE, in bytes, then a
 * barrier (see coll_common.h).  Checks every received block.
 */
#include "coll_common.h"

static long psync[SHMEM_ALLTOALL_SYNC_SIZE];

static unsigned char blk_val(int from, int to, size_t size, size_t i)
{
    return (unsigned char)(bench_pattern(size, i) + from * 7 + to * 13);
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
    for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    bench_start("shmem_alltoall64 latency, block size per pair, then a barrier (us)", &o);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    src = shmem_malloc(o.max_size * npes);
    dst = shmem_malloc(o.max_size * npes);
    ctl = shmem_malloc(sizeof(long));
    if (!src || !dst || !ctl)
        BENCH_FAIL("shmem_malloc of %zu bytes failed", 2 * o.max_size * npes);
    bench_report_mapping(dst, 1);
    COLL_SWEEP(&o, ctl, "alltoall",
               {
                   for (int pe = 0; pe < npes; pe++)
                       for (size_t i = 0; i < size; i++)
                           src[pe * size + i] = blk_val(me, pe, size, i);
                   memset(dst, 0, size * npes);
               },
               shmem_alltoall64(dst, src, size / 8, 0, 0, npes, psync),
               {
                   for (int pe = 0; pe < npes; pe++)
                       for (size_t i = 0; i < size; i++)
                           if (dst[pe * size + i] != blk_val(pe, me, size, i))
                               BENCH_FAIL("alltoall of %zu bytes: block from %d byte %zu "
                                          "differs", size, pe, i);
               });
    shmem_free(ctl);
    shmem_free(dst);
    shmem_free(src);
    return bench_finish();
}
