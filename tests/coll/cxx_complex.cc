/*
 * cxx_complex: a C++ program built with oshc++ (tests/coll/cxx_complex.sh)
 * that reduces complex arrays of both C++ spellings, checked on every PE
 * (issue 31): GNU C's double _Complex and float _Complex (the overloads of
 * shmem.h and shmemx.h under GNU C++) and std::complex<double> and
 * std::complex<float> (the declarations of the C routines).  For each:
 * sum and prod over SHMEM_TEAM_WORLD, the 1.6 sum_inscan and sum_exscan,
 * the deprecated sum_to_all and prod_to_all over every PE, and
 * shmemx_<T>_sum_reducescatter; every element against the value computed
 * here from every PE's input (Gaussian integers, exact in float too).
 */
#include "common.h"
#include <shmemx.h>
#include <complex>

enum { N = 5 };

typedef double _Complex gnu_cd;
typedef float _Complex gnu_cf;

/* Reading and writing the parts of both spellings. */
static void set(gnu_cd &z, long long re, long long im) { __real__ z = re; __imag__ z = im; }
static void set(gnu_cf &z, long long re, long long im) { __real__ z = re; __imag__ z = im; }
template <typename R> static void set(std::complex<R> &z, long long re, long long im)
{
    z = std::complex<R>((R)re, (R)im);
}
static long double re_of(gnu_cd z) { return __real__ z; }
static long double im_of(gnu_cd z) { return __imag__ z; }
static long double re_of(gnu_cf z) { return __real__ z; }
static long double im_of(gnu_cf z) { return __imag__ z; }
template <typename R> static long double re_of(std::complex<R> z) { return z.real(); }
template <typename R> static long double im_of(std::complex<R> z) { return z.imag(); }

/* A Gaussian integer. */
struct gi {
    long long re, im;
};

/* PE pe's input at index i: for prod, small factors (1 to 3, 0 or 1). */
static gi input(int prod, int pe, size_t i, int salt)
{
    gi v = { test_val(pe, i, salt), test_val(pe, i, salt + 3) };

    if (prod) {
        v.re = 1 + v.re % 3;
        v.im %= 2;
    }
    return v;
}

/* The sum or product of the inputs of PEs lo to hi - 1 at index i. */
static gi combine(int prod, int lo, int hi, size_t i, int salt)
{
    gi acc = { prod ? 1 : 0, 0 };

    for (int pe = lo; pe < hi; pe++) {
        gi v = input(prod, pe, i, salt);
        if (prod)
            acc = gi{ acc.re * v.re - acc.im * v.im, acc.re * v.im + acc.im * v.re };
        else
            acc = gi{ acc.re + v.re, acc.im + v.im };
    }
    return acc;
}

template <typename Z>
static void check(const char *what, const Z *got, size_t n, int prod, int lo, int hi,
                  size_t i0, int salt)
{
    for (size_t i = 0; i < n; i++) {
        gi e = combine(prod, lo, hi, i0 + i, salt);
        if (re_of(got[i]) != e.re || im_of(got[i]) != e.im)
            test_fail("%s: index %zu: expected %lld%+lldi, got %.0Lf%+.0Lfi", what, i, e.re,
                      e.im, re_of(got[i]), im_of(got[i]));
    }
}

template <typename Z> static void fill(Z *src, size_t n, int prod, size_t i0, int salt)
{
    for (size_t i = 0; i < n; i++) {
        gi v = input(prod, test_me, i0 + i, salt);
        set(src[i], v.re, v.im);
    }
}

/* Every routine over element type Z, named TN (complexd, complexf); SP is
 * the spelling in the messages. */
