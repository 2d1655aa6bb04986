/*
 * gpu_reg: GPU memory of the program's own registered as symmetric
 * (shmemx_buffer_register_symmetric on memory of the CUDA VMM API, what
 * nvshmem4py's register_external_array does; docs/gpu.md, "Registered GPU
 * memory"), checked by value on every PE.
 *
 *  - Refusals, each on every PE with nothing registered after it
 *    (SHMEMX_ERRORS_RETURN): cudaMalloc's memory (NOT_SUPPORTED, naming
 *    the routine and the VMM API), SHMEMX_BUFFER_LOAD_STORE on GPU memory
 *    (NOT_SUPPORTED), lengths that differ (SYMMETRY), and where node peers
 *    map each other an allocation that cannot be exported as a POSIX
 *    file descriptor (NOT_SUPPORTED naming it; registered otherwise).
 *  - A registered buffer (two allocations of 4 MiB, so that their windows
 *    differ): shmem_ptr gives the program's address on this PE and a node
 *    peer's copy exactly for the members of SHMEM_TEAM_SHARED; a kernel
 *    stores into the next PE's copy through it; put and get of 1 MiB + 13
 *    bytes at unaligned offsets to and from the next PE, from registered
 *    memory, the device heap and host memory; fcollect and a long sum over
 *    SHMEM_TEAM_WORLD with registered source and dest; on a CUDA stream a
 *    put (with a signal in registered memory and the wait for it where
 *    every PE maps every other).
 *  - Unregistering: shmem_ptr is NULL after, and a put to the buffer is
 *    refused (INVALID_VALUE); shmemx_buffer_unregister_symmetric_all ends
 *    the second buffer; the device heap still works.
 *
 * Without a device heap it skips (gpu_heap checks the refusals there).
 */
#include "common.h"
#include <shmemx.h>
#include "gpu/gpu_kern.h"

#define MIB ((size_t)1 << 20)

static void expect(int want, const char *what, const char *m1, const char *m2)
{
    char msg[1024];
    int got = shmemx_error_get(msg, sizeof(msg));

    TEST_ASSERT(got == want, "%s: error %d (%s), expected %d (%s): %s", what, got,
                shmemx_strerror(got), want, shmemx_strerror(want), msg);
    TEST_ASSERT(strstr(msg, m1) && (!m2 || strstr(msg, m2)), "%s: the message does not name "
                "%s%s%s: %s", what, m1, m2 ? " and " : "", m2 ? m2 : "", msg);
    shmemx_error_clear();
}

static int n_shared(void)
{
    return shmem_team_n_pes(SHMEM_TEAM_SHARED);
}

/* Where GPU memory of PEs that are not mapped goes through the provider
 * (FI_HMEM), only the device heap is registered with it, and every GPU
 * buffer is refused with a message that names the way that takes them
 * (FABSHMEM_CUDA_REMOTE=staged): returns 1 when that refusal came (the
 * registered buffers cannot be tested in this configuration), 0 when
 * the refusal was the usual one for memory without virtual memory
 * management. */
static int refused_for_hmem(void)
{
    char msg[1024];
    int got = shmemx_error_get(msg, sizeof(msg));

    if (got != SHMEMX_ERROR_NOT_SUPPORTED || !strstr(msg, "(FI_HMEM)"))
        return 0;
    TEST_ASSERT(strstr(msg, "shmemx_buffer_register_symmetric") &&
                strstr(msg, "FABSHMEM_CUDA_REMOTE=staged"), "the refusal of GPU memory under "
                "FI_HMEM does not name the routine and the way that takes it: %s", msg);
    shmemx_error_clear();
    return 1;
}

