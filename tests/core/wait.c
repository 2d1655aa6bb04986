/*
 * wait: the point-to-point synchronization routines for every type of the
 * point-to-point list: wait_until, wait_until_all/any/some and their
 * vector forms, test, test_all/any/some and their vector forms, every
 * comparison operator, status masks, the C11 generic forms, and the
 * deprecated waits.  Each PE waits on its own ivars while the previous PE
 * sets them with shmem_TYPE_p and quiet, in steps separated by barriers;
 * the updater sleeps a little first, so the waiter really waits.
 *
 * Then waits that have gone to sleep (asleep_*): the updater sleeps 60 ms
 * first, so that the waiter, past its spin and yields, naps (and, where
 * the node's PEs map each other's heaps, sleeps on its doorbell, which the
 * direct path's writes ring): a stream of puts of a block then the word
 * awaited, by shmem_p, an AMO, a put with signal, a signal add and a
 * strided put, each awaited by another form (wait_until, _any, _all_vector,
 * _some, signal_wait_until); every value of the block is checked, so a
 * waiter woken before the data it waits for is visible fails.
 *
 * Last, polls of the PE's own words by calls that do not wait (shmem_g,
 * an atomic fetch, shmem_signal_fetch, a compare_swap) while the previous
 * PE puts into them:
 * without the progress thread those calls must drive the provider now
 * and then, or a put that needs this PE's progress never lands.
 */
#include "common.h"

#define NV 8

#define P2P_TYPES(X)                                                                     \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)                     \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)              \
    X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)                 \
    X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

static void *area;     /* NV elements of the largest type */
static int next_pe, prev_pe;
static long sleep_us = 1000;

static void nap(void)
{
    struct timespec ts = { 0, sleep_us * 1000 };

    nanosleep(&ts, NULL);
}

