/*
 * gpu_amo_lat: the latency of the host API's atomics on device-heap words
 * (docs/gpu.md, "Atomics on device memory") beside the same atomics on
 * host-heap words, PE 0 to PE 1, median microseconds per operation:
 *
 *   host_fetch_add     shmem_uint64_atomic_fetch_add on a host-heap word
 *   dev_fetch_add      the same on a device-heap word (the library's
 *                      one-thread kernel on the mapping, or PE 1's staging
 *                      thread where PE 1 is not mapped)
 *   dev_set            shmem_uint64_atomic_set on a device-heap word (the
 *                      stream's write where mapped)
 *   dev_signal_fetch   shmem_signal_fetch of PE 0's own device word
 *
 * PE 1 checks the final values (a failure ends with exit 1).  Exits 77
 * without device heaps.  Lines "name 8 us us"; bench/ab.sh compares two
 * builds.  The configuration (mapped or not) is FABSHMEM_DIRECT's and
 * FABSHMEM_PES_PER_NODE's.
 */
#include "../common.h"
#include <shmemx.h>
#include "../../tests/gpu/gpu_kern.h"

int main(int argc, char **argv)
{
    bench_opts_t o = { .iters = 100000, .min_size = 8, .max_size = 8, .reps = 5,
                       .budget_ms = 50, .window = 1 };
    uint64_t *h, *d, got[2] = { 0, 0 }, v = 0;
    long n_fadd = 0, n_hfadd = 0, *counts;
    double t;
    int me;

    if (bench_parse(argc, argv, &o, NULL) != 0)
        return 1;
    gpu_count(); /* loads the driver: FABSHMEM_CUDA=auto brings the GPU up */
    shmem_init();
    me = shmem_my_pe();
    if (shmemx_cuda_device() < 0 || shmem_n_pes() < 2) {
        if (me == 0)
            printf("# SKIP: needs 2 PEs with device heaps\n");
        shmem_finalize();
        return 77;
    }
    h = shmem_calloc(2, sizeof(uint64_t));
    counts = shmem_calloc(2, sizeof(long));
    d = shmem_malloc_with_hints(2 * sizeof(uint64_t), SHMEMX_MALLOC_DEVICE);
    if (!h || !counts || !d || gpu_copy(d, got, sizeof(got)))
        BENCH_FAIL("allocation failed");
    shmem_barrier_all();
    if (me == 0) {
        printf("# host atomics on device-heap words, PE 0 -> PE 1 (%s)\n",
               shmem_ptr(d, 1) ? "mapped" : "not mapped");
        t = BENCH_MEASURE(&o, (void)shmem_uint64_atomic_fetch_add(h, 1, 1); n_hfadd++);
        bench_result("host_fetch_add", 8, t * 1e6, "us");
        t = BENCH_MEASURE(&o, (void)shmem_uint64_atomic_fetch_add(d, 1, 1); n_fadd++);
        bench_result("dev_fetch_add", 8, t * 1e6, "us");
        t = BENCH_MEASURE(&o, shmem_uint64_atomic_set(d + 1, (uint64_t)bench_i, 1));
        bench_result("dev_set", 8, t * 1e6, "us");
        t = BENCH_MEASURE(&o, v += shmem_signal_fetch(d));
        bench_result("dev_signal_fetch", 8, t * 1e6, "us");
        shmem_long_p(&counts[0], n_hfadd, 1);
        shmem_long_p(&counts[1], n_fadd, 1);
    }
    shmem_barrier_all();
    if (me == 1) {
        if (gpu_copy(got, d, sizeof(got)))
            BENCH_FAIL("cudaMemcpy");
        if (h[0] != (uint64_t)counts[0] || got[0] != (uint64_t)counts[1])
            BENCH_FAIL("PE 1's counters are %llu (host) and %llu (device), expected %ld and %ld",
                       (unsigned long long)h[0], (unsigned long long)got[0], counts[0],
                       counts[1]);
    }
    (void)v;
    return bench_finish();
}