static int refusals(void)
{
    size_t len = 0;
    void *d = gpu_malloc(MIB), *p, *v;

    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    shmemx_error_clear();
    TEST_ASSERT(d, "cudaMalloc of 1 MiB failed");
    p = shmemx_buffer_register_symmetric(d, MIB, 0);
    TEST_ASSERT(!p, "cudaMalloc's memory was registered");
    if (refused_for_hmem()) {
        /* A VMM allocation, which other configurations take, is refused
         * the same way, and nothing is left registered. */
        gpu_free(d);
        v = gpu_vmm_alloc(2 * MIB, 1, &len);
        TEST_ASSERT(v, "a VMM allocation of 2 MiB failed");
        TEST_ASSERT(!shmemx_buffer_register_symmetric(v, len, 0), "a VMM allocation was "
                    "registered where GPU memory goes through the provider (FI_HMEM)");
        TEST_ASSERT(refused_for_hmem(), "a VMM allocation under FI_HMEM: not the same refusal");
        TEST_ASSERT(!shmem_ptr(v, test_me), "shmem_ptr of a refused buffer is not NULL");
        gpu_vmm_free(v, len);
        shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
        shmem_barrier_all();
        return 1;
    }
    expect(SHMEMX_ERROR_NOT_SUPPORTED, "registering cudaMalloc's memory",
           "shmemx_buffer_register_symmetric", "virtual memory management");
    TEST_ASSERT(!shmem_ptr(d, test_me), "shmem_ptr of a refused buffer is not NULL");
    gpu_free(d);

    v = gpu_vmm_alloc(2 * MIB, 1, &len);
    TEST_ASSERT(v, "a VMM allocation of 2 MiB failed");
    p = shmemx_buffer_register_symmetric(v, len, SHMEMX_BUFFER_LOAD_STORE);
    TEST_ASSERT(!p, "GPU memory was registered with SHMEMX_BUFFER_LOAD_STORE");
    expect(SHMEMX_ERROR_NOT_SUPPORTED, "SHMEMX_BUFFER_LOAD_STORE on GPU memory",
           "SHMEMX_BUFFER_LOAD_STORE", NULL);
    if (test_npes > 1) {
        p = shmemx_buffer_register_symmetric(v, test_me ? len - 256 : len, 0);
        TEST_ASSERT(!p, "lengths that differ were registered");
        expect(SHMEMX_ERROR_SYMMETRY, "lengths that differ", "length", NULL);
    }
    TEST_ASSERT(!shmem_ptr(v, test_me), "shmem_ptr of a refused buffer is not NULL");
    gpu_vmm_free(v, len);

    /* Not exportable: node peers that map each other cannot have it. */
    v = gpu_vmm_alloc(2 * MIB, 0, &len);
    TEST_ASSERT(v, "a VMM allocation of 2 MiB failed");
    p = shmemx_buffer_register_symmetric(v, len, 0);
    if (n_shared() > 1) {
        TEST_ASSERT(!p, "memory that cannot be exported was registered among node peers");
        expect(SHMEMX_ERROR_NOT_SUPPORTED, "an allocation that is not exportable",
               "POSIX file descriptor", NULL);
    } else {
        TEST_ASSERT(p == v, "an allocation that no node peer maps was refused");
        TEST_ASSERT(shmemx_buffer_unregister_symmetric(v, len) == 0, "unregistering failed");
    }
    gpu_vmm_free(v, len);
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    shmem_barrier_all();
    return 0;
}

/* shmem_ptr: the program's address here, a node peer's copy exactly for
 * TEAM_SHARED's members; a kernel stores into the next PE's copy and the
 * owner checks it. */
static void check_ptr(char *buf)
{
    uint64_t *w = (uint64_t *)(void *)(buf + 3 * MIB), host[512];
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes, pe;
    int stored = 0;

    TEST_ASSERT(shmem_ptr(buf, test_me) == buf, "shmem_ptr(registered, me) is %p, not %p",
                shmem_ptr(buf, test_me), (void *)buf);
    for (pe = 0; pe < test_npes; pe++) {
        void *q = shmem_ptr(buf, pe);
        int member = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0;

        TEST_ASSERT(!q == !member, "shmem_ptr(registered, %d) is %p, but PE %d is %sa member "
                    "of SHMEM_TEAM_SHARED", pe, q, pe, member ? "" : "not ");
        TEST_ASSERT(shmem_addr_accessible(buf, pe), "shmem_addr_accessible(registered, %d) is 0",
                    pe);
    }
    if (shmem_ptr(w, next)) {
        TEST_ASSERT(gpu_store_u64(shmem_ptr(w, next), 512, 1000 * (uint64_t)test_me) == 0,
                    "a kernel's stores into PE %d's copy failed", next);
        stored = 1;
    }
    shmem_barrier_all();
    stored = stored && shmem_ptr(w, prev) != NULL;
    if (stored) {
        TEST_ASSERT(gpu_copy(host, w, sizeof(host)) == 0, "copying back failed");
        for (size_t i = 0; i < 512; i++)
            TEST_CHECK("a kernel's store from the previous PE", i,
                       (long long)(1000 * (uint64_t)prev + i), (long long)host[i]);
    }
    shmem_barrier_all();
}

