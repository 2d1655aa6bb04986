/*
 * ctx: communication contexts (shmem_ctx_create, shmem_team_create_ctx,
 * shmem_ctx_destroy, shmem_ctx_get_team, the session hints).
 *
 *  - Every option set makes a context; an unknown option fails with ctx
 *    set to SHMEM_CTX_INVALID.
 *  - On each of four contexts: put, p, put_nbi, iput, get, g, get_nbi,
 *    fetch-add, atomic set and put_signal to the next PE; the context's
 *    quiet completes them, every value is checked on every PE.
 *  - Interleaved traffic on two contexts, each quieted on its own.
 *  - Ordering on one context: data, ctx_fence, flag; the target waits for
 *    the flag and checks the data.
 *  - A context of a reversed team (split with stride -1) numbers PEs in
 *    the team: puts, atomics and pe_quiet use team indices, and the values
 *    land on the world PE the team index names.
 *  - 64 contexts alive at once, then 300 created and destroyed in turn.
 *  - A team destroyed with a context still alive; a context left alive at
 *    shmem_finalize (its puts complete).
 */
#include "common.h"
#include <shmemx.h>
#include <strings.h>
#include <unistd.h>

#define N 64

static long data[N * 8];
static long flagv;
static uint64_t sigv;

/* Atomics through the shm provider are off (it has none that work), so
 * they are skipped where they would take it: data-segment targets with
 * shm, and every target with shm when the direct path is off or PEs are
 * split into virtual nodes. */
static int amo_heap_ok = 1, amo_global_ok = 1;

static void amo_setup(void)
{
    const char *direct = getenv("FABSHMEM_DIRECT");
    const char *ppn = getenv("FABSHMEM_PES_PER_NODE");

    if (!test_prov_no_amo() || test_npes < 2)
        return;
    amo_global_ok = 0;
    if ((direct && strcmp(direct, "0") == 0) || (ppn && atol(ppn) > 0))
        amo_heap_ok = 0;
    test_note("note: atomics on %s skipped (provider %s has no atomics)",
              amo_heap_ok ? "globals" : "all targets", getenv("FABSHMEM_PROVIDER"));
}

static void one_ctx(shmem_ctx_t ctx, long *sym, int round, int amo)
{
    int me = test_me, n = test_npes, next = (me + 1) % n, prev = (me + n - 1) % n;
    long src[N], got[N];
    long *in = sym, *in_p = sym + N, *in_i = sym + 2 * N, *in_nbi = sym + 4 * N;
    long *cnt = sym + 5 * N;
    int i;

    for (i = 0; i < N; i++)
        src[i] = test_val(me, (size_t)i, round);
    *cnt = 0;
    shmem_barrier_all();

    shmem_ctx_long_put(ctx, in, src, N, next);
    for (i = 0; i < 4; i++)
        shmem_ctx_long_p(ctx, in_p + i, src[i] + 1000, next);
    shmem_ctx_long_iput(ctx, in_i, src, 2, 1, N / 2, next);
    shmem_ctx_long_put_nbi(ctx, in_nbi, src, N / 2, next);
    if (amo) {
        shmem_ctx_long_atomic_fetch_add(ctx, cnt, me + 1, next);
        shmem_ctx_long_atomic_add(ctx, cnt, 100, next);
    } else {
        long v = me + 101;
        shmem_ctx_long_put(ctx, cnt, &v, 1, next);
    }
    shmem_ctx_putmem_signal(ctx, in_nbi + N / 2, src, sizeof(long) * (N / 2), &sigv,
                            (uint64_t)round, SHMEM_SIGNAL_SET, next);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();

    for (i = 0; i < N; i++)
        TEST_CHECK("ctx put", i, test_val(prev, (size_t)i, round), in[i]);
    for (i = 0; i < 4; i++)
        TEST_CHECK("ctx p", i, test_val(prev, (size_t)i, round) + 1000, in_p[i]);
    for (i = 0; i < N / 2; i++)
        TEST_CHECK("ctx iput", i, test_val(prev, (size_t)i, round), in_i[2 * i]);
    for (i = 0; i < N; i++)
        TEST_CHECK("ctx put_nbi and put_signal", i,
                   test_val(prev, (size_t)(i % (N / 2)), round), in_nbi[i]);
    TEST_CHECK("ctx fetch_add and add", 0, prev + 1 + 100, *cnt);
    TEST_CHECK("ctx put_signal signal", 0, round, sigv);

    /* Reads from the previous PE's buffers (they hold what prev's own
     * previous PE put, or the self-put when n is 1). */
    memset(got, 0, sizeof(got));
    shmem_ctx_long_get(ctx, got, in, N, prev);
    for (i = 0; i < N; i++)
        TEST_CHECK("ctx get", i, test_val((prev + n - 1) % n, (size_t)i, round), got[i]);
    TEST_CHECK("ctx g", 0, test_val((prev + n - 1) % n, 0, round) + 1000,
               shmem_ctx_long_g(ctx, in_p, prev));
    memset(got, 0, sizeof(got));
    shmem_ctx_long_get_nbi(ctx, got, in_nbi, N, prev);
    shmem_ctx_quiet(ctx);
    for (i = 0; i < N; i++)
        TEST_CHECK("ctx get_nbi", i, test_val((prev + n - 1) % n, (size_t)(i % (N / 2)), round),
                   got[i]);
    if (amo)
        TEST_CHECK("ctx atomic_fetch", 0, (prev + n - 1) % n + 101,
                   shmem_ctx_long_atomic_fetch(ctx, cnt, prev));
    shmem_barrier_all();
}

