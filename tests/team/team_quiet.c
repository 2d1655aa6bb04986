/*
 * team_quiet: the outcomes that OpenSHMEM defines as ordinary print nothing
 * on stderr unless SHMEM_DEBUG is set (issue 31), checked on every PE.
 *
 * With the library's stderr (file descriptor 2) sent to a file of its own,
 * every PE runs, collecting each result:
 *  - a split of the even PEs of the world: the odd PEs get
 *    SHMEM_TEAM_INVALID with a return of 0;
 *  - a split of that team on every PE: the even PEs make a team of one (its
 *    first), the odd PEs pass SHMEM_TEAM_INVALID as the parent and get
 *    SHMEM_TEAM_INVALID with a nonzero return; the same for split_2d and
 *    shmem_team_create_ctx, and shmem_team_destroy of SHMEM_TEAM_INVALID;
 *  - a strided split of size 0 and a split_2d of xrange 0: no team, a
 *    nonzero return on every PE;
 *  - more contexts than FABSHMEM_CTX_ENDPOINTS (1 here, unless the job
 *    sets it), each putting to the next PE (checked there): past the
 *    limit they share the default endpoint when the provider carries the
 *    traffic.
 * Then it puts stderr back, checks every result and that the file is
 * empty (unless SHMEM_DEBUG is set).  Last, as a control that the file
 * sees what the library prints, a split of the world with a negative size
 * (a bad argument) must leave a warning naming the routine in PE 0's file
 * (the parent's member 0 prints a split's warning) and nothing in the
 * others'.
 */
#include "common.h"

#define NCTX 4

int main(void)
{
    shmem_team_t even, t1, x, y;
    shmem_ctx_t ctx[NCTX], c_odd = SHMEM_CTX_INVALID;
    int rc_even, rc_t1, rc_2d, rc_ctx, rc_size0, rc_x0, rc_c[NCTX], i;
    long *buf;
    char *text;
    int debug = test_debug_on();

    setenv("FABSHMEM_CTX_ENDPOINTS", "1", 0);
    test_init("team_quiet");
    buf = shmem_calloc(NCTX, sizeof(long));
    TEST_ASSERT(buf != NULL, "shmem_calloc");
    int me = test_me, n = test_npes, next = (me + 1) % n, prev = (me + n - 1) % n;
    shmem_barrier_all();

    test_stderr_capture();
    rc_even = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even);
    t1 = SHMEM_TEAM_WORLD;
    rc_t1 = shmem_team_split_strided(even, 0, 1, 1, NULL, 0, &t1);
    x = y = SHMEM_TEAM_WORLD;
    rc_2d = 0;
    rc_ctx = 0;
    if (even == SHMEM_TEAM_INVALID) {
        rc_2d = shmem_team_split_2d(even, 1, NULL, 0, &x, NULL, 0, &y);
        rc_ctx = shmem_team_create_ctx(even, 0, &c_odd);
    }
    shmem_team_destroy(SHMEM_TEAM_INVALID);
    shmem_sync_all();
    shmem_team_t z = SHMEM_TEAM_WORLD, zx = SHMEM_TEAM_WORLD, zy = SHMEM_TEAM_WORLD;
    rc_size0 = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 0, NULL, 0, &z);
    rc_x0 = shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &zx, NULL, 0, &zy);
    for (i = 0; i < NCTX; i++) {
        rc_c[i] = shmem_ctx_create(0, &ctx[i]);
        if (rc_c[i] == 0)
            shmem_ctx_long_p(ctx[i], &buf[i], test_val(me, (size_t)i, 3), next);
    }
    for (i = 0; i < NCTX; i++)
        if (rc_c[i] == 0)
            shmem_ctx_quiet(ctx[i]);
    shmem_barrier_all();
    text = test_stderr_release();

    /* The results, on every PE. */
    TEST_CHECK("split of the even PEs: return", 0, 0, rc_even);
    TEST_ASSERT((me % 2 == 0) == (even != SHMEM_TEAM_INVALID), "even team membership");
    if (even != SHMEM_TEAM_INVALID) {
        TEST_CHECK("even team size", 0, (n + 1) / 2, shmem_team_n_pes(even));
        TEST_CHECK("split of the even team: return", 0, 0, rc_t1);
        TEST_ASSERT((me == 0) == (t1 != SHMEM_TEAM_INVALID), "team of the first even PE");
        if (t1 != SHMEM_TEAM_INVALID) {
            TEST_CHECK("team of one: size", 0, 1, shmem_team_n_pes(t1));
            shmem_team_destroy(t1);
        }
    } else {
        TEST_ASSERT(rc_t1 != 0 && t1 == SHMEM_TEAM_INVALID, "split of SHMEM_TEAM_INVALID: "
                    "return %d, team %p", rc_t1, (void *)t1);
        TEST_ASSERT(rc_2d != 0 && x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID,
                    "split_2d of SHMEM_TEAM_INVALID: return %d", rc_2d);
        TEST_ASSERT(rc_ctx != 0 && c_odd == SHMEM_CTX_INVALID,
                    "shmem_team_create_ctx(SHMEM_TEAM_INVALID): return %d", rc_ctx);
    }
    TEST_ASSERT(rc_size0 != 0 && z == SHMEM_TEAM_INVALID, "split of size 0: return %d",
                rc_size0);
    TEST_ASSERT(rc_x0 != 0 && zx == SHMEM_TEAM_INVALID && zy == SHMEM_TEAM_INVALID,
                "split_2d of xrange 0: return %d", rc_x0);
    for (i = 0; i < NCTX; i++) {
        TEST_CHECK("shmem_ctx_create return", i, 0, rc_c[i]);
        TEST_CHECK("put through a context", i, test_val(prev, (size_t)i, 3), buf[i]);
    }
    if (debug)
        fputs(text, stderr); /* what SHMEM_DEBUG asked for */
    else
        TEST_ASSERT(text[0] == '\0', "the ordinary cases printed on stderr: %.600s", text);
    free(text);
    for (i = 0; i < NCTX; i++)
        shmem_ctx_destroy(ctx[i]);
    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
    shmem_barrier_all();

    /* The control: a bad argument is still a warning, and the file sees it. */
    test_stderr_capture();
    rc_size0 = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, -1, NULL, 0, &z);
    text = test_stderr_release();
    TEST_ASSERT(rc_size0 != 0 && z == SHMEM_TEAM_INVALID, "split of size -1: return %d", rc_size0);
    if (me == 0)
        TEST_ASSERT(strstr(text, "warning") && strstr(text, "shmem_team_split_strided") &&
                        strstr(text, "size -1"),
                    "a split of size -1 left no warning naming the routine on stderr: %.600s",
                    text);
    else if (!debug)
        TEST_ASSERT(text[0] == '\0', "a split of size -1 printed on PE %d too: %.600s", me, text);
    free(text);
    test_note("the ordinary cases were silent, the bad argument warned");
    shmem_free(buf);
    return test_finish();
}
