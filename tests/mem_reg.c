/*
 * mem_reg: memory the application allocated itself (shmemx_mem.h).
 *
 *  - Local buffers: a registered malloc buffer is the source of puts and
 *    the destination of gets (blocking and nbi) with every PE; overlapping
 *    or symmetric ranges and unknown addresses are refused with non-zero;
 *    unregister and unregister_all release them.
 *  - Symmetric buffers: every PE registers a malloc buffer and an mmap
 *    buffer; puts, gets, put_signal with a wait on a registered signal
 *    word, atomics (where the provider has them), broadcast, fcollect and
 *    a sum reduction on registered buffers are checked by value on every
 *    PE; shmem_ptr and shmem_addr_accessible follow the registration.
 *  - Refusals (NULL on every PE, nothing registered): lengths that differ,
 *    flags, a heap address, the seventeenth buffer; unregister with a
 *    wrong length fails on every PE and keeps the buffer.
 */
#include "common.h"
#include <shmemx.h>
#include <sys/mman.h>

#define LEN 4096 /* longs */

static int amo_ok(void)
{
    const char *prov = getenv("FABSHMEM_PROVIDER");
    /* Registered symmetric buffers are always reached through the
     * provider, and the shm provider has no atomics. */
    (void)prov;
    return test_npes == 1 || !test_prov_no_amo();
}

static void local_buffers(long *heap)
{
    int me = test_me, n = test_npes, next = (me + 1) % n, prev = (me + n - 1) % n, i;
    long *a = malloc(LEN * sizeof(long)), *b = malloc(LEN * sizeof(long));
    long *c = malloc(64 * sizeof(long));

    TEST_ASSERT(a && b && c, "malloc failed");
    TEST_ASSERT(shmemx_buffer_register(a, LEN * sizeof(long)) == 0, "register a");
    TEST_ASSERT(shmemx_buffer_register(b, LEN * sizeof(long)) == 0, "register b");
    TEST_ASSERT(shmemx_buffer_register(c, 64 * sizeof(long)) == 0, "register c");
    /* Refusals. */
    TEST_ASSERT(shmemx_buffer_register(a + 10, 16) == SHMEMX_ERROR_INVALID_VALUE,
                "an overlapping range was accepted");
    TEST_ASSERT(shmemx_buffer_register(heap, 64) == SHMEMX_ERROR_INVALID_VALUE,
                "a heap range was accepted");
    TEST_ASSERT(shmemx_buffer_register(NULL, 64) == SHMEMX_ERROR_INVALID_VALUE,
                "NULL was accepted");
    TEST_ASSERT(shmemx_buffer_register(c, 0) == SHMEMX_ERROR_INVALID_VALUE,
                "length 0 was accepted");
    TEST_ASSERT(shmemx_buffer_unregister(a + 1) == SHMEMX_ERROR_INVALID_VALUE,
                "unregister of an inner address worked");

    for (i = 0; i < LEN; i++)
        a[i] = test_val(me, (size_t)i, 31);
    shmem_barrier_all();
    shmem_long_put(heap, a, LEN, next);
    shmem_long_put_nbi(heap + LEN, a, 64, next);
    shmem_quiet();
    shmem_barrier_all();
    for (i = 0; i < LEN; i++)
        TEST_CHECK("put from a registered buffer", i, test_val(prev, (size_t)i, 31), heap[i]);
    memset(b, 0, LEN * sizeof(long));
    shmem_long_get(b, heap, LEN, next);
    for (i = 0; i < LEN; i++)
        TEST_CHECK("get into a registered buffer", i, test_val(me, (size_t)i, 31), b[i]);
    memset(c, 0, 64 * sizeof(long));
    shmem_long_get_nbi(c, heap + LEN, 64, prev);
    shmem_quiet();
    for (i = 0; i < 64; i++)
        TEST_CHECK("get_nbi into a registered buffer", i,
                   test_val((prev + n - 1) % n, (size_t)i, 31), c[i]);
    shmem_barrier_all();

    TEST_ASSERT(shmemx_buffer_unregister(a) == 0, "unregister a");
    TEST_ASSERT(shmemx_buffer_unregister(a) == SHMEMX_ERROR_INVALID_VALUE,
                "a second unregister of a worked");
    shmemx_buffer_unregister_all();
    TEST_ASSERT(shmemx_buffer_unregister(b) == SHMEMX_ERROR_INVALID_VALUE,
                "b is still registered after unregister_all");
    /* The range is free again. */
    TEST_ASSERT(shmemx_buffer_register(a + 10, 16) == 0, "register after unregister");
    TEST_ASSERT(shmemx_buffer_unregister(a + 10) == 0, "unregister a + 10");
    free(a);
    free(b);
    free(c);
}

