/*
 * gpu_rma: host-initiated RMA on device memory (docs/gpu.md), checked on
 * every PE: each PE moves data to and from the next PE's device blocks
 * and checks what the previous PE moved, for sizes from 1 byte to 16 MiB
 * (across the staging chunks), with every kind of local buffer:
 *
 *  - puts: host memory, this PE's device heap, cudaMalloc'd memory, to a
 *    device block (blocking and nbi + quiet);
 *  - gets: from a device block into host memory, the device heap (nbi +
 *    quiet) and cudaMalloc'd memory;
 *  - put with signal (shmem_putmem_signal) whose data goes to a device
 *    block and whose signal is a word of host symmetric memory;
 *  - the typed and sized forms (shmem_int_put, shmem_double_get,
 *    shmem_long_p, shmem_long_g, shmem_put64) and the strided ones
 *    (shmem_int_iput, shmem_int_iget) on device blocks;
 *  - a PE's own device blocks (a put to itself);
 *  - the device heap as the local side of a transfer to host symmetric
 *    memory, contiguous and strided: of the next PE, mapped or not
 *    (FABSHMEM_DIRECT=0, virtual nodes), and of this PE.
 *
 * Whether the next PE is mapped (a copy of the GPU over NVLink) or not
 * (the provider, or staging through host memory) follows from the job's
 * mode; PE 0 prints which, and the time of a 64 MiB put each way (for the
 * record: no check depends on it).
 *
 * Exits 77 (skipped) when the PEs have no device heap (gpu_heap checks
 * the refusal then).
 */
#include "common.h"
#include <shmemx.h>
#include "gpu/gpu_kern.h"

#define MAXN ((size_t)16 << 20)

static int next_pe, prev_pe;

static void check_dev(const char *what, const void *d, size_t n, unsigned seed)
{
    long long bad = gpu_find_mismatch(d, n, seed);

    if (bad != -1)
        test_fail("%s, %zu bytes: %s at byte %lld", what, n,
                  bad == -2 ? "a CUDA error in the check" : "wrong data", bad);
}

static void check_host(const char *what, const unsigned char *h, size_t n, unsigned seed)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (h[i] != gpu_pattern(seed, i))
            test_fail("%s, %zu bytes: byte %zu is %u, expected %u", what, n, i, h[i],
                      gpu_pattern(seed, i));
}

static unsigned seed_of(int pe, int kase, size_t n)
{
    return (unsigned)(pe * 1009 + kase * 131 + (int)(n % 997));
}

static void fill_host(unsigned char *h, size_t n, unsigned seed)
{
    size_t i;

    for (i = 0; i < n; i++)
        h[i] = gpu_pattern(seed, i);
}

static void must(int rc, const char *what)
{
    if (rc)
        test_fail("%s: %s", what, gpu_error(rc));
}

/* Puts of n bytes to the next PE's device block dst from every kind of
 * local buffer. */
static void puts_of(size_t n, char *dst, char *dsrc, void *csrc, unsigned char *hsrc)
{
    fill_host(hsrc, n, seed_of(test_me, 1, n));
    shmem_putmem(dst, hsrc, n, next_pe);
    shmem_barrier_all();
    check_dev("putmem from host memory", dst, n, seed_of(prev_pe, 1, n));
    shmem_barrier_all();

    must(gpu_fill(dsrc, n, seed_of(test_me, 2, n)), "fill");
    shmem_putmem(dst, dsrc, n, next_pe);
    shmem_barrier_all();
    check_dev("putmem from the device heap", dst, n, seed_of(prev_pe, 2, n));
    shmem_barrier_all();

    must(gpu_fill(csrc, n, seed_of(test_me, 3, n)), "fill");
    shmem_putmem_nbi(dst, csrc, n, next_pe);
    shmem_quiet();
    shmem_barrier_all();
    check_dev("putmem_nbi from cudaMalloc'd memory", dst, n, seed_of(prev_pe, 3, n));
    shmem_barrier_all();

    /* To this PE's own block. */
    must(gpu_fill(dsrc, n, seed_of(test_me, 4, n)), "fill");
    shmem_putmem(dst, dsrc, n, test_me);
    check_dev("putmem to this PE's own device block", dst, n, seed_of(test_me, 4, n));
    shmem_barrier_all();
}

