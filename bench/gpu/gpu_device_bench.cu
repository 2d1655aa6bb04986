/*
 * gpu_device_bench: the device API between two PEs that map each other
 * (docs/device.md), each figure beside its floor measured in the same run
 * through the same mapping:
 *   p ping-pong:   int p + int wait_until, one thread a PE,
 *                  beside the same exchange by plain volatile stores and
 *                  loads through the peer's pointer (half a round trip);
 *   barrier:       barrier_all in a loop (one thread), beside the
 *                  plain ping-pong (a barrier of two is one round trip);
 *   fetch_add:     latency of one thread's uint64 atomic_fetch_add
 *                  to the peer (each waiting for the last's value),
 *                  and throughput of every thread of 132 blocks of 256;
 *   put bandwidth: putmem_block by 132 blocks, each its slice, 4 KiB
 *                  to 256 MiB, beside a plain copy kernel (16-byte loads and
 *                  stores through the mapping, the same grid); each loop
 *                  timed by events (steady_us), ROUNDS rounds of the two
 *                  alternated, each figure the median of its rounds;
 *   all-reduce:    float sum_reduce_block by one block of 512, 4 KiB to
 *                  64 MiB, beside a plain kernel of one block and of 132
 *                  blocks (of 512) that reads both PEs' buffers and writes the sum;
 *                  each loop timed by events on the stream from the end of
 *                  a first launch (steady_us), the slower PE's time of
 *                  each, ROUNDS rounds of the three alternated, each
 *                  figure the median of its rounds;
 *   the same at the GPU's pace: 4 to 64 KiB, 100 launches of the
 *                  reduction and of the plain one-block kernel replayed
 *                  from a CUDA graph (graph_us), no launch from the host
 *                  in the loop (allreduce_graph).
 * Lines "gpu_device_bench: NAME SIZE fabshmem_us floor_us ratio" (PE 0).
 * Run at 2 PEs on one GPU under MPS, or on two GPUs with peer access.
 *
 * The same source built with -DDEVBENCH_NVSHMEM against NVIDIA's NVSHMEM
 * (bench/gpu/run_multi.sh builds it on the GPU host) is NVSHMEM's side of
 * the comparison: the same kernels, sizes, launches and floors with the
 * nvshmem_ and nvshmemx_ routines, lines "nvshmem_device_bench: ...".  It
 * boots by unique id from the environment that tests/uid_launch.sh sets
 * (FABSHMEM_BOOTSTRAP_RANK, _NRANKS, _UID_FILE), so one launcher starts
 * both.
 */
#ifdef DEVBENCH_NVSHMEM
#include <nvshmem.h>
#include <nvshmemx.h>
#include <unistd.h>
#define DEVBENCH_NAME "nvshmem_device_bench"
#define DB_INT_P nvshmem_int_p
#define DB_INT_WAIT_EQ(f, v) nvshmem_int_wait_until(f, NVSHMEM_CMP_EQ, v)
#define DB_BARRIER_ALL nvshmem_barrier_all
#define DB_SYNC_ALL nvshmem_sync_all
#define DB_FADD nvshmem_uint64_atomic_fetch_add
#define DB_PUTMEM_BLOCK nvshmemx_putmem_block
#define DB_SUM_BLOCK(d, s, n) nvshmemx_float_sum_reduce_block(NVSHMEM_TEAM_WORLD, d, s, n)
#define DB_PTR nvshmem_ptr
#define DB_HOST_BARRIER nvshmem_barrier_all
#define DB_MY_PE nvshmem_my_pe
#define DB_N_PES nvshmem_n_pes
#define DB_FREE nvshmem_free
#define DB_FINALIZE nvshmem_finalize
#define DB_CHECK() 0
#else
#include <shmem.h>
#include <shmemx.h>
#include <fabshmem/shmem_device.cuh>
#define DEVBENCH_NAME "gpu_device_bench"
#define DB_INT_P shmemd_int_p
#define DB_INT_WAIT_EQ(f, v) shmemd_int_wait_until(f, SHMEM_CMP_EQ, v)
#define DB_BARRIER_ALL shmemd_barrier_all
#define DB_SYNC_ALL shmemd_sync_all
#define DB_FADD shmemd_uint64_atomic_fetch_add
#define DB_PUTMEM_BLOCK shmemd_putmem_block
#define DB_SUM_BLOCK(d, s, n) shmemd_float_sum_reduce_block(SHMEMD_TEAM_WORLD, d, s, n)
#define DB_PTR shmem_ptr
#define DB_HOST_BARRIER shmem_barrier_all
#define DB_MY_PE shmem_my_pe
#define DB_N_PES shmem_n_pes
#define DB_FREE shmem_free
#define DB_FINALIZE shmem_finalize
#define DB_CHECK() shmemx_device_check()
#endif
#include "gpu_devbench.h"
#ifdef DEVBENCH_NVSHMEM
#define DEVBENCH_NVSHMEM_COL "nvshmem_us"
#else
#define DEVBENCH_NVSHMEM_COL "fabshmem_us"
#endif

