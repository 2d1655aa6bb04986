/*
 * team_stale: the handle of a destroyed team (issue 18, item 5).  Every PE
 * splits a team of all the PEs, uses it, destroys
 * it, then passes the stale handle to the team routines: each refuses it
 * as it refuses SHMEM_TEAM_INVALID (shmem_team_my_pe and shmem_team_n_pes
 * -1, shmem_team_translate_pe -1, shmem_team_ptr NULL, the collectives,
 * shmem_team_sync, shmem_team_get_config and the splits nonzero, a second
 * shmem_team_destroy nothing) and never reads the freed team (run it
 * under ASan: a build with CFLAGS=-fsanitize=address).
 *
 * First in the default mode, where each refusal prints a warning naming
 * the routine and saying that the team was destroyed and the job goes on
 * (tests/init/errors.sh checks the text), then in SHMEMX_ERRORS_RETURN
 * mode, where each records SHMEMX_ERROR_INVALID_VALUE and that message
 * (shmemx_error_get), checked here.  The job keeps working: a reduction on
 * a new team made afterwards is checked by value on every PE.
 */
#include "common.h"
#include <shmemx.h>

static long src[4], dst[4];

/* The last error names rtn and the destruction. */
static void recorded(const char *rtn)
{
    char msg[512];
    int code = shmemx_error_get(msg, sizeof(msg));

    TEST_ASSERT(code == SHMEMX_ERROR_INVALID_VALUE, "%s on a destroyed team: class %d, not "
                "SHMEMX_ERROR_INVALID_VALUE", rtn, code);
    TEST_ASSERT(strstr(msg, rtn) && strstr(msg, "destroyed"), "%s on a destroyed team: message "
                "\"%s\" does not name the routine and the destruction", rtn, msg);
    shmemx_error_clear();
}

/* The stale handle t to every team routine; check: record checks (return
 * mode). */
static void use_stale(shmem_team_t t, int check)
{
    shmem_team_t nt = SHMEM_TEAM_WORLD;
    shmem_team_config_t cfg;

    TEST_ASSERT(shmem_team_my_pe(t) == -1, "shmem_team_my_pe of a destroyed team is not -1");
    if (check)
        recorded("shmem_team_my_pe");
    TEST_ASSERT(shmem_team_n_pes(t) == -1, "shmem_team_n_pes of a destroyed team is not -1");
    if (check)
        recorded("shmem_team_n_pes");
    TEST_ASSERT(shmem_team_translate_pe(t, 0, SHMEM_TEAM_WORLD) == -1,
                "shmem_team_translate_pe from a destroyed team is not -1");
    TEST_ASSERT(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, t) == -1,
                "shmem_team_translate_pe to a destroyed team is not -1");
    if (check)
        recorded("shmem_team_translate_pe");
    TEST_ASSERT(shmem_team_ptr(t, src, 0) == NULL, "shmem_team_ptr of a destroyed team");
    TEST_ASSERT(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0,
                "shmem_team_get_config of a destroyed team returned 0");
    TEST_ASSERT(shmem_team_sync(t) != 0, "shmem_team_sync on a destroyed team returned 0");
    if (check)
        recorded("shmem_team_sync");
    TEST_ASSERT(shmem_long_sum_reduce(t, dst, src, 4) != 0,
                "shmem_long_sum_reduce on a destroyed team returned 0");
    if (check)
        recorded("shmem_long_sum_reduce");
    TEST_ASSERT(shmem_broadcastmem(t, dst, src, 8, 0) != 0,
                "shmem_broadcastmem on a destroyed team returned 0");
    if (check)
        recorded("shmem_broadcastmem");
    TEST_ASSERT(shmem_team_split_strided(t, 0, 1, 1, NULL, 0, &nt) != 0 &&
                    nt == SHMEM_TEAM_INVALID,
                "shmem_team_split_strided of a destroyed parent made a team");
    if (check)
        recorded("shmem_team_split_strided");
    shmem_team_destroy(t);
    if (check)
        recorded("shmem_team_destroy");
}

int main(void)
{
    shmem_team_t all, again;
    int i, round;

    test_init("team_stale");
    for (i = 0; i < 4; i++)
        src[i] = test_me + i;
    for (round = 0; round < 2; round++) {
        if (round == 1)
            shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
        TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, test_npes, NULL, 0, &all) ==
                        0, "split of the world");
        TEST_ASSERT(shmem_long_sum_reduce(all, dst, src, 4) == 0, "reduce on the new team");
        for (i = 0; i < 4; i++)
            TEST_CHECK("sum before the destruction", i,
                       (long long)test_npes * (test_npes - 1) / 2 + (long long)i * test_npes, dst[i]);
        shmem_team_destroy(all);
        use_stale(all, round == 1);
        /* A new team works (it may reuse the slot, never the handle's
         * memory while the handle is recognizably stale). */
        TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, test_npes, NULL, 0, &again) ==
                        0 && again != all,
                    "split after the destruction");
        TEST_ASSERT(shmem_long_sum_reduce(again, dst, src, 4) == 0, "reduce on the team after");
        for (i = 0; i < 4; i++)
            TEST_CHECK("sum after the destruction", i,
                       (long long)test_npes * (test_npes - 1) / 2 + (long long)i * test_npes, dst[i]);
        shmem_team_destroy(again);
        shmem_barrier_all();
    }
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    return test_finish();
}
