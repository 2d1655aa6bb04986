/*
 * gpu_stream: the on-stream routines on CUDA streams (docs/gpu.md, "CUDA
 * streams"), checked on every PE.  Each PE makes a CUDA stream and a
 * stream over it (shmemx_stream_create_cuda); every step queues the
 * program's own kernels and the library's work on the same CUDA stream,
 * with no host synchronization in between, and starts with a kernel that
 * spins for a while, so that work the library did not order after it
 * would find the data not yet written:
 *
 *  - puts with signal of 1 byte to 16 MiB from a device buffer that a
 *    kernel fills on the stream, to the next PE's device block; the next
 *    PE waits for the signal on its stream (its device word when the PEs
 *    map each other, else a host word: the stream's host thread waits),
 *    copies the data on its stream, and checks the copy.  The sizes
 *    straddle FABSHMEM_CUDA_PUT_SIGNAL_KERNEL's default (64 KiB: the
 *    library's kernel below, the copy engines above), odd sizes and
 *    buffers off 16- and 8-byte alignment take the kernel's byte and
 *    8-byte stores, and SHMEM_SIGNAL_SET and ADD alternate;
 *  - gets from the previous PE's device block into device memory;
 *  - SHMEM_SIGNAL_ADD from every PE into every PE's counter, awaited with
 *    shmemx_uint64_wait_until_on_stream (GE) and the int32 form (NE);
 *  - p and g on the stream;
 *  - barrier_all_on_stream orders a delayed put before the receiver's
 *    copy of what it received, and so do the syncs of split teams made
 *    and destroyed in turn (each takes the slot the last one left);
 *  - collectives on device buffers of SHMEM_TEAM_WORLD (broadcast,
 *    fcollect, alltoall, float sum and int max reductions, in place too,
 *    reducescatter): the GPU's own when the PEs map each other, else held
 *    for the stream's host thread; and on host buffers (through the host
 *    thread);
 *  - puts with signal, gets, puts and signal ops between host buffers
 *    (pinned and registered, and the host heap): triggered operations
 *    that the CUDA stream releases where the provider has them
 *    (GPU_TEST_OFFLOAD=1 requires it), else the stream's host thread;
 *  - a host kernel (shmemx_launch_on_stream) runs after the GPU work
 *    before it;
 *  - refusals: a NULL stream pointer; a sum whose dest overlaps its
 *    source partly (INVALID_VALUE when enqueued and at the next sync).
 *
 * Without a GPU: shmemx_stream_create_cuda is refused with
 * SHMEMX_ERROR_NOT_SUPPORTED naming the routine, then it exits 77.
 */
#include "common.h"
#include "expect_x.h"
#include <shmemx.h>
#include "gpu/gpu_kern.h"

#define DELAY_US 20000

static int next_pe, prev_pe, mapped;
static void *cst;
static shmemx_stream_t s;

/* Says on PE 0 which step starts (a hang then names its step). */
static void step(const char *what)
{
    if (test_me == 0)
        test_note("step: %s", what);
}

static void must(int rc, const char *what)
{
    if (rc)
        test_fail("%s: %s", what, gpu_error(rc));
}

static void sync_stream(const char *what)
{
    int rc = shmemx_stream_sync(s);

    TEST_ASSERT(rc == 0, "%s: shmemx_stream_sync returned %d", what, rc);
}

static void check_dev(const char *what, const void *d, size_t n, unsigned seed)
{
    long long bad = gpu_find_mismatch(d, n, seed);

    if (bad != -1)
        test_fail("%s, %zu bytes: %s at byte %lld", what, n,
                  bad == -2 ? "a CUDA error in the check" : "wrong data", bad);
}

static void *dmalloc(size_t n)
{
    void *p = shmem_malloc_with_hints(n, SHMEMX_MALLOC_DEVICE);

    TEST_ASSERT(p != NULL, "a device block of %zu bytes: NULL", n);
    return p;
}

/* Whether SHMEM_SIGNAL_ADD reaches the next PE: a provider with no
 * atomics the transport can use (libfabric 1.17.1's shm with FI_HMEM:
 * no inject, so no active messages, and no atomics) refuses it for PEs
 * that are not mapped.  The refusal is checked (kept by the stream,
 * reported by its sync, naming the routine and the missing atomics), and
 * the steps then signal with SET alone. */
static int no_add;