/* Data, fence, flag on one context; the target checks the data when it
 * sees the flag. */
static void fence_order(shmem_ctx_t ctx, long *sym, int round)
{
    int me = test_me, n = test_npes, next = (me + 1) % n, prev = (me + n - 1) % n;
    long src[N];
    int i;

    flagv = 0;
    shmem_barrier_all();
    for (i = 0; i < N; i++)
        src[i] = test_val(me, (size_t)i, round + 50);
    shmem_ctx_long_put_nbi(ctx, sym, src, N, next);
    shmem_ctx_fence(ctx);
    if (amo_global_ok)
        shmem_ctx_long_atomic_set(ctx, &flagv, round + 1, next);
    else
        shmem_ctx_long_p(ctx, &flagv, round + 1, next);
    shmem_long_wait_until(&flagv, SHMEM_CMP_EQ, round + 1);
    for (i = 0; i < N; i++)
        TEST_CHECK("ctx fence order", i, test_val(prev, (size_t)i, round + 50), sym[i]);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
}

static void team_ctx(long *sym)
{
    int me = test_me, n = test_npes;
    shmem_team_t rev = SHMEM_TEAM_INVALID, got_team = SHMEM_TEAM_INVALID;
    shmem_ctx_t c = SHMEM_CTX_INVALID;
    long src[N];
    int tme, next_t, i;

    /* Team index t is world PE n - 1 - t. */
    TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &rev) == 0 &&
                    rev != SHMEM_TEAM_INVALID, "split of the reversed team failed");
    tme = shmem_team_my_pe(rev);
    TEST_CHECK("reversed team my_pe", 0, n - 1 - me, tme);
    TEST_ASSERT(shmem_team_create_ctx(rev, 0, &c) == 0 && c != SHMEM_CTX_INVALID,
                "shmem_team_create_ctx failed");
    TEST_ASSERT(shmem_ctx_get_team(c, &got_team) == 0 && got_team == rev,
                "shmem_ctx_get_team of the team context is not the team");
    sym[5 * N] = 0;
    shmem_barrier_all();

    /* To team index tme + 1: world PE n - 2 - me, i.e. the previous world
     * PE (mod n).  So in world terms I receive from my next PE. */
    next_t = (tme + 1) % n;
    for (i = 0; i < N; i++)
        src[i] = test_val(me, (size_t)i, 77);
    shmem_ctx_long_put(c, sym, src, N, next_t);
    if (amo_heap_ok)
        shmem_ctx_long_atomic_add(c, sym + 5 * N, me + 1, next_t);
    else
        shmem_ctx_long_p(c, sym + 5 * N, me + 1, next_t);
    shmem_ctx_long_put_nbi(c, sym + N, src, 8, next_t);
    shmem_ctx_pe_quiet(c, &next_t, 1);
    shmem_ctx_quiet(c);
    shmem_barrier_all();
    {
        int from = (me + 1) % n; /* world PE that targeted me */
        for (i = 0; i < N; i++)
            TEST_CHECK("team ctx put", i, test_val(from, (size_t)i, 77), sym[i]);
        for (i = 0; i < 8; i++)
            TEST_CHECK("team ctx put_nbi", i, test_val(from, (size_t)i, 77), sym[N + i]);
        TEST_CHECK("team ctx atomic_add (or p)", 0, from + 1, sym[5 * N]);
        /* g by team index: team index n - 1 - from is world PE from. */
        TEST_CHECK("team ctx g", 0, test_val((from + 1) % n, 0, 77),
                   shmem_ctx_long_g(c, sym, n - 1 - from));
    }
    shmem_barrier_all();
    shmem_ctx_destroy(c);

    /* A second team context, left alive: shmem_team_destroy releases it. */
    TEST_ASSERT(shmem_team_create_ctx(rev, SHMEM_CTX_PRIVATE, &c) == 0, "team ctx (private)");
    shmem_ctx_long_p(c, sym + 7 * N, 5, 0);
    shmem_team_destroy(rev);
    shmem_barrier_all();
    if (me == n - 1) {
        /* Every PE's p to team index 0 (world PE n - 1) was completed when
         * the team went away. */
        TEST_CHECK("team ctx released by team_destroy", 0, 5, sym[7 * N]);
    }
    /* SHMEM_TEAM_INVALID makes no context. */
    c = SHMEM_CTX_DEFAULT;
    TEST_ASSERT(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c) ==
                    SHMEMX_ERROR_INVALID_VALUE && c == SHMEM_CTX_INVALID,
                "shmem_team_create_ctx on SHMEM_TEAM_INVALID did not fail with SHMEM_CTX_INVALID");
    shmem_barrier_all();
}

