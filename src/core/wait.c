/*
 * Point-to-point synchronization: the wait_until and test families (single,
 * all, any, some and their vector forms) over the point-to-point types, and
 * the deprecated waits.
 *
 * Each ivars element is read with an atomic acquire load, so a value seen
 * comes with everything written before it; a wait loop calls
 * shmemi_wait_backoff between scans, which drives provider progress and
 * ends up sleeping, so oversubscribed PEs do not spin forever.  A nonzero
 * status element excludes its ivars element.  The vector forms compare
 * element i with cmp_values[i]: the cores take the comparison values as a
 * pointer and a stride (0 for the scalar forms, 1 for the vector forms).
 */
#include "core/shmemi.h"
#include <pshmem.h>

static void __attribute__((noinline, cold)) bad_cmp(int cmp, const char *rtn)
{
    shmemi_user_error(rtn, "cmp %d is not a comparison operator (SHMEM_CMP_EQ ... SHMEM_CMP_LE)",
                      cmp);
}

static inline void check_args(int cmp, const char *rtn)
{
    SHMEMI_CHECK_INIT(rtn);
    if (SHMEMI_UNLIKELY(cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE))
        bad_cmp(cmp, rtn);
}

#define SHMEMI_CMP(v, cmp, c) \
    ((cmp) == SHMEM_CMP_EQ ? (v) == (c) : (cmp) == SHMEM_CMP_NE ? (v) != (c) : \
     (cmp) == SHMEM_CMP_GT ? (v) > (c) : (cmp) == SHMEM_CMP_GE ? (v) >= (c) : \
     (cmp) == SHMEM_CMP_LT ? (v) < (c) : (v) <= (c))

/* The cores of one type: ok (one element), all, any, some, and whether
 * every element is excluded. */
