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
 *  - The typed forms over the type lists (every RMA type; the standard,
 *    extended and bitwise AMO types) on PRIVATE, SERIALIZED and NOSTORE
 *    contexts and on two contexts of a reversed team: put_signal(_nbi),
 *    iput, ibput, signal_add/set, pe_quiet, get_nbi, iget, ibget, g,
 *    fence, signal_fetch, and set, swap, compare_swap, fetch_add, inc,
 *    fetch, fetch_and/or/xor, and/or/xor (typed_all).
 *  - Quiet on one context does not wait for another's traffic (where that
 *    can be seen: no progress thread, tcp, 3 PEs; quiet_independent).
 *  - 64 contexts alive at once, then 300 created and destroyed in turn.
 *  - A team destroyed with a context still alive; a context left alive at
 *    shmem_finalize (its puts complete).
 *
 * "tests/core/ctx quiet" runs the quiet-independence part alone.
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

#ifdef FABSHMEM_TESTS_16
/*
 * The typed context forms over the type lists of <fabshmem/types.def>, on
 * every kind of context (PRIVATE, SERIALIZED, NOSTORE, and contexts of a
 * reversed team, which number PEs in the team), each value checked on the
 * PE that holds it.  For every RMA type: put_signal (SET) and
 * put_signal_nbi (ADD, SET without atomics), iput, ibput, signal_add,
 * pe_quiet (then a signal on the default context: the data must be there
 * when it arrives), get_nbi, iget, ibget, g, and put + fence + signal_set
 * (the data must be there when the signal is); signal_fetch reads the
 * signals.  For every AMO type: set, swap, compare_swap (hit and miss),
 * fetch_add, inc, fetch; the extended types set, swap and fetch; the
 * bitwise types fetch_or/and/xor and or/and/xor.
 */
#define QN 8
struct kind {
    const char *name;
    shmem_ctx_t ctx;
    int reversed; /* the context numbers world PE w as n - 1 - w */
};

static int kpe(const struct kind *k, int world_pe)
{
    return k->reversed ? test_npes - 1 - world_pe : world_pe;
}

static char what_buf[160];
static const char *what(const struct kind *k, const char *tn, const char *op)
{
    snprintf(what_buf, sizeof(what_buf), "%s context, %s %s", k->name, tn, op);
    return what_buf;
}