/* Put and get of 1 MiB + 13 bytes at unaligned offsets, between buf and
 * the next PE's buf, from and to registered memory, the device heap and
 * host memory. */
static void check_rma(char *buf, char *heap)
{
    const size_t n = MIB + 13;
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
    char *host = malloc(n);
    long long bad;

    TEST_ASSERT(host, "malloc failed");
    /* From registered memory: [0, n) holds my pattern, it goes to the
     * next PE's [MIB + 512 + 7, ...). */
    TEST_ASSERT(gpu_fill(buf, n, 10u + (unsigned)test_me) == 0, "fill failed");
    shmem_barrier_all();
    shmem_putmem(buf + MIB + 519, buf, n, next);
    shmem_barrier_all();
    bad = gpu_find_mismatch(buf + MIB + 519, n, 10u + (unsigned)prev);
    TEST_ASSERT(bad == -1, "put from registered memory: byte %lld differs", bad);
    /* From the device heap and to it. */
    TEST_ASSERT(gpu_fill(heap, n, 30u + (unsigned)test_me) == 0, "fill failed");
    shmem_barrier_all();
    shmem_putmem(buf + 5, heap, n, next);
    shmem_barrier_all();
    bad = gpu_find_mismatch(buf + 5, n, 30u + (unsigned)prev);
    TEST_ASSERT(bad == -1, "put from the device heap into registered memory: byte %lld", bad);
    shmem_getmem(heap, buf + 5, n, next);
    bad = gpu_find_mismatch(heap, n, 30u + (unsigned)test_me);
    TEST_ASSERT(bad == -1, "get from registered memory into the device heap: byte %lld", bad);
    /* Host memory both ways. */
    for (size_t i = 0; i < n; i++)
        host[i] = (char)gpu_pattern(50u + (unsigned)test_me, i);
    shmem_barrier_all();
    shmem_putmem(buf + 2 * MIB + 3, host, n, next);
    shmem_barrier_all();
    memset(host, 0, n);
    shmem_getmem(host, buf + 2 * MIB + 3, n, next);
    for (size_t i = 0; i < n; i++)
        TEST_CHECK("get into host memory of what this PE put", i,
                   (long long)gpu_pattern(50u + (unsigned)test_me, i), (long long)host[i] & 255);
    shmem_barrier_all();
    free(host);
}

/* fcollect and a long sum over SHMEM_TEAM_WORLD, source and dest in
 * registered memory. */
static void check_coll(char *buf)
{
    const size_t blk = 4096 + 8, nl = 1000;
    char *src = buf, *dst = buf + 64 * 1024;
    long *ls = (long *)(void *)(buf + 2 * MIB), *ld = ls + nl, *host = malloc(nl * sizeof(long));
    long long bad;
    int pe;

    TEST_ASSERT(host, "malloc failed");
    TEST_ASSERT(gpu_fill(src, blk, 70u + (unsigned)test_me) == 0, "fill failed");
    shmem_barrier_all();
    TEST_ASSERT(shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, blk) == 0, "fcollect failed");
    for (pe = 0; pe < test_npes; pe++) {
        bad = gpu_find_mismatch(dst + (size_t)pe * blk, blk, 70u + (unsigned)pe);
        TEST_ASSERT(bad == -1, "fcollect on registered memory: PE %d's block, byte %lld", pe,
                    bad);
    }
    TEST_ASSERT(gpu_store_u64((uint64_t *)ls, nl, 100 * (uint64_t)(test_me + 1)) == 0,
                "store failed");
    shmem_barrier_all();
    TEST_ASSERT(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ld, ls, nl) == 0, "sum failed");
    TEST_ASSERT(gpu_copy(host, ld, nl * sizeof(long)) == 0, "copy failed");
    for (size_t i = 0; i < nl; i++)
        TEST_CHECK("long sum on registered memory", i,
                   (long long)(100 * test_npes * (test_npes + 1) / 2 + test_npes * (long)i),
                   (long long)host[i]);
    shmem_barrier_all();
    free(host);
}

/* On a CUDA stream: put 64 KiB + 3 to the next PE, with a signal in
 * registered memory where every PE maps every other (signal words in GPU
 * memory take the PEs of SHMEM_TEAM_SHARED), and wait for the previous
 * PE's; elsewhere the put, a quiet on the stream and a barrier.  Then
 * check. */
