/*
 * coll_mismatch [CASE [abort|hang]]: collectives whose arguments differ
 * between the PEs (issue 18, item 1), with FABSHMEM_CHECKS=1 (the program
 * sets it before shmem_init unless the environment already has it).
 * The three reproductions of the issue are the cases:
 *   reduce     shmem_long_sum_reduce with nreduce 10 on PE 0, 1000 on others
 *   bcast_root shmem_long_broadcast where every PE passes itself as PE_root
 *   bcast_n    shmem_long_broadcast of 10 elements on PE 0, 1000 on others
 *
 * Without arguments (make check, over the matrix) each case runs in
 * SHMEMX_ERRORS_RETURN mode: the call must fail on every PE with
 * SHMEMX_ERROR_INVALID_VALUE and a message naming the routine, the argument
 * and the PEs on both sides, and the job must go on working (a barrier and
 * a reduction checked by value).  With CASE and "abort" the case runs in
 * the default mode, where the job must end with a message and a non-zero
 * status (tests/init/errors.sh).  With "hang" FABSHMEM_CHECKS is left
 * alone (errors.sh sets it to 0 with FABSHMEM_WATCHDOG: the reduce then
 * waits forever and the watchdog must report it).  With 1 PE nothing can
 * differ: the cases are skipped.  One more case for the watchdog:
 *   late       PE 0 waits in shmem_int_wait_until for a flag that the last
 *              PE sets 3 s late (with FABSHMEM_WATCHDOG=1 the wait is
 *              reported and then completes: errors.sh)
 *   quiet      the last PE puts to PE 0 and quiets while PE 0 sleeps 4 s
 *              outside the library (with tcp, the direct path and the
 *              progress thread off, the transport's quiet cannot complete
 *              meanwhile: the watchdog must name shmem_quiet)
 *   stream     PE 0's stream waits for a signal that the last PE sends 3 s
 *              late, and PE 0 syncs the stream (the watchdog must name
 *              shmemx_stream_sync and the stream)
 *   barrier    the last PE never reaches shmem_barrier_all (the watchdog's
 *              report on the others must name it as not arrived)
 *   signal     PE 0 waits in shmem_signal_wait_until for a signal that the
 *              last PE sends 3 s late (the watchdog must name the routine,
 *              the word, the value awaited and the value it holds)
 *   refused    PE 0's stream refuses a signal to a PE out of range, then
 *              waits for a signal that the last PE sends 3 s late; the
 *              sync returns the refusal (the watchdog's report of the sync
 *              must add the refusal the stream keeps)
 */
#include "common.h"
#include <shmemx.h>
#include <unistd.h>

static int flag;

static long src[1000], dst[1000];
/* The cases' buffers, on the heap as in the reproductions. */
static long *hsrc, *hdst;