/* Gets of n bytes from the next PE's device block src into every kind of
 * local buffer. */
static void gets_of(size_t n, char *src, char *ddst, void *cdst, unsigned char *hdst)
{
    must(gpu_fill(src, n, seed_of(test_me, 5, n)), "fill");
    shmem_barrier_all();
    memset(hdst, 0, n);
    shmem_getmem(hdst, src, n, next_pe);
    check_host("getmem into host memory", hdst, n, seed_of(next_pe, 5, n));
    shmem_getmem_nbi(ddst, src, n, next_pe);
    shmem_quiet();
    check_dev("getmem_nbi into the device heap", ddst, n, seed_of(next_pe, 5, n));
    shmem_getmem(cdst, src, n, next_pe);
    check_dev("getmem into cudaMalloc'd memory", cdst, n, seed_of(next_pe, 5, n));
    shmem_barrier_all();
}

/* The typed, sized, single-element and strided forms. */
static void typed_forms(int *di, double *dd, long *dl)
{
    enum { K = 1000 };
    int hi[K], gi[2 * K];
    double hd[K];
    long v;
    int i;

    for (i = 0; i < K; i++) {
        hi[i] = test_me * 100000 + i;
        hd[i] = test_me + i * 0.5;
    }
    shmem_int_put(di, hi, K, next_pe);
    shmem_double_put(dd, hd, K, next_pe);
    shmem_long_p(dl, 1000L + test_me, next_pe);
    shmem_put64(dl + 1, &hd[3], 1, next_pe);
    shmem_barrier_all();
    memset(gi, 0, sizeof(gi));
    shmem_int_get(gi, di, K, test_me);
    for (i = 0; i < K; i++)
        TEST_CHECK("shmem_int_put to a device block", i, prev_pe * 100000 + i, gi[i]);
    /* The previous PE's block holds what its own previous PE put. */
    shmem_double_get(hd, dd, K, prev_pe);
    for (i = 0; i < K; i++)
        TEST_CHECK("shmem_double_get of a device block", i,
                   (prev_pe + test_npes - 1) % test_npes + i * 0.5, hd[i]);
    v = shmem_long_g(dl, test_me);
    TEST_CHECK("shmem_long_p then shmem_long_g", 0, 1000L + prev_pe, v);
    shmem_double_get(hd, (double *)(dl + 1), 1, test_me);
    TEST_CHECK("shmem_put64 to a device block", 0, prev_pe + 3 * 0.5, hd[0]);
    shmem_barrier_all();
    /* Strided: every other element of K ints into a stride of 3. */
    for (i = 0; i < 2 * K; i++)
        gi[i] = test_me * 7 + i;
    shmem_int_iput(di, gi, 3, 2, K / 3, next_pe);
    shmem_barrier_all();
    memset(hi, 0, sizeof(hi));
    shmem_int_iget(hi, di, 1, 3, K / 3, test_me);
    for (i = 0; i < K / 3; i++)
        TEST_CHECK("shmem_int_iput to a device block", i, prev_pe * 7 + 2 * i, hi[i]);
    shmem_barrier_all();
}

/* a[2i] holds element 3i of PE even_pe's ints (pe * 100000 + index), a[2i + 1]
 * element 3i of this PE's, for i < k. */
static void check_thirds(const char *even, int even_pe, const char *odd, const int *a, int k)
{
    int i;

    for (i = 0; i < k; i++) {
        TEST_CHECK(even, i, even_pe * 100000 + 3 * i, a[2 * i]);
        TEST_CHECK(odd, i, test_me * 100000 + 3 * i, a[2 * i + 1]);
    }
}

/* The device heap as the local side of a transfer to host symmetric
 * memory: of the next PE (mapped: a copy of the GPU into or out of its
 * host memory; not mapped: through the provider or staging) and of this
 * PE itself; contiguous, and strided (every third int of the device
 * heap to every other int of the host memory, and back). */
