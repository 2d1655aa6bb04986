/*
 * errors_return: the core routines in SHMEMX_ERRORS_RETURN mode
 * (shmemx_set_error_mode).  Every routine below gets bad input on every PE
 * and must return (no message, no exit) with the right class and a
 * message (shmemx_error_get) that begins with the routine's name and
 * names the argument; a routine with a value returns its "nothing" value
 * (0, SIZE_MAX for the any forms, 1 for test_lock), a status routine the
 * class; the data it was given stays untouched; and the job keeps
 * working afterwards (a barrier, then puts, AMOs, a put with signal and a
 * lock round, checked by value on every PE).
 *
 *  - AMOs: pe out of range (and -1), a target that is not symmetric or not
 *    aligned, SHMEM_CTX_INVALID; the fetched values are 0 and a _nbi
 *    fetch buffer is untouched.
 *  - Signals: a bad sig_op (put with signal, shmemx_signal_op), a
 *    sig_addr that is not symmetric or NULL, pe out of range, nelems that
 *    overflows, SHMEM_CTX_INVALID, a bad cmp in signal_wait_until; the
 *    data and the signal words on the target stay as they were.
 *  - Waits and tests: a bad cmp, a NULL ivar, ivars, indices or
 *    cmp_values with nelems > 0 (and NULL with nelems 0 is fine).
 *  - Locks: a lock that is not symmetric or not aligned, clearing a free
 *    lock.
 *  - Ordering: quiet, fence and pe_quiet on SHMEM_CTX_INVALID succeed
 *    and do nothing (OpenSHMEM 1.6); pe_quiet with target_pes NULL or
 *    out of range (of the job, and of a team context's team).
 *  - Contexts: unknown options, a NULL ctx, SHMEM_TEAM_INVALID,
 *    shmem_ctx_get_team of SHMEM_CTX_INVALID or into NULL, destroying
 *    SHMEM_CTX_DEFAULT, a session with config_mask but no config.
 *
 * tests/init/errors.sh checks the default (abort) mode of the same kind
 * of input.
 */
#include "expect_x.h"

/* A call that must succeed and leave no record. */
#define EXPECT_OK(stmt)                                                                   \
    do {                                                                                  \
        char m_[256];                                                                     \
        int c_;                                                                           \
        shmemx_error_clear();                                                             \
        stmt;                                                                             \
        c_ = shmemx_error_get(m_, sizeof(m_));                                            \
        TEST_ASSERT(c_ == SHMEMX_SUCCESS, "%s failed: %s (%s)", #stmt, shmemx_strerror(c_), \
                    m_);                                                                  \
    } while (0)