static void check_stream(char *buf)
{
    const size_t n = 64 * 1024 + 3;
    uint64_t *sig = (uint64_t *)(void *)(buf + 3 * MIB + 8192), zero = 0;
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
    void *cst = gpu_stream_create();
    shmemx_stream_t s;
    long long bad;

    TEST_ASSERT(cst, "cudaStreamCreate failed");
    TEST_ASSERT(shmemx_stream_create_cuda(&s, cst) == 0, "shmemx_stream_create_cuda failed");
    TEST_ASSERT(gpu_copy(sig, &zero, 8) == 0, "copy failed");
    TEST_ASSERT(gpu_fill(buf, n, 90u + (unsigned)test_me) == 0, "fill failed");
    shmem_barrier_all();
    if (n_shared() == test_npes) {
        shmemx_putmem_signal_on_stream(buf + MIB + 1, buf, n, sig, 7, SHMEM_SIGNAL_SET, next, s);
        shmemx_signal_wait_until_on_stream(sig, SHMEM_CMP_EQ, 7, s);
        TEST_ASSERT(shmemx_stream_sync(s) == 0, "shmemx_stream_sync failed");
    } else {
        shmemx_putmem_on_stream(buf + MIB + 1, buf, n, next, s);
        shmemx_quiet_on_stream(s);
        TEST_ASSERT(shmemx_stream_sync(s) == 0, "shmemx_stream_sync failed");
        shmem_barrier_all();
    }
    bad = gpu_find_mismatch(buf + MIB + 1, n, 90u + (unsigned)prev);
    TEST_ASSERT(bad == -1, "put with a signal on a stream into registered memory: byte %lld",
                bad);
    shmem_barrier_all();
    TEST_ASSERT(shmemx_stream_destroy(s) == 0, "shmemx_stream_destroy failed");
    gpu_stream_destroy(cst);
}

int main(void)
{
    size_t len, len2;
    char *buf, *buf2, *heap;
    int next;

    gpu_count();
    test_init("gpu_reg");
    if (shmemx_cuda_device() < 0) {
        test_note("SKIP: no device heap (no GPU, or a build without CUDA)");
        shmem_finalize();
        return TEST_SKIP;
    }
    next = (test_me + 1) % test_npes;
    if (refusals()) {
        test_note("SKIP: GPU memory of PEs that are not mapped goes through the provider "
                  "(FI_HMEM), which takes no registered GPU buffers (both refusals checked)");
        shmem_finalize();
        return TEST_SKIP;
    }
    buf = gpu_vmm_alloc(4 * MIB, 1, &len);
    buf2 = gpu_vmm_alloc(4 * MIB, 1, &len2);
    heap = shmem_malloc_with_hints(2 * MIB, SHMEMX_MALLOC_DEVICE);
    TEST_ASSERT(buf && buf2 && heap, "allocations failed");
    TEST_ASSERT(shmemx_buffer_register_symmetric(buf2, len2, 0) == buf2, "registering failed");
    TEST_ASSERT(shmemx_buffer_register_symmetric(buf, len, 0) == buf, "registering failed");
    check_ptr(buf);
    check_rma(buf, heap);
    check_rma(buf2, heap);
    check_coll(buf);
    check_stream(buf2);
    TEST_ASSERT(shmemx_buffer_unregister_symmetric(buf, len) == 0, "unregistering failed");
    TEST_ASSERT(!shmem_ptr(buf, test_me), "shmem_ptr of an unregistered buffer is not NULL");
    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    shmem_putmem(buf, heap, 64, next);
    expect(SHMEMX_ERROR_INVALID_VALUE, "a put to an unregistered buffer", "shmem_putmem", NULL);
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    TEST_ASSERT(shmemx_buffer_unregister_symmetric_all() == 0, "unregistering all failed");
    TEST_ASSERT(!shmem_ptr(buf2, test_me), "shmem_ptr of an unregistered buffer is not NULL");
    /* The device heap is as it was. */
    TEST_ASSERT(gpu_fill(heap, MIB, 5) == 0, "fill failed");
    shmem_barrier_all();
    shmem_putmem(heap + MIB, heap, MIB, next);
    shmem_barrier_all();
    TEST_ASSERT(gpu_find_mismatch(heap + MIB, MIB, 5) == -1, "the device heap after");
    shmem_barrier_all();
    shmem_free(heap);
    gpu_vmm_free(buf, len);
    gpu_vmm_free(buf2, len2);
    return test_finish();
}