#define SHMEMI_P2P_CORE(TYPE, TN) \
    static inline int TN##_ok(TYPE *p, int cmp, TYPE c) \
    { \
        TYPE v = __atomic_load_n(p, __ATOMIC_ACQUIRE); \
        return SHMEMI_CMP(v, cmp, c); \
    } \
    static int TN##_all(TYPE *ivars, size_t n, const int *status, int cmp, const TYPE *cv, \
                        size_t st) \
    { \
        size_t i; \
        for (i = 0; i < n; i++) \
            if (!(status && status[i]) && !TN##_ok(&ivars[i], cmp, cv[i * st])) \
                return 0; \
        return 1; \
    } \
    static size_t TN##_any(TYPE *ivars, size_t n, const int *status, int cmp, const TYPE *cv, \
                           size_t st) \
    { \
        size_t i; \
        for (i = 0; i < n; i++) \
            if (!(status && status[i]) && TN##_ok(&ivars[i], cmp, cv[i * st])) \
                return i; \
        return SIZE_MAX; \
    } \
    static size_t TN##_some(TYPE *ivars, size_t n, size_t *indices, const int *status, int cmp, \
                            const TYPE *cv, size_t st) \
    { \
        size_t i, k = 0; \
        for (i = 0; i < n; i++) \
            if (!(status && status[i]) && TN##_ok(&ivars[i], cmp, cv[i * st])) \
                indices[k++] = i; \
        return k; \
    }

static int all_excluded(size_t n, const int *status)
{
    size_t i;

    if (!status)
        return n == 0;
    for (i = 0; i < n; i++)
        if (!status[i])
            return 0;
    return 1;
}

/* The public routines of one type.  CV is the comparison value pointer of
 * the scalar (&cmp_value, stride 0) or vector (cmp_values, stride 1) form. */
#define SHMEMI_P2P_SET(TYPE, TN, SFX, CVT, CV, ST) \
    void pshmem_##TN##_wait_until_all##SFX(TYPE *ivars, size_t nelems, const int *status, \
                                           int cmp, CVT) \
    { \
        unsigned long it = 0; \
        check_args(cmp, "shmem_" #TN "_wait_until_all" #SFX); \
        while (!TN##_all(ivars, nelems, status, cmp, CV, ST)) \
            shmemi_wait_backoff(&it); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_wait_until_all##SFX) \
    size_t pshmem_##TN##_wait_until_any##SFX(TYPE *ivars, size_t nelems, const int *status, \
                                             int cmp, CVT) \
    { \
        unsigned long it = 0; \
        size_t r; \
        check_args(cmp, "shmem_" #TN "_wait_until_any" #SFX); \
        if (all_excluded(nelems, status)) \
            return SIZE_MAX; \
        while ((r = TN##_any(ivars, nelems, status, cmp, CV, ST)) == SIZE_MAX) \
            shmemi_wait_backoff(&it); \
        return r; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_wait_until_any##SFX) \
    size_t pshmem_##TN##_wait_until_some##SFX(TYPE *ivars, size_t nelems, size_t *indices, \
                                              const int *status, int cmp, CVT) \
    { \
        unsigned long it = 0; \
        size_t r; \
        check_args(cmp, "shmem_" #TN "_wait_until_some" #SFX); \
        if (all_excluded(nelems, status)) \
            return 0; \
        while ((r = TN##_some(ivars, nelems, indices, status, cmp, CV, ST)) == 0) \
            shmemi_wait_backoff(&it); \
        return r; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_wait_until_some##SFX) \
    int pshmem_##TN##_test_all##SFX(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                    CVT) \
    { \
        int r; \
        check_args(cmp, "shmem_" #TN "_test_all" #SFX); \
        if (!(r = TN##_all(ivars, nelems, status, cmp, CV, ST))) \
            shmemi_progress(); \
        return r; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_test_all##SFX) \
    size_t pshmem_##TN##_test_any##SFX(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                       CVT) \
    { \
        size_t r; \
        check_args(cmp, "shmem_" #TN "_test_any" #SFX); \
        if ((r = TN##_any(ivars, nelems, status, cmp, CV, ST)) == SIZE_MAX) \
            shmemi_progress(); \
        return r; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_test_any##SFX) \
    size_t pshmem_##TN##_test_some##SFX(TYPE *ivars, size_t nelems, size_t *indices, \
                                        const int *status, int cmp, CVT) \
    { \
        size_t r; \
        check_args(cmp, "shmem_" #TN "_test_some" #SFX); \
        if ((r = TN##_some(ivars, nelems, indices, status, cmp, CV, ST)) == 0) \
            shmemi_progress(); \
        return r; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_test_some##SFX)

#define SHMEMI_P2P_TYPED(TYPE, TN) \
    SHMEMI_P2P_CORE(TYPE, TN) \
    void pshmem_##TN##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value) \
    { \
        unsigned long it = 0; \
        check_args(cmp, "shmem_" #TN "_wait_until"); \
        while (!TN##_ok(ivar, cmp, cmp_value)) \
            shmemi_wait_backoff(&it); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_wait_until) \
    int pshmem_##TN##_test(TYPE *ivar, int cmp, TYPE cmp_value) \
    { \
        int r; \
        check_args(cmp, "shmem_" #TN "_test"); \
        if (!(r = TN##_ok(ivar, cmp, cmp_value))) \
            shmemi_progress(); \
        return r; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_test) \
    SHMEMI_P2P_SET(TYPE, TN, , TYPE cmp_value, &cmp_value, 0) \
    SHMEMI_P2P_SET(TYPE, TN, _vector, TYPE *cmp_values, cmp_values, 1)

SHMEMI_P2P_TYPES(SHMEMI_P2P_TYPED)

/* The deprecated waits: wait until the value differs from cmp_value. */
#define SHMEMI_P2P_OLD_WAIT(TYPE, TN) \
    void pshmem_##TN##_wait(TYPE *ivar, TYPE cmp_value) \
    { \
        unsigned long it = 0; \
        SHMEMI_CHECK_INIT("shmem_" #TN "_wait"); \
        while (!TN##_ok(ivar, SHMEM_CMP_NE, cmp_value)) \
            shmemi_wait_backoff(&it); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_wait)

SHMEMI_P2P_OLD_WAIT(short, short)
SHMEMI_P2P_OLD_WAIT(int, int)
SHMEMI_P2P_OLD_WAIT(long, long)
SHMEMI_P2P_OLD_WAIT(long long, longlong)

void pshmem_wait(long *ivar, long cmp_value)
{
    unsigned long it = 0;

    SHMEMI_CHECK_INIT("shmem_wait");
    while (!long_ok(ivar, SHMEM_CMP_NE, cmp_value))
        shmemi_wait_backoff(&it);
}
SHMEMI_ALIAS(shmem_wait)

void pshmem_wait_until(long *ivar, int cmp, long cmp_value)
{
    unsigned long it = 0;

    check_args(cmp, "shmem_wait_until");
    while (!long_ok(ivar, cmp, cmp_value))
        shmemi_wait_backoff(&it);
}
SHMEMI_ALIAS(shmem_wait_until)