#define HEAP_BYTES ((size_t)656 << 20)
#define PUT_MAX ((size_t)256 << 20)

static int me;

/* The ping-pong's ways (mode): 0 plain volatile stores and loads through
 * the mapping (the floor); 1 the device API (shmemd_int_p and
 * shmemd_int_wait_until); 2 shmemd_int_p and a plain wait; 3 the plain one
 * with a __threadfence_system() before each store (the fence that a
 * barrier's quiet and a signal issue): where the API's time goes. */
__global__ void k_pingpong(int *flag, int iters, int me, int mode, int *peer_flag)
{
    int other = 1 - me;
    for (int i = 1; i <= iters; i++) {
        if (me == 1) {
            if (mode == 1)
                DB_INT_WAIT_EQ(flag, i);
            else
                while (*(volatile int *)flag != i)
                    ;
        }
        if (mode == 1 || mode == 2) {
            DB_INT_P(flag, i, other);
        } else {
            if (mode == 3)
                __threadfence_system();
            *(volatile int *)peer_flag = i;
        }
        if (me == 0) {
            if (mode == 1)
                DB_INT_WAIT_EQ(flag, i);
            else
                while (*(volatile int *)flag != i)
                    ;
        }
    }
}
__global__ void k_barriers(int iters)
{
    for (int i = 0; i < iters; i++)
        DB_BARRIER_ALL();
}
__global__ void k_syncs(int iters)
{
    for (int i = 0; i < iters; i++)
        DB_SYNC_ALL();
}
/* Each fetch_add's value depends on the last one's old value (its top
 * bit, never set here): the next starts when the last has returned, so
 * the loop measures the round trip, not how fast a thread issues
 * fetch_adds whose results it drops (the compiler may make those
 * reductions that return nothing). */
__global__ void k_fadd_lat(uint64_t *w, int iters, int pe, uint64_t *out)
{
    uint64_t v = 0;
    for (int i = 0; i < iters; i++)
        v = DB_FADD(w, 1 + (v >> 63), pe);
    *out = v;
}
__global__ void k_fadd_rate(uint64_t *w, int iters, int pe)
{
    for (int i = 0; i < iters; i++)
        (void)DB_FADD(w, 1, pe);
}
__global__ void k_put(char *dst, const char *src, size_t n, int pe)
{
    /* Slices of whole 16-byte words, as a program would cut them. */
    size_t slice = ((n + gridDim.x - 1) / gridDim.x + 15) & ~(size_t)15, lo = blockIdx.x * slice;
    size_t len = lo >= n ? 0 : (n - lo < slice ? n - lo : slice);
    DB_PUTMEM_BLOCK(dst + lo, src + lo, len, pe);
}
__global__ void k_copy(int4 *dst, const int4 *src, size_t n16)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}
__global__ void __launch_bounds__(512) k_reduce(float *dst, const float *src, size_t n)
{
    DB_SUM_BLOCK(dst, src, n);
}
__global__ void k_plain_sum(float *dst, const float *a, const float *b, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = a[i] + b[i];
}
__global__ void k_barrier1(void) { DB_BARRIER_ALL(); }
__global__ void k_setf(float *p, size_t n, float v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = v;
}

static void line(const char *name, size_t size, double us, double floor_us)
{
    if (me == 0)
        printf(DEVBENCH_NAME ": %-14s %10zu %10.3f %10.3f %6.2f\n", name, size, us, floor_us,
               us / floor_us);
}

/* One launch's time in a steady loop of REPS launches on the stream, by
 * events around the loop, after one launch before the first event: no
 * launch or synchronize latency in it.  For the all-reduce, both PEs'
 * first reductions end together (each waits for the other's lines), so
 * the two PEs' timings start in step; a loop timed from the host would
 * also hold the skew of the two hosts' starts after their barrier. */
template <class L> static double steady_us(int reps, L launch)
{
    cudaEvent_t a, b;
    float ms = 0;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    launch();
    CK(cudaEventRecord(a));
    for (int r = 0; r < reps; r++)
        launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaGetLastError());
    CK(cudaEventElapsedTime(&ms, a, b));
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return ms * 1e3 / reps;
}

