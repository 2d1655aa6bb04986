/*
 * Point-to-point synchronization: the wait_until and test families
 * (single, all, any, some and their vector forms) over the point-to-point
 * types, and the deprecated waits.  One-line wrappers over the cores of
 * core/wait.h (src/core/wait.c), generated from fabshmem/types.def.
 *
 * The vector forms compare element i with cmp_values[i]: the cores take
 * the comparison values as a pointer and a stride (0 for the scalar forms,
 * 1 for the vector forms).  A routine that returns a value and failed
 * (SHMEMX_ERRORS_RETURN) returns what says "nothing": 0 for test,
 * test_all and the some forms, SIZE_MAX for the any forms.  The any forms
 * pass their call site (their return address) to the core, which returns
 * the satisfying indices in turn per call site.
 */
#include "api/api.h"

/* The core's result r when it succeeded (rc 0), else fail after the API's
 * error handling. */
static inline size_t result(int rc, size_t r, size_t fail)
{
    if (SHMEMI_UNLIKELY(rc)) {
        shmemi_api_fail(rc);
        return fail;
    }
    return r;
}

/* The set routines of one type.  CV is the comparison value pointer of
 * the scalar (&cmp_value, stride 0) or vector (cmp_values, stride 1) form. */
#define SHMEMI_P2P_SET(TYPE, TN, SFX, CVT, CV, ST) \
    void pshmem_##TN##_wait_until_all##SFX(TYPE *ivars, size_t nelems, const int *status, \
                                           int cmp, CVT) \
    { \
        size_t r; \
        shmemi_api_check(shmemi_##TN##_wait_set(SHMEMI_WAIT_ALL, 1, ivars, nelems, NULL, status, \
                                                cmp, CV, ST, &r, NULL, \
                                                "shmem_" #TN "_wait_until_all" #SFX)); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_wait_until_all##SFX) \
    size_t pshmem_##TN##_wait_until_any##SFX(TYPE *ivars, size_t nelems, const int *status, \
                                             int cmp, CVT) \
    { \
        size_t r = SIZE_MAX; \
        int rc = shmemi_##TN##_wait_set(SHMEMI_WAIT_ANY, 1, ivars, nelems, NULL, status, cmp, \
                                        CV, ST, &r, __builtin_return_address(0), \
                                        "shmem_" #TN "_wait_until_any" #SFX); \
        return result(rc, r, SIZE_MAX); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_wait_until_any##SFX) \
    size_t pshmem_##TN##_wait_until_some##SFX(TYPE *ivars, size_t nelems, size_t *indices, \
                                              const int *status, int cmp, CVT) \
    { \
        size_t r = 0; \
        int rc = shmemi_##TN##_wait_set(SHMEMI_WAIT_SOME, 1, ivars, nelems, indices, status, \
                                        cmp, CV, ST, &r, NULL, \
                                        "shmem_" #TN "_wait_until_some" #SFX); \
        return result(rc, r, 0); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_wait_until_some##SFX) \
    int pshmem_##TN##_test_all##SFX(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                    CVT) \
    { \
        size_t r = 0; \
        int rc = shmemi_##TN##_wait_set(SHMEMI_WAIT_ALL, 0, ivars, nelems, NULL, status, cmp, \
                                        CV, ST, &r, NULL, "shmem_" #TN "_test_all" #SFX); \
        return (int)result(rc, r, 0); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_test_all##SFX) \
    size_t pshmem_##TN##_test_any##SFX(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                       CVT) \
    { \
        size_t r = SIZE_MAX; \
        int rc = shmemi_##TN##_wait_set(SHMEMI_WAIT_ANY, 0, ivars, nelems, NULL, status, cmp, \
                                        CV, ST, &r, __builtin_return_address(0), \
                                        "shmem_" #TN "_test_any" #SFX); \
        return result(rc, r, SIZE_MAX); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_test_any##SFX) \
    size_t pshmem_##TN##_test_some##SFX(TYPE *ivars, size_t nelems, size_t *indices, \
                                        const int *status, int cmp, CVT) \
    { \
        size_t r = 0; \
        int rc = shmemi_##TN##_wait_set(SHMEMI_WAIT_SOME, 0, ivars, nelems, indices, status, \
                                        cmp, CV, ST, &r, NULL, "shmem_" #TN "_test_some" #SFX); \
        return result(rc, r, 0); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_test_some##SFX)

#define SHMEMI_P2P_TYPED(TYPE, TN) \
    void pshmem_##TN##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value) \
    { \
        shmemi_api_check(shmemi_##TN##_wait_until(ivar, cmp, cmp_value, \
                                                  "shmem_" #TN "_wait_until")); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_wait_until) \
    int pshmem_##TN##_test(TYPE *ivar, int cmp, TYPE cmp_value) \
    { \
        int r = 0; \
        int rc = shmemi_##TN##_test(ivar, cmp, cmp_value, &r, "shmem_" #TN "_test"); \
        return (int)result(rc, (size_t)r, 0); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_test) \
    SHMEMI_P2P_SET(TYPE, TN, , TYPE cmp_value, &cmp_value, 0) \
    SHMEMI_P2P_SET(TYPE, TN, _vector, TYPE *cmp_values, cmp_values, 1)

SHMEMI_P2P_TYPES(SHMEMI_P2P_TYPED)

/* The deprecated waits: wait until the value differs from cmp_value. */
#define SHMEMI_P2P_OLD_WAIT(TYPE, TN) \
    void pshmem_##TN##_wait(TYPE *ivar, TYPE cmp_value) \
    { \
        shmemi_api_check(shmemi_##TN##_wait_until(ivar, SHMEM_CMP_NE, cmp_value, \
                                                  "shmem_" #TN "_wait")); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_wait)

SHMEMI_P2P_OLD_WAIT(short, short)
SHMEMI_P2P_OLD_WAIT(int, int)
SHMEMI_P2P_OLD_WAIT(long, long)
SHMEMI_P2P_OLD_WAIT(long long, longlong)

void pshmem_wait(long *ivar, long cmp_value)
{
    shmemi_api_check(shmemi_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value, "shmem_wait"));
}
SHMEMI_ALIAS(shmem_wait)

void pshmem_wait_until(long *ivar, int cmp, long cmp_value)
{
    shmemi_api_check(shmemi_long_wait_until(ivar, cmp, cmp_value, "shmem_wait_until"));
}
SHMEMI_ALIAS(shmem_wait_until)