static void dev_to_host(char *dsrc, char *ddst, size_t n)
{
    enum { K = 600 };
    unsigned char *h = shmem_malloc(2 * n);
    int *hi = shmem_calloc(2 * K, sizeof(int)), v[3 * K];
    int *di = (int *)ddst, i;

    TEST_ASSERT(h != NULL && hi != NULL, "shmem_malloc of %zu bytes failed", 2 * n);
    must(gpu_fill(dsrc, n, seed_of(test_me, 6, n)), "fill");
    shmem_barrier_all();
    shmem_putmem(h, dsrc, n, next_pe);
    shmem_putmem(h + n, dsrc, n, test_me);
    shmem_barrier_all();
    check_host("putmem from the device heap to the next PE's host memory", h, n,
               seed_of(prev_pe, 6, n));
    check_host("putmem from the device heap to this PE's host memory", h + n, n,
               seed_of(test_me, 6, n));
    shmem_barrier_all();
    fill_host(h, n, seed_of(test_me, 7, n));
    fill_host(h + n, n, seed_of(test_me, 8, n));
    shmem_barrier_all();
    shmem_getmem(ddst, h, n, next_pe);
    check_dev("getmem from the next PE's host memory into the device heap", ddst, n,
              seed_of(next_pe, 7, n));
    shmem_getmem(ddst, h + n, n, test_me);
    check_dev("getmem from this PE's host memory into the device heap", ddst, n,
              seed_of(test_me, 8, n));
    shmem_barrier_all();
    if (n != 4096) {
        shmem_free(hi);
        shmem_free(h);
        return;
    }
    /* Strided, once: ints into this PE's device heap (a put from host
     * memory to itself), every third one to every other int of the next
     * PE's host memory and of this PE's own (its upper half). */
    for (i = 0; i < 3 * K; i++)
        v[i] = test_me * 100000 + i;
    shmem_int_put(di, v, 3 * K, test_me);
    shmem_int_iput(hi, di, 2, 3, K, next_pe);
    shmem_int_iput(hi + 1, di, 2, 3, K, test_me);
    shmem_barrier_all();
    check_thirds("shmem_int_iput from the device heap to the next PE's host memory", prev_pe,
                 "shmem_int_iput from the device heap to this PE's host memory", hi, K);
    shmem_barrier_all();
    /* Back: every other int of the next PE's host memory into every
     * second int of the device heap, and this PE's own into the odd ones. */
    shmem_int_iget(di, hi, 2, 2, K, next_pe);
    shmem_int_iget(di + 1, hi + 1, 2, 2, K, test_me);
    shmem_int_get(v, di, 2 * K, test_me);
    check_thirds("shmem_int_iget from the next PE's host memory into the device heap", test_me,
                 "shmem_int_iget from this PE's host memory into the device heap", v, K);
    shmem_barrier_all();
    shmem_free(hi);
    shmem_free(h);
}

/* Put with signal: the data to the next PE's device block, the signal a
 * word of host symmetric memory; whoever sees the signal sees the data. */
static void put_with_signal(char *ddst, char *dsrc, size_t n, uint64_t *sig, uint64_t round)
{
    must(gpu_fill(dsrc, n, seed_of(test_me, 8, n)), "fill");
    shmem_barrier_all();
    shmem_putmem_signal(ddst, dsrc, n, sig, round, SHMEM_SIGNAL_SET, next_pe);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, round);
    check_dev("putmem_signal to a device block, seen after the signal", ddst, n,
              seed_of(prev_pe, 8, n));
    shmem_barrier_all();
}

/* The time of reps puts of n bytes from src to the next PE's dst. */
static double put_time(char *dst, const void *src, size_t n, int reps)
{
    double t0;
    int i;

    shmem_barrier_all();
    t0 = test_now();
    for (i = 0; i < reps; i++)
        shmem_putmem(dst, src, n, next_pe);
    shmem_quiet();
    return (test_now() - t0) / reps;
}

/* The same with the CUDA runtime's copy to the mapped pointer (the
 * floor), or 0 when the next PE is not mapped. */
static double copy_time(char *dst, const void *src, size_t n, int reps)
{
    char *p = shmem_ptr(dst, next_pe);
    double t0;
    int i;

    shmem_barrier_all();
    if (!p)
        return 0;
    t0 = test_now();
    for (i = 0; i < reps; i++)
        must(gpu_copy(p, src, n), "cudaMemcpy to the mapped pointer");
    return (test_now() - t0) / reps;
}

