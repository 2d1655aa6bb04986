/*
 * gpu_stream_bench: the on-stream routines on CUDA streams between the
 * GPUs of two PEs (docs/gpu.md, "Running on a GPU host"), measured as NVSHMEM's
 * anchor (../shared/gpu-anchor/nvshmem_bench.cu) measures its own: many
 * calls queued on one CUDA stream, one synchronization at the end, host
 * wall clock over the whole.
 *
 *   fabshmem_put_on_stream SIZE GB/s    PE 0 puts from its device heap into
 *                      PE 1's (shmemx_putmem_on_stream), 4 KiB to 256 MiB
 *   fabshmem_pingpong_on_stream 8 US    put with signal (8 bytes, SET) and
 *                      signal_wait_until (EQ) on the stream, PE 0 and 1 in
 *                      turn: half a round trip
 *   fabshmem_barrier_on_stream 0 US     shmemx_barrier_all_on_stream
 *   fabshmem_sum_reduce_on_stream SIZE US  shmemx_float_sum_reduce_on_stream
 *                      over both PEs, 4 KiB to 256 MiB
 *
 * The data that reached PE 1 is checked once (a failure ends with exit
 * 1).  Needs 2 PEs whose device heaps map each other, of at least
 * 2 x 256 MiB plus room; exits 77 otherwise.  -s MAX caps the largest
 * size; -r runs the reduction alone (to compare the algorithms of
 * FABSHMEM_GPU_REDUCE_ALGO), over 2 or more PEs that map each other.
 *
 * -h measures work on a CUDA stream between host buffers of 2 PEs that
 * do not map each other (triggered operations released by the CUDA
 * stream where the provider has them, FABSHMEM_STREAM_OFFLOAD=1; the
 * stream's host thread with 0):
 *
 *   fabshmem_host_put_on_stream SIZE GB/s   putmem from PE 0's host heap
 *                      into PE 1's, 8 bytes to 16 MiB (-s caps it), and
 *                      the time of one put in a stream of them
 *   fabshmem_host_pingpong_on_stream 8 US   put with signal into a host
 *                      word and the wait for it, PE 0 and 1 in turn
 *   fabshmem_host_put_signal_on_stream 8 US put with signal of 8 bytes,
 *                      the time of one in a stream of them
 */
#include "../common.h"
#include <shmemx.h>
#include "../../tests/gpu/gpu_kern.h"

static void die(const char *what, int rc)
{
    fprintf(stderr, "gpu_stream_bench: %s: %d\n", what, rc);
    shmem_global_exit(1);
}

static int iters_for(size_t n)
{
    return n <= 65536 ? 2000 : n <= (1 << 20) ? 500 : n <= (16 << 20) ? 50 : 10;
}

/* PE 0 puts into PE 1 on the stream, first bytes to max (times 8 below
 * 4 KiB, 4 above); host: the -h line, with the time of each put. */
static void put_bw(shmemx_stream_t s, char *dst, char *src, size_t first, size_t max, int me,
                   int host)
{
    size_t n;
    double t;
    int k, it;

    for (n = first; n <= max; n *= n < 4096 ? 8 : 4) {
        it = iters_for(n);
        shmem_barrier_all();
        if (me != 0)
            continue;
        for (k = 0; k < 5; k++)
            shmemx_putmem_on_stream(dst, src, n, 1, s);
        if (shmemx_stream_sync(s))
            die("shmemx_stream_sync", 1);
        t = bench_now();
        for (k = 0; k < it; k++)
            shmemx_putmem_on_stream(dst, src, n, 1, s);
        shmemx_quiet_on_stream(s);
        if (shmemx_stream_sync(s))
            die("shmemx_stream_sync", 1);
        t = bench_now() - t;
        if (host)
            printf("fabshmem_host_put_on_stream %zu %.3f GB/s (%.2f us a put)\n", n,
                   (double)n * it / t / 1e9, t / it * 1e6);
        else
            printf("fabshmem_put_on_stream %zu %.2f GB/s\n", n, (double)n * it / t / 1e9);
        fflush(stdout);
    }
    shmem_barrier_all();
}

/* Put with signal of 8 bytes and the wait for it, PE 0 and 1 in turn
 * (sig: GPU or host memory), printed as name. */
