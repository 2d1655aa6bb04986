/*
 * wait: the point-to-point synchronization routines for every type of the
 * point-to-point list: wait_until, wait_until_all/any/some and their
 * vector forms, test, test_all/any/some and their vector forms, every
 * comparison operator, status masks, the C11 generic forms, and the
 * deprecated waits.  Each PE waits on its own ivars while the previous PE
 * sets them with shmem_TYPE_p and quiet, in steps separated by barriers;
 * the updater sleeps a little first, so the waiter really waits.
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
    return test_finish();
}