/* Blocking puts from the device heap and from host memory to the next
 * PE's device block, every PE at once, and the CUDA runtime's copy to the
 * mapped pointer for comparison, by size (PE 0 prints them; nothing
 * depends on them). */
static void timings(char *dst, char *dsrc)
{
    static const size_t sz[] = { 8, 4096, 65536, (size_t)1 << 20, (size_t)16 << 20,
                                 (size_t)64 << 20 };
    const size_t big = (size_t)64 << 20;
    unsigned char *h = malloc(big);
    double td, tc, th;
    size_t k, n;
    int reps;

    TEST_ASSERT(h != NULL, "malloc");
    memset(h, 1, big);
    for (k = 0; k < sizeof(sz) / sizeof(sz[0]); k++) {
        n = sz[k];
        reps = n <= 65536 ? 200 : n <= ((size_t)1 << 20) ? 50 : 5;
        td = put_time(dst, dsrc, n, reps);
        tc = copy_time(dst, dsrc, n, reps);
        shmem_barrier_all();
        test_note("put of %zu bytes from the device heap to PE %d's device block (%s): "
                  "%.2f us, %.2f GB/s; cudaMemcpy to shmem_ptr: %.2f us, %.2f GB/s (timing "
                  "only)", n, next_pe, shmem_ptr(dst, next_pe) ? "mapped" : "not mapped",
                  td * 1e6, n / td * 1e-9, tc * 1e6, tc > 0 ? n / tc * 1e-9 : 0.0);
    }
    th = put_time(dst, h, big, 5);
    shmem_barrier_all();
    test_note("put of %zu bytes from host memory (malloc) to PE %d's device block: %.2f GB/s "
              "(timing only)", big, next_pe, big / th * 1e-9);
    free(h);
}

int main(void)
{
    static const size_t sizes[] = { 1, 8, 13, 4096, 65536 + 3, (size_t)1 << 20,
                                    ((size_t)3 << 20) + 5, MAXN };
    char *ddst, *dsrc, *dbig;
    void *cbuf;
    unsigned char *hbuf;
    uint64_t *sig;
    size_t k;

    (void)gpu_count(); /* loads the CUDA driver before shmem_init */
    test_init("gpu_rma");
    if (shmemx_cuda_device() < 0) {
        test_note("SKIP: no device heap");
        shmem_finalize();
        return TEST_SKIP;
    }
    next_pe = (test_me + 1) % test_npes;
    prev_pe = (test_me + test_npes - 1) % test_npes;
    ddst = shmem_malloc_with_hints(MAXN, SHMEMX_MALLOC_DEVICE);
    dsrc = shmem_malloc_with_hints(MAXN, SHMEMX_MALLOC_DEVICE);
    dbig = shmem_malloc_with_hints((size_t)64 << 20, SHMEMX_MALLOC_DEVICE);
    cbuf = gpu_malloc(MAXN);
    hbuf = malloc(MAXN);
    TEST_ASSERT(ddst && dsrc && dbig && cbuf && hbuf, "allocation failed");
    test_note("next PE %s (%d PEs)", shmem_ptr(ddst, next_pe) ? "mapped" : "not mapped",
              test_npes);
    sig = shmem_calloc(1, sizeof(uint64_t));
    TEST_ASSERT(sig != NULL, "shmem_calloc of the signal word failed");
    for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        puts_of(sizes[k], ddst, dsrc, cbuf, hbuf);
        put_with_signal(ddst, dsrc, sizes[k], sig, k + 1);
        gets_of(sizes[k], dsrc, ddst, cbuf, hbuf);
        dev_to_host(dsrc, ddst, sizes[k] > ((size_t)4 << 20) ? (size_t)4 << 20 : sizes[k]);
    }
    typed_forms((int *)ddst, (double *)(dsrc + 65536), (long *)(dsrc + 2 * 65536));
    timings(dbig, dsrc);
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(dbig);
    shmem_free(dsrc);
    shmem_free(ddst);
    gpu_free(cbuf);
    free(hbuf);
    return test_finish();
}