/* One case; 0 when the call succeeded. */
static int run_case(const char *c, int me)
{
    size_t n = me ? 1000 : 10;

    if (!strcmp(c, "reduce"))
        return shmem_long_sum_reduce(SHMEM_TEAM_WORLD, hdst, hsrc, n);
    if (!strcmp(c, "bcast_root"))
        return shmem_long_broadcast(SHMEM_TEAM_WORLD, hdst, hsrc, 10, me);
    if (!strcmp(c, "bcast_n"))
        return shmem_long_broadcast(SHMEM_TEAM_WORLD, hdst, hsrc, n, 0);
    if (!strcmp(c, "quiet")) {
        /* 1 MiB: beyond the provider's eager messages, the target's
         * provider must fetch it. */
        char *big = shmem_calloc(1, 1 << 20);

        TEST_ASSERT(big != NULL, "shmem_calloc of 1 MiB failed");
        shmem_barrier_all();
        if (me == 0)
            sleep(4);
        else if (me == test_npes - 1) {
            shmem_putmem_nbi(big, big, 1 << 20, 0);
            shmem_quiet();
        }
        shmem_barrier_all();
        shmem_free(big);
        return 0;
    }
    if (!strcmp(c, "stream")) {
        static uint64_t sig;
        shmemx_stream_t st;

        shmem_barrier_all(); /* the 3 s count from here on every PE */
        if (me == test_npes - 1) {
            sleep(3);
            shmem_uint64_atomic_set(&sig, 1, 0);
        }
        if (me == 0) {
            TEST_ASSERT(shmemx_stream_create(&st) == 0, "shmemx_stream_create failed");
            shmemx_signal_wait_until_on_stream(&sig, SHMEM_CMP_EQ, 1, st);
            TEST_ASSERT(shmemx_stream_sync(st) == 0, "shmemx_stream_sync failed");
            shmemx_stream_destroy(st);
        }
        return 0;
    }
    if (!strcmp(c, "signal") || !strcmp(c, "refused")) {
        static uint64_t sig;
        shmemx_stream_t st;
        uint64_t v;
        int rc;

        shmem_barrier_all(); /* the 3 s count from here on every PE */
        if (me == test_npes - 1) {
            sleep(3);
            shmemx_signal_op(&sig, 1, SHMEM_SIGNAL_SET, 0);
        }
        if (me == 0 && !strcmp(c, "signal")) {
            v = shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
            TEST_ASSERT(v == 1, "shmem_signal_wait_until returned %llu", (unsigned long long)v);
        } else if (me == 0) {
            TEST_ASSERT(shmemx_stream_create(&st) == 0, "shmemx_stream_create failed");
            shmemx_signal_op_on_stream(&sig, 2, SHMEM_SIGNAL_SET, test_npes, st);
            shmemx_signal_wait_until_on_stream(&sig, SHMEM_CMP_EQ, 1, st);
            rc = shmemx_stream_sync(st);
            TEST_ASSERT(rc == SHMEMX_ERROR_INVALID_VALUE, "the sync after a refused signal "
                        "returned %d", rc);
            TEST_ASSERT(shmemx_stream_sync(st) == 0, "the refusal was reported twice");
            shmemx_stream_destroy(st);
        }
        return 0;
    }
    if (!strcmp(c, "barrier")) {
        /* The last PE never reaches the barrier (the watchdog ends the
         * job long before it wakes). */
        if (me == test_npes - 1)
            sleep(60);
        shmem_barrier_all();
        return 0;
    }
    if (!strcmp(c, "late")) {
        if (me == test_npes - 1) {
            sleep(3);
            shmem_int_atomic_set(&flag, 1, 0);
        }
        if (me == 0)
            shmem_int_wait_until(&flag, SHMEM_CMP_EQ, 1);
        return 0;
    }
    test_fail("unknown case %s", c);
}

/* The message of a failed case names the routine, the argument and the
 * PEs on both sides. */
static void check_message(const char *c, const char *rtn, const char *arg)
{
    char msg[1024];
    int code = shmemx_error_get(msg, sizeof(msg));

    TEST_ASSERT(code == SHMEMX_ERROR_INVALID_VALUE, "%s: class %d, not INVALID_VALUE (%s)", c,
                code, msg);
    TEST_ASSERT(strstr(msg, rtn) && strstr(msg, arg), "%s: message \"%s\" does not name %s and "
                "%s", c, msg, rtn, arg);
    TEST_ASSERT(strstr(msg, "on PE 0") || strstr(msg, "on PEs 0"), "%s: message \"%s\" does not "
                "name PE 0", c, msg);
    TEST_ASSERT(strstr(msg, "FABSHMEM_CHECKS"), "%s: message \"%s\" does not say which check",
                c, msg);
    shmemx_error_clear();
}

static void after(void)
{
    long s = 0;
    int i;

    shmem_barrier_all();
    for (i = 0; i < 4; i++)
        src[i] = test_me + i;
    TEST_ASSERT(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 4) == 0, "reduce after");
    for (i = 0; i < test_npes; i++)
        s += i;
    for (i = 0; i < 4; i++)
        TEST_CHECK("sum after the refused collectives", i, s + (long long)i * test_npes, dst[i]);
}

int main(int argc, char **argv)
{
    static const char *const cases[][3] = { { "reduce", "shmem_long_sum_reduce", "nelems" },
                                            { "bcast_root", "shmem_long_broadcast", "PE_root" },
                                            { "bcast_n", "shmem_long_broadcast", "nelems" } };
    const char *mode = argc > 2 ? argv[2] : "";
    size_t k;

    if (strcmp(mode, "hang"))
        setenv("FABSHMEM_CHECKS", "1", 0);
    test_init("coll_mismatch");
    hsrc = shmem_calloc(1000, sizeof(long));
    hdst = shmem_calloc(1000, sizeof(long));
    if (argc > 1) {
        int rc = run_case(argv[1], test_me);
        printf("coll_mismatch %s: PE %d: the call returned %d\n", argv[1], test_me, rc);
        shmem_finalize();
        return 0;
    }
    if (test_npes > 1) {
        shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
        for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
            TEST_ASSERT(run_case(cases[k][0], test_me) != 0, "%s with mismatched arguments "
                        "returned 0", cases[k][0]);
            check_message(cases[k][0], cases[k][1], cases[k][2]);
        }
        shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    }
    after();
    return test_finish();
}