static void probe_add(void)
{
    uint64_t *w = shmem_calloc(1, sizeof(uint64_t));
    char msg[1024];
    int rc;

    TEST_ASSERT(w != NULL, "a host word");
    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    shmemx_error_clear();
    shmemx_signal_op_on_stream(w, 0, SHMEM_SIGNAL_ADD, next_pe, s);
    rc = shmemx_stream_sync(s);
    (void)shmemx_error_get(msg, sizeof(msg));
    shmemx_error_clear();
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    if (rc == SHMEMX_ERROR_NOT_SUPPORTED && !mapped) {
        TEST_ASSERT(strstr(msg, "shmemx_signal_op_on_stream") && strstr(msg, "no atomics"),
                    "the refusal of SHMEM_SIGNAL_ADD does not name the routine and the missing "
                    "atomics: %s", msg);
        no_add = 1;
        if (test_me == 0)
            test_note("the provider has no atomics for PEs that are not mapped: "
                      "SHMEM_SIGNAL_ADD refused as expected (%s); the steps signal with SET", msg);
    } else {
        TEST_ASSERT(rc == 0, "SHMEM_SIGNAL_ADD of 0 on a CUDA stream: %d (%s)", rc, msg);
    }
    shmem_barrier_all();
    shmem_free(w);
}

static void puts_and_gets(void)
{
    /* n bytes at off into src and dst; add: SHMEM_SIGNAL_ADD, else SET. */
    static const struct {
        size_t n, off;
        int add;
    } cases[] = {
        { 1, 0, 0 }, { 3, 1, 1 }, { 7, 0, 0 }, { 8, 0, 1 }, { 13, 3, 1 }, { 4096, 0, 0 },
        { 4096 + 5, 0, 1 }, { 4096, 8, 0 }, { 65536, 0, 1 }, { 65536 + 8, 0, 0 },
        { 1 << 20, 0, 1 }, { 16 << 20, 0, 0 },
    };
    size_t maxn = (16 << 20) + 64, k;
    char *src = dmalloc(maxn), *dst = dmalloc(maxn), *got = gpu_malloc(maxn);
    uint64_t *dsig = dmalloc(64), *hsig = shmem_calloc(1, sizeof(uint64_t)), *sig;
    uint64_t want = 0;
    char what[96];

    TEST_ASSERT(got != NULL && hsig != NULL, "buffers");
    must(gpu_copy(dsig, &(uint64_t){ 0 }, 8), "clearing the device signal");
    /* A device signal word where the PEs map each other; a host word
     * otherwise (GPU memory of a PE that is not mapped takes no signal). */
    sig = mapped ? dsig : hsig;
    shmem_barrier_all();
    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        size_t n = cases[k].n, off = cases[k].off;
        unsigned seed = (unsigned)(test_me * 7 + (int)k), pseed = (unsigned)(prev_pe * 7 + (int)k);
        /* Every PE goes through the same cases: the value its word will
         * hold is the same everywhere (ADD adds to what the last case
         * left). */
        int add = cases[k].add && !no_add;
        uint64_t v = add ? k + 1 : 1000 * (k + 1);

        want = add ? want + v : v;
        must(gpu_delay_on(DELAY_US, cst), "delay");
        must(gpu_fill_on(src + off, n, seed, cst), "fill");
        shmemx_putmem_signal_on_stream(dst + off, src + off, n, sig, v,
                                       add ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET,
                                       next_pe, s);
        shmemx_signal_wait_until_on_stream(sig, SHMEM_CMP_EQ, want, s);
        must(gpu_copy_on(got, dst + off, n, cst), "copy");
        sync_stream("put with signal");
        snprintf(what, sizeof(what), "put_signal (SHMEM_SIGNAL_%s) on a CUDA stream at "
                 "offset %zu", add ? "ADD" : "SET", off);
        check_dev(what, got, n, pseed);
        shmem_barrier_all();
        /* A get of what the previous PE has in its src, into device memory. */
        must(gpu_delay_on(DELAY_US / 4, cst), "delay");
        shmemx_getmem_on_stream(got, src + off, n, prev_pe, s);
        sync_stream("get");
        check_dev("getmem on a CUDA stream", got, n, pseed);
        shmem_barrier_all();
    }
    gpu_free(got);
    shmem_free(hsig);
    shmem_free(dsig);
    shmem_free(dst);
    shmem_free(src);
}

