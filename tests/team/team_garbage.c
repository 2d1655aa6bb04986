/*
 * team_garbage: a handle that is no team at all ((shmem_team_t)0xdeadbeef,
 * and a pointer to a stack buffer made to look like a team) and a
 * destroyed team's handle, given to every team routine under
 * FABSHMEM_CHECKS=1 (set here before shmem_init), issue 27, item 5: each
 * must refuse it without reading it (the garbage one crashed) and record
 * SHMEMX_ERROR_INVALID_VALUE with a message naming the routine and the
 * argument (SHMEMX_ERRORS_RETURN mode, shmemx_error_get), the queries
 * answer as for SHMEM_TEAM_INVALID (-1, NULL), and the job goes on: a
 * reduction on a team made afterwards is checked by value on every PE.
 * With the argument "default", a few of the calls in the default mode,
 * where each prints a warning and returns (tests/init/errors.sh checks
 * the text).
 */
#include "common.h"
#include <shmemx.h>

static long src[64], dst[64];

/* The last error names rtn and arg (and, for the garbage, says it is no
 * handle; for the destroyed team, that it was destroyed); cleared. */
static int via_stream; /* the message comes with a stream's sync */

static void recorded(const char *rtn, const char *arg, int garbage)
{
    char msg[512];
    int code = shmemx_error_get(msg, sizeof(msg));

    TEST_ASSERT(code == SHMEMX_ERROR_INVALID_VALUE, "%s on a %s handle: class %d, not "
                "SHMEMX_ERROR_INVALID_VALUE (\"%s\")", rtn, garbage ? "garbage" : "destroyed",
                code, msg);
    TEST_ASSERT((via_stream ? strstr(msg, rtn) != NULL : strstr(msg, rtn) == msg) &&
                    strstr(msg, arg) &&
                    strstr(msg, garbage ? "is not a team handle" : "was destroyed"),
                "%s on a %s handle: message \"%s\" does not name the routine, the argument "
                "%s and what the handle is", rtn, garbage ? "garbage" : "destroyed", msg, arg);
    shmemx_error_clear();
}

#define REFUSED(call, rtn, arg)                                                        \
    do {                                                                               \
        TEST_ASSERT((call) != 0, "%s on a bad handle returned 0", rtn);                \
        recorded(rtn, arg, garbage);                                                   \
    } while (0)

#define STREAM_REFUSED(call, rtn)                                                      \
    do {                                                                               \
        TEST_ASSERT((call) != 0, "%s on a bad handle returned 0", rtn);                \
        TEST_ASSERT(shmemx_stream_sync(st) != 0, "the stream's sync after %s on a bad "  \
                    "handle returned 0", rtn);                                         \
        via_stream = 1;                                                                \
        recorded(rtn, "team", garbage);                                                \
        via_stream = 0;                                                                \
    } while (0)

