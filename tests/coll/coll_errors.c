/*
 * coll_errors: the team and collective routines in SHMEMX_ERRORS_RETURN
 * mode (shmemx_set_error_mode).  Every routine below gets bad input on
 * every PE and must return (no exit) with the right class and a message
 * (shmemx_error_get) that begins with the routine's name and names the
 * argument; a routine with a status returns the class, shmemx_team_coll_count
 * -1, and the job keeps working afterwards (a broadcast, an fcollect, an
 * alltoall, a reduction and a split, checked by value on every PE).
 *
 *  - Broadcast: PE_root out of range (both ends), a dest that is not
 *    symmetric, nelems whose bytes overflow.
 *  - collect and fcollect: a source or dest that is not symmetric, bytes
 *    that overflow.
 *  - alltoall(s): a stride of 0, a source that is not symmetric.
 *  - Reductions, scans, reduce-scatter: a dest or source that is not
 *    symmetric, dest and source that overlap in part, bytes that
 *    overflow; the active-set form with nreduce < 0.
 *  - Active sets: an empty set, a set that reaches past the last PE.
 *  - SHMEM_TEAM_INVALID: the class, with a message.
 *  - shmemx_team_coll_count with an unknown collective or algorithm.
 *  - Teams: a split into a NULL new_team, out of range, a 2-D split into a
 *    NULL xaxis_team, destroying SHMEM_TEAM_WORLD, shmemx_team_init with a
 *    NULL team or an id it did not make, shmemx_team_get_uniqueid into
 *    NULL.
 *  - Zero elements with NULL buffers: nothing to do, 0.
 *
 * tests/init/errors.sh checks the default (abort) mode of the same kind of
 * input.
 */
#include "expect_x.h"
#include <stdint.h>

/* A status routine that must succeed, leaving no record. */
#define EXPECT_OK(expr)                                                                   \
    do {                                                                                  \
        char m_[256];                                                                     \
        int r_, c_;                                                                       \
        shmemx_error_clear();                                                             \
        r_ = (expr);                                                                      \
        c_ = shmemx_error_get(m_, sizeof(m_));                                            \
        TEST_ASSERT(r_ == 0 && c_ == SHMEMX_SUCCESS, "%s returned %d: %s (%s)", #expr, r_, \
                    shmemx_strerror(c_), m_);                                             \
    } while (0)

#define INV SHMEMX_ERROR_INVALID_VALUE

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

static void collectives(long *src, long *dst)
{
    shmem_team_t W = SHMEM_TEAM_WORLD;
    long stack[16] = { 0 };
    int n = test_npes;

    EXPECT_RC(shmem_broadcastmem(W, dst, src, 8, n), INV, "shmem_broadcastmem", "PE_root");
    EXPECT_RC(shmem_broadcastmem(W, dst, src, 8, -1), INV, "shmem_broadcastmem", "PE_root");
    EXPECT_RC(shmem_long_broadcast(W, stack, src, 4, 0), INV, "shmem_long_broadcast", "dest");
    EXPECT_RC(shmem_long_broadcast(W, dst, src, SIZE_MAX / 4, 0), INV, "shmem_long_broadcast",
              "overflows");
    EXPECT_RC(shmem_long_fcollect(W, dst, stack, 4), INV, "shmem_long_fcollect", "source");
    EXPECT_RC(shmem_long_fcollect(W, dst, src, SIZE_MAX / 4), INV, "shmem_long_fcollect",
              "overflows");
    EXPECT_RC(shmem_collectmem(W, stack, src, 8), INV, "shmem_collectmem", "dest");
    EXPECT_RC(shmem_alltoallsmem(W, dst, src, 0, 1, 8), INV, "shmem_alltoallsmem", "dst");
    EXPECT_RC(shmem_long_alltoall(W, dst, stack, 1), INV, "shmem_long_alltoall", "source");
    EXPECT_RC(shmem_long_sum_reduce(W, stack, src, 4), INV, "shmem_long_sum_reduce", "dest");
    EXPECT_RC(shmem_long_max_reduce(W, src + 1, src, 4), INV, "shmem_long_max_reduce",
              "overlap");
    EXPECT_RC(shmem_long_sum_reduce(W, dst, src, SIZE_MAX / 4), INV, "shmem_long_sum_reduce",
              "overflows");
    EXPECT_RC(shmem_long_sum_inscan(W, dst, stack, 4), INV, "shmem_long_sum_inscan", "source");
    EXPECT_RC(shmemx_long_sum_reducescatter(W, dst, stack, 1), INV,
              "shmemx_long_sum_reducescatter", "source");
    EXPECT_ERR(shmem_long_sum_to_all(dst, src, -1, 0, 0, n, pwrk, psync), INV,
               "shmem_long_sum_to_all", "nreduce");
    EXPECT_ERR(shmem_barrier(0, 0, 0, psync), INV, "shmem_barrier", "PE_size=0");
    EXPECT_ERR(shmem_broadcast64(dst, src, 1, 0, 0, 0, n + 1, psync), INV, "shmem_broadcast64",
               "reaches past");
    /* An invalid team: the class, with a message for shmemx_error_get. */
    EXPECT_RC(shmem_team_sync(SHMEM_TEAM_INVALID), INV, "shmem_team_sync",
              "SHMEM_TEAM_INVALID");
    EXPECT_RC(shmem_long_sum_reduce(SHMEM_TEAM_INVALID, dst, src, 1), INV,
              "shmem_long_sum_reduce", "SHMEM_TEAM_INVALID");
    EXPECT_VAL(shmemx_team_coll_count(W, "gather", "ring"), -1, INV, "shmemx_team_coll_count",
               "gather");
    EXPECT_VAL(shmemx_team_coll_count(W, "collect", "pipeline"), -1, INV,
               "shmemx_team_coll_count", "pipeline");
    /* Zero elements: NULL buffers are fine, nothing is done. */
    EXPECT_OK(shmem_broadcastmem(W, NULL, NULL, 0, 0));
    EXPECT_OK(shmem_fcollectmem(W, NULL, NULL, 0));
    EXPECT_OK(shmem_alltoallmem(W, NULL, NULL, 0));
    EXPECT_OK(shmem_long_sum_reduce(W, NULL, NULL, 0));
}

