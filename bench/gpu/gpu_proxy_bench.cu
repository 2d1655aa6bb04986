/*
 * gpu_proxy_bench: the device API to a peer this GPU does not map, through
 * the proxy (docs/device.md, "The proxy"), each figure beside the host
 * library's own operation of the same size on the same provider in the
 * same run (issue 30's targets: a kernel's put within 1.5x the host's
 * blocking put, bandwidth at least 0.9x the host's from 1 MiB up):
 *   put_lat:   one thread's blocking shmemd_putmem in a loop (each returns
 *              when the data is at the target), beside the host's
 *              shmem_putmem + shmem_quiet (the same: complete at the
 *              target); the host's shmem_putmem alone in the note;
 *   put_bw:    one thread's shmemd_putmem_nbi, REPS times, then
 *              shmemd_quiet, 4 KiB to 64 MiB, beside the host's
 *              shmem_putmem_nbi REPS times and shmem_quiet;
 *   fadd_lat:  one thread's shmemd_uint64_atomic_fetch_add in a loop beside
 *              the host's shmem_uint64_atomic_fetch_add on the same device
 *              word;
 *   barrier:   shmemd_barrier_all by one thread in a loop beside the host's
 *              shmem_barrier_all.
 * Source and destination are in the device heap on both sides.  A kernel's
 * time includes its launch (one launch per loop).  Lines
 * "gpu_proxy_bench: NAME SIZE kernel_us host_us ratio" (PE 0).  Run at 2
 * PEs on virtual nodes of one PE with the proxy on
 * (FABSHMEM_PES_PER_NODE=1; bench/gpu/run_proxy.sh).  The kernels run on
 * the legacy default stream, or with PROXY_BENCH_STREAM=nonblocking on a
 * stream made with cudaStreamNonBlocking (which a provider's own CUDA
 * copies on the legacy stream do not wait for: docs/device.md, The proxy).
 */
#include <shmem.h>
#include <shmemx.h>
#include <fabshmem/shmem_device.cuh>
#define DEVBENCH_NAME "gpu_proxy_bench"
#include <string.h>
#include "gpu_devbench.h"

static cudaStream_t kst; /* the kernels' stream (0: the legacy default stream) */

static int me;

__global__ void k_put_lat(char *dst, const char *src, size_t n, int pe, int iters)
{
    for (int i = 0; i < iters; i++)
        shmemd_putmem(dst, src, n, pe);
}
__global__ void k_put_bw(char *dst, const char *src, size_t n, int pe, int reps)
{
    for (int i = 0; i < reps; i++)
        shmemd_putmem_nbi(dst, src, n, pe);
    shmemd_quiet();
}
__global__ void k_fadd(uint64_t *w, int pe, int iters)
{
    for (int i = 0; i < iters; i++)
        (void)shmemd_uint64_atomic_fetch_add(w, 1, pe);
}
__global__ void k_barriers(int iters)
{
    for (int i = 0; i < iters; i++)
        shmemd_barrier_all();
}

/* Runs the kernel's loop and the host's: the time of one operation of
 * each, in microseconds (ops operations a loop). */
static double kernel_done(double t0, int ops)
{
    CK(cudaDeviceSynchronize());
    if (shmemx_device_check())
        exit(1);
    return (now() - t0) * 1e6 / ops;
}
static void line(const char *name, size_t size, double k_us, double h_us, const char *note)
{
    printf("gpu_proxy_bench: %-9s %10zu %10.3f %10.3f %6.2f%s\n", name, size, k_us, h_us,
           k_us / h_us, note);
    fflush(stdout);
}