#define CTX_RMA(T, TN)                                                                          \
    static void rma_##TN(const struct kind *k, char *area, uint64_t *sig, int salt)              \
    {                                                                                           \
        T *r = (T *)area, src[QN], got[QN];                                                     \
        int me = test_me, n = test_npes, next = (me + 1) % n, prev = (me + n - 1) % n;          \
        int pp = (prev + n - 1) % n, tn = kpe(k, next), tp = kpe(k, prev), b, j;                \
        size_t i;                                                                               \
                                                                                                \
        for (i = 0; i < QN; i++)                                                                \
            src[i] = (T)test_val(me, i, salt);                                                  \
        memset(area, 0, 6 * QN * sizeof(T));                                                    \
        memset(sig, 0, 8 * sizeof(uint64_t));                                                   \
        shmem_barrier_all();                                                                    \
        shmem_ctx_##TN##_put_signal(k->ctx, r, src, QN, &sig[0], (uint64_t)salt,                \
                                    SHMEM_SIGNAL_SET, tn);                                      \
        shmem_ctx_##TN##_put_signal_nbi(k->ctx, r + QN, src, QN, &sig[1], 5,                    \
                                        amo_heap_ok ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET, tn); \
        shmem_ctx_##TN##_iput(k->ctx, r + 2 * QN, src, 2, 1, QN / 2, tn);                       \
        shmem_ctx_##TN##_ibput(k->ctx, r + 3 * QN, src, 4, 3, 2, 2, tn);                        \
        if (amo_heap_ok)                                                                        \
            shmem_ctx_signal_add(k->ctx, &sig[2], 9, tn);                                       \
        shmem_ctx_pe_quiet(k->ctx, &tn, 1);                                                     \
        shmem_signal_set(&sig[4], (uint64_t)salt, next);                                        \
        shmem_signal_wait_until(&sig[4], SHMEM_CMP_EQ, (uint64_t)salt);                         \
        for (i = 0; i < QN; i++) {                                                              \
            TEST_CHECK(what(k, #TN, "put_signal"), i, test_val(prev, i, salt), r[i]);           \
            TEST_CHECK(what(k, #TN, "put_signal_nbi"), i, test_val(prev, i, salt), r[QN + i]);  \
            TEST_CHECK(what(k, #TN, "iput"), i,                                                 \
                       i % 2 ? 0 : test_val(prev, i / 2, salt), r[2 * QN + i]);                 \
        }                                                                                       \
        for (b = 0; b < 2; b++)                                                                 \
            for (j = 0; j < 4; j++)                                                             \
                TEST_CHECK(what(k, #TN, "ibput"), 4 * b + j,                                    \
                           j < 2 ? test_val(prev, (size_t)(3 * b + j), salt) : 0,               \
                           r[3 * QN + 4 * b + j]);                                              \
        TEST_CHECK(what(k, #TN, "put_signal signal (signal_fetch)"), 0, salt,                   \
                   shmem_signal_fetch(&sig[0]));                                                \
        TEST_CHECK(what(k, #TN, "put_signal_nbi signal"), 0, 5, shmem_signal_fetch(&sig[1]));   \
        if (amo_heap_ok)                                                                        \
            TEST_CHECK(what(k, #TN, "signal_add"), 0, 9, shmem_signal_fetch(&sig[2]));          \
        shmem_barrier_all();                                                                    \
        /* My previous PE's area holds what its previous PE put. */                             \
        memset(got, 0, sizeof(got));                                                            \
        shmem_ctx_##TN##_get_nbi(k->ctx, got, r, QN, tp);                                       \
        shmem_ctx_quiet(k->ctx);                                                                \
        for (i = 0; i < QN; i++)                                                                \
            TEST_CHECK(what(k, #TN, "get_nbi"), i, test_val(pp, i, salt), got[i]);              \
        memset(got, 0, sizeof(got));                                                            \
        shmem_ctx_##TN##_iget(k->ctx, got, r + 2 * QN, 1, 2, QN / 2, tp);                       \
        for (i = 0; i < QN; i++)                                                                \
            TEST_CHECK(what(k, #TN, "iget"), i, i < QN / 2 ? test_val(pp, i, salt) : 0,         \
                       got[i]);                                                                 \
        memset(got, 0, sizeof(got));                                                            \
        shmem_ctx_##TN##_ibget(k->ctx, got, r + 3 * QN, 3, 4, 2, 2, tp);                        \
        for (b = 0; b < 2; b++)                                                                 \
            for (j = 0; j < 3; j++)                                                             \
                TEST_CHECK(what(k, #TN, "ibget"), 3 * b + j,                                    \
                           j < 2 ? test_val(pp, (size_t)(3 * b + j), salt) : 0,                 \
                           got[3 * b + j]);                                                     \
        TEST_CHECK(what(k, #TN, "g"), 1, test_val(pp, 1, salt),                                 \
                   shmem_ctx_##TN##_g(k->ctx, r + 1, tp));                                      \
        shmem_barrier_all();                                                                    \
        /* Data, fence, signal on the context: the signal brings the data. */                   \
        shmem_ctx_##TN##_put(k->ctx, r + 5 * QN, src, QN, tn);                                  \
        shmem_ctx_fence(k->ctx);                                                                \
        shmem_ctx_signal_set(k->ctx, &sig[3], (uint64_t)salt, tn);                              \
        shmem_signal_wait_until(&sig[3], SHMEM_CMP_EQ, (uint64_t)salt);                         \
        for (i = 0; i < QN; i++)                                                                \
            TEST_CHECK(what(k, #TN, "put, fence, signal_set"), i, test_val(prev, i, salt),      \
                       r[5 * QN + i]);                                                          \
        shmem_ctx_quiet(k->ctx);                                                                \
        shmem_barrier_all();                                                                    \
    }
TEST_RMA_TYPES(CTX_RMA)

/* set, swap and fetch (every AMO type); compare_swap, fetch_add and inc
 * (the standard ones): words 0-3 of the next PE, fetch from the previous
 * PE's word 0. */
#define CTX_AMO_COMMON(T, TN, STANDARD)                                                         \
    {                                                                                           \
        T *a = (T *)area, old;                                                                  \
        int me = test_me, n = test_npes, next = (me + 1) % n, prev = (me + n - 1) % n;          \
        int pp = (prev + n - 1) % n, tn = kpe(k, next), tp = kpe(k, prev);                     \
                                                                                                \
        a[0] = 0;                                                                               \
        a[1] = (T)(100 + me);                                                                   \
        a[2] = (T)(200 + me);                                                                   \
        a[3] = (T)(10 + me);                                                                    \
        shmem_barrier_all();                                                                    \
        shmem_ctx_##TN##_atomic_set(k->ctx, &a[0], (T)(300 + me + salt), tn);                   \
        old = shmem_ctx_##TN##_atomic_swap(k->ctx, &a[1], (T)(400 + me), tn);                   \
        TEST_CHECK(what(k, #TN, "atomic_swap (old)"), 0, 100 + next, old);                      \
        STANDARD##_OPS(T, TN)                                                                   \
        shmem_ctx_quiet(k->ctx);                                                                \
        shmem_barrier_all();                                                                    \
        TEST_CHECK(what(k, #TN, "atomic_set"), 0, 300 + prev + salt, a[0]);                     \
        TEST_CHECK(what(k, #TN, "atomic_swap"), 0, 400 + prev, a[1]);                           \
        STANDARD##_CHECKS(T, TN)                                                                \
        TEST_CHECK(what(k, #TN, "atomic_fetch"), 0, 300 + pp + salt,                            \
                   shmem_ctx_##TN##_atomic_fetch(k->ctx, &a[0], tp));                           \
        shmem_barrier_all();                                                                    \
    }
#define AMO_STD_OPS(T, TN)                                                                      \
    old = shmem_ctx_##TN##_atomic_compare_swap(k->ctx, &a[2], (T)(200 + next), (T)(500 + me), tn); \
    TEST_CHECK(what(k, #TN, "atomic_compare_swap hit (old)"), 0, 200 + next, old);              \
    old = shmem_ctx_##TN##_atomic_compare_swap(k->ctx, &a[2], (T)1, (T)(600 + me), tn);         \
    TEST_CHECK(what(k, #TN, "atomic_compare_swap miss (old)"), 0, 500 + me, old);               \
    old = shmem_ctx_##TN##_atomic_fetch_add(k->ctx, &a[3], (T)7, tn);                           \
    TEST_CHECK(what(k, #TN, "atomic_fetch_add (old)"), 0, 10 + next, old);                      \
    shmem_ctx_##TN##_atomic_inc(k->ctx, &a[3], tn);
#define AMO_STD_CHECKS(T, TN)                                                                   \
    TEST_CHECK(what(k, #TN, "atomic_compare_swap"), 0, 500 + prev, a[2]);                       \
    TEST_CHECK(what(k, #TN, "atomic_fetch_add and inc"), 0, 10 + me + 8, a[3]);
#define AMO_EXT_OPS(T, TN)
#define AMO_EXT_CHECKS(T, TN)
#define CTX_AMO_STD(T, TN)                                                                      \
    static void amo_##TN(const struct kind *k, char *area, int salt) CTX_AMO_COMMON(T, TN, AMO_STD)
#define CTX_AMO_EXT(T, TN)                                                                      \
    static void amo_##TN(const struct kind *k, char *area, int salt) CTX_AMO_COMMON(T, TN, AMO_EXT)
SHMEMI_AMO_STANDARD_TYPES(CTX_AMO_STD)
SHMEMI_AMO_EXTENDED_ONLY_TYPES(CTX_AMO_EXT)

/* fetch_or, fetch_and, fetch_xor in turn on word 0 of the next PE (each
 * returns what the last left); or, and, xor on words 1-3. */
#define CTX_AMO_BIT(T, TN)                                                                      \
    static void bit_##TN(const struct kind *k, char *area)                                      \
    {                                                                                           \
        T *a = (T *)area;                                                                       \
        int me = test_me, n = test_npes, next = (me + 1) % n, prev = (me + n - 1) % n;          \
        int pp = (prev + n - 1) % n, tn = kpe(k, next), tp = kpe(k, prev);                     \
                                                                                                \
        a[0] = a[1] = a[2] = a[3] = (T)(0xF0 | (me << 8));                                      \
        shmem_barrier_all();                                                                    \
        TEST_CHECK(what(k, #TN, "atomic_fetch_or (old)"), 0, 0xF0 | (next << 8),                \
                   shmem_ctx_##TN##_atomic_fetch_or(k->ctx, &a[0], (T)0x0F, tn));               \
        TEST_CHECK(what(k, #TN, "atomic_fetch_and (old)"), 0, 0xFF | (next << 8),               \
                   shmem_ctx_##TN##_atomic_fetch_and(k->ctx, &a[0], (T)0x3C, tn));              \
        TEST_CHECK(what(k, #TN, "atomic_fetch_xor (old)"), 0, 0x3C,                             \
                   shmem_ctx_##TN##_atomic_fetch_xor(k->ctx, &a[0], (T)0x55, tn));              \
        shmem_ctx_##TN##_atomic_or(k->ctx, &a[1], (T)0x0F, tn);                                 \
        shmem_ctx_##TN##_atomic_and(k->ctx, &a[2], (T)0x3C, tn);                                \
        shmem_ctx_##TN##_atomic_xor(k->ctx, &a[3], (T)0x55, tn);                                \
        shmem_ctx_quiet(k->ctx);                                                                \
        shmem_barrier_all();                                                                    \
        TEST_CHECK(what(k, #TN, "atomic_fetch_or/and/xor"), 0, 0x69, a[0]);                     \
        TEST_CHECK(what(k, #TN, "atomic_or"), 0, 0xFF | (me << 8), a[1]);                       \
        TEST_CHECK(what(k, #TN, "atomic_and"), 0, 0x30, a[2]);                                  \
        TEST_CHECK(what(k, #TN, "atomic_xor"), 0, 0xA5 | (me << 8), a[3]);                      \
        TEST_CHECK(what(k, #TN, "atomic_fetch after the bitwise ops"), 0, 0x69,                 \
                   shmem_ctx_##TN##_atomic_fetch(k->ctx, &a[0], tp));                           \
        (void)pp;                                                                               \
        shmem_barrier_all();                                                                    \
    }
SHMEMI_AMO_BITWISE_TYPES(CTX_AMO_BIT)

static void typed_all(void)
{
    const char *prov = getenv("FABSHMEM_PROVIDER");
    int n = test_npes, nk, salt = 60, prov_sockets = prov && !strcmp(prov, "sockets");
    shmem_team_t rev = SHMEM_TEAM_INVALID;
    struct kind kinds[5] = {
        { "PRIVATE", SHMEM_CTX_INVALID, 0 },
        { "SERIALIZED", SHMEM_CTX_INVALID, 0 },
        { "NOSTORE", SHMEM_CTX_INVALID, 0 },
        { "reversed team's", SHMEM_CTX_INVALID, 1 },
        { "reversed team's PRIVATE|NOSTORE", SHMEM_CTX_INVALID, 1 },
    };
    char *area = shmem_align(64, 64 * 16);
    uint64_t *sig = shmem_calloc(8, sizeof(uint64_t));

    TEST_ASSERT(area && sig, "shmem_align, shmem_calloc");
    TEST_ASSERT(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &rev) == 0,
                "split of the reversed team");
    TEST_ASSERT(shmem_ctx_create(SHMEM_CTX_PRIVATE, &kinds[0].ctx) == 0 &&
                    shmem_ctx_create(SHMEM_CTX_SERIALIZED, &kinds[1].ctx) == 0 &&
                    shmem_ctx_create(SHMEM_CTX_NOSTORE, &kinds[2].ctx) == 0 &&
                    shmem_team_create_ctx(rev, 0, &kinds[3].ctx) == 0 &&
                    shmem_team_create_ctx(rev, SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE,
                                          &kinds[4].ctx) == 0,
                "the contexts of the typed checks");
    for (nk = 0; nk < 5; nk++) {
        const struct kind *k = &kinds[nk];
        /* sockets moves about one operation per 10 ms here: its smoke run
         * takes one world and one team context. */
        if (prov_sockets && nk != 0 && nk != 4)
            continue;
#define RUN_RMA(T, TN) rma_##TN(k, area, sig, salt++);
#define RUN_AMO(T, TN) amo_##TN(k, area, salt++);
#define RUN_BIT(T, TN) bit_##TN(k, area);
        TEST_RMA_TYPES(RUN_RMA)
        if (amo_heap_ok) {
            SHMEMI_AMO_STANDARD_TYPES(RUN_AMO)
            SHMEMI_AMO_EXTENDED_ONLY_TYPES(RUN_AMO)
            SHMEMI_AMO_BITWISE_TYPES(RUN_BIT)
        }
    }
    for (nk = 0; nk < 5; nk++)
        shmem_ctx_destroy(kinds[nk].ctx);
    shmem_team_destroy(rev);
    shmem_free(sig);
    shmem_free(area);
}
#endif

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
#ifdef FABSHMEM_TESTS_16
    typed_all();
#endif
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
