/*
 * rma_nbi: the non-blocking put and get family (typed, ctx, SIZE and mem
 * forms) for the 24 standard RMA types completed with quiet, and the
 * ordering of fence: data put, fence, flag put; the target polls its flag
 * and, once it sees it, must see the data.
 */
#include "common.h"

#define NMAX 4096
#define FENCE_ROUNDS 30
#define FENCE_ELEMS 20000

static int salt_counter;
static uint8_t local_buf[NMAX * 16 + 64];
static long *fence_data;
static int *fence_flag;

#define DEFINE_NBI_CASE(T, N)                                                      \
    static T heap_src_##N[NMAX + 1];                                               \
    static void nbi_case_##N(T *area, size_t n, int var)                           \
    {                                                                              \
        T *loc = (T *)(void *)local_buf;                                           \
        int salt = ++salt_counter, next = (test_me + 1) % test_npes;               \
        int prev = (test_me + test_npes - 1) % test_npes;                          \
        size_t i;                                                                  \
                                                                                   \
        /* Put: each PE writes its values into the next PE's area. */              \
        memset(area, 0, (n + 1) * sizeof(T));                                      \
        for (i = 0; i < n; i++)                                                    \
            loc[i] = (T)test_val(test_me, i, salt);                                \
        shmem_barrier_all();                                                       \
        switch (var) {                                                             \
        case 0: shmem_##N##_put_nbi(area, loc, n, next); break;                    \
        case 1: shmem_ctx_##N##_put_nbi(SHMEM_CTX_DEFAULT, area, loc, n, next); break; \
        default: shmem_putmem_nbi(area, loc, n * sizeof(T), next); break;          \
        }                                                                          \
        shmem_quiet();                                                             \
        /* After quiet the source buffer may be reused. */                        \
        memset(loc, 0, (n + 1) * sizeof(T));                                       \
        shmem_barrier_all();                                                       \
        for (i = 0; i <= n; i++) {                                                 \
            long double e = i < n ? (long double)(T)test_val(prev, i, salt) : 0;   \
            if ((long double)area[i] != e)                                         \
                test_fail("shmem_%s_put_nbi (%s) n=%zu from PE %d: index %zu: "     \
                          "expected %.0Lf, got %.0Lf", var == 0 ? #N : var == 1 ?  \
                          "ctx_" #N : "mem", #T, n, prev, i, e, (long double)area[i]); \
        }                                                                          \
        /* Get: fetch the area of the next PE, which holds my values. */          \
        memset(loc, 0, (n + 1) * sizeof(T));                                       \
        switch (var) {                                                             \
        case 0: shmem_##N##_get_nbi(loc, area, n, next); break;                    \
        case 1: shmem_ctx_##N##_get_nbi(SHMEM_CTX_DEFAULT, loc, area, n, next); break; \
        default: shmem_getmem_nbi(loc, area, n * sizeof(T), next); break;          \
        }                                                                          \
        shmem_quiet();                                                             \
        for (i = 0; i <= n; i++) {                                                 \
            long double e = i < n ? (long double)(T)test_val(test_me, i, salt) : 0; \
            if ((long double)loc[i] != e)                                          \
                test_fail("shmem_%s_get_nbi (%s) n=%zu from PE %d: index %zu: "     \
                          "expected %.0Lf, got %.0Lf", var == 0 ? #N : var == 1 ?  \
                          "ctx_" #N : "mem", #T, n, next, i, e, (long double)loc[i]); \
        }                                                                          \
        shmem_barrier_all();                                                       \
    }                                                                              \
    static void nbi_type_##N(void *heap)                                           \
    {                                                                              \
        static const size_t sizes[] = { 0, 1, 13, NMAX };                          \
        size_t z;                                                                  \
        int var;                                                                   \
        for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)                     \
            for (var = 0; var < 3; var++) {                                        \
                nbi_case_##N(heap, sizes[z], var);                                 \
                nbi_case_##N(heap_src_##N, sizes[z], var);                         \
            }                                                                      \
    }
TEST_RMA_TYPES(DEFINE_NBI_CASE)

/* The SIZE forms of put_nbi and get_nbi, nelems elements of bits bits. */
static void nbi_size_case(uint8_t *area, size_t nelems, int bits)
{
    size_t nbytes = nelems * (size_t)(bits / 8), i;
    int salt = ++salt_counter, next = (test_me + 1) % test_npes;
    int prev = (test_me + test_npes - 1) % test_npes;

    memset(area, 0, nbytes + 1);
    for (i = 0; i < nbytes; i++)
        local_buf[i] = (uint8_t)test_val(test_me, i, salt);
    shmem_barrier_all();
    switch (bits) {
    case 8: shmem_put8_nbi(area, local_buf, nelems, next); break;
    case 16: shmem_put16_nbi(area, local_buf, nelems, next); break;
    case 32: shmem_put32_nbi(area, local_buf, nelems, next); break;
    case 64: shmem_put64_nbi(area, local_buf, nelems, next); break;
    default: shmem_ctx_put128_nbi(SHMEM_CTX_DEFAULT, area, local_buf, nelems, next); break;
    }
    shmem_quiet();
    shmem_barrier_all();
    for (i = 0; i <= nbytes; i++) {
        long long e = i < nbytes ? test_val(prev, i, salt) : 0;
        if (area[i] != e)
            test_fail("shmem_put%d_nbi nelems=%zu from PE %d: byte %zu: expected %lld, got %d",
                      bits, nelems, prev, i, e, area[i]);
    }
    memset(local_buf, 0, nbytes + 1);
    switch (bits) {
    case 8: shmem_get8_nbi(local_buf, area, nelems, next); break;
    case 16: shmem_get16_nbi(local_buf, area, nelems, next); break;
    case 32: shmem_get32_nbi(local_buf, area, nelems, next); break;
    case 64: shmem_get64_nbi(local_buf, area, nelems, next); break;
    default: shmem_ctx_get128_nbi(SHMEM_CTX_DEFAULT, local_buf, area, nelems, next); break;
    }
    shmem_quiet();
    for (i = 0; i <= nbytes; i++) {
        long long e = i < nbytes ? test_val(test_me, i, salt) : 0;
        if (local_buf[i] != e)
            test_fail("shmem_get%d_nbi nelems=%zu from PE %d: byte %zu: expected %lld, got %d",
                      bits, nelems, next, i, e, local_buf[i]);
    }
    shmem_barrier_all();
}

/*
 * Many non-blocking puts of distinct slices in flight at once, then one
 * quiet: all must have landed.
 */
static void nbi_many(long *area)
{
    static long src[FENCE_ELEMS];
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
    int salt = ++salt_counter;
    size_t i, chunk = 100;

    memset(area, 0, sizeof(long) * FENCE_ELEMS);
    for (i = 0; i < FENCE_ELEMS; i++)
        src[i] = test_val(test_me, i, salt);
    shmem_barrier_all();
    for (i = 0; i < FENCE_ELEMS; i += chunk)
        shmem_long_put_nbi(area + i, src + i, chunk, next);
    shmem_quiet();
    shmem_barrier_all();
    for (i = 0; i < FENCE_ELEMS; i++)
        if (area[i] != test_val(prev, i, salt))
            test_fail("shmem_long_put_nbi x%d then shmem_quiet: from PE %d: index %zu: "
                      "expected %lld, got %ld", FENCE_ELEMS / (int)chunk, prev, i,
                      test_val(prev, i, salt), area[i]);
}

/*
 * fence: each PE puts data then, after shmem_fence, the round number as a
 * flag to the next PE.  The target polls its own flag through shmem_int_g
 * and, as soon as the flag shows the round, checks the data.
 */
static void fence_rounds(void)
{
    static long src[FENCE_ELEMS];
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
    int round;
    size_t i;

    *fence_flag = 0;
    shmem_barrier_all();
    for (round = 1; round <= FENCE_ROUNDS; round++) {
        double t0 = test_now();

        for (i = 0; i < FENCE_ELEMS; i++)
            src[i] = test_val(test_me, i, round);
        if (round & 1) {
            shmem_long_put_nbi(fence_data, src, FENCE_ELEMS, next);
            shmem_fence();
            shmem_int_p(fence_flag, round, next);
        } else {
            shmem_long_put(fence_data, src, FENCE_ELEMS, next);
            shmem_ctx_fence(SHMEM_CTX_DEFAULT);
            shmem_ctx_int_put(SHMEM_CTX_DEFAULT, fence_flag, &round, 1, next);
        }
        /*
         * The quiet does not weaken the test: the target may see the flag
         * before it returns.  It makes sure a library that defers the
         * delivery of puts until completion still gets the flag out.
         */
        shmem_quiet();
        while (shmem_int_g(fence_flag, test_me) != round) {
            shmem_quiet(); /* Drives progress in libraries without a progress thread. */
            if (test_now() - t0 > 20.0)
                test_fail("fence round %d: the flag from PE %d never arrived (20 s)", round, prev);
        }
        for (i = 0; i < FENCE_ELEMS; i++) {
            long got = shmem_long_g(&fence_data[i], test_me);
            if (got != test_val(prev, i, round))
                test_fail("shmem_fence round %d: data from PE %d not visible when the flag was: "
                          "index %zu: expected %lld, got %ld", round, prev, i,
                          test_val(prev, i, round), got);
            if (i == 64)
                i = FENCE_ELEMS - 64; /* Check the head and the tail with g. */
        }
        shmem_barrier_all();
        for (i = 0; i < FENCE_ELEMS; i++)
            if (fence_data[i] != test_val(prev, i, round))
                test_fail("shmem_fence round %d: after barrier, data from PE %d: index %zu: "
                          "expected %lld, got %ld", round, prev, i, test_val(prev, i, round),
                          fence_data[i]);
        shmem_barrier_all();
    }
}

int main(void)
{
    static const size_t nelems[] = { 0, 1, 7, 1000 };
    static const int bits[] = { 8, 16, 32, 64, 128 };
    void *heap;
    size_t z, b;

    test_init("rma_nbi");
    heap = shmem_malloc(NMAX * 16 + 64 + sizeof(long) * FENCE_ELEMS);
    fence_data = shmem_malloc(sizeof(long) * FENCE_ELEMS);
    fence_flag = shmem_malloc(sizeof(int));
    TEST_ASSERT(heap != NULL && fence_data != NULL && fence_flag != NULL,
                "shmem_malloc returned NULL");

#define RUN_NBI_TYPE(T, N) nbi_type_##N(heap);
    TEST_RMA_TYPES(RUN_NBI_TYPE)
    test_note("typed, ctx and mem put_nbi/get_nbi + quiet: 24 types checked");
    for (z = 0; z < sizeof(nelems) / sizeof(nelems[0]); z++)
        for (b = 0; b < sizeof(bits) / sizeof(bits[0]); b++)
            nbi_size_case(heap, nelems[z], bits[b]);
    test_note("put8..128_nbi, get8..128_nbi checked");
    nbi_many(heap);
    test_note("%d put_nbi in flight + quiet checked", FENCE_ELEMS / 100);
    fence_rounds();
    test_note("fence ordering: %d rounds checked", FENCE_ROUNDS);

    shmem_barrier_all();
    shmem_free(fence_flag);
    shmem_free(fence_data);
    shmem_free(heap);
    return test_finish();
}