static void use_bad(shmem_team_t t, int garbage)
{
    shmem_team_t nt = SHMEM_TEAM_WORLD, xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
    shmem_team_config_t cfg;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    shmemx_stream_t st;
    int have_stream = shmemx_stream_create(&st) == 0;

    shmemx_error_clear();
    TEST_ASSERT(shmem_team_my_pe(t) == -1, "shmem_team_my_pe of a bad handle is not -1");
    recorded("shmem_team_my_pe", "team", garbage);
    TEST_ASSERT(shmem_team_n_pes(t) == -1, "shmem_team_n_pes of a bad handle is not -1");
    recorded("shmem_team_n_pes", "team", garbage);
    TEST_ASSERT(shmem_team_translate_pe(t, 0, SHMEM_TEAM_WORLD) == -1,
                "shmem_team_translate_pe from a bad handle is not -1");
    recorded("shmem_team_translate_pe", "src_team", garbage);
    TEST_ASSERT(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, t) == -1,
                "shmem_team_translate_pe to a bad handle is not -1");
    recorded("shmem_team_translate_pe", "dest_team", garbage);
    TEST_ASSERT(shmem_team_ptr(t, src, 0) == NULL, "shmem_team_ptr of a bad handle");
    recorded("shmem_team_ptr", "team", garbage);
    REFUSED(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &cfg), "shmem_team_get_config",
            "team");
    REFUSED(shmem_team_split_strided(t, 0, 1, 1, NULL, 0, &nt), "shmem_team_split_strided",
            "parent_team");
    TEST_ASSERT(nt == SHMEM_TEAM_INVALID, "shmem_team_split_strided of a bad parent made a team");
    REFUSED(shmem_team_split_2d(t, 1, NULL, 0, &xt, NULL, 0, &yt), "shmem_team_split_2d",
            "parent_team");
    TEST_ASSERT(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID,
                "shmem_team_split_2d of a bad parent made a team");
    REFUSED(shmem_team_create_ctx(t, 0, &ctx), "shmem_team_create_ctx", "team");
    TEST_ASSERT(ctx == SHMEM_CTX_INVALID, "shmem_team_create_ctx of a bad handle made a context");
    REFUSED(shmem_team_sync(t), "shmem_team_sync", "team");
    REFUSED(shmem_broadcastmem(t, dst, src, 8, 0), "shmem_broadcastmem", "team");
    REFUSED(shmem_long_broadcast(t, dst, src, 1, 0), "shmem_long_broadcast", "team");
    REFUSED(shmem_collectmem(t, dst, src, 8), "shmem_collectmem", "team");
    REFUSED(shmem_fcollectmem(t, dst, src, 8), "shmem_fcollectmem", "team");
    REFUSED(shmem_long_fcollect(t, dst, src, 1), "shmem_long_fcollect", "team");
    REFUSED(shmem_alltoallmem(t, dst, src, 8), "shmem_alltoallmem", "team");
    REFUSED(shmem_alltoallsmem(t, dst, src, 1, 1, 8), "shmem_alltoallsmem", "team");
    REFUSED(shmem_long_sum_reduce(t, dst, src, 4), "shmem_long_sum_reduce", "team");
    REFUSED(shmem_long_max_reduce(t, dst, src, 4), "shmem_long_max_reduce", "team");
    REFUSED(shmem_ulong_and_reduce(t, (unsigned long *)dst, (const unsigned long *)src, 4), "shmem_ulong_and_reduce", "team");
    REFUSED(shmem_long_sum_inscan(t, dst, src, 4), "shmem_long_sum_inscan", "team");
    REFUSED(shmem_long_sum_exscan(t, dst, src, 4), "shmem_long_sum_exscan", "team");
    REFUSED(shmemx_long_sum_reducescatter(t, dst, src, 1), "shmemx_long_sum_reducescatter",
            "team");
    TEST_ASSERT(shmemx_team_coll_count(t, "barrier", NULL) == -1,
                "shmemx_team_coll_count of a bad handle is not -1");
    recorded("shmemx_team_coll_count", "team", garbage);
    /* A refusal on a stream is the stream's: the call fails, and the
     * message comes with the stream's next sync. */
    if (have_stream) {
        STREAM_REFUSED(shmemx_team_sync_on_stream(t, st), "shmemx_team_sync_on_stream");
        STREAM_REFUSED(shmemx_barrier_on_stream(t, st), "shmemx_barrier_on_stream");
        STREAM_REFUSED(shmemx_broadcastmem_on_stream(t, dst, src, 8, 0, st),
                       "shmemx_broadcastmem_on_stream");
        STREAM_REFUSED(shmemx_long_sum_reduce_on_stream(t, dst, src, 4, st),
                       "shmemx_long_sum_reduce_on_stream");
        TEST_ASSERT(shmemx_stream_sync(st) == 0, "shmemx_stream_sync after the refusals");
        shmemx_stream_destroy(st);
    }
    shmem_team_destroy(t);
    recorded("shmem_team_destroy", "team", garbage);
}

int main(int argc, char **argv)
{
    /* What a program might pass by mistake: a pointer that is no team,
     * and one to memory that holds plausible team fields. */
    long fake[32];
    shmem_team_t all, again;
    int i;

    setenv("FABSHMEM_CHECKS", "1", 1);
    test_init("team_garbage");
    for (i = 0; i < 4; i++)
        src[i] = test_me + i;
    memset(fake, 0, sizeof(fake));
    if (argc > 1 && !strcmp(argv[1], "default")) {
        /* The default mode: each prints a warning and returns. */
        shmem_team_t g = (shmem_team_t)0xdeadbeef;

        TEST_ASSERT(shmem_team_my_pe(g) == -1, "shmem_team_my_pe of a garbage handle");
        TEST_ASSERT(shmem_long_sum_reduce(g, dst, src, 4) != 0,
                    "shmem_long_sum_reduce on a garbage handle returned 0");
        shmem_team_destroy(g);
        return test_finish();
    }
    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    use_bad((shmem_team_t)0xdeadbeef, 1);
    use_bad((shmem_team_t)(void *)fake, 1);
    TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, test_npes, NULL, 0, &all) == 0,
                "split of the world");
    shmem_team_destroy(all);
    use_bad(all, 0);
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    /* The job goes on: a team made now works, and so do the predefined. */
    TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, test_npes, NULL, 0, &again) == 0,
                "split after the refusals");
    TEST_ASSERT(shmem_long_sum_reduce(again, dst, src, 4) == 0, "reduce on the team after");
    for (i = 0; i < 4; i++)
        TEST_CHECK("sum after the refusals", i,
                   (long long)test_npes * (test_npes - 1) / 2 + (long long)i * test_npes, dst[i]);
    TEST_ASSERT(shmem_team_my_pe(SHMEM_TEAM_SHARED) >= 0 && shmem_team_my_pe(SHMEMX_TEAM_NODE) >= 0,
                "a predefined team is not known");
    shmem_team_destroy(again);
    return test_finish();
}
