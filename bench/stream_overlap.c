/*
 * Streams (fabshmem only: the API is an extension).  PE 0 drives, PE 1 is
 * the target and otherwise waits in a barrier (asleep).  The path the
 * streams take (FABSHMEM_STREAM_OFFLOAD: triggered operations or worker
 * threads) is printed first.
 *
 *   overhead: time per 8-byte put enqueued with shmemx_putmem_on_stream
 *             (then one stream sync) against shmem_putmem (then one quiet),
 *             for a batch of puts;
 *   overlap:  a host kernel that computes for about T on stream A while
 *             stream B runs puts that take about C alone; reports T, C, the
 *             time of both together and its ratio to max(T, C) (1.0 is
 *             perfect overlap, 2.0 none).
 */
#include "common.h"
#include <shmemx.h>

static volatile double sink;
static double kernel_secs;

static void compute_kernel(void *arg)
{
    double t0 = bench_now(), x = 1.0;
    (void)arg;
    while (bench_now() - t0 < kernel_secs)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    bench_opts_t o = { .iters = 20000, .min_size = 8, .max_size = 64u << 10,
                       .reps = 5, .budget_ms = 20, .window = 64 };
    shmemx_stream_t a, b;
    unsigned char *buf, *src;
    int me;

    if (bench_parse(argc, argv, &o, NULL) != 0)
        return 1;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, NULL);
    me = shmem_my_pe();
    if (shmem_n_pes() < 2) {
        fprintf(stderr, "stream_overlap: needs 2 PEs\n");
        shmem_global_exit(1);
    }
    if (me == 0) {
        char name[SHMEM_MAX_NAME_LEN + 1] = "";
        shmem_info_get_name(name);
        printf("# streams: on_stream put overhead and kernel/communication overlap\n"
               "# library: %s, %d PEs, PE 0 -> PE 1\n", name, shmem_n_pes());
    }
    buf = shmem_malloc(o.max_size * 64);
    src = malloc(o.max_size * 64);
    if (!buf || !src)
        BENCH_FAIL("allocation failed");
    memset(src, 7, o.max_size * 64);
    bench_report_mapping(buf, 1);
    if (shmemx_stream_create(&a) || shmemx_stream_create(&b))
        BENCH_FAIL("shmemx_stream_create failed (see the message)");
    if (me == 0)
        printf("# streams run %s\n", shmemx_stream_offloaded(a) == 1
                                          ? "offloaded (triggered operations)" : "on worker threads");
    shmem_barrier_all();
    if (me == 0) {
        double t_plain[BENCH_MAX_REPS], t_stream[BENCH_MAX_REPS];
        int reps = o.reps < BENCH_MAX_REPS ? o.reps : BENCH_MAX_REPS;
        long batch = 1000;

        for (int r = 0; r < reps; r++) {
            double t0 = bench_now();
            for (long i = 0; i < batch; i++)
                shmem_putmem(buf + (i % 64) * 8, src, 8, 1);
            shmem_quiet();
            t_plain[r] = (bench_now() - t0) / batch;
            t0 = bench_now();
            for (long i = 0; i < batch; i++)
                shmemx_putmem_on_stream(buf + (i % 64) * 8, src, 8, 1, a);
            shmemx_stream_sync(a);
            t_stream[r] = (bench_now() - t0) / batch;
        }
        bench_result("put_plain", 8, bench_median(t_plain, reps) * 1e6, "us");
        bench_result("put_on_stream", 8, bench_median(t_stream, reps) * 1e6, "us");

        /* Communication alone: C. */
        size_t sz = o.max_size;
        int nput = 64;
        double c = 1e9, t, both = 1e9;
        for (int r = 0; r < reps; r++) {
            double t0 = bench_now();
            for (int k = 0; k < 16; k++)
                for (int i = 0; i < nput; i++)
                    shmemx_putmem_on_stream(buf + i * sz, src + i * sz, sz, 1, b);
            shmemx_stream_sync(b);
            t = bench_now() - t0;
            if (t < c)
                c = t;
        }
        kernel_secs = c;
        /* Kernel alone: T (about C). */
        double tk = 1e9;
        for (int r = 0; r < reps; r++) {
            double t0 = bench_now();
            shmemx_launch_on_stream(a, compute_kernel, NULL);
            shmemx_stream_sync(a);
            t = bench_now() - t0;
            if (t < tk)
                tk = t;
        }
        for (int r = 0; r < reps; r++) {
            double t0 = bench_now();
            shmemx_launch_on_stream(a, compute_kernel, NULL);
            for (int k = 0; k < 16; k++)
                for (int i = 0; i < nput; i++)
                    shmemx_putmem_on_stream(buf + i * sz, src + i * sz, sz, 1, b);
            shmemx_stream_sync(b);
            shmemx_stream_sync(a);
            t = bench_now() - t0;
            if (t < both)
                both = t;
        }
        bench_result("kernel_T", 0, tk * 1e6, "us");
        bench_result("puts_C", sz, c * 1e6, "us");
        bench_result("both", sz, both * 1e6, "us");
        printf("overlap_ratio %zu %.3f x\n", sz, both / (tk > c ? tk : c));
    }
    shmem_barrier_all();
    shmemx_stream_destroy(a);
    shmemx_stream_destroy(b);
    shmem_free(buf);
    free(src);
    return bench_finish();
}