static void signals_and_waits(void)
{
    uint64_t *ctr = mapped ? dmalloc(64) : shmem_calloc(1, sizeof(uint64_t));
    int32_t *flag = mapped ? dmalloc(64) : shmem_calloc(1, sizeof(int32_t));
    long *word = dmalloc(64);
    uint64_t want = (uint64_t)test_npes * (uint64_t)(test_npes + 1) / 2, hv = 0;
    int32_t hf = 0;
    long v;
    int pe;

    must(gpu_copy(ctr, &hv, 8), "clear");
    must(gpu_copy(flag, &hf, 4), "clear");
    shmem_barrier_all();
    must(gpu_delay_on(DELAY_US, cst), "delay");
    if (no_add) { /* a SET from the previous PE alone */
        want = (uint64_t)prev_pe + 1;
        shmemx_signal_op_on_stream(ctr, (uint64_t)(test_me + 1), SHMEM_SIGNAL_SET, next_pe, s);
    } else {
        for (pe = 0; pe < test_npes; pe++)
            shmemx_signal_op_on_stream(ctr, (uint64_t)(test_me + 1), SHMEM_SIGNAL_ADD, pe, s);
    }
    shmemx_uint64_wait_until_on_stream(ctr, SHMEM_CMP_GE, want, s);
    shmemx_int32_p_on_stream(flag, test_me + 100, next_pe, s);
    shmemx_int32_wait_until_on_stream(flag, SHMEM_CMP_NE, 0, s);
    sync_stream("signals");
    must(gpu_copy(&hv, ctr, 8), "read");
    must(gpu_copy(&hf, flag, 4), "read");
    TEST_ASSERT(hv == want, "the counter after every PE's SHMEM_SIGNAL_ADD on a CUDA stream is "
                "%llu, expected %llu", (unsigned long long)hv, (unsigned long long)want);
    TEST_ASSERT(hf == prev_pe + 100, "int32_p on a CUDA stream: %d, expected %d", (int)hf,
                prev_pe + 100);
    shmem_barrier_all();
    shmemx_long_p_on_stream(word, 1000L + test_me, next_pe, s);
    shmemx_barrier_all_on_stream(s);
    v = shmemx_long_g_on_stream(word, next_pe, s);
    /* Every PE put 1000 + itself into its next PE's word. */
    TEST_ASSERT(v == 1000L + test_me, "long_g on a CUDA stream after long_p and a barrier: "
                "%ld, expected %ld", v, 1000L + test_me);
    sync_stream("p and g");
    shmem_barrier_all();
    shmem_free(word);
    shmem_free(flag);
    shmem_free(ctr);
}

/* Three synchronizations of team (SHMEM_TEAM_WORLD: barrier_all,
 * barrier_all, team_sync; any other: team_sync) each order a put that
 * starts late before the receiver's copy of what it received. */
static void barrier_orders(shmem_team_t team, const char *what)
{
    size_t n = 4 << 20;
    char *src = dmalloc(n), *dst = dmalloc(n), *got = gpu_malloc(n);
    int i;

    TEST_ASSERT(got != NULL, "gpu_malloc");
    for (i = 0; i < 3; i++) {
        unsigned seed = (unsigned)(500 + test_me * 3 + i), pseed = (unsigned)(500 + prev_pe * 3 + i);
        int bar = team == SHMEM_TEAM_WORLD && i < 2;

        must(gpu_fill(src, n, seed), "fill");
        must(gpu_fill(dst, n, 1), "fill");
        shmem_barrier_all();
        /* The put starts late; the barrier must still order it. */
        must(gpu_delay_on(DELAY_US, cst), "delay");
        shmemx_putmem_on_stream(dst, src, n, next_pe, s);
        if (bar)
            shmemx_barrier_all_on_stream(s);
        else
            shmemx_team_sync_on_stream(team, s);
        must(gpu_copy_on(got, dst, n, cst), "copy");
        sync_stream("barrier");
        check_dev(bar ? "barrier_all_on_stream ordering a put" : what, got, n, pseed);
        shmem_barrier_all();
    }
    gpu_free(got);
    shmem_free(dst);
    shmem_free(src);
}

/* Teams made and destroyed in turn take the same slot: each starts its
 * synchronizations on streams from words that shmem_team_destroy cleared
 * (left at the last team's epochs, the first waits would pass at once
 * and the late put would not be ordered). */