static void pingpong(shmemx_stream_t s, char *dst, char *src, uint64_t *sig, int me,
                     const char *name)
{
    int it = 2000, k;
    double t;
    uint64_t zero = 0;

    if (gpu_copy(sig, &zero, 8))
        die("clearing the signal", 1);
    shmem_barrier_all();
    t = bench_now();
    for (k = 1; k <= it; k++) {
        if (me == 0) {
            shmemx_putmem_signal_on_stream(dst, src, 8, sig, (uint64_t)k, SHMEM_SIGNAL_SET, 1, s);
            shmemx_signal_wait_until_on_stream(sig, SHMEM_CMP_EQ, (uint64_t)k, s);
        } else {
            shmemx_signal_wait_until_on_stream(sig, SHMEM_CMP_EQ, (uint64_t)k, s);
            shmemx_putmem_signal_on_stream(dst, src, 8, sig, (uint64_t)k, SHMEM_SIGNAL_SET, 0, s);
        }
    }
    if (shmemx_stream_sync(s))
        die("shmemx_stream_sync", 1);
    t = bench_now() - t;
    if (me == 0)
        printf("%s 8 %.2f us\n", name, t / it / 2 * 1e6);
    shmem_barrier_all();
}

static void barrier(shmemx_stream_t s, int me)
{
    int it = 2000, k;
    double t;

    for (k = 0; k < 20; k++)
        shmemx_barrier_all_on_stream(s);
    if (shmemx_stream_sync(s))
        die("shmemx_stream_sync", 1);
    shmem_barrier_all();
    t = bench_now();
    for (k = 0; k < it; k++)
        shmemx_barrier_all_on_stream(s);
    if (shmemx_stream_sync(s))
        die("shmemx_stream_sync", 1);
    t = bench_now() - t;
    if (me == 0)
        printf("fabshmem_barrier_on_stream 0 %.2f us\n", t / it * 1e6);
    shmem_barrier_all();
}

static void reduce(shmemx_stream_t s, char *dst, char *src, size_t max, int me)
{
    static const size_t rsz[] = { 4096, 65536, 262144, 1 << 20, 4 << 20, 16 << 20, 64 << 20,
                                  (size_t)256 << 20 };
    size_t i;
    double t;
    int k, it;

    for (i = 0; i < sizeof(rsz) / sizeof(rsz[0]) && rsz[i] <= max; i++) {
        it = rsz[i] <= (1 << 20) ? 500 : rsz[i] <= (16 << 20) ? 50 : 10;
        for (k = 0; k < 3; k++)
            if (shmemx_float_sum_reduce_on_stream(SHMEM_TEAM_WORLD, (float *)dst,
                                                  (const float *)src, rsz[i] / 4, s))
                die("shmemx_float_sum_reduce_on_stream", 1);
        if (shmemx_stream_sync(s))
            die("shmemx_stream_sync", 1);
        shmem_barrier_all();
        t = bench_now();
        for (k = 0; k < it; k++)
            if (shmemx_float_sum_reduce_on_stream(SHMEM_TEAM_WORLD, (float *)dst,
                                                  (const float *)src, rsz[i] / 4, s))
                die("shmemx_float_sum_reduce_on_stream", 1);
        if (shmemx_stream_sync(s))
            die("shmemx_stream_sync", 1);
        t = bench_now() - t;
        if (me == 0)
            printf("fabshmem_sum_reduce_on_stream %zu %.2f us\n", rsz[i], t / it * 1e6);
        fflush(stdout);
        shmem_barrier_all();
    }
}

static void host_signals(shmemx_stream_t s, char *dst, char *src, uint64_t *sig, int me)
{
    int it = 2000, k;
    double t;

    pingpong(s, dst, src, sig, me, "fabshmem_host_pingpong_on_stream");
    sig[1] = 0;
    shmem_barrier_all();
    if (me == 0) {
        t = bench_now();
        for (k = 1; k <= it; k++)
            shmemx_putmem_signal_on_stream(dst, src, 8, &sig[1], 1, SHMEM_SIGNAL_ADD, 1, s);
        if (shmemx_stream_sync(s))
            die("shmemx_stream_sync", 1);
        t = bench_now() - t;
        printf("fabshmem_host_put_signal_on_stream 8 %.2f us\n", t / it * 1e6);
    }
    shmem_barrier_all();
    if (me == 1 && sig[1] != (uint64_t)it)
        die("the signals that reached PE 1 (of 2000)", (int)sig[1]);
}