static void symmetric_buffers(long *heap)
{
    int me = test_me, n = test_npes, next = (me + 1) % n, prev = (me + n - 1) % n, i, k;
    size_t bytes = LEN * sizeof(long);
    long *m = malloc(bytes);
    long *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    long *got = malloc(bytes);
    uint64_t *sig;

    TEST_ASSERT(m && p != MAP_FAILED && got, "allocation failed");
    memset(m, 0, bytes);
    memset(p, 0, bytes);
    TEST_ASSERT(!shmem_addr_accessible(m, next), "an unregistered buffer is accessible");
    TEST_ASSERT(shmemx_buffer_register_symmetric(m, bytes, 0) == m, "register_symmetric m");
    TEST_ASSERT(shmemx_buffer_register_symmetric(p, bytes, 0) == p, "register_symmetric p");
    TEST_ASSERT(shmem_addr_accessible(m + 5, next) && shmem_addr_accessible(p, prev),
                "a registered buffer is not accessible");
    TEST_ASSERT(shmem_ptr(m, me) == m, "shmem_ptr of my own registered buffer");
    if (n > 1)
        TEST_ASSERT(shmem_ptr(m, next) == NULL, "shmem_ptr of a peer's private buffer");
    sig = (uint64_t *)(p + LEN - 1);

    /* RMA into the next PE's malloc buffer, from the heap and from p. */
    for (i = 0; i < LEN / 2; i++)
        p[i] = test_val(me, (size_t)i, 41);
    shmem_barrier_all();
    shmem_long_put(m, p, LEN / 2, next);
    shmem_long_p(m + LEN / 2, 1000 + me, next);
    shmem_long_iput(m + LEN / 2 + 2, p, 2, 1, 8, next);
    shmem_quiet();
    shmem_barrier_all();
    for (i = 0; i < LEN / 2; i++)
        TEST_CHECK("put into a symmetric malloc buffer", i, test_val(prev, (size_t)i, 41), m[i]);
    TEST_CHECK("p into a symmetric buffer", 0, 1000 + prev, m[LEN / 2]);
    for (i = 0; i < 8; i++)
        TEST_CHECK("iput into a symmetric buffer", i, test_val(prev, (size_t)i, 41),
                   m[LEN / 2 + 2 + 2 * i]);
    memset(got, 0, bytes);
    shmem_long_get(got, m, LEN / 2, prev);
    for (i = 0; i < LEN / 2; i++)
        TEST_CHECK("get from a symmetric buffer", i,
                   test_val((prev + n - 1) % n, (size_t)i, 41), got[i]);
    shmem_barrier_all();

    /* put_signal into the mmap buffer, signal word in it too. */
    for (k = 1; k <= 3; k++) {
        for (i = 0; i < 64; i++)
            got[i] = test_val(me, (size_t)i, 50 + k);
        shmem_long_put_signal(p + LEN / 2, got, 64, sig, (uint64_t)k, SHMEM_SIGNAL_SET, next);
        shmem_uint64_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)k);
        for (i = 0; i < 64; i++)
            TEST_CHECK("put_signal into a symmetric buffer", i, test_val(prev, (size_t)i, 50 + k),
                       p[LEN / 2 + i]);
        shmem_barrier_all();
    }

    /* Atomics. */
    if (amo_ok()) {
        m[0] = 0;
        shmem_barrier_all();
        for (k = 0; k < n; k++)
            shmem_long_atomic_add(m, me + 1, k);
        shmem_quiet();
        shmem_barrier_all();
        TEST_CHECK("atomic_add on a symmetric buffer", 0, (long)n * (n + 1) / 2, m[0]);
        TEST_CHECK("atomic_fetch on a symmetric buffer", 0, (long)n * (n + 1) / 2,
                   shmem_long_atomic_fetch(m, next));
        shmem_barrier_all();
    } else {
        test_note("note: atomics on registered buffers skipped (the shm provider has none)");
    }

    /* Collectives on registered buffers. */
    for (i = 0; i < 256; i++)
        p[i] = test_val(me, (size_t)i, 60);
    shmem_barrier_all();
    TEST_ASSERT(shmem_long_broadcast(SHMEM_TEAM_WORLD, m, p, 256, n - 1) == 0, "broadcast");
    for (i = 0; i < 256; i++)
        TEST_CHECK("broadcast into a symmetric buffer", i, test_val(n - 1, (size_t)i, 60), m[i]);
    shmem_barrier_all();
    TEST_ASSERT(shmem_long_fcollect(SHMEM_TEAM_WORLD, m, p, 16) == 0, "fcollect");
    for (k = 0; k < n; k++)
        for (i = 0; i < 16; i++)
            TEST_CHECK("fcollect into a symmetric buffer", k * 16 + i,
                       test_val(k, (size_t)i, 60), m[k * 16 + i]);
    shmem_barrier_all();
    TEST_ASSERT(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, m, p, 256) == 0, "sum_reduce");
    for (i = 0; i < 256; i++) {
        long e = 0;
        for (k = 0; k < n; k++)
            e += test_val(k, (size_t)i, 60);
        TEST_CHECK("sum_reduce into a symmetric buffer", i, e, m[i]);
    }
    shmem_barrier_all();

    /* Refusals: NULL on every PE, nothing registered. */
    {
        long *q = malloc(bytes + 64);
        TEST_ASSERT(q, "malloc");
        if (n > 1)
            TEST_ASSERT(shmemx_buffer_register_symmetric(q, me == 0 ? bytes + 64 : bytes, 0) ==
                            NULL, "lengths that differ were accepted");
        TEST_ASSERT(!shmem_addr_accessible(q, next), "a refused buffer is accessible");
        TEST_ASSERT(shmemx_buffer_register_symmetric(q, bytes, 1) == NULL, "flags 1 accepted");
        TEST_ASSERT(shmemx_buffer_register_symmetric(heap, 64, 0) == NULL,
                    "a heap range was accepted");
        TEST_ASSERT(shmemx_buffer_register_symmetric(m + 8, 64, 0) == NULL,
                    "an overlapping range was accepted");
        free(q);
    }
    /* The most there can be: 16 (two are in use). */
    {
        long *many[16];
        for (k = 0; k < 14; k++) {
            many[k] = malloc(64);
            TEST_ASSERT(shmemx_buffer_register_symmetric(many[k], 64, 0) == many[k],
                        "registration %d of 16", k + 3);
        }
        many[14] = malloc(64);
        TEST_ASSERT(shmemx_buffer_register_symmetric(many[14], 64, 0) == NULL,
                    "a seventeenth registration was accepted");
        for (k = 0; k < 14; k++) {
            TEST_ASSERT(shmemx_buffer_unregister_symmetric(many[k], 64) == 0, "unregister %d",
                        k);
            free(many[k]);
        }
        free(many[14]);
    }
    TEST_ASSERT(shmemx_buffer_unregister_symmetric(m, me == 0 ? bytes - 8 : bytes) ==
                    (me == 0 || test_npes == 1 ? SHMEMX_ERROR_INVALID_VALUE
                                               : SHMEMX_ERROR_SYMMETRY),
                "unregister with a wrong length worked, or returned the wrong code");
    TEST_ASSERT(shmem_addr_accessible(m, next), "m went away after a failed unregister");
    TEST_ASSERT(shmemx_buffer_unregister_symmetric(m, bytes) == 0, "unregister m");
    TEST_ASSERT(!shmem_addr_accessible(m, next), "m is accessible after unregister");

    /* Re-register m (the slot is reused) and move new values. */
    TEST_ASSERT(shmemx_buffer_register_symmetric(m, bytes, 0) == m, "register m again");
    shmem_long_p(m + 3, 7000 + me, next);
    shmem_barrier_all();
    TEST_CHECK("p after re-registration", 0, 7000 + prev, m[3]);
    shmem_barrier_all();
    TEST_ASSERT(shmemx_buffer_unregister_symmetric(m, bytes) == 0, "unregister m again");
    TEST_ASSERT(shmemx_buffer_unregister_symmetric(p, bytes) == 0, "unregister p");
    free(m);
    munmap(p, bytes);
    free(got);
    (void)heap;
}

int main(void)
{
    long *heap;

    test_init("mem_reg");
    heap = shmem_calloc(2 * LEN, sizeof(long));
    TEST_ASSERT(heap, "shmem_calloc");
    local_buffers(heap);
    test_note("local buffers checked");
    symmetric_buffers(heap);
    test_note("symmetric buffers checked");
    /* A buffer left registered: finalize releases it (and it is freed
     * only after that, so the test does not leak it). */
    {
        long *l = malloc(64);
        int rc;

        TEST_ASSERT(l && shmemx_buffer_register(l, 64) == 0, "register l");
        shmem_free(heap);
        rc = test_finish();
        free(l);
        return rc;
    }
}