/* A status routine that must succeed. */
#define EXPECT_SUCCESS(expr) \
    EXPECT_OK(TEST_ASSERT((expr) == SHMEMX_SUCCESS, "%s did not return SHMEMX_SUCCESS", #expr))

#define INVAL SHMEMX_ERROR_INVALID_VALUE

/* The symmetric words of the test: the data every PE checks at the end. */
enum { W_AMO, W_DATA = 8, W_SIG = 16, W_IVARS = 24, W_LOCK = 32, W_COUNT = 40, W_PUT = 48,
       W_CTX = 56, W_N = 64 };

/* Every word of sym keeps its fill value (checked after a barrier, so
 * the refused calls of every PE are over), but the lock words and the
 * word of the valid context put. */
static void check_untouched(const long *sym, const char *after)
{
    int i;

    for (i = 0; i < W_N; i++)
        if (i != W_LOCK && i != W_COUNT && i != W_CTX)
            TEST_CHECK(after, i, 1000 + i, sym[i]);
}

static void amos(long *sym, int next)
{
    const char *r;
    long stack = 5, fetch = -7;
    int *mis = (int *)(void *)((char *)&sym[W_AMO] + 2);

    r = "shmem_long_atomic_fetch_add";
    EXPECT_VAL(shmem_long_atomic_fetch_add(&sym[W_AMO], 1, test_npes), 0, INVAL, r, "pe");
    EXPECT_VAL(shmem_long_atomic_fetch_add(&sym[W_AMO], 1, -1), 0, INVAL, r, "pe");
    EXPECT_VAL(shmem_long_atomic_fetch_add(&stack, 1, next), 0, INVAL, r, "dest");
    TEST_CHECK("a stack word given to an AMO", 0, 5, stack);
    EXPECT_VAL(shmem_int_atomic_fetch_inc(mis, next), 0, INVAL, "shmem_int_atomic_fetch_inc",
               "aligned");
    EXPECT_VAL(shmem_ctx_long_atomic_fetch(SHMEM_CTX_INVALID, &sym[W_AMO], next), 0, INVAL,
               "shmem_ctx_long_atomic_fetch", "ctx");
    EXPECT_VAL(shmem_long_atomic_compare_swap(&sym[W_AMO], 1000, 1, test_npes + 3), 0, INVAL,
               "shmem_long_atomic_compare_swap", "pe");
    EXPECT_ERR(shmem_long_atomic_add(&sym[W_AMO + 1], 1, test_npes), INVAL,
               "shmem_long_atomic_add", "pe");
    EXPECT_ERR(shmem_ctx_long_atomic_set(SHMEM_CTX_INVALID, &sym[W_AMO], 9, next), INVAL,
               "shmem_ctx_long_atomic_set", "ctx");
    EXPECT_ERR(shmem_long_atomic_fetch_add_nbi(&fetch, &sym[W_AMO], 1, test_npes), INVAL,
               "shmem_long_atomic_fetch_add_nbi", "pe");
    EXPECT_ERR(shmem_double_atomic_set((double *)(void *)&stack, 1.0, next), INVAL,
               "shmem_double_atomic_set", "dest");
    shmem_quiet();
    TEST_CHECK("the fetch buffer of a refused _nbi AMO", 0, -7, fetch);
    TEST_CHECK("a stack word given to an AMO", 0, 5, stack);
}

static void signals(long *sym, int next)
{
    uint64_t *sig = (uint64_t *)(void *)&sym[W_SIG], stack_sig = 3;
    long src[4] = { 1, 2, 3, 4 };
    const char *r = "shmem_long_put_signal";

    EXPECT_ERR(shmem_long_put_signal(&sym[W_DATA], src, 4, sig, 1, 99, next), INVAL, r,
               "sig_op");
    EXPECT_ERR(shmem_long_put_signal(&sym[W_DATA], src, 4, &stack_sig, 1, SHMEM_SIGNAL_SET, next),
               INVAL, r, "sig_addr");
    EXPECT_ERR(shmem_long_put_signal(&sym[W_DATA], src, 4, sig, 1, SHMEM_SIGNAL_ADD, test_npes),
               INVAL, r, "pe");
    EXPECT_ERR(shmem_long_put_signal(&sym[W_DATA], src, SIZE_MAX / 4, sig, 1, SHMEM_SIGNAL_ADD,
                                     next),
               INVAL, r, "nelems");
    EXPECT_ERR(shmem_ctx_putmem_signal_nbi(SHMEM_CTX_INVALID, &sym[W_DATA], src, 8, sig, 1,
                                           SHMEM_SIGNAL_SET, next),
               INVAL, "shmem_ctx_putmem_signal_nbi", "ctx");
    EXPECT_ERR(shmem_putmem_signal(&sym[W_DATA], src, 8, NULL, 1, SHMEM_SIGNAL_SET, next), INVAL,
               "shmem_putmem_signal", "sig_addr");
    EXPECT_ERR(shmem_signal_add(&stack_sig, 1, next), INVAL, "shmem_signal_add", "sig_addr");
    EXPECT_ERR(shmem_signal_set(sig, 1, test_npes), INVAL, "shmem_signal_set", "pe");
    EXPECT_ERR(shmem_ctx_signal_set(SHMEM_CTX_INVALID, sig, 1, next), INVAL,
               "shmem_ctx_signal_set", "ctx");
    EXPECT_ERR(shmemx_signal_op(sig, 1, 5, next), INVAL, "shmemx_signal_op", "sig_op");
    EXPECT_VAL(shmem_signal_wait_until(sig, 99, 0), 0, INVAL, "shmem_signal_wait_until", "cmp");
    EXPECT_VAL(shmem_signal_wait_until(NULL, SHMEM_CMP_EQ, 0), 0, INVAL,
               "shmem_signal_wait_until", "sig_addr");
    EXPECT_VAL(shmem_signal_fetch(NULL), 0, INVAL, "shmem_signal_fetch", "sig_addr");
    TEST_CHECK("a stack signal word", 0, 3, stack_sig);
}

static void waits(long *sym)
{
    long *iv = &sym[W_IVARS], cmpv[3] = { 1, 2, 3 };
    size_t idx[3] = { 7, 7, 7 };
    int status[3] = { 1, 1, 1 };

    EXPECT_ERR(shmem_long_wait_until(iv, 99, 0), INVAL, "shmem_long_wait_until", "cmp");
    EXPECT_ERR(shmem_long_wait_until(NULL, SHMEM_CMP_EQ, 0), INVAL, "shmem_long_wait_until",
               "ivar");
    EXPECT_VAL(shmem_int_test((int *)(void *)iv, -1, 0), 0, INVAL, "shmem_int_test", "cmp");
    EXPECT_ERR(shmem_long_wait_until_all(NULL, 4, NULL, SHMEM_CMP_EQ, 0), INVAL,
               "shmem_long_wait_until_all", "ivars");
    EXPECT_VAL(shmem_long_wait_until_any(NULL, 3, NULL, SHMEM_CMP_EQ, 0), SIZE_MAX, INVAL,
               "shmem_long_wait_until_any", "ivars");
    EXPECT_VAL(shmem_long_wait_until_some(iv, 3, NULL, NULL, SHMEM_CMP_EQ, 1000 + W_IVARS), 0,
               INVAL, "shmem_long_wait_until_some", "indices");
    EXPECT_VAL(shmem_long_test_all_vector(iv, 3, NULL, SHMEM_CMP_EQ, NULL), 0, INVAL,
               "shmem_long_test_all_vector", "cmp_values");
    EXPECT_VAL(shmem_size_test_any((size_t *)(void *)iv, 3, NULL, 42, 0), SIZE_MAX, INVAL,
               "shmem_size_test_any", "cmp");
    EXPECT_VAL(shmem_long_test_some_vector(iv, 3, idx, NULL, SHMEM_CMP_LT + 9, cmpv), 0, INVAL,
               "shmem_long_test_some_vector", "cmp");
    /* The deprecated routine, not the generic macro of the same name. */
    EXPECT_ERR((shmem_wait_until)(iv, 77, 0), INVAL, "shmem_wait_until", "cmp");
    TEST_ASSERT(idx[0] == 7 && idx[1] == 7 && idx[2] == 7, "a refused test wrote its indices");
    /* Nothing to look at is not an error, NULL or not. */
    EXPECT_OK(shmem_long_wait_until_all(NULL, 0, NULL, SHMEM_CMP_EQ, 0));
    EXPECT_OK(TEST_ASSERT(shmem_long_test_any(NULL, 0, NULL, SHMEM_CMP_EQ, 0) == SIZE_MAX,
                          "test_any of nothing"));
    EXPECT_OK(TEST_ASSERT(shmem_long_wait_until_any(iv, 3, status, SHMEM_CMP_EQ, 0) == SIZE_MAX,
                          "wait_until_any of excluded elements"));
    EXPECT_OK(TEST_ASSERT(shmem_long_test(iv, SHMEM_CMP_EQ, 1000 + W_IVARS) == 1,
                          "test of an unchanged ivar"));
}

static void locks(long *sym)
{
    long stack = 11;
    long *mis = (long *)(void *)((char *)&sym[W_LOCK] + 4);

    EXPECT_ERR(shmem_set_lock(&stack), INVAL, "shmem_set_lock", "lock");
    EXPECT_ERR(shmem_set_lock(mis), INVAL, "shmem_set_lock", "aligned");
    EXPECT_VAL(shmem_test_lock(&stack), 1, INVAL, "shmem_test_lock", "lock");
    EXPECT_ERR(shmem_clear_lock(&stack), INVAL, "shmem_clear_lock", "lock");
    TEST_CHECK("a stack lock", 0, 11, stack);
    /* The lock is free: clearing it is an error, and changes nothing.
     * Without AMOs through the provider the locks are not supported. */
    if (test_amo_unavailable())
        EXPECT_ERR(shmem_clear_lock(&sym[W_LOCK]), SHMEMX_ERROR_NOT_SUPPORTED, "shmem_clear_lock",
                   "atomics");
    else
        EXPECT_ERR(shmem_clear_lock(&sym[W_LOCK]), INVAL, "shmem_clear_lock", "not held");
}

static void ordering(void)
{
    int pes[2] = { 0, test_npes };

    /* OpenSHMEM 1.6: on SHMEM_CTX_INVALID no operation is performed. */
    EXPECT_OK(shmem_ctx_quiet(SHMEM_CTX_INVALID));
    EXPECT_OK(shmem_ctx_fence(SHMEM_CTX_INVALID));
    EXPECT_ERR(shmem_pe_quiet(pes, 2), INVAL, "shmem_pe_quiet", "target_pes[1]");
    pes[1] = -1;
    EXPECT_ERR(shmem_pe_quiet(pes, 2), INVAL, "shmem_pe_quiet", "target_pes[1]");
    EXPECT_ERR(shmem_pe_quiet(NULL, 2), INVAL, "shmem_pe_quiet", "target_pes");
    EXPECT_OK(shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, pes, 1));
    EXPECT_OK(shmem_pe_quiet(NULL, 0));
    EXPECT_OK(shmem_pe_quiet(pes, 1));
}

static void contexts(long *sym, int next)
{
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT, tctx = SHMEM_CTX_DEFAULT;
    shmem_team_t t = SHMEM_TEAM_WORLD, one;
    shmem_ctx_session_config_t conf;
    int pes[1] = { 1 };

    memset(&conf, 0, sizeof(conf));
    EXPECT_VAL(shmem_ctx_create(1L << 20, &ctx), INVAL, INVAL, "shmem_ctx_create", "options");
    TEST_ASSERT(ctx == SHMEM_CTX_INVALID, "a refused context is not SHMEM_CTX_INVALID");
    EXPECT_VAL(shmem_ctx_create(0, NULL), INVAL, INVAL, "shmem_ctx_create", "ctx");
    EXPECT_VAL(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx), INVAL, INVAL,
               "shmem_team_create_ctx", "team");
    EXPECT_VAL(shmem_team_create_ctx(SHMEM_TEAM_WORLD, 1L << 20, &ctx), INVAL, INVAL,
               "shmem_team_create_ctx", "options");
    EXPECT_VAL(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t), INVAL, INVAL, "shmem_ctx_get_team",
               "ctx");
    TEST_ASSERT(t == SHMEM_TEAM_INVALID, "shmem_ctx_get_team of an invalid context");
    EXPECT_VAL(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, NULL), INVAL, INVAL, "shmem_ctx_get_team",
               "team");
    EXPECT_ERR(shmem_ctx_destroy(SHMEM_CTX_DEFAULT), INVAL, "shmem_ctx_destroy", "ctx");
    EXPECT_ERR(shmem_ctx_session_start(SHMEM_CTX_DEFAULT, 0, NULL, 1), INVAL,
               "shmem_ctx_session_start", "config");
    EXPECT_OK(shmem_ctx_session_start(SHMEM_CTX_DEFAULT, 0, &conf, 0));
    EXPECT_OK(shmem_ctx_session_stop(SHMEM_CTX_DEFAULT));
    EXPECT_OK(shmem_ctx_destroy(SHMEM_CTX_INVALID));

    /* A team of PE 0 alone: its context knows one PE. */
    (void)shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &one);
    if (test_me == 0) {
        EXPECT_SUCCESS(shmem_team_create_ctx(one, 0, &tctx));
        EXPECT_ERR(shmem_ctx_pe_quiet(tctx, pes, 1), INVAL, "shmem_ctx_pe_quiet",
                   "context's team");
        EXPECT_ERR(shmem_ctx_long_atomic_inc(tctx, &sym[W_AMO], 1), INVAL,
                   "shmem_ctx_long_atomic_inc", "pe");
        EXPECT_SUCCESS(shmem_ctx_get_team(tctx, &t));
        TEST_ASSERT(t == one, "shmem_ctx_get_team gave another team");
        shmem_ctx_destroy(tctx);
        shmem_team_destroy(one);
    } else {
        TEST_ASSERT(one == SHMEM_TEAM_INVALID, "PE %d is in a team of PE 0 alone", test_me);
        EXPECT_VAL(shmem_team_create_ctx(one, 0, &tctx), INVAL, INVAL, "shmem_team_create_ctx",
                   "team");
        TEST_ASSERT(tctx == SHMEM_CTX_INVALID, "a refused team context is not invalid");
    }

    /* A valid context still works: a put through it, completed by its
     * quiet, then destroyed. */
    EXPECT_SUCCESS(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx));
    EXPECT_ERR(shmem_ctx_long_p(ctx, &sym[W_PUT], 1, test_npes), INVAL, "shmem_ctx_long_p", "pe");
    EXPECT_OK(shmem_ctx_long_p(ctx, &sym[W_CTX], test_me, next));
    EXPECT_OK(shmem_ctx_quiet(ctx));
    EXPECT_OK(shmem_ctx_destroy(ctx));
}