/* -h: between host buffers (see the top). */
static int host_main(size_t max)
{
    char *src, *dst;
    uint64_t *sig;
    void *cst;
    shmemx_stream_t s;
    int me = shmem_my_pe();

    if (max > (16 << 20))
        max = 16 << 20;
    if (shmemx_cuda_device() < 0 || shmem_n_pes() != 2) {
        if (me == 0)
            printf("# SKIP: -h needs 2 PEs with GPUs\n");
        shmem_finalize();
        return 77;
    }
    src = shmem_malloc(max);
    dst = shmem_malloc(max);
    sig = shmem_calloc(2, sizeof(uint64_t));
    if (!src || !dst || !sig)
        die("host blocks", 0);
    memset(src, 7 + me, max);
    if (!(cst = gpu_stream_create()) || shmemx_stream_create_cuda(&s, cst))
        die("a CUDA stream", 0);
    if (me == 0)
        printf("# host buffers, PEs %s each other, the stream %s\n",
               shmem_team_n_pes(SHMEM_TEAM_SHARED) == 2 ? "map" : "do not map",
               shmemx_stream_offloaded(s) ? "offloads (triggered operations)"
                                          : "runs its work on its host thread");
    put_bw(s, dst, src, 8, max, me, 1);
    if (me == 1 && dst[max / 2] != 7)
        die("the data put into PE 1 is wrong", dst[max / 2]);
    host_signals(s, dst, src, sig, me);
    if (shmemx_stream_destroy(s) || gpu_stream_destroy(cst))
        die("destroying the streams", 0);
    shmem_free(sig);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}

int main(int argc, char **argv)
{
    size_t max = (size_t)256 << 20, n;
    char *src, *dst;
    uint64_t *sig;
    void *cst;
    shmemx_stream_t s;
    long long bad;
    int me;

    int only_reduce = 0, host = 0;

    for (; argc > 1 && argv[1][0] == '-'; argc--, argv++) {
        if (!strcmp(argv[1], "-r")) {
            only_reduce = 1;
        } else if (!strcmp(argv[1], "-h")) {
            host = 1;
        } else if (argc > 2 && !strcmp(argv[1], "-s")) {
            if (bench_parse_size(argv[2], &max))
                return 2;
            argc--, argv++;
        } else {
            fprintf(stderr, "usage: gpu_stream_bench [-r | -h] [-s MAX]\n");
            return 2;
        }
    }
    gpu_count(); /* loads the driver: FABSHMEM_CUDA=auto brings the GPU up */
    shmem_init();
    me = shmem_my_pe();
    if (host)
        return host_main(max);
    /* The reduction alone takes any number of PEs that map each other
     * (rsag is meant for more than two); the rest is between two. */
    if (shmemx_cuda_device() < 0 || shmem_n_pes() < 2 ||
        (!only_reduce && shmem_n_pes() != 2) ||
        shmem_team_n_pes(SHMEM_TEAM_SHARED) != shmem_n_pes()) {
        if (me == 0)
            printf("# SKIP: needs 2 PEs (with -r: 2 or more) whose device heaps map each "
                   "other\n");
        shmem_finalize();
        return 77;
    }
    src = shmem_malloc_with_hints(max, SHMEMX_MALLOC_DEVICE);
    dst = shmem_malloc_with_hints(max, SHMEMX_MALLOC_DEVICE);
    sig = shmem_malloc_with_hints(64, SHMEMX_MALLOC_DEVICE);
    if (!src || !dst || !sig)
        die("device blocks", 0);
    if (!(cst = gpu_stream_create()) || shmemx_stream_create_cuda(&s, cst))
        die("a CUDA stream", 0);
    if (gpu_fill(src, max, (unsigned)(7 + me)))
        die("gpu_fill", 0);
    shmem_barrier_all();
    if (!only_reduce) {
        put_bw(s, dst, src, 4096, max, me, 0);
        if (me == 1) {
            for (n = 4096; n * 4 <= max; n *= 4)
                ;
            if ((bad = gpu_find_mismatch(dst, n, 7)) != -1)
                die("the data put into PE 1 is wrong at byte", (int)bad);
        }
        shmem_barrier_all();
        pingpong(s, dst, src, sig, me, "fabshmem_pingpong_on_stream");
        barrier(s, me);
    }
    reduce(s, dst, src, max, me);
    if (shmemx_stream_destroy(s) || gpu_stream_destroy(cst))
        die("destroying the streams", 0);
    shmem_free(sig);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
