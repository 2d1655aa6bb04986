/*
 * gpu_put_bw: host-initiated put bandwidth between the GPUs of two PEs
 * (docs/gpu.md, "Running on a GPU host"), PE 0 putting from its device heap into PE
 * 1's, 4 KiB to 256 MiB, beside the CUDA runtime's own peer copies from
 * the same source in the same process:
 *
 *   fabshmem_put       shmem_putmem, one after the other (each is complete
 *                      when it returns: a copy of the GPU, then a wait)
 *   cuda_memcpy_peer   cudaMemcpyPeer into a buffer of PE 1's device, one
 *                      after the other (each waited for): the same work
 *   cuda_memcpy_peer_async  cudaMemcpyPeerAsync on one stream, one wait at
 *                      the end: the copy engine's floor, as NVSHMEM's
 *                      anchor measures it (../shared/gpu-anchor)
 *   fabshmem_sum_reduce  then the blocking shmem_float_sum_reduce over
 *                      every PE, 4 KiB to 256 MiB, in us per call, when
 *                      every PE maps every other
 *
 * Lines "name bytes GB/s" on PE 0; the data that reached PE 1 is checked
 * (a failure ends with exit 1).  Needs 2 PEs with device heaps of at least
 * 2 x 256 MiB plus room (FABSHMEM_DEVICE_HEAP_SIZE, default 1G); exits 77
 * without a device heap.  -s MAX caps the largest size.
 */
#include "../common.h"
#include <shmemx.h>
#include "../../tests/gpu/gpu_kern.h"
#include "gpu_bench.h"

static int iters_for(size_t n)
{
    return n <= 65536 ? 2000 : n <= (1 << 20) ? 500 : n <= (16 << 20) ? 50 : 10;
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "gpu_put_bw: %s: %d (%s)\n", what, rc, gb_error(rc));
    shmem_global_exit(1);
}

int main(int argc, char **argv)
{
    size_t max = (size_t)256 << 20, n;
    char *src, *dst;
    int me, peer_dev = -1, rc, i;
    long long bad;
    double t, sec;

    if (argc > 2 && !strcmp(argv[1], "-s") && bench_parse_size(argv[2], &max))
        return 2;
    gpu_count(); /* loads the driver: FABSHMEM_CUDA=auto brings the GPU up */
    shmem_init();
    me = shmem_my_pe();
    if (shmemx_cuda_device() < 0 || shmem_n_pes() < 2) {
        if (me == 0)
            printf("# SKIP: needs 2 PEs with device heaps\n");
        shmem_finalize();
        return 77;
    }
    src = shmem_malloc_with_hints(max, SHMEMX_MALLOC_DEVICE);
    dst = shmem_malloc_with_hints(max, SHMEMX_MALLOC_DEVICE);
    if (!src || !dst) {
        if (me == 0)
            printf("# SKIP: the device heap cannot hold 2 x %zu bytes\n", max);
        shmem_finalize();
        return 77;
    }
    if ((rc = gpu_fill(src, max, 11 + me)))
        die("gpu_fill", rc);
    /* PE 1's device, for the runtime's peer copies from PE 0. */
    {
        int *devs = shmem_malloc(2 * sizeof(int)), d = shmemx_cuda_device();
        shmem_barrier_all();
        shmem_int_put(&devs[me > 1 ? 0 : me], &d, 1, 0);
        shmem_barrier_all();
        if (me == 0)
            peer_dev = devs[1];
        shmem_barrier_all();
        shmem_free(devs);
    }
    if (me == 0) {
        printf("# gpu_put_bw: PE 0 (device %d) -> PE 1 (device %d), %s\n",
               shmemx_cuda_device(), peer_dev,
               shmem_ptr(dst, 1) ? "mapped (a copy of the GPU)" : "not mapped");
        if (peer_dev != shmemx_cuda_device() && (rc = gb_peer_setup(shmemx_cuda_device(), peer_dev, max)))
            die("gb_peer_setup", rc);
    }
    for (n = 4096; n <= max; n *= 4) {
        int it = iters_for(n);
        shmem_barrier_all();
        if (me == 0) {
            for (i = 0; i < 3; i++)
                shmem_putmem(dst, src, n, 1);
            t = bench_now();
            for (i = 0; i < it; i++)
                shmem_putmem(dst, src, n, 1);
            t = bench_now() - t;
            printf("fabshmem_put %zu %.2f GB/s\n", n, (double)n * it / t / 1e9);
            if (peer_dev != shmemx_cuda_device()) {
                if ((rc = gb_peer_copy(src, shmemx_cuda_device(), n, 3, 0, &sec)) ||
                    (rc = gb_peer_copy(src, shmemx_cuda_device(), n, it, 0, &sec)))
                    die("cudaMemcpyPeer", rc);
                printf("cuda_memcpy_peer %zu %.2f GB/s\n", n, (double)n * it / sec / 1e9);
                if ((rc = gb_peer_copy(src, shmemx_cuda_device(), n, 3, 1, &sec)) ||
                    (rc = gb_peer_copy(src, shmemx_cuda_device(), n, it, 1, &sec)))
                    die("cudaMemcpyPeerAsync", rc);
                printf("cuda_memcpy_peer_async %zu %.2f GB/s\n", n, (double)n * it / sec / 1e9);
            }
            fflush(stdout);
        }
    }
    /* The blocking sum reduction of float32 over every PE (the library's
     * kernel, one-shot, when every PE maps every other). */
    if (shmem_team_n_pes(SHMEM_TEAM_SHARED) == shmem_n_pes()) {
        static const size_t rsz[] = { 4096, 1 << 20, 16 << 20, (size_t)256 << 20 };
        for (i = 0; i < 4; i++) {
            int it = rsz[i] <= (1 << 20) ? 200 : rsz[i] <= (16 << 20) ? 20 : 5, k;
            if (rsz[i] > max)
                break;
            shmem_barrier_all();
            if (shmem_float_sum_reduce(SHMEM_TEAM_WORLD, (float *)dst, (float *)src,
                                       rsz[i] / 4))
                die("shmem_float_sum_reduce", 0);
            shmem_barrier_all();
            t = bench_now();
            for (k = 0; k < it; k++)
                if (shmem_float_sum_reduce(SHMEM_TEAM_WORLD, (float *)dst, (float *)src,
                                           rsz[i] / 4))
                    die("shmem_float_sum_reduce", 0);
            t = bench_now() - t;
            if (me == 0)
                printf("fabshmem_sum_reduce %zu %.2f us\n", rsz[i], t / it * 1e6);
        }
        /* The put check below reads dst again: put the last size once more. */
        shmem_barrier_all();
        if (me == 0) {
            for (n = 4096; n * 4 <= max; n *= 4)
                ;
            shmem_putmem(dst, src, n, 1);
        }
    }
    shmem_barrier_all();
    if (me == 1) {
        /* The last size put: PE 0's pattern. */
        for (n = 4096; n * 4 <= max; n *= 4)
            ;
        bad = gpu_find_mismatch(dst, n, 11);
        if (bad != -1) {
            fprintf(stderr, "gpu_put_bw: PE 1's block differs from PE 0's source at byte %lld "
                    "of %zu\n", bad, n);
            shmem_global_exit(1);
        }
        printf("# PE 1: the %zu bytes put are PE 0's\n", n);
    }
    shmem_barrier_all();
    if (me == 0 && peer_dev != shmemx_cuda_device())
        gb_peer_free();
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
