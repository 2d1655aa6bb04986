/*
 * conform: OpenSHMEM 1.6 behaviour that third-party suites rely on
 * (issue 18, "Conformance"), in the default (abort) mode, so that a
 * refusal ends the job and fails the test:
 *
 *  - Zero-length transfers with NULL pointers do nothing and succeed:
 *    putmem, getmem, typed, sized, nbi, strided (iput, iget, ibput,
 *    ibget), put with signal (the signal still arrives), and the team
 *    collectives and reductions with nelems 0 (the symmetric buffers stay
 *    untouched).
 *  - shmem_ctx_quiet, shmem_ctx_fence and shmem_ctx_pe_quiet on
 *    SHMEM_CTX_INVALID do nothing.
 *  - The one-argument team form of shmem_sync (C11 generic) synchronizes
 *    the team; the deprecated active-set form still works.
 *  - shmem_test_any and shmem_wait_until_any with status NULL return the
 *    satisfying indices in turn, as the specification's example expects:
 *    a loop on test_any(..., NULL, ...) sees every index of a set whose
 *    elements are all satisfied, and wait_until_any too.
 */
#include "common.h"

#define N 8

static long sentinel[64];
static long psync[SHMEM_SYNC_SIZE];
static uint64_t sig;
static int flags[N];

static void zero_length(int me, int npes)
{
    int next = (me + 1) % npes, i;

    for (i = 0; i < 64; i++)
        sentinel[i] = 1000 + i;
    shmem_barrier_all();
    shmem_putmem(NULL, NULL, 0, next);
    shmem_getmem(NULL, NULL, 0, next);
    shmem_long_put(NULL, NULL, 0, next);
    shmem_long_get(NULL, NULL, 0, next);
    shmem_put64(NULL, NULL, 0, next);
    shmem_putmem_nbi(NULL, NULL, 0, next);
    shmem_getmem_nbi(NULL, NULL, 0, next);
    shmem_int_put_nbi(NULL, NULL, 0, next);
    shmem_ctx_putmem(SHMEM_CTX_DEFAULT, NULL, NULL, 0, next);
    shmem_long_iput(NULL, NULL, 1, 1, 0, next);
    shmem_long_iget(NULL, NULL, 1, 1, 0, next);
    shmem_iput32(NULL, NULL, 1, 1, 0, next);
#ifdef FABSHMEM_TESTS_16
    shmem_long_ibput(NULL, NULL, 1, 1, 1, 0, next);
    shmem_long_ibget(NULL, NULL, 1, 1, 1, 0, next);
#endif
    shmem_putmem_signal(NULL, NULL, 0, &sig, 1, SHMEM_SIGNAL_ADD, next);
    shmem_putmem_signal_nbi(NULL, NULL, 0, &sig, 1, SHMEM_SIGNAL_ADD, next);
    shmem_quiet();
    shmem_signal_wait_until(&sig, SHMEM_CMP_GE, 2);
    TEST_CHECK("signal of a zero-length put with signal", 0, 2, (long long)shmem_signal_fetch(&sig));
    TEST_ASSERT(shmem_broadcastmem(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0) == 0, "broadcastmem 0");
    TEST_ASSERT(shmem_long_broadcast(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0) == 0, "broadcast 0");
    TEST_ASSERT(shmem_collectmem(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "collectmem 0");
    TEST_ASSERT(shmem_fcollectmem(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "fcollectmem 0");
    TEST_ASSERT(shmem_alltoallmem(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "alltoallmem 0");
    TEST_ASSERT(shmem_alltoallsmem(SHMEM_TEAM_WORLD, NULL, NULL, 1, 1, 0) == 0, "alltoallsmem 0");
    TEST_ASSERT(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "sum_reduce 0");
    TEST_ASSERT(shmem_int_max_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "max_reduce 0");
#ifdef FABSHMEM_TESTS_16
    TEST_ASSERT(shmem_long_sum_inscan(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0, "sum_inscan 0");
#endif
    shmem_broadcast64(NULL, NULL, 0, 0, 0, 0, npes, psync);
    shmem_barrier_all();
    shmem_fcollect64(NULL, NULL, 0, 0, 0, npes, psync);
    shmem_barrier_all();
    for (i = 0; i < 64; i++)
        TEST_CHECK("untouched by the zero-length calls", i, 1000 + i, sentinel[i]);
}

static void ctx_invalid(void)
{
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
#ifdef FABSHMEM_TESTS_16
    shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, NULL, 0);
#endif
}

static void sync_forms(int npes)
{
#ifdef FABSHMEM_TESTS_16
    TEST_ASSERT(shmem_sync(SHMEM_TEAM_WORLD) == 0, "shmem_sync(SHMEM_TEAM_WORLD) failed");
#endif
    (shmem_sync)(0, 0, npes, psync);
    shmem_barrier_all();
    (shmem_sync)(0, 0, npes, psync);
}

/* Every element of flags is satisfied: the indices must come in turn. */
static void in_turn(int me, int npes)
{
    int seen[N] = { 0 }, i, k;

    for (i = 0; i < N; i++)
        shmem_int_atomic_set(&flags[i], 1, (me + 1) % npes);
    shmem_barrier_all();
    for (k = 0; k < N; k++) {
        size_t idx = shmem_int_test_any(flags, N, NULL, SHMEM_CMP_EQ, 1);
        TEST_ASSERT(idx < N, "shmem_int_test_any returned %zu", idx);
        seen[idx]++;
    }
    for (i = 0; i < N; i++)
        TEST_CHECK("indices returned by N calls of shmem_int_test_any", i, 1, seen[i]);
    memset(seen, 0, sizeof(seen));
    for (k = 0; k < 2 * N; k++)
        seen[shmem_int_wait_until_any(flags, N, NULL, SHMEM_CMP_EQ, 1)]++;
    for (i = 0; i < N; i++)
        TEST_CHECK("indices returned by 2N calls of shmem_int_wait_until_any", i, 2, seen[i]);
    /* The specification's example: loop until every index was returned. */
    memset(seen, 0, sizeof(seen));
    for (k = 0, i = 0; k < N; i++) {
        size_t idx = shmem_int_test_any(flags, N, NULL, SHMEM_CMP_NE, 0);
        TEST_ASSERT(i < 100 * N, "the example's loop does not end");
        if (idx != SIZE_MAX && !seen[idx]++)
            k++;
    }
    shmem_barrier_all();
}

int main(void)
{
    test_init("conform");
    zero_length(test_me, test_npes);
    ctx_invalid();
    sync_forms(test_npes);
    in_turn(test_me, test_npes);
    return test_finish();
}
