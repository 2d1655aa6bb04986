/*
 * Broadcast latency: shmem_broadcast64 from PE 0 over all PEs (active set
 * 0, 0, n), sizes in bytes, then a barrier (see coll_common.h).  Checks
 * that every non-root PE received the root's data.
 */
#include "coll_common.h"

static long psync[SHMEM_BCAST_SYNC_SIZE];

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
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    bench_start("shmem_broadcast64 latency from PE 0, then a barrier (us)", &o);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    bench_alloc_pair(&o, &dst, &src);
    ctl = shmem_malloc(sizeof(long));
    bench_report_mapping(dst, 1);
    COLL_SWEEP(&o, ctl, "broadcast",
               { bench_fill(src, size); memset(dst, 0, size); },
               shmem_broadcast64(dst, src, size / 8, 0, 0, 0, npes, psync),
               {
                   size_t bad = me == 0 ? size : bench_check(dst, size);
                   if (bad != size)
                       BENCH_FAIL("broadcast of %zu bytes: byte %zu differs", size, bad);
               });
    shmem_free(ctl);
    shmem_free(dst);
    shmem_free(src);
    return bench_finish();
}