/* After all that, the job works: a barrier, a put, an AMO, a put with
 * signal and a lock round, every value checked on every PE. */
static void still_working(long *sym, int next)
{
    int prev = (test_me + test_npes - 1) % test_npes, i;
    long v[4];
    uint64_t *sig = (uint64_t *)(void *)&sym[W_SIG];

    shmem_barrier_all();
    check_untouched(sym, "a word after the refused calls");
    TEST_CHECK("the lock word after the refused calls", 0, 0, sym[W_LOCK]);
    TEST_CHECK("the put of a valid context beside refused calls", 0, prev, sym[W_CTX]);
    shmem_barrier_all();

    for (i = 0; i < 4; i++)
        v[i] = test_val(test_me, (size_t)i, 1);
    shmem_long_put(&sym[W_PUT], v, 4, next);
    /* A SET signal needs no provider atomics. */
    shmem_long_put_signal(&sym[W_DATA], v, 4, sig, 5, SHMEM_SIGNAL_SET, next);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 5);
    for (i = 0; i < 4; i++)
        TEST_CHECK("put with signal after the refused calls", i, test_val(prev, (size_t)i, 1),
                   sym[W_DATA + i]);
    if (!test_amo_unavailable()) {
        shmem_long_atomic_add(&sym[W_AMO], test_me + 1, next);
        for (i = 0; i < 10; i++) {
            shmem_set_lock(&sym[W_LOCK]);
            shmem_long_atomic_inc(&sym[W_COUNT], 0);
            shmem_clear_lock(&sym[W_LOCK]);
        }
    }
    shmem_barrier_all();
    for (i = 0; i < 4; i++)
        TEST_CHECK("put after the refused calls", i, test_val(prev, (size_t)i, 1),
                   sym[W_PUT + i]);
    if (!test_amo_unavailable()) {
        TEST_CHECK("AMO after the refused calls", 0, 1000 + W_AMO + prev + 1, sym[W_AMO]);
        if (test_me == 0)
            TEST_CHECK("lock rounds after the refused calls", 0, 10L * test_npes,
                       sym[W_COUNT]);
    } else {
        test_note("no AMOs through this provider (FABSHMEM_OFI_AMO): AMO and lock rounds left "
                  "out");
    }
}

int main(void)
{
    long *sym;
    int next, i;

    test_init("errors_return");
    next = (test_me + 1) % test_npes;
    TEST_ASSERT(shmemx_set_error_mode(SHMEMX_ERRORS_RETURN) == SHMEMX_ERRORS_ABORT,
                "the error mode was not SHMEMX_ERRORS_ABORT");
    sym = shmem_malloc(W_N * sizeof(long));
    TEST_ASSERT(sym, "shmem_malloc failed");
    for (i = 0; i < W_N; i++)
        sym[i] = 1000 + i;
    sym[W_LOCK] = 0;
    sym[W_COUNT] = 0;
    sym[W_CTX] = -1;
    shmem_barrier_all();

    amos(sym, next);
    signals(sym, next);
    waits(sym);
    locks(sym);
    ordering();
    contexts(sym, next);
    still_working(sym, next);

    shmem_free(sym);
    TEST_ASSERT(shmemx_set_error_mode(SHMEMX_ERRORS_ABORT) == SHMEMX_ERRORS_RETURN,
                "the error mode changed");
    return test_finish();
}