/* One launch's time in a loop of REPS launches captured in a CUDA graph on
 * st, the graph replayed twice after a first replay, timed by events: no
 * launch from the host in it, so the loop runs at the GPU's pace (the
 * kernels and the gaps between them) even where launches from the host
 * are slower than the kernels. */
template <class L> static double graph_us(cudaStream_t st, int reps, L launch)
{
    cudaGraph_t g;
    cudaGraphExec_t ge;
    cudaEvent_t a, b;
    float ms = 0;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    for (int r = 0; r < reps; r++)
        launch();
    CK(cudaStreamEndCapture(st, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaGraphLaunch(ge, st));
    CK(cudaEventRecord(a, st));
    CK(cudaGraphLaunch(ge, st));
    CK(cudaGraphLaunch(ge, st));
    CK(cudaEventRecord(b, st));
    CK(cudaEventSynchronize(b));
    CK(cudaGetLastError());
    CK(cudaEventElapsedTime(&ms, a, b));
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    return ms * 1e3 / (2 * reps);
}

/* The larger of this PE's v and the other's, through slot (a double of the
 * device heap) and the other's copy of it that this PE maps. */
static double both_max(double v, double *slot, int other)
{
    double o = 0;
    CK(cudaMemcpy(slot, &v, sizeof v, cudaMemcpyHostToDevice));
    DB_HOST_BARRIER();
    CK(cudaMemcpy(&o, DB_PTR(slot, other), sizeof o, cudaMemcpyDeviceToHost));
    DB_HOST_BARRIER();
    return o > v ? o : v;
}

/* The PEs, and the device heap of HEAP_BYTES; NULL where there is none. */
static char *start(int *n)
{
#ifdef DEVBENCH_NVSHMEM
    /* Unique-id bootstrap from tests/uid_launch.sh's environment: rank 0
     * writes NVSHMEM's id to the file, the others wait for it. */
    const char *rs = getenv("FABSHMEM_BOOTSTRAP_RANK"), *ns = getenv("FABSHMEM_BOOTSTRAP_NRANKS");
    const char *idf = getenv("FABSHMEM_BOOTSTRAP_UID_FILE");
    if (!rs || !ns || !idf) {
        fprintf(stderr, DEVBENCH_NAME ": start it with tests/uid_launch.sh NP PROG\n");
        exit(2);
    }
    int rank = atoi(rs), ndev = 1;
    *n = atoi(ns);
    CK(cudaGetDeviceCount(&ndev));
    CK(cudaSetDevice(rank % ndev));
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    if (rank == 0) {
        char tmp[4096];
        nvshmemx_get_uniqueid(&id);
        snprintf(tmp, sizeof tmp, "%s.nvshmem", idf);
        FILE *f = fopen(tmp, "wb");
        if (!f || fwrite(&id, sizeof id, 1, f) != 1 || fclose(f) || rename(tmp, idf)) {
            perror(DEVBENCH_NAME ": the unique id's file");
            exit(1);
        }
    } else {
        FILE *f;
        for (int t = 0; !(f = fopen(idf, "rb")); t++) {
            if (t > 6000) {
                fprintf(stderr, DEVBENCH_NAME ": no unique id in %s after 60 s\n", idf);
                exit(1);
            }
            usleep(10000);
        }
        if (fread(&id, sizeof id, 1, f) != 1)
            exit(1);
        fclose(f);
    }
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    nvshmemx_set_attr_uniqueid_args(rank, *n, &id, &attr);
    nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
    me = nvshmem_my_pe();
    return (char *)nvshmem_malloc(HEAP_BYTES);
#else
    shmem_init();
    me = shmem_my_pe();
    *n = shmem_n_pes();
    return shmemx_cuda_device() < 0 ? NULL
           : (char *)shmem_malloc_with_hints(HEAP_BYTES, SHMEMX_MALLOC_DEVICE);
#endif
}

int main(void)
{
    int n;
    char *heap = start(&n);
    if (n != 2 || !heap || !DB_PTR(heap, 1 - me)) {
        if (me == 0)
            printf("SKIP " DEVBENCH_NAME ": needs 2 PEs that map each other's device heaps\n");
        DB_FINALIZE();
        return 77;
    }
    int other = 1 - me, iters = 20000;
    int *flag = (int *)heap, *peer_flag = (int *)DB_PTR(flag, other);
    uint64_t *w = (uint64_t *)(heap + 4096);
    double *slot = (double *)(heap + 8192);
    char *src = heap + ((size_t)1 << 20), *dst = src + PUT_MAX;
    float *fsrc = (float *)(dst + PUT_MAX), *fdst = fsrc + ((size_t)64 << 20) / 4;
    double t, us, floor_us;
    if (me == 0)
        printf(DEVBENCH_NAME ": %-14s %10s %10s %10s %6s\n", "what", "bytes", DEVBENCH_NVSHMEM_COL,
               "floor_us", "ratio");
    /* ping-pong in each way, three times each: the best */
    double best[4] = { 1e30, 1e30, 1e30, 1e30 };
    for (int rep = 0; rep < 3; rep++)
        for (int mode = 0; mode < 4; mode++) {
            CK(cudaMemset(flag, 0, 4));
            DB_HOST_BARRIER();
            t = now();
            k_pingpong<<<1, 1>>>(flag, iters, me, mode, peer_flag);
            CK(cudaDeviceSynchronize());
            us = (now() - t) * 1e6 / iters / 2;
            DB_HOST_BARRIER();
            best[mode] = us < best[mode] ? us : best[mode];
        }
    line("p_pingpong", 4, best[1], best[0]);
    line("p_plainwait", 4, best[2], best[0]);
    line("fence_pingpong", 4, best[3], best[0]);
    DB_HOST_BARRIER();
    k_barrier1<<<1, 1>>>();
    CK(cudaDeviceSynchronize());
    t = now();
    k_barriers<<<1, 1>>>(iters);
    CK(cudaDeviceSynchronize());
    line("barrier", 0, (now() - t) * 1e6 / iters, best[0] * 2);
    DB_HOST_BARRIER();
    t = now();
    k_syncs<<<1, 1>>>(iters);
    CK(cudaDeviceSynchronize());
    line("sync_all", 0, (now() - t) * 1e6 / iters, best[0] * 2);
    DB_HOST_BARRIER();
    DB_HOST_BARRIER();
    if (me == 0) {
        t = now();
        k_fadd_lat<<<1, 1>>>(w, iters, other, w + 8);
        CK(cudaDeviceSynchronize());
        us = (now() - t) * 1e6 / iters;
        t = now();
        k_fadd_rate<<<132, 256>>>(w, 100, other);
        CK(cudaDeviceSynchronize());
        double rate = 132.0 * 256 * 100 / (now() - t);
        printf(DEVBENCH_NAME ": fetch_add latency %.3f us, throughput %.1f M/s (132x256 "
               "threads)\n", us, rate / 1e6);
    }
    DB_HOST_BARRIER();
    for (size_t sz = 4096; sz <= PUT_MAX; sz *= 4) {
        /* ROUNDS rounds of the two loops, alternated, each timed as the
         * all-reduce's (steady_us), and each loop's median: the sizes up
         * to 4 MiB are launch-bound (5 us a launch), and 20 launches timed
         * from the host swung by 0.8x-1.3x from run to run (12-01). */
        int reps = sz < ((size_t)16 << 20) ? 200 : 20;
        char *pdst = (char *)DB_PTR(dst, other);
        if (me == 0) {
            double p_us[ROUNDS], c_us[ROUNDS];
            for (int k = 0; k < ROUNDS; k++) {
                p_us[k] = steady_us(reps, [&] { k_put<<<132, 256>>>(dst, src, sz, other); });
                c_us[k] = steady_us(reps, [&] {
                    k_copy<<<132, 256>>>((int4 *)pdst, (const int4 *)src, sz / 16);
                });
            }
            us = bench_median(p_us, ROUNDS);
            floor_us = bench_median(c_us, ROUNDS);
            printf(DEVBENCH_NAME ": put_block_bw %10zu %10.3f %10.3f %6.2f  (%.1f GB/s, floor "
                   "%.1f GB/s)\n", sz, us, floor_us, us / floor_us, sz / us / 1e3,
                   sz / floor_us / 1e3);
        }
        DB_HOST_BARRIER();
    }
    for (size_t sz = 4096; sz <= ((size_t)64 << 20); sz *= 4) {
        size_t nf = sz / 4;
        int reps = sz < (1 << 20) ? 200 : 5;
        const float *pa = fsrc, *pb = (const float *)DB_PTR(fsrc, other);
        float first = 0, last = 0;
        k_setf<<<132, 256>>>(fsrc, nf, (float)(me + 1));
        k_setf<<<132, 256>>>(fdst, nf, -1.0f);
        CK(cudaDeviceSynchronize());
        DB_HOST_BARRIER();
        k_reduce<<<1, 512>>>(fdst, fsrc, nf);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(&first, fdst, 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&last, fdst + nf - 1, 4, cudaMemcpyDeviceToHost));
        if (first != 3.0f || last != 3.0f || DB_CHECK()) {
            fprintf(stderr, DEVBENCH_NAME ": PE %d: the all-reduce of %zu bytes gave %g ... %g, "
                    "not 3\n", me, sz, first, last);
            return 1;
        }
        /* ROUNDS rounds of the three loops, alternated, and each loop's
         * median: the launch-bound small sizes swing between runs.  Each
         * PE's reductions wait for the other's, so their loop runs at the
         * pace of the PE that launches slower; the floor of a round is
         * the plain loop of that PE (the slower of the two; the 2 PEs'
         * plain kernels, which wait for nothing, are done when it is). */
        double t_us[ROUNDS], f_us[ROUNDS], g_us[ROUNDS], mine_us[ROUNDS];
        for (int k = 0; k < ROUNDS; k++) {
            CK(cudaDeviceSynchronize());
            DB_HOST_BARRIER();
            t_us[k] = steady_us(reps, [&] { k_reduce<<<1, 512>>>(fdst, fsrc, nf); });
            f_us[k] = steady_us(reps, [&] { k_plain_sum<<<1, 512>>>(fdst, pa, pb, nf); });
            g_us[k] = steady_us(reps, [&] { k_plain_sum<<<132, 512>>>(fdst, pa, pb, nf); });
            mine_us[k] = f_us[k];
            t_us[k] = both_max(t_us[k], slot, other);
            f_us[k] = both_max(f_us[k], slot, other);
            g_us[k] = both_max(g_us[k], slot, other);
        }
        us = bench_median(t_us, ROUNDS);
        floor_us = bench_median(f_us, ROUNDS);
        double grid_us = bench_median(g_us, ROUNDS), pe0_us = bench_median(mine_us, ROUNDS);
        if (me == 0)
            printf(DEVBENCH_NAME ": allreduce_blk %10zu %10.3f %10.3f %6.2f  (plain kernel of "
                   "132 blocks %.3f us: %.2fx; PE 0's plain loop %.3f us)\n", sz, us, floor_us,
                   us / floor_us, grid_us, us / grid_us, pe0_us);
        DB_HOST_BARRIER();
    }
    /* The small all-reduces at the GPU's pace: the loops above are bound
     * by the launches from the host where a kernel takes less than a
     * launch (up to 64 KiB), which hides the kernel's time; replayed from
     * a graph they show it.  ROUNDS rounds of the two loops alternated,
     * the slower PE's time of each, each figure the median. */
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (size_t sz = 4096; sz <= 65536; sz *= 4) {
        size_t nf = sz / 4;
        const float *pa = fsrc, *pb = (const float *)DB_PTR(fsrc, other);
        double t_us[ROUNDS], f_us[ROUNDS];
        for (int k = 0; k < ROUNDS; k++) {
            CK(cudaDeviceSynchronize());
            DB_HOST_BARRIER();
            float first = 0, last = 0;
            k_setf<<<1, 512, 0, st>>>(fdst, nf, -1.0f);
            t_us[k] = graph_us(st, 100, [&] { k_reduce<<<1, 512, 0, st>>>(fdst, fsrc, nf); });
            CK(cudaMemcpy(&first, fdst, 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(&last, fdst + nf - 1, 4, cudaMemcpyDeviceToHost));
            if (first != 3.0f || last != 3.0f) {
                fprintf(stderr, DEVBENCH_NAME ": PE %d: the graph's all-reduce of %zu bytes gave "
                        "%g ... %g, not 3\n", me, sz, first, last);
                return 1;
            }
            f_us[k] = graph_us(st, 100, [&] { k_plain_sum<<<1, 512, 0, st>>>(fdst, pa, pb, nf); });
            t_us[k] = both_max(t_us[k], slot, other);
            f_us[k] = both_max(f_us[k], slot, other);
        }
        us = bench_median(t_us, ROUNDS);
        floor_us = bench_median(f_us, ROUNDS);
        if (me == 0)
            printf(DEVBENCH_NAME ": allreduce_graph %7zu %10.3f %10.3f %6.2f\n", sz, us, floor_us,
                   us / floor_us);
        DB_HOST_BARRIER();
    }
    CK(cudaStreamDestroy(st));
    if (DB_CHECK()) {
        fprintf(stderr, DEVBENCH_NAME ": PE %d: the graph's all-reduces reported an error\n", me);
        return 1;
    }
    DB_FREE(heap);
    DB_FINALIZE();
    return 0;
}