#define CXX_COMPLEX_CASES(Z, TN, SP)                                                          \
    static void run_##TN##_##SP(int salt)                                                     \
    {                                                                                         \
        int n = test_npes, me = test_me;                                                      \
        Z *src = (Z *)shmem_malloc(sizeof(Z) * N * n);                                        \
        Z *dst = (Z *)shmem_malloc(sizeof(Z) * N * n);                                        \
        Z *wrk = (Z *)shmem_malloc(sizeof(Z) * (N > SHMEM_REDUCE_MIN_WRKDATA_SIZE               \
                                                    ? N : SHMEM_REDUCE_MIN_WRKDATA_SIZE));    \
        long *psync = (long *)shmem_malloc(sizeof(long) * SHMEM_REDUCE_SYNC_SIZE);            \
        TEST_ASSERT(src && dst && wrk && psync, "shmem_malloc");                              \
        for (int k = 0; k < SHMEM_REDUCE_SYNC_SIZE; k++)                                      \
            psync[k] = SHMEM_SYNC_VALUE;                                                      \
        for (int prod = 0; prod < 2; prod++) {                                                \
            const char *op = prod ? "prod" : "sum";                                           \
            char what[96];                                                                    \
            fill(src, N, prod, 0, salt);                                                      \
            shmem_barrier_all();                                                              \
            int rc = prod ? shmem_##TN##_prod_reduce(SHMEM_TEAM_WORLD, dst, src, N)           \
                          : shmem_##TN##_sum_reduce(SHMEM_TEAM_WORLD, dst, src, N);           \
            snprintf(what, sizeof(what), "shmem_" #TN "_%s_reduce (" #SP ")", op);            \
            TEST_ASSERT(rc == 0, "%s returned %d", what, rc);                                 \
            check(what, dst, N, prod, 0, n, 0, salt);                                         \
            shmem_barrier_all();                                                              \
            if (prod)                                                                         \
                shmem_##TN##_prod_to_all(dst, src, N, 0, 0, n, wrk, psync);                   \
            else                                                                              \
                shmem_##TN##_sum_to_all(dst, src, N, 0, 0, n, wrk, psync);                    \
            snprintf(what, sizeof(what), "shmem_" #TN "_%s_to_all (" #SP ")", op);            \
            check(what, dst, N, prod, 0, n, 0, salt);                                         \
            shmem_barrier_all();                                                              \
        }                                                                                     \
        /* The scans: PEs 0..me (inscan), 0..me-1 (exscan: 0 on PE 0). */                    \
        fill(src, N, 0, 0, salt + 1);                                                         \
        shmem_barrier_all();                                                                  \
        TEST_ASSERT(shmem_##TN##_sum_inscan(SHMEM_TEAM_WORLD, dst, src, N) == 0, "inscan");   \
        check("shmem_" #TN "_sum_inscan (" #SP ")", dst, N, 0, 0, me + 1, 0, salt + 1);       \
        shmem_barrier_all();                                                                  \
        TEST_ASSERT(shmem_##TN##_sum_exscan(SHMEM_TEAM_WORLD, dst, src, N) == 0, "exscan");   \
        if (me > 0)                                                                           \
            check("shmem_" #TN "_sum_exscan (" #SP ")", dst, N, 0, 0, me, 0, salt + 1);       \
        shmem_barrier_all();                                                                  \
        /* Reduce-scatter: block me of the sum of every PE's n * N elements. */               \
        fill(src, (size_t)N * n, 0, 0, salt + 2);                                             \
        shmem_barrier_all();                                                                  \
        TEST_ASSERT(shmemx_##TN##_sum_reducescatter(SHMEM_TEAM_WORLD, dst, src, N) == 0,      \
                    "reducescatter");                                                         \
        check("shmemx_" #TN "_sum_reducescatter (" #SP ")", dst, N, 0, 0, n, (size_t)me * N,  \
              salt + 2);                                                                      \
        shmem_barrier_all();                                                                  \
        shmem_free(psync);                                                                    \
        shmem_free(wrk);                                                                      \
        shmem_free(dst);                                                                      \
        shmem_free(src);                                                                      \
    }

CXX_COMPLEX_CASES(gnu_cd, complexd, gnu)
CXX_COMPLEX_CASES(gnu_cf, complexf, gnu)
CXX_COMPLEX_CASES(std::complex<double>, complexd, std)
CXX_COMPLEX_CASES(std::complex<float>, complexf, std)

int main(void)
{
    test_init("cxx_complex");
    run_complexd_gnu(1);
    run_complexf_gnu(11);
    run_complexd_std(21);
    run_complexf_std(31);
    test_note("double _Complex, float _Complex, std::complex<double>, std::complex<float>: "
              "sum, prod, inscan, exscan, to_all, reducescatter checked");
    return test_finish();
}