/* Quiet on one context does not wait for another context's traffic.
 * PE 1 stays out of the library until a marker file appears; PE 0 puts
 * 16 KiB to PE 1 on context A (it cannot complete while PE 1 does not
 * drive its provider), puts to PE 2 on context B, quiets B and only then
 * makes the marker.  If quiet on B waited for A's put, PE 0 would never
 * make the marker, and PE 1 gives up after 60 s and fails the test.  The
 * test proves this only where a PE outside the library does not progress
 * its provider and the puts cross it: no progress thread
 * (FABSHMEM_PROGRESS_THREAD=0), PEs 1 and 2 not mapped, a provider that
 * needs the target's progress for remote completion (tcp;ofi_rxm: run.sh
 * runs it in mode nothread at 3 PEs; shm writes with the sender's CPU and
 * sockets has a progress thread of its own), and 3 PEs or more; elsewhere
 * it is left out.  A and B each need an endpoint of their own
 * (FABSHMEM_CTX_ENDPOINTS=0, which makes every context share the default
 * one, makes the test fail). */
#define QI_N 2048
static long qi_token;
static int qi_meaningful;

static int env_false(const char *name)
{
    const char *v = getenv(name);

    return v && (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "off") ||
                 !strcasecmp(v, "false"));
}

static void quiet_independent(void)
{
    const char *prov = getenv("FABSHMEM_PROVIDER");
    int me = test_me, i, meaningful;
    long *big = shmem_calloc(QI_N, sizeof(long)), *small = shmem_calloc(8, sizeof(long));
    long *src = malloc(QI_N * sizeof(long)), src8[8];
    char marker[128];
    shmem_ctx_t a = SHMEM_CTX_INVALID, b = SHMEM_CTX_INVALID;

    TEST_ASSERT(big && small && src, "allocation");
    /* PE 0 decides (another PE maps itself) and tells the others. */
    if (me == 0)
        qi_meaningful = test_npes >= 3 && env_false("FABSHMEM_PROGRESS_THREAD") &&
                        shmem_ptr(big, 1) == NULL && shmem_ptr(big, 2) == NULL && prov &&
                        (!strcmp(prov, "tcp") || !strcmp(prov, "net"));
    shmem_barrier_all();
    meaningful = shmem_int_g(&qi_meaningful, 0);
    if (!meaningful) {
        if (me == 0)
            test_note("note: quiet independence of contexts left out (it needs 3 PEs, no "
                      "progress thread, PEs 1 and 2 not mapped, tcp or net)");
        goto out;
    }
    if (me == 0)
        qi_token = (long)getpid() * 1000 + (long)(test_now() * 1000) % 1000;
    shmem_barrier_all();
    qi_token = shmem_long_g(&qi_token, 0);
    snprintf(marker, sizeof(marker), "%s/fabshmem-ctx-quiet-%ld",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", qi_token);
    TEST_ASSERT(shmem_ctx_create(SHMEM_CTX_PRIVATE, &a) == 0 &&
                    shmem_ctx_create(SHMEM_CTX_PRIVATE, &b) == 0, "contexts A and B");
    /* Endpoints and connections are made while every PE is in the library. */
    if (me == 0) {
        shmem_ctx_long_p(a, &big[0], -1, 1);
        shmem_ctx_long_p(b, &small[0], -1, 2);
        shmem_ctx_quiet(a);
        shmem_ctx_quiet(b);
    }
    shmem_barrier_all();
    if (me == 1) {
        double t0 = test_now();
        struct timespec ms = { 0, 1000000 };

        while (access(marker, F_OK) != 0) {
            if (test_now() - t0 > 60)
                test_fail("quiet on context B waited for context A's put to PE 1, which cannot "
                          "complete while PE 1 is outside the library (no marker %s after "
                          "60 s)", marker);
            nanosleep(&ms, NULL);
        }
    } else if (me == 0) {
        FILE *f;

        for (i = 0; i < QI_N; i++)
            src[i] = test_val(0, (size_t)i, 41);
        for (i = 0; i < 8; i++)
            src8[i] = test_val(0, (size_t)i, 42);
        shmem_ctx_long_put_nbi(a, big, src, QI_N, 1);
        shmem_ctx_long_put(b, small, src8, 8, 2);
        shmem_ctx_quiet(b);
        f = fopen(marker, "w");
        TEST_ASSERT(f != NULL, "cannot make the marker %s", marker);
        fclose(f);
        shmem_ctx_quiet(a);
    }
    shmem_barrier_all();
    if (me == 1)
        for (i = 0; i < QI_N; i++)
            TEST_CHECK("put on context A (after quiet on B)", i, test_val(0, (size_t)i, 41),
                       big[i]);
    if (me == 2)
        for (i = 0; i < 8; i++)
            TEST_CHECK("put on context B", i, test_val(0, (size_t)i, 42), small[i]);
    if (me == 0)
        unlink(marker);
    shmem_ctx_destroy(a);
    shmem_ctx_destroy(b);
out:
    shmem_barrier_all();
    free(src);
    shmem_free(small);
    shmem_free(big);
}

int main(int argc, char **argv)
{
    static const long opts[] = { 0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED,
                                 SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE };
    shmem_ctx_t ctx[4], many[64], c;
    shmem_team_t team;
    long *sym;
    int round, i, k;

    test_init("ctx");
    if (argc > 1 && !strcmp(argv[1], "quiet")) {
        /* The quiet-independence part alone (run.sh: tcp, mode nothread,
         * 3 PEs). */
        quiet_independent();
        return test_finish();
    }
    sym = shmem_calloc(8 * N, sizeof(long));
    TEST_ASSERT(sym != NULL, "shmem_calloc failed");
    amo_setup();

    for (k = 0; k < 4; k++) {
        TEST_ASSERT(shmem_ctx_create(opts[k], &ctx[k]) == 0 && ctx[k] != SHMEM_CTX_INVALID,
                    "shmem_ctx_create(%ld) failed", opts[k]);
        TEST_ASSERT(shmem_ctx_get_team(ctx[k], &team) == 0 && team == SHMEM_TEAM_WORLD,
                    "shmem_ctx_get_team of a context is not SHMEM_TEAM_WORLD");
    }
    c = SHMEM_CTX_DEFAULT;
    TEST_ASSERT(shmem_ctx_create(1L << 20, &c) ==
                    SHMEMX_ERROR_INVALID_VALUE && c == SHMEM_CTX_INVALID,
                "shmem_ctx_create with an unknown option did not fail with SHMEM_CTX_INVALID");
    TEST_ASSERT(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team) ==
                    SHMEMX_ERROR_INVALID_VALUE && team == SHMEM_TEAM_INVALID,
                "shmem_ctx_get_team(SHMEM_CTX_INVALID) did not fail");
    TEST_ASSERT(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team) == 0 && team == SHMEM_TEAM_WORLD,
                "shmem_ctx_get_team(SHMEM_CTX_DEFAULT) is not SHMEM_TEAM_WORLD");
    shmem_ctx_destroy(SHMEM_CTX_INVALID); /* no effect */

    /* Heap and global (data segment) targets. */
    for (round = 0; round < 8; round++)
        one_ctx(ctx[round % 4], (round & 1) ? data : sym, round,
                (round & 1) ? amo_global_ok : amo_heap_ok);
    for (round = 0; round < 4; round++)
        one_ctx(SHMEM_CTX_DEFAULT, sym, 20 + round, amo_heap_ok);

    /* Two contexts interleaved, each quieted on its own. */
    for (round = 0; round < 20; round++) {
        int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
        long a = test_val(test_me, 1, round), b = test_val(test_me, 2, round);
        shmem_ctx_long_put_nbi(ctx[0], sym + 6 * N, &a, 1, next);
        shmem_ctx_long_put_nbi(ctx[1], sym + 6 * N + 1, &b, 1, next);
        shmem_ctx_quiet(ctx[1]);
        shmem_ctx_quiet(ctx[0]);
        shmem_barrier_all();
        TEST_CHECK("two contexts a", round, test_val(prev, 1, round), sym[6 * N]);
        TEST_CHECK("two contexts b", round, test_val(prev, 2, round), sym[6 * N + 1]);
        shmem_barrier_all();
    }

    for (round = 0; round < 6; round++)
        fence_order(ctx[round % 2], round & 1 ? data : sym, round);

    /* Session hints around a batch. */