int main(void)
{
    int n, ngpus;
    cudaGetDeviceCount(&ngpus);
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    char *heap = shmemx_cuda_device() < 0 ? NULL
                 : (char *)shmem_malloc_with_hints((size_t)132 << 20, SHMEMX_MALLOC_DEVICE);
    shmemd_state_t st;
    if (n != 2 || !heap || shmem_ptr(heap, 1 - me) || shmemx_device_state(&st, sizeof(st)) ||
        !st.proxy.slots) {
        if (me == 0)
            printf("SKIP gpu_proxy_bench: needs 2 PEs that do not map each other, with the "
                   "proxy (FABSHMEM_PES_PER_NODE=1)\n");
        shmem_finalize();
        return 77;
    }
    int other = 1 - me, iters = getenv("PROXY_BENCH_ITERS") ? atoi(getenv("PROXY_BENCH_ITERS")) : 2000;
    uint64_t *w = (uint64_t *)heap;
    char *src = heap + 4096, *dst = src + ((size_t)64 << 20) + 4096;
    double t, k_us, h_us, h2_us;
    char note[128];
    const char *sk = getenv("PROXY_BENCH_STREAM");
    if (sk && !strcmp(sk, "nonblocking"))
        CK(cudaStreamCreateWithFlags(&kst, cudaStreamNonBlocking));
    CK(cudaMemset(heap, 1, (size_t)132 << 20));
    CK(cudaDeviceSynchronize());
    if (me == 0)
        printf("gpu_proxy_bench: %-9s %10s %10s %10s %6s  (proxy: %u slots, flags %#x)\n", "what",
               "bytes", "kernel_us", "host_us", "ratio", st.proxy.nslots, st.proxy.flags);
    shmem_barrier_all();
    /* put latency */
    static const size_t lat_sizes[] = { 8, 4096, 65536 };
    for (unsigned k = 0; k < sizeof(lat_sizes) / sizeof(lat_sizes[0]); k++) {
        size_t sz = lat_sizes[k];
        if (me == 0) {
            k_put_lat<<<1, 1, 0, kst>>>(dst, src, sz, other, 10); /* warm */
            (void)kernel_done(now(), 1);
            t = now();
            k_put_lat<<<1, 1, 0, kst>>>(dst, src, sz, other, iters);
            k_us = kernel_done(t, iters);
            t = now();
            for (int i = 0; i < iters; i++) {
                shmem_putmem(dst, src, sz, other);
                shmem_quiet();
            }
            h_us = (now() - t) * 1e6 / iters;
            t = now();
            for (int i = 0; i < iters; i++)
                shmem_putmem(dst, src, sz, other);
            shmem_quiet();
            h2_us = (now() - t) * 1e6 / iters;
            snprintf(note, sizeof(note), "  (host put + quiet; shmem_putmem alone %.3f us)", h2_us);
            line("put_lat", sz, k_us, h_us, note);
        }
        shmem_barrier_all();
    }
    /* put bandwidth */
    for (size_t sz = 4096; sz <= ((size_t)64 << 20); sz *= 4) {
        int reps = sz < ((size_t)1 << 20) ? 200 : sz < ((size_t)16 << 20) ? 20 : 5;
        if (me == 0) {
            k_put_bw<<<1, 1, 0, kst>>>(dst, src, sz, other, 1); /* warm */
            (void)kernel_done(now(), 1);
            t = now();
            k_put_bw<<<1, 1, 0, kst>>>(dst, src, sz, other, reps);
            k_us = kernel_done(t, reps);
            t = now();
            for (int i = 0; i < reps; i++)
                shmem_putmem_nbi(dst, src, sz, other);
            shmem_quiet();
            h_us = (now() - t) * 1e6 / reps;
            snprintf(note, sizeof(note), "  (%.2f GB/s, host %.2f GB/s)", sz / k_us / 1e3,
                     sz / h_us / 1e3);
            line("put_bw", sz, k_us, h_us, note);
        }
        shmem_barrier_all();
    }
    /* fetch_add latency */
    if (me == 0) {
        k_fadd<<<1, 1, 0, kst>>>(w, other, 10);
        (void)kernel_done(now(), 1);
        t = now();
        k_fadd<<<1, 1, 0, kst>>>(w, other, iters);
        k_us = kernel_done(t, iters);
        t = now();
        for (int i = 0; i < iters; i++)
            (void)shmem_uint64_atomic_fetch_add(w, 1, other);
        h_us = (now() - t) * 1e6 / iters;
        line("fadd_lat", 8, k_us, h_us, "");
    }
    shmem_barrier_all();
    /* barrier */
    k_barriers<<<1, 1, 0, kst>>>(10);
    CK(cudaDeviceSynchronize());
    shmem_barrier_all();
    t = now();
    k_barriers<<<1, 1, 0, kst>>>(iters);
    k_us = kernel_done(t, iters);
    shmem_barrier_all();
    t = now();
    for (int i = 0; i < iters; i++)
        shmem_barrier_all();
    h_us = (now() - t) * 1e6 / iters;
    if (me == 0)
        line("barrier", 0, k_us, h_us, "");
    /* the fetch_adds all landed: 10 + iters of the kernel, iters of the host */
    shmem_barrier_all();
    if (me == 1) {
        uint64_t v;
        CK(cudaMemcpy(&v, w, 8, cudaMemcpyDeviceToHost));
        if (v != 0x0101010101010101ull + 10 + 2 * (uint64_t)iters) {
            fprintf(stderr, "gpu_proxy_bench: PE 1: the word the fetch_adds updated is %#llx, "
                    "not %#llx\n", (unsigned long long)v,
                    (unsigned long long)(0x0101010101010101ull + 10 + 2 * (uint64_t)iters));
            return 1;
        }
    }
    shmem_barrier_all();
    shmem_free(heap);
    shmem_finalize();
    return 0;
}