static void team_slot_reuse(void)
{
    char what[96];
    int r;

    for (r = 0; r < 3; r++) {
        shmem_team_t t = SHMEM_TEAM_INVALID;
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, test_npes, NULL, 0, &t);

        TEST_ASSERT(rc == 0 && t != SHMEM_TEAM_INVALID, "shmem_team_split_strided returned %d", rc);
        snprintf(what, sizeof(what), "team_sync_on_stream of split team %d ordering a put", r);
        barrier_orders(t, what);
        shmem_team_destroy(t);
    }
}

/* Collectives on device buffers (PEs that map each other). */
static void dev_collectives(void)
{
    size_t ne = 1 << 16, i;
    int np = test_npes;
    float *fs = dmalloc(ne * sizeof(float) * np), *fd = dmalloc(ne * sizeof(float) * np);
    int *is = dmalloc(ne * sizeof(int)), *id = dmalloc(ne * sizeof(int));
    float *h = malloc(ne * sizeof(float) * np);
    int *hi = malloc(ne * sizeof(int));
    int pe, rc;

    TEST_ASSERT(h && hi, "malloc");
    for (i = 0; i < ne * np; i++)
        h[i] = (float)(test_me * 1000 + (int)(i % 977));
    must(gpu_copy(fs, h, ne * sizeof(float) * np), "copy");
    for (i = 0; i < ne; i++)
        hi[i] = (int)((i * 7 + (size_t)test_me * 13) % 101) - 50;
    must(gpu_copy(is, hi, ne * sizeof(int)), "copy");
    shmem_barrier_all();

    /* sum into fd, while a delay kernel holds the stream */
    must(gpu_delay_on(DELAY_US, cst), "delay");
    rc = shmemx_float_sum_reduce_on_stream(SHMEM_TEAM_WORLD, fd, fs, ne, s);
    TEST_ASSERT(rc == 0, "float_sum_reduce_on_stream returned %d", rc);
    rc = shmemx_int_max_reduce_on_stream(SHMEM_TEAM_WORLD, id, is, ne, s);
    TEST_ASSERT(rc == 0, "int_max_reduce_on_stream returned %d", rc);
    sync_stream("reductions");
    must(gpu_copy(h, fd, ne * sizeof(float)), "copy");
    must(gpu_copy(hi, id, ne * sizeof(int)), "copy");
    for (i = 0; i < ne; i++) {
        float want = 0;
        int wmax = -1000;
        for (pe = 0; pe < np; pe++) {
            int v = (int)((i * 7 + (size_t)pe * 13) % 101) - 50;
            want += (float)(pe * 1000 + (int)(i % 977));
            wmax = v > wmax ? v : wmax;
        }
        TEST_CHECK("float_sum_reduce_on_stream", (long)i, (long)want, (long)h[i]);
        TEST_CHECK("int_max_reduce_on_stream", (long)i, (long)wmax, (long)hi[i]);
    }
    /* in place */
    shmem_barrier_all();
    rc = shmemx_float_sum_reduce_on_stream(SHMEM_TEAM_WORLD, fs, fs, ne, s);
    TEST_ASSERT(rc == 0, "in place float_sum_reduce_on_stream returned %d", rc);
    sync_stream("in place");
    must(gpu_copy(h, fs, ne * sizeof(float)), "copy");
    for (i = 0; i < ne; i++) {
        float want = 0;
        for (pe = 0; pe < np; pe++)
            want += (float)(pe * 1000 + (int)(i % 977));
        TEST_CHECK("in place float_sum_reduce_on_stream", (long)i, (long)want, (long)h[i]);
    }
    shmem_barrier_all();

    /* reducescatter: block me of the sums of everyone's blocks */
    for (i = 0; i < ne * np; i++)
        h[i] = (float)(test_me + (int)(i % 1013));
    must(gpu_copy(fs, h, ne * sizeof(float) * np), "copy");
    shmem_barrier_all();
    rc = shmemx_float_sum_reducescatter_on_stream(SHMEM_TEAM_WORLD, fd, fs, ne, s);
    TEST_ASSERT(rc == 0, "float_sum_reducescatter_on_stream returned %d", rc);
    sync_stream("reducescatter");
    must(gpu_copy(h, fd, ne * sizeof(float)), "copy");
    for (i = 0; i < ne; i++) {
        size_t gi = (size_t)test_me * ne + i;
        float want = 0;
        for (pe = 0; pe < np; pe++)
            want += (float)(pe + (int)(gi % 1013));
        TEST_CHECK("float_sum_reducescatter_on_stream", (long)i, (long)want, (long)h[i]);
    }
    shmem_barrier_all();

    /* small sums (4 KiB: the fused kernel), three back to back on the
     * stream with no host sync between them, into three dests: the block
     * counter's reset and the order of the epochs */
    {
        size_t ns = 1024;
        int k;

        must(gpu_delay_on(DELAY_US, cst), "delay");
        for (k = 0; k < 3; k++) {
            rc = shmemx_float_sum_reduce_on_stream(SHMEM_TEAM_WORLD, fd + (size_t)k * ns, fs,
                                                   ns, s);
            TEST_ASSERT(rc == 0, "small float_sum_reduce_on_stream %d returned %d", k, rc);
        }
        sync_stream("small reductions");
        must(gpu_copy(h, fd, 3 * ns * sizeof(float)), "copy");
        for (k = 0; k < 3; k++)
            for (i = 0; i < ns; i++) {
                float want = 0;
                for (pe = 0; pe < np; pe++)
                    want += (float)(pe + (int)(i % 1013));
                TEST_CHECK("small float_sum_reduce_on_stream", (long)(k * ns + i), (long)want,
                           (long)h[k * ns + i]);
            }
        shmem_barrier_all();
    }

    /* broadcast from the last PE, fcollect, alltoall (bytes) */
    {
        char *bs = (char *)fs, *bd = (char *)fd;
        size_t nb = ne; /* bytes per PE */
        must(gpu_fill(bs, nb * np, (unsigned)(900 + test_me)), "fill");
        shmem_barrier_all();
        must(gpu_delay_on(DELAY_US, cst), "delay");
        rc = shmemx_broadcastmem_on_stream(SHMEM_TEAM_WORLD, bd, bs, nb, np - 1, s);
        TEST_ASSERT(rc == 0, "broadcastmem_on_stream returned %d", rc);
        sync_stream("broadcast");
        check_dev("broadcastmem_on_stream", bd, nb, (unsigned)(900 + np - 1));
        must(gpu_fill(bs, nb, (unsigned)(950 + test_me)), "fill");
        shmem_barrier_all();
        rc = shmemx_fcollectmem_on_stream(SHMEM_TEAM_WORLD, bd, bs, nb, s);
        TEST_ASSERT(rc == 0, "fcollectmem_on_stream returned %d", rc);
        sync_stream("fcollect");
        for (pe = 0; pe < np; pe++)
            check_dev("fcollectmem_on_stream", bd + (size_t)pe * nb, nb, (unsigned)(950 + pe));
        for (pe = 0; pe < np; pe++)
            must(gpu_fill(bs + (size_t)pe * nb, nb, (unsigned)(1000 + test_me * 16 + pe)),
                 "fill");
        shmem_barrier_all();
        rc = shmemx_alltoallmem_on_stream(SHMEM_TEAM_WORLD, bd, bs, nb, s);
        TEST_ASSERT(rc == 0, "alltoallmem_on_stream returned %d", rc);
        sync_stream("alltoall");
        for (pe = 0; pe < np; pe++)
            check_dev("alltoallmem_on_stream", bd + (size_t)pe * nb, nb,
                      (unsigned)(1000 + pe * 16 + test_me));
    }
    shmem_barrier_all();
    free(hi);
    free(h);
    shmem_free(id);
    shmem_free(is);
    shmem_free(fd);
    shmem_free(fs);
}

