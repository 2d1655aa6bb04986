/*
 * generic: the C11 _Generic forms shmem_put/get/p/g/iput/iget/put_nbi/
 * get_nbi (and the ctx-first forms of put and get) for several types, with
 * the values checked on every PE.
 */
#include "common.h"

#define N 64

static int salt_counter;

#define GENERIC_TYPES(X)                                                           \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)  \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned int, uint)           \
    X(unsigned long, ulong) X(float, float) X(double, double)                      \
    X(long double, longdouble) X(int32_t, int32) X(uint64_t, uint64)               \
    X(size_t, size) X(ptrdiff_t, ptrdiff)

#define CHECK_ARRAY(what, arr, n, pe, salt, stride)                                \
    do {                                                                           \
        size_t i_;                                                                 \
        for (i_ = 0; i_ < (n); i_++) {                                             \
            long double e_ = (i_ % (stride) == 0)                                  \
                ? (long double)test_val((pe), i_ / (stride), (salt)) : 0;           \
            if ((long double)(arr)[i_] != e_)                                      \
                test_fail("%s: with PE %d: index %zu: expected %.0Lf, got %.0Lf",   \
                          (what), (pe), i_, e_, (long double)(arr)[i_]);           \
        }                                                                          \
    } while (0)

#define DEFINE_GENERIC(T, NAME)                                                    \
    static void generic_##NAME(T *sym)                                             \
    {                                                                              \
        T loc[2 * N];                                                              \
        int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes; \
        int salt;                                                                  \
        size_t i;                                                                  \
                                                                                   \
        /* shmem_put */                                                            \
        salt = ++salt_counter;                                                     \
        for (i = 0; i < N; i++)                                                    \
            loc[i] = (T)test_val(test_me, i, salt);                                \
        memset(sym, 0, 2 * N * sizeof(T));                                         \
        shmem_barrier_all();                                                       \
        shmem_put(sym, loc, N, next);                                              \
        shmem_barrier_all();                                                       \
        CHECK_ARRAY("shmem_put (" #T ")", sym, N, prev, salt, 1);                   \
        /* shmem_get */                                                            \
        memset(loc, 0, sizeof(loc));                                               \
        shmem_get(loc, sym, N, next);                                              \
        CHECK_ARRAY("shmem_get (" #T ")", loc, N, test_me, salt, 1);                \
        shmem_barrier_all();                                                       \
        /* ctx-first shmem_put and shmem_get */                                    \
        salt = ++salt_counter;                                                     \
        for (i = 0; i < N; i++)                                                    \
            loc[i] = (T)test_val(test_me, i, salt);                                \
        shmem_put(SHMEM_CTX_DEFAULT, sym, loc, N, next);                           \
        shmem_barrier_all();                                                       \
        CHECK_ARRAY("shmem_put(ctx) (" #T ")", sym, N, prev, salt, 1);              \
        memset(loc, 0, sizeof(loc));                                               \
        shmem_get(SHMEM_CTX_DEFAULT, loc, sym, N, next);                           \
        CHECK_ARRAY("shmem_get(ctx) (" #T ")", loc, N, test_me, salt, 1);           \
        shmem_barrier_all();                                                       \
        /* shmem_p and shmem_g */                                                  \
        salt = ++salt_counter;                                                     \
        for (i = 0; i < 5; i++)                                                    \
            shmem_p(&sym[i], (T)test_val(test_me, i, salt), next);                 \
        shmem_barrier_all();                                                       \
        CHECK_ARRAY("shmem_p (" #T ")", sym, 5, prev, salt, 1);                     \
        for (i = 0; i < 5; i++) {                                                  \
            T v = shmem_g(&sym[i], next);                                          \
            if ((long double)v != (long double)(T)test_val(test_me, i, salt))      \
                test_fail("shmem_g (" #T "): from PE %d: index %zu: expected %lld, got %.0Lf", \
                          next, i, test_val(test_me, i, salt), (long double)v);    \
        }                                                                          \
        shmem_barrier_all();                                                       \
        /* shmem_iput (dst 2, sst 1) and shmem_iget (dst 2, sst 2) */              \
        salt = ++salt_counter;                                                     \
        for (i = 0; i < N; i++)                                                    \
            loc[i] = (T)test_val(test_me, i, salt);                                \
        memset(sym, 0, 2 * N * sizeof(T));                                         \
        shmem_barrier_all();                                                       \
        shmem_iput(sym, loc, 2, 1, N, next);                                       \
        shmem_barrier_all();                                                       \
        CHECK_ARRAY("shmem_iput (" #T ")", sym, 2 * N, prev, salt, 2);              \
        memset(loc, 0, sizeof(loc));                                               \
        shmem_iget(loc, sym, 2, 2, N, next);                                       \
        CHECK_ARRAY("shmem_iget (" #T ")", loc, 2 * N, test_me, salt, 2);           \
        shmem_barrier_all();                                                       \
        /* shmem_put_nbi and shmem_get_nbi */                                      \
        salt = ++salt_counter;                                                     \
        for (i = 0; i < N; i++)                                                    \
            loc[i] = (T)test_val(test_me, i, salt);                                \
        shmem_put_nbi(sym, loc, N, next);                                          \
        shmem_quiet();                                                             \
        shmem_barrier_all();                                                       \
        CHECK_ARRAY("shmem_put_nbi (" #T ")", sym, N, prev, salt, 1);               \
        memset(loc, 0, sizeof(loc));                                               \
        shmem_get_nbi(loc, sym, N, next);                                          \
        shmem_quiet();                                                             \
        CHECK_ARRAY("shmem_get_nbi (" #T ")", loc, N, test_me, salt, 1);            \
        shmem_barrier_all();                                                       \
    }
GENERIC_TYPES(DEFINE_GENERIC)

int main(void)
{
    void *sym;

    test_init("generic");
    sym = shmem_malloc(2 * N * 16);
    TEST_ASSERT(sym != NULL, "shmem_malloc returned NULL");
#define RUN_GENERIC(T, NAME) generic_##NAME(sym);
    GENERIC_TYPES(RUN_GENERIC)
    test_note("C11 generic put/get/p/g/iput/iget/put_nbi/get_nbi checked");
    shmem_barrier_all();
    shmem_free(sym);
    return test_finish();
}
