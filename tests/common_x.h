/*
 * Shared helpers of the multi-PE test programs that use fabshmem's
 * extensions (shmemx.h); common.h keeps to the standard API.
 */
#ifndef FABSHMEM_TESTS_COMMON_X_H
#define FABSHMEM_TESTS_COMMON_X_H

#include "common.h"
#include <shmemx.h>

/* Initializes the library with SHMEM_THREAD_MULTIPLE and the globals of
 * common.h, and makes the two streams of a stream test in *a_p and *b_p.
 * Where streams are not available the job ends as skipped. */
static inline void test_streams_init(const char *name, shmemx_stream_t *a_p,
                                     shmemx_stream_t *b_p)
{
    int provided;

    test_name = name;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    test_me = shmem_my_pe();
    test_npes = shmem_n_pes();
    if (shmemx_stream_create(a_p)) {
        test_note("SKIP: streams are not available in this configuration (see the message)");
        shmem_finalize();
        exit(TEST_SKIP);
    }
    TEST_ASSERT(shmemx_stream_create(b_p) == 0, "second stream_create failed");
    test_note("streams %s", shmemx_stream_offloaded(*a_p) ? "offload (triggered operations)"
                                                          : "run on worker threads");
}

/* The shape of TEAM_WORLD as the public API shows it: whether every PE
 * maps every other (shmem_ptr; *mapped_p), and whether the world spans
 * nodes with several PEs on some node (*hier_p: PEs that map each other
 * share a node; with the direct path off nobody maps anybody). */
static inline void test_world_shape(int *mapped_p, int *hier_p)
{
    int *v = shmem_malloc(2 * sizeof(int)), mapped = 0;

    TEST_ASSERT(v, "shmem_malloc");
    for (int pe = 0; pe < test_npes; pe++)
        mapped += shmem_ptr(v, pe) != NULL;
    v[0] = mapped;
    TEST_ASSERT(shmem_int_max_reduce(SHMEM_TEAM_WORLD, v + 1, v, 1) == 0, "max_reduce");
    *mapped_p = mapped == test_npes;
    *hier_p = !*mapped_p && v[1] >= 2;
    shmem_free(v);
}

/* A team from shmemx_team_init: the world with the even PEs first, then
 * the odd ones (with virtual nodes of 2 the PEs of a node are apart, so
 * the blocks of a node group are not one range of a collective's dest). */
static inline shmem_team_t test_team_interleaved(void)
{
    shmemx_team_uniqueid_t *uid = shmem_malloc(2 * sizeof(*uid));
    shmem_team_t t = SHMEM_TEAM_INVALID;
    int n = test_npes, me = test_me, idx = me % 2 ? (n + 1) / 2 + me / 2 : me / 2;

    TEST_ASSERT(uid, "shmem_malloc");
    if (me == 0)
        TEST_ASSERT(shmemx_team_get_uniqueid(&uid[1]) == 0, "shmemx_team_get_uniqueid");
    TEST_ASSERT(shmem_broadcastmem(SHMEM_TEAM_WORLD, &uid[0], &uid[1], sizeof(*uid), 0) == 0,
                "broadcast of the team id");
    int ret = shmemx_team_init(&t, NULL, 0, n, idx, &uid[0]);
    TEST_ASSERT(ret == 0, "shmemx_team_init(n %d, index %d): %d (%s)", n, idx, ret,
                shmemx_strerror(ret));
    TEST_CHECK("interleaved team: my number", 0, idx, shmem_team_my_pe(t));
    shmem_barrier_all();
    shmem_free(uid);
    return t;
}

/* The other kinds of team that the collectives run on, made by
 * test_more_teams_make in tl[] with their names in names[]:
 * SHMEMX_TEAM_NODE, SHMEMX_TEAM_SAME_MYPE_NODE, the world in reverse order
 * (start n - 1, stride -1: with virtual nodes its node groups are not in
 * PE order), the world interleaved (test_team_interleaved, from il_min_pes
 * PEs) and both teams of a 2-D split with rows of 2.  A team that this PE
 * is not in, or that is not made at this size, is SHMEM_TEAM_INVALID. */
#define TEST_MORE_TEAMS 6

static inline void test_more_teams_make(int il_min_pes, shmem_team_t *tl, const char **names)
{
    static const char *const all[TEST_MORE_TEAMS] = { "node", "same_mype_node", "reversed",
                                                      "interleaved", "2d x", "2d y" };
    int n = test_npes, i;

    for (i = 0; i < TEST_MORE_TEAMS; i++) {
        tl[i] = SHMEM_TEAM_INVALID;
        names[i] = all[i];
    }
    tl[0] = SHMEMX_TEAM_NODE;
    tl[1] = SHMEMX_TEAM_SAME_MYPE_NODE;
    if (n >= il_min_pes)
        tl[3] = test_team_interleaved();
    TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &tl[2]) == 0,
                "split_strided(n - 1, -1, n) failed");
    TEST_CHECK("reversed team: my number", 0, n - 1 - test_me, shmem_team_my_pe(tl[2]));
    TEST_ASSERT(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &tl[4], NULL, 0, &tl[5]) == 0,
                "split_2d(2) failed");
}

/* Destroys the teams of test_more_teams_make (the predefined ones stay). */
static inline void test_more_teams_free(shmem_team_t *tl)
{
    int i;

    for (i = 2; i < TEST_MORE_TEAMS; i++)
        if (tl[i] != SHMEM_TEAM_INVALID)
            shmem_team_destroy(tl[i]);
    shmem_barrier_all();
}

#endif