/* Collectives on host buffers: the stream's host thread runs them when
 * the CUDA stream reaches them. */
static long hsrc[64], hdst[64];

static void host_collectives(void)
{
    int i, rc, pe;

    for (i = 0; i < 64; i++)
        hsrc[i] = test_me * 100 + i;
    shmem_barrier_all();
    must(gpu_delay_on(DELAY_US, cst), "delay");
    rc = shmemx_long_sum_reduce_on_stream(SHMEM_TEAM_WORLD, hdst, hsrc, 64, s);
    TEST_ASSERT(rc == 0, "long_sum_reduce_on_stream (host buffers) returned %d", rc);
    sync_stream("host reduction");
    for (i = 0; i < 64; i++) {
        long want = 0;
        for (pe = 0; pe < test_npes; pe++)
            want += pe * 100 + i;
        TEST_CHECK("long_sum_reduce_on_stream on host buffers", i, want, hdst[i]);
    }
    shmem_barrier_all();
}

/* A put whose target was unregistered while it waited behind a kernel:
 * offloaded, the provider fails the triggered put (TRANSPORT) and the
 * CUDA stream still gets past its wait for the completion word, also
 * waited for with cudaStreamSynchronize alone (the stream's worker moves
 * the chain on); on the host thread the executor finds the buffer gone
 * (INVALID_VALUE).  The next sync reports it once, naming the routine,
 * and the stream goes on. */