static void teams(void)
{
    shmem_team_t W = SHMEM_TEAM_WORLD, x = SHMEM_TEAM_INVALID;
    shmemx_team_uniqueid_t uid;
    int n = test_npes;

    EXPECT_RC(shmem_team_split_strided(W, 0, 1, n, NULL, 0, NULL), INV,
              "shmem_team_split_strided", "new_team");
    EXPECT_RC(shmem_team_split_strided(W, 0, 1, n + 1, NULL, 0, &x), INV,
              "shmem_team_split_strided", "outside the parent");
    TEST_ASSERT(x == SHMEM_TEAM_INVALID, "a refused split made a team");
    EXPECT_RC(shmem_team_split_2d(W, 1, NULL, 0, NULL, NULL, 0, &x), INV, "shmem_team_split_2d",
              "xaxis_team");
    EXPECT_ERR(shmem_team_destroy(W), INV, "shmem_team_destroy", "predefined");
    memset(&uid, 0x5a, sizeof(uid));
    EXPECT_RC(shmemx_team_init(NULL, NULL, 0, 1, 0, &uid), INV, "shmemx_team_init", "team");
    EXPECT_RC(shmemx_team_init(&x, NULL, 0, 1, 0, &uid), INV, "shmemx_team_init",
              "not made by shmemx_team_get_uniqueid");
    EXPECT_RC(shmemx_team_get_uniqueid(NULL), INV, "shmemx_team_get_uniqueid", "uid");
}

/* The job still works: every collective of the checks, by value. */
static void still_works(long *src, long *dst)
{
    int me = test_me, n = test_npes, i;
    shmem_team_t half;

    for (i = 0; i < 4; i++)
        src[i] = me * 10 + i;
    shmem_barrier_all();
    EXPECT_OK(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 4, n - 1));
    for (i = 0; i < 4; i++)
        TEST_CHECK("broadcast after the errors", i, (n - 1) * 10 + i, dst[i]);
    EXPECT_OK(shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, 2));
    for (i = 0; i < 2 * n; i++)
        TEST_CHECK("fcollect after the errors", i, (i / 2) * 10 + i % 2, dst[i]);
    for (i = 0; i < n; i++)
        src[i] = me * 100 + i;
    EXPECT_OK(shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, 1));
    for (i = 0; i < n; i++)
        TEST_CHECK("alltoall after the errors", i, i * 100 + me, dst[i]);
    src[0] = me + 1;
    EXPECT_OK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 1));
    TEST_CHECK("sum after the errors", 0, (long)n * (n + 1) / 2, dst[0]);
    EXPECT_OK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &half));
    EXPECT_OK(shmem_team_sync(half));
    TEST_CHECK("a split's size after the errors", 0, n, shmem_team_n_pes(half));
    shmem_team_destroy(half);
}

int main(void)
{
    long *src, *dst;

    test_init("coll_errors");
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    src = shmem_calloc(4 * (size_t)test_npes + 16, sizeof(long));
    dst = shmem_calloc(4 * (size_t)test_npes + 16, sizeof(long));
    TEST_ASSERT(src && dst, "shmem_calloc");
    TEST_ASSERT(shmemx_set_error_mode(SHMEMX_ERRORS_RETURN) == SHMEMX_ERRORS_ABORT,
                "the error mode was not SHMEMX_ERRORS_ABORT");
    collectives(src, dst);
    teams();
    still_works(src, dst);
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    shmem_free(dst);
    shmem_free(src);
    return test_finish();
}