#ifdef FABSHMEM_TESTS_16
    {
        shmem_ctx_session_config_t cfg = { .total_ops = N };
        int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
        shmem_ctx_session_start(ctx[2], SHMEM_CTX_SESSION_BATCH, &cfg,
                                SHMEM_CTX_SESSION_TOTAL_OPS);
        for (i = 0; i < N; i++)
            shmem_ctx_long_p(ctx[2], sym + i, test_val(test_me, (size_t)i, 99), next);
        shmem_ctx_session_stop(ctx[2]);
        shmem_ctx_quiet(ctx[2]);
        shmem_barrier_all();
        for (i = 0; i < N; i++)
            TEST_CHECK("session batch", i, test_val(prev, (size_t)i, 99), sym[i]);
        shmem_barrier_all();
    }
#endif

    /* C11 generic forms on a context. */
    {
        int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
        long v = 4000 + test_me;
        shmem_put(ctx[3], sym + 3, &v, 1, next);
        shmem_p(ctx[3], sym + 4, v + 1, next);
        shmem_ctx_quiet(ctx[3]);
        shmem_barrier_all();
        TEST_CHECK("generic ctx put", 0, 4000 + prev, sym[3]);
        TEST_CHECK("generic ctx p", 0, 4001 + prev, shmem_g(ctx[3], sym + 4, test_me));
        shmem_barrier_all();
    }

    team_ctx(sym);
    quiet_independent();

    /* Many contexts alive at once, each moving one value. */
    for (k = 0; k < 64; k++)
        TEST_ASSERT(shmem_ctx_create(0, &many[k]) == 0, "context %d of 64 alive: create failed",
                    k);
    {
        int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
        for (k = 0; k < 64; k++)
            shmem_ctx_long_p(many[k], data + k, test_val(test_me, (size_t)k, 5), next);
        for (k = 0; k < 64; k++) {
            shmem_ctx_quiet(many[k]);
            shmem_ctx_destroy(many[k]);
        }
        shmem_barrier_all();
        for (k = 0; k < 64; k++)
            TEST_CHECK("64 live contexts", k, test_val(prev, (size_t)k, 5), data[k]);
        shmem_barrier_all();
    }
    /* Churn: resources come back. */
    sym[5 * N] = 0;
    shmem_barrier_all();
    for (k = 0; k < 300; k++) {
        TEST_ASSERT(shmem_ctx_create(SHMEM_CTX_PRIVATE, &c) == 0, "churn: create %d failed", k);
        if (amo_heap_ok)
            shmem_ctx_long_atomic_inc(c, sym + 5 * N, (test_me + 1) % test_npes);
        else
            shmem_ctx_long_p(c, sym + 5 * N, k + 1, (test_me + 1) % test_npes);
        shmem_ctx_destroy(c); /* quiets */
    }
    shmem_barrier_all();
    TEST_CHECK("churn: increments (or last p)", 0, 300, sym[5 * N]);
    for (k = 0; k < 4; k++)
        shmem_ctx_destroy(ctx[k]);

    /* A context left alive at finalize, with a put in flight: finalize
     * completes and releases it. */
    TEST_ASSERT(shmem_ctx_create(0, &c) == 0, "last context");
    shmem_ctx_long_p(c, data + 100, 42, test_me);
    TEST_CHECK("own put on a context", 0, 42, shmem_ctx_long_g(c, data + 100, test_me));
    shmem_ctx_long_put_nbi(c, data + 101, data + 100, 1, (test_me + 1) % test_npes);
    (void)i;
    return test_finish();
}