static void failed_put(const char *src, char *heap)
{
    long *xb = aligned_alloc(4096, 4096);
    int off = shmemx_stream_offloaded(s) == 1, rc;

    TEST_ASSERT(xb && shmemx_buffer_register_symmetric(xb, 4096, 0) == xb,
                "registering a host buffer");
    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    must(gpu_delay_on(5 * DELAY_US, cst), "delay");
    shmemx_long_put_on_stream(xb, (const long *)src, 8, next_pe, s);
    shmemx_buffer_unregister_symmetric(xb, 4096);
    shmem_barrier_all();
    must(gpu_stream_sync(cst), "cudaStreamSynchronize after a put that failed");
    shmemx_error_clear();
    rc = shmemx_stream_sync(s);
    TEST_ASSERT(rc == (off ? SHMEMX_ERROR_TRANSPORT : SHMEMX_ERROR_INVALID_VALUE),
                "the sync after a put to a buffer unregistered meanwhile (%s) returned %d",
                off ? "triggered" : "on the host thread", rc);
    expect_err(rc, "shmemx_stream_sync", "shmemx_long_put_on_stream",
               "the report of a put to a buffer unregistered meanwhile");
    TEST_ASSERT(shmemx_stream_sync(s) == 0, "the failed put was reported twice");
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    shmemx_putmem_on_stream(heap, src, 64, next_pe, s);
    sync_stream("a put after the one that failed");
    shmem_barrier_all();
    free(xb);
}

/* Host buffers of PEs that do not map each other: on a provider with
 * triggered operations the stream posts each put, get and signal as a
 * chain that the CUDA stream releases, and waits for its completion word
 * (stream_cuda_trig.c); elsewhere its host thread does them.  Either way a
 * kernel that fills the source late is ordered before the put, and a copy
 * that reads what arrived after it.  The buffers are pinned (so that the
 * copies are asynchronous) and registered as symmetric; the host heap
 * takes puts and signals too.  GPU_TEST_OFFLOAD=1 (the sockets
 * configuration) requires the stream to say it offloads. */