#define CHECK_EQ(what, T, expected, got)                                                 \
    do {                                                                                 \
        long long e_ = (long long)(expected), g_ = (long long)(got);                     \
        if (e_ != g_)                                                                    \
            test_fail("%s (%s): expected %lld, got %lld (updates from PE %d)", (what),   \
                      #T, e_, g_, prev_pe);                                              \
    } while (0)

#define DEFINE_WAIT(T, N)                                                                \
    static void wait_##N(void)                                                           \
    {                                                                                    \
        T *iv = (T *)area;                                                               \
        T cv[NV];                                                                        \
        size_t idx[NV], r, i;                                                            \
        int st[NV], none[NV], op;                                                        \
                                                                                         \
        memset(area, 0, NV * sizeof(T));                                                 \
        shmem_barrier_all();                                                             \
        /* Step 1: ivars[5] = 5. */                                                      \
        nap();                                                                           \
        shmem_##N##_p(&iv[5], 5, next_pe);                                               \
        shmem_quiet();                                                                   \
        r = shmem_##N##_wait_until_any(iv, NV, NULL, SHMEM_CMP_NE, 0);                   \
        CHECK_EQ("shmem_" #N "_wait_until_any NE 0", T, 5, r);                           \
        shmem_##N##_wait_until(&iv[5], SHMEM_CMP_GE, 5);                                 \
        CHECK_EQ("shmem_" #N "_wait_until GE 5: value", T, 5, iv[5]);                    \
        for (i = 0; i < NV; i++)                                                         \
            st[i] = i == 5;                                                              \
        r = shmem_##N##_test_any(iv, NV, st, SHMEM_CMP_NE, 0);                           \
        CHECK_EQ("shmem_" #N "_test_any NE 0 with index 5 excluded", T, SIZE_MAX, r);    \
        CHECK_EQ("shmem_" #N "_test EQ 5 on index 5", T, 1,                              \
                 shmem_##N##_test(&iv[5], SHMEM_CMP_EQ, 5));                             \
        CHECK_EQ("shmem_" #N "_test EQ 5 on index 4", T, 0,                              \
                 shmem_##N##_test(&iv[4], SHMEM_CMP_EQ, 5));                             \
        shmem_barrier_all();                                                             \
                                                                                         \
        /* Step 2: ivars[2] = 2, ivars[6] = 6. */                                        \
        nap();                                                                           \
        shmem_##N##_p(&iv[2], 2, next_pe);                                               \
        shmem_##N##_p(&iv[6], 6, next_pe);                                               \
        shmem_quiet();                                                                   \
        for (i = 0; i < NV; i++)                                                         \
            st[i] = !(i == 2 || i == 5 || i == 6);                                       \
        shmem_##N##_wait_until_all(iv, NV, st, SHMEM_CMP_GT, 0);                         \
        for (i = 0; i < NV; i++)                                                         \
            st[i] = i == 5;                                                              \
        r = shmem_##N##_wait_until_some(iv, NV, idx, st, SHMEM_CMP_NE, 0);               \
        CHECK_EQ("shmem_" #N "_wait_until_some NE 0 (5 excluded): count", T, 2, r);      \
        CHECK_EQ("shmem_" #N "_wait_until_some NE 0: indices[0]", T, 2, idx[0]);         \
        CHECK_EQ("shmem_" #N "_wait_until_some NE 0: indices[1]", T, 6, idx[1]);         \
        r = shmem_##N##_test_some(iv, NV, idx, NULL, SHMEM_CMP_GT, 2);                   \
        CHECK_EQ("shmem_" #N "_test_some GT 2: count", T, 2, r);                         \
        CHECK_EQ("shmem_" #N "_test_some GT 2: indices[1]", T, 6, idx[1]);               \
        for (i = 0; i < NV; i++)                                                         \
            cv[i] = (T)i;                                                                \
        r = shmem_##N##_test_some_vector(iv, NV, idx, NULL, SHMEM_CMP_EQ, cv);           \
        CHECK_EQ("shmem_" #N "_test_some_vector EQ i: count", T, 4, r);                  \
        CHECK_EQ("shmem_" #N "_test_some_vector EQ i: indices[3]", T, 6, idx[3]);        \
        st[5] = 0;                                                                       \
        st[0] = 1;                                                                       \
        r = shmem_##N##_test_some_vector(iv, NV, idx, st, SHMEM_CMP_EQ, cv);             \
        CHECK_EQ("shmem_" #N "_test_some_vector EQ i (0 excluded): count", T, 3, r);     \
        r = shmem_##N##_wait_until_any_vector(iv, NV, st, SHMEM_CMP_EQ, cv);             \
        CHECK_EQ("shmem_" #N "_wait_until_any_vector EQ i (0 excluded)", T, 2, r);       \
        r = shmem_##N##_test_any_vector(iv, NV, st, SHMEM_CMP_GT, cv);                   \
        CHECK_EQ("shmem_" #N "_test_any_vector GT i", T, SIZE_MAX, r);                   \
        for (i = 0; i < NV; i++)                                                         \
            cv[i] = iv[i];                                                               \
        shmem_##N##_wait_until_all_vector(iv, NV, NULL, SHMEM_CMP_GE, cv);               \
        CHECK_EQ("shmem_" #N "_test_all_vector LE", T, 1,                                \
                 shmem_##N##_test_all_vector(iv, NV, NULL, SHMEM_CMP_LE, cv));           \
        cv[6] = 5;                                                                       \
        CHECK_EQ("shmem_" #N "_test_all_vector EQ with one differing", T, 0,             \
                 shmem_##N##_test_all_vector(iv, NV, NULL, SHMEM_CMP_EQ, cv));           \
        r = shmem_##N##_wait_until_some_vector(iv, NV, idx, NULL, SHMEM_CMP_NE, cv);     \
        CHECK_EQ("shmem_" #N "_wait_until_some_vector NE: count", T, 1, r);              \
        CHECK_EQ("shmem_" #N "_wait_until_some_vector NE: index", T, 6, idx[0]);         \
        CHECK_EQ("shmem_" #N "_test_all GE 0", T, 1,                                     \
                 shmem_##N##_test_all(iv, NV, NULL, SHMEM_CMP_GE, 0));                   \
        CHECK_EQ("shmem_" #N "_test_all GT 0", T, 0,                                     \
                 shmem_##N##_test_all(iv, NV, NULL, SHMEM_CMP_GT, 0));                   \
        /* Every element excluded, and nelems 0. */                                      \
        for (i = 0; i < NV; i++)                                                         \
            none[i] = 1;                                                                 \
        CHECK_EQ("shmem_" #N "_wait_until_any, all excluded", T, SIZE_MAX,               \
                 shmem_##N##_wait_until_any(iv, NV, none, SHMEM_CMP_EQ, 99));            \
        CHECK_EQ("shmem_" #N "_wait_until_some, all excluded", T, 0,                     \
                 shmem_##N##_wait_until_some(iv, NV, idx, none, SHMEM_CMP_EQ, 99));      \
        shmem_##N##_wait_until_all(iv, NV, none, SHMEM_CMP_EQ, 99);                      \
        shmem_##N##_wait_until_all(iv, 0, NULL, SHMEM_CMP_EQ, 99);                       \
        CHECK_EQ("shmem_" #N "_test_all, all excluded", T, 1,                            \
                 shmem_##N##_test_all(iv, NV, none, SHMEM_CMP_EQ, 99));                  \
        CHECK_EQ("shmem_" #N "_test_any, nelems 0", T, SIZE_MAX,                         \
                 shmem_##N##_test_any(iv, 0, NULL, SHMEM_CMP_EQ, 0));                    \
        CHECK_EQ("shmem_" #N "_test_some, all excluded", T, 0,                           \
                 shmem_##N##_test_some(iv, NV, idx, none, SHMEM_CMP_EQ, 0));             \
        /* Every operator on ivars[6] == 6 against 5, 6 and 7. */                        \
        for (op = SHMEM_CMP_EQ; op <= SHMEM_CMP_LE; op++)                                \
            for (i = 5; i <= 7; i++) {                                                   \
                int e = op == SHMEM_CMP_EQ ? 6 == i : op == SHMEM_CMP_NE ? 6 != i :      \
                        op == SHMEM_CMP_GT ? 6 > i : op == SHMEM_CMP_GE ? 6 >= i :       \
                        op == SHMEM_CMP_LT ? 6 < i : 6 <= i;                             \
                int g = shmem_##N##_test(&iv[6], op, (T)i);                              \
                if (e != g)                                                              \
                    test_fail("shmem_" #N "_test (%s): cmp %d, 6 against %zu: "          \
                              "expected %d, got %d", #T, op, i, e, g);                   \
                if (e)                                                                   \
                    shmem_##N##_wait_until(&iv[6], op, (T)i);                            \
            }                                                                            \
        shmem_barrier_all();                                                             \
                                                                                         \
        /* Step 3: every element set to 100 + i, one at a time (generic forms). */       \
        for (i = 0; i < NV; i++) {                                                       \
            shmem_p(&iv[i], (T)(100 + i), next_pe);                                      \
            shmem_quiet();                                                               \
            if (i % 3 == 0)                                                              \
                nap();                                                                   \
        }                                                                                \
        shmem_wait_until_all(iv, NV, NULL, SHMEM_CMP_GE, (T)100);                        \
        for (i = 0; i < NV; i++)                                                         \
            CHECK_EQ("shmem_wait_until_all (generic) GE 100: element", T, 100 + i, iv[i]); \
        for (i = 0; i < NV; i++)                                                         \
            cv[i] = (T)(100 + i);                                                        \
        shmem_wait_until_all_vector(iv, NV, NULL, SHMEM_CMP_EQ, cv);                     \
        r = shmem_wait_until_some_vector(iv, NV, idx, NULL, SHMEM_CMP_GE, cv);           \
        CHECK_EQ("shmem_wait_until_some_vector (generic) GE: count", T, NV, r);          \
        CHECK_EQ("shmem_test (generic) EQ", T, 1, shmem_test(&iv[7], SHMEM_CMP_EQ, (T)107)); \
        CHECK_EQ("shmem_test_all (generic)", T, 1,                                       \
                 shmem_test_all(iv, NV, NULL, SHMEM_CMP_LT, (T)108));                    \
        CHECK_EQ("shmem_test_any (generic)", T, 4,                                       \
                 shmem_test_any(iv, NV, NULL, SHMEM_CMP_EQ, (T)104));                    \
        CHECK_EQ("shmem_test_any_vector (generic)", T, 0,                                \
                 shmem_test_any_vector(iv, NV, NULL, SHMEM_CMP_EQ, cv));                 \
        CHECK_EQ("shmem_test_all_vector (generic)", T, 1,                                \
                 shmem_test_all_vector(iv, NV, NULL, SHMEM_CMP_EQ, cv));                 \
        CHECK_EQ("shmem_test_some (generic)", T, 2,                                      \
                 shmem_test_some(iv, NV, idx, NULL, SHMEM_CMP_GT, (T)105));              \
        shmem_barrier_all();                                                             \
                                                                                         \
        /* Step 4: ivars[3] drops to 50. */                                              \
        nap();                                                                           \
        shmem_##N##_p(&iv[3], 50, next_pe);                                              \
        shmem_quiet();                                                                   \
        shmem_wait_until(&iv[3], SHMEM_CMP_LT, (T)100);                                  \
        r = shmem_wait_until_any(iv, NV, NULL, SHMEM_CMP_LE, (T)50);                     \
        CHECK_EQ("shmem_wait_until_any (generic) LE 50", T, 3, r);                       \
        r = shmem_wait_until_some(iv, NV, idx, NULL, SHMEM_CMP_GT, (T)50);               \
        CHECK_EQ("shmem_wait_until_some (generic) GT 50: count", T, NV - 1, r);          \
        r = shmem_wait_until_any_vector(iv, NV, NULL, SHMEM_CMP_LT, cv);                 \
        CHECK_EQ("shmem_wait_until_any_vector (generic) LT", T, 3, r);                   \
        shmem_barrier_all();                                                             \
    }
P2P_TYPES(DEFINE_WAIT)

/* The deprecated waits: until the value differs from cmp_value. */
#define DEFINE_OLD(T, N)                                                                 \
    static void old_##N(void)                                                            \
    {                                                                                    \
        T *iv = (T *)area;                                                               \
        memset(area, 0, NV * sizeof(T));                                                 \
        shmem_barrier_all();                                                             \
        nap();                                                                           \
        shmem_##N##_p(iv, 9, next_pe);                                                   \
        shmem_quiet();                                                                   \
        shmem_##N##_wait(iv, 0);                                                         \
        CHECK_EQ("shmem_" #N "_wait", T, 9, *iv);                                        \
        shmem_barrier_all();                                                             \
    }
DEFINE_OLD(short, short)
DEFINE_OLD(int, int)
DEFINE_OLD(long, long)
DEFINE_OLD(long long, longlong)

/* Waits asleep: see the head of the file.  blk holds NB longs of data,
 * then the words awaited (flag, flags[NV], sig). */
#define NB 512
static void long_nap(void)
{
    struct timespec ts = { 0, 60 * 1000 * 1000 };

    nanosleep(&ts, NULL);
}

static void check_block(const long *blk, long round, const char *what)
{
    for (int i = 0; i < NB; i++)
        if (blk[i] != round * 1000 + i)
            test_fail("%s: a wait asleep, round %ld: block[%d] = %ld, expected %ld (from PE %d)",
                      what, round, i, blk[i], round * 1000 + i, prev_pe);
}

static void asleep_waits(void)
{
    long *blk = shmem_calloc(NB + 2 + NV, sizeof(long)), *flag, *flags, src[NB];
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    long round, cv[NV];
    size_t idx[NV], r;

    TEST_ASSERT(blk && sig, "allocation failed");
    flag = blk + NB;
    flags = flag + 1;
    shmem_barrier_all();
    for (round = 1; round <= 6; round++) {
        for (int i = 0; i < NB; i++)
            src[i] = round * 1000 + i;
        long_nap();
        /* The block in 64 puts (each a write into a sleeping PE), then the
         * word awaited. */
        for (int i = 0; i < NB; i += NB / 64)
            shmem_long_put(blk + i, src + i, NB / 64, next_pe);
        switch (round) {
        case 1:
            shmem_fence();
            shmem_long_p(flag, round, next_pe);
            shmem_long_wait_until(flag, SHMEM_CMP_EQ, round);
            check_block(blk, round, "shmem_long_p / shmem_long_wait_until");
            break;
        case 2:
            shmem_fence();
            shmem_long_atomic_add(&flags[3], round, next_pe);
            r = shmem_long_wait_until_any(flags, NV, NULL, SHMEM_CMP_NE, 0);
            CHECK_EQ("shmem_long_atomic_add / shmem_long_wait_until_any asleep", long, 3, r);
            check_block(blk, round, "shmem_long_atomic_add / shmem_long_wait_until_any");
            break;
        case 3:
            shmem_fence();
            for (int i = 0; i < NV; i++)
                cv[i] = i == 3 ? 2 : round;
            shmem_long_iput(flags, cv, 1, 1, NV, next_pe);
            shmem_long_wait_until_all_vector(flags, NV, NULL, SHMEM_CMP_EQ, cv);
            check_block(blk, round, "shmem_long_iput / shmem_long_wait_until_all_vector");
            break;
        case 4:
            shmem_fence();
            shmem_long_atomic_set(&flags[6], 100, next_pe);
            r = shmem_long_wait_until_some(flags, NV, idx, NULL, SHMEM_CMP_GT, round);
            CHECK_EQ("shmem_long_atomic_set / shmem_long_wait_until_some asleep: count", long,
                     1, r);
            CHECK_EQ("shmem_long_atomic_set / shmem_long_wait_until_some asleep: index", long,
                     6, idx[0]);
            check_block(blk, round, "shmem_long_atomic_set / shmem_long_wait_until_some");
            break;
        case 5:
            shmem_long_put_signal(flag, &round, 1, sig, (uint64_t)round, SHMEM_SIGNAL_SET,
                                  next_pe);
            CHECK_EQ("shmem_long_put_signal / shmem_signal_wait_until asleep", long, round,
                     shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)round));
            CHECK_EQ("shmem_long_put_signal: the data", long, round, *flag);
            check_block(blk, round, "shmem_long_put_signal / shmem_signal_wait_until");
            break;
        default:
            shmem_fence();
            shmem_signal_add(sig, 1, next_pe);
            CHECK_EQ("shmem_signal_add / shmem_signal_wait_until asleep", long, 6,
                     shmem_signal_wait_until(sig, SHMEM_CMP_GE, 6));
            check_block(blk, round, "shmem_signal_add / shmem_signal_wait_until");
            break;
        }
        shmem_barrier_all();
    }
    shmem_free(sig);
    shmem_free(blk);
}

/* The previous PE's p, then an AMO, a signal and a put of 8 bytes: each awaited
 * here by a loop of calls that return at once. */
static void own_polls(void)
{
    long *w = shmem_calloc(3, sizeof(long));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    long v;

    TEST_ASSERT(w != NULL && sig != NULL, "allocation failed");
    shmem_barrier_all();
    nap();
    shmem_long_p(&w[0], 1, next_pe);
    while (shmem_long_g(&w[0], test_me) != 1)
        ;
    shmem_long_atomic_set(&w[1], 2, next_pe);
    while (shmem_long_atomic_fetch(&w[1], test_me) != 2)
        ;
    shmem_signal_set(sig, 5, next_pe);
    while (shmem_signal_fetch(sig) != 5)
        ;
    v = 3;
    shmem_long_put(&w[2], &v, 1, next_pe);
    while (shmem_long_atomic_compare_swap(&w[2], 3, 4, test_me) != 3)
        ;
    CHECK_EQ("a compare_swap after polling a put", long, 4, w[2]);
    shmem_barrier_all();
    shmem_free(sig);
    shmem_free(w);
}

int main(void)
{
    const char *prov = getenv("FABSHMEM_PROVIDER");
    long *lp;

    test_init("wait");
    if (prov && !strcmp(prov, "sockets"))
        sleep_us = 100;
    next_pe = (test_me + 1) % test_npes;
    prev_pe = (test_me + test_npes - 1) % test_npes;
    area = shmem_calloc(NV, 8);
    TEST_ASSERT(area != NULL, "allocation failed");
    shmem_barrier_all();

#define RUN(T, N) wait_##N();
    P2P_TYPES(RUN)
#undef RUN
    test_note("wait_until/test families (all, any, some, vector, generic) for 14 types: ok");

    old_short();
    old_int();
    old_long();
    old_longlong();
    lp = (long *)area;
    memset(area, 0, NV * 8);
    shmem_barrier_all();
    nap();
    shmem_long_p(lp, 3, next_pe);
    shmem_quiet();
    shmem_wait(lp, 0);
    (shmem_wait_until)(lp, SHMEM_CMP_EQ, 3);
    CHECK_EQ("shmem_wait / shmem_wait_until (deprecated)", long, 3, *lp);
    shmem_barrier_all();
    test_note("deprecated waits: ok");
    asleep_waits();
    test_note("waits asleep, woken by p, AMOs, strided puts, put with signal, signal add: ok");
    own_polls();
    test_note("own words polled by g, atomic fetch, signal_fetch and compare_swap while the "
              "previous PE puts: ok");
    return test_finish();
}