static void host_buffers(void)
{
    static const size_t sizes[] = { 8, 4096 + 3, 1 << 20 };
    size_t maxn = 1 << 20, k;
    char *psrc = gpu_host_alloc(maxn), *pdst = gpu_host_alloc(maxn), *dsrc = gpu_malloc(maxn);
    char *got = gpu_malloc(maxn), *heap = shmem_malloc(maxn);
    uint64_t *hsig = shmem_calloc(2, sizeof(uint64_t)), want = 0, hv;
    const char *need = getenv("GPU_TEST_OFFLOAD");
    int pe;

    TEST_ASSERT(psrc && pdst && dsrc && got && heap && hsig, "buffers");
    if (need && !strcmp(need, "1") && !mapped)
        TEST_ASSERT(shmemx_stream_offloaded(s) == 1, "GPU_TEST_OFFLOAD=1 but the CUDA stream "
                    "does not offload (shmemx_stream_offloaded %d)", shmemx_stream_offloaded(s));
    TEST_ASSERT(shmemx_buffer_register_symmetric(psrc, maxn, 0) == psrc &&
                shmemx_buffer_register_symmetric(pdst, maxn, 0) == pdst,
                "registering pinned host buffers as symmetric");
    shmem_barrier_all();
    for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k];
        unsigned seed = (unsigned)(test_me * 11 + (int)k), pseed = (unsigned)(prev_pe * 11 + (int)k);
        uint64_t v = k + 1;
        char what[96];

        /* A put with signal of what a late kernel wrote, then a copy of
         * what arrived. */
        want = no_add ? v : want + v;
        must(gpu_delay_on(DELAY_US, cst), "delay");
        must(gpu_fill_on(dsrc, n, seed, cst), "fill");
        must(gpu_copy_on(psrc, dsrc, n, cst), "copy to the pinned source");
        shmemx_putmem_signal_on_stream(pdst, psrc, n, &hsig[0], v,
                                       no_add ? SHMEM_SIGNAL_SET : SHMEM_SIGNAL_ADD, next_pe, s);
        shmemx_signal_wait_until_on_stream(&hsig[0], SHMEM_CMP_EQ, want, s);
        must(gpu_copy_on(got, pdst, n, cst), "copy of what arrived");
        sync_stream("put with signal between host buffers");
        snprintf(what, sizeof(what), "put_signal between host buffers on a CUDA stream (%s)",
                 shmemx_stream_offloaded(s) ? "triggered" : "its host thread");
        check_dev(what, got, n, pseed);
        shmem_barrier_all();
        /* A get into a pinned buffer, copied to the GPU on the stream. */
        memset(pdst, 0, n);
        must(gpu_delay_on(DELAY_US / 4, cst), "delay");
        shmemx_getmem_on_stream(pdst, psrc, n, prev_pe, s);
        must(gpu_copy_on(got, pdst, n, cst), "copy of what the get brought");
        sync_stream("get between host buffers");
        check_dev("getmem between host buffers on a CUDA stream", got, n, pseed);
        shmem_barrier_all();
        /* A put into the host heap, then a barrier on the stream. */
        must(gpu_delay_on(DELAY_US / 4, cst), "delay");
        shmemx_putmem_on_stream(heap, psrc, n, next_pe, s);
        shmemx_barrier_all_on_stream(s);
        sync_stream("put into the host heap");
        must(gpu_copy(got, heap, n), "copy of the heap");
        check_dev("putmem into the host heap on a CUDA stream", got, n, pseed);
        shmem_barrier_all();
    }
    /* Signal ops from every PE into every PE's host word. */
    must(gpu_delay_on(DELAY_US, cst), "delay");
    if (no_add) { /* a SET from the previous PE alone */
        shmemx_signal_op_on_stream(&hsig[1], (uint64_t)(test_me + 1), SHMEM_SIGNAL_SET, next_pe,
                                   s);
        hv = (uint64_t)prev_pe + 1;
    } else {
        for (pe = 0; pe < test_npes; pe++)
            shmemx_signal_op_on_stream(&hsig[1], (uint64_t)(test_me + 1), SHMEM_SIGNAL_ADD, pe,
                                       s);
        hv = (uint64_t)test_npes * (uint64_t)(test_npes + 1) / 2;
    }
    shmemx_uint64_wait_until_on_stream(&hsig[1], SHMEM_CMP_GE, hv, s);
    sync_stream("signal ops to host words");
    TEST_ASSERT(hsig[1] == hv, "a host word after every PE's SHMEM_SIGNAL_ADD on a CUDA stream: "
                "%llu, expected %llu", (unsigned long long)hsig[1], (unsigned long long)hv);
    shmem_barrier_all();
    failed_put(psrc, heap);
    shmemx_buffer_unregister_symmetric(pdst, maxn);
    shmemx_buffer_unregister_symmetric(psrc, maxn);
    shmem_free(hsig);
    shmem_free(heap);
    gpu_free(got);
    gpu_free(dsrc);
    gpu_host_free(pdst);
    gpu_host_free(psrc);
}

static volatile int launched;

/* A host kernel: the GPU work before it on the stream is done, so the
 * pinned word holds what the stream copied into it.  (Like a CUDA host
 * function it makes no CUDA call: the CUDA stream waits for it.) */
static void host_fn(void *arg)
{
    launched = *(volatile long *)arg == 4242 ? 1 : -1;
}

static void host_kernel(void)
{
    long *w = dmalloc(64), v = 4242;
    long *pinned = gpu_host_alloc(sizeof(long));

    TEST_ASSERT(pinned != NULL, "cudaMallocHost");
    *pinned = 0;
    must(gpu_copy(w, &v, 8), "copy");
    must(gpu_delay_on(DELAY_US, cst), "delay");
    must(gpu_copy_on(pinned, w, 8, cst), "copy");
    shmemx_launch_on_stream(s, host_fn, pinned);
    sync_stream("launch");
    TEST_ASSERT(launched == 1, "a host kernel on a CUDA stream ran before the GPU work before "
                "it (%d)", launched);
    gpu_host_free(pinned);
    shmem_free(w);
}

static void refusals(void)
{
    shmemx_stream_t bad = NULL;
    int rc;

    /* (A handle that is not a CUDA stream at all cannot be told from one:
     * the driver reads it.  One of another context is refused.) */
    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    shmemx_error_clear();
    rc = shmemx_stream_create_cuda(NULL, cst);
    TEST_ASSERT(rc == SHMEMX_ERROR_INVALID_VALUE, "shmemx_stream_create_cuda(NULL, ...): %d", rc);
    expect_err(SHMEMX_ERROR_INVALID_VALUE, "shmemx_stream_create_cuda", "stream",
               "a NULL stream pointer");
    (void)bad;
    /* A reduction whose dest overlaps its source only partly is refused
     * when enqueued (INVALID_VALUE, the class that the CUDA kind once took
     * for work to hold), and the stream's next sync reports it once; the
     * job goes on. */
    {
        float *d = dmalloc(4096);
        rc = shmemx_float_sum_reduce_on_stream(SHMEM_TEAM_WORLD, d + 1, d, 16, s);
        TEST_ASSERT(rc == SHMEMX_ERROR_INVALID_VALUE, "a sum on a stream with dest overlapping "
                    "its source partly returned %d", rc);
        rc = shmemx_stream_sync(s);
        TEST_ASSERT(rc == SHMEMX_ERROR_INVALID_VALUE, "the sync after the refused sum returned "
                    "%d", rc);
        TEST_ASSERT(shmemx_stream_sync(s) == 0, "the refusal was reported twice");
        shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
        shmem_free(d);
    }
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
}

static int no_gpu(void)
{
    shmemx_stream_t st = NULL;
    int rc;

    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    shmemx_error_clear();
    rc = shmemx_stream_create_cuda(&st, NULL);
    TEST_ASSERT(rc == SHMEMX_ERROR_NOT_SUPPORTED, "a CUDA stream without a GPU: %d", rc);
    expect_err(SHMEMX_ERROR_NOT_SUPPORTED, "shmemx_stream_create_cuda", "GPU",
               "a CUDA stream without a GPU");
    TEST_ASSERT(st == NULL, "a refused stream is not NULL");
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    shmem_barrier_all();
    test_note("SKIP: no GPU; the refusal of shmemx_stream_create_cuda passed");
    shmem_finalize();
    return TEST_SKIP;
}

int main(void)
{
    int rc;

    gpu_count();
    test_init("gpu_stream");
    if (shmemx_cuda_device() < 0)
        return no_gpu();
    next_pe = (test_me + 1) % test_npes;
    prev_pe = (test_me + test_npes - 1) % test_npes;
    mapped = shmem_team_n_pes(SHMEM_TEAM_SHARED) == test_npes;
    cst = gpu_stream_create();
    TEST_ASSERT(cst != NULL, "cudaStreamCreate failed");
    rc = shmemx_stream_create_cuda(&s, cst);
    TEST_ASSERT(rc == 0 && s != NULL, "shmemx_stream_create_cuda returned %d", rc);
    if (test_me == 0)
        test_note("PEs %s each other's device heaps%s", mapped ? "map" : "do not map",
                  shmem_team_n_pes(SHMEMX_TEAM_SAME_GPU) > 1 ? "; PEs share GPUs" : "");
    step("refusals");
    refusals();
    probe_add();
    step("puts and gets");
    puts_and_gets();
    step("signals and waits");
    signals_and_waits();
    step("barriers");
    barrier_orders(SHMEM_TEAM_WORLD, "team_sync_on_stream ordering a put");
    step("teams reusing a slot");
    team_slot_reuse();
    step("host buffers");
    host_buffers();
    step("collectives on host buffers");
    host_collectives();
    /* Where the PEs do not map each other, the stream's host thread runs
     * them (the blocking forms through the core's RMA). */
    step("collectives on device buffers");
    dev_collectives();
    step("a host kernel");
    host_kernel();
    rc = shmemx_stream_destroy(s);
    TEST_ASSERT(rc == 0, "shmemx_stream_destroy returned %d", rc);
    must(gpu_stream_destroy(cst), "cudaStreamDestroy");
    return test_finish();
}
