/*
 * Point-to-point synchronization: the cores of the wait_until and test
 * families (single, all, any, some and their vector forms) over the
 * point-to-point types.  The public routines are in src/api/shmem_wait.c.
 *
 * Each ivars element is read with an atomic acquire load, so a value seen
 * comes with everything written before it; a wait loop calls
 * shmemi_wait_backoff between scans, which drives provider progress and
 * ends up sleeping, so oversubscribed PEs do not spin forever; a test that
 * fails drives the provider once.  A nonzero status element excludes its
 * ivars element.
 *
 * The any forms return the satisfying indices in turn: a scan starts just
 * after the index that the calling thread's last any-wait or any-test on
 * the same ivars from the same call site returned, so that a loop on
 * shmem_test_any(..., NULL, ...) over a set whose elements stay satisfied
 * sees every index (the example of OpenSHMEM 1.6 loops so until each
 * index was returned; with the lowest index every time it never ends),
 * while a call site's first call returns the lowest satisfying index.
 * The thread remembers the last SHMEMI_ANY_MEMO (site, ivars) pairs.
 */
#include <stdlib.h>
#include "core/rma.h"
#include "core/sync.h"
#include "core/wait.h"

static int __attribute__((noinline, cold)) bad_cmp(int cmp, const char *rtn)
{
    return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "cmp %d is not a comparison operator "
                      "(SHMEM_CMP_EQ ... SHMEM_CMP_LE)", cmp);
}

static int __attribute__((noinline, cold)) null_arg(const char *what, size_t nelems,
                                                    const char *rtn)
{
    return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "%s is NULL with nelems %zu", what,
                      nelems);
}

/* The checks of a wait or test on one variable. */
static inline int check_one(const void *ivar, int cmp, const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (SHMEMI_UNLIKELY(rc))
        return rc;
    if (SHMEMI_UNLIKELY(cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE))
        return bad_cmp(cmp, rtn);
    if (SHMEMI_UNLIKELY(!ivar))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "ivar is NULL");
    return 0;
}

int shmemi_wait_check(const void *ivar, size_t size, size_t align, int cmp, const char *what,
                      const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (rc)
        return rc;
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
        return bad_cmp(cmp, rtn);
    if (!ivar)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "%s is NULL", what);
    if ((uintptr_t)ivar % align)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "%s %p is not aligned to %zu bytes",
                          what, ivar, align);
    return shmemi_check_sym(ivar, size, what, rtn);
}

/* The checks of a wait or test on a set (cmp_stride 1: the vector forms,
 * whose cmp_values is an array). */
static int check_set(int kind, const void *ivars, size_t nelems, const size_t *indices, int cmp,
                     const void *cmp_values, size_t cmp_stride, const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (SHMEMI_UNLIKELY(rc))
        return rc;
    if (SHMEMI_UNLIKELY(cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE))
        return bad_cmp(cmp, rtn);
    if (nelems && !ivars)
        return null_arg("ivars", nelems, rtn);
    if (nelems && kind == SHMEMI_WAIT_SOME && !indices)
        return null_arg("indices", nelems, rtn);
    if (nelems && cmp_stride && !cmp_values)
        return null_arg("cmp_values", nelems, rtn);
    return 0;
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

int shmemi_dev_wait(const void *ivars, size_t bytes, int block,
                    int (*scan)(void *arg, const void *copy), void *arg, const char *rtn)
{
    unsigned long it = 0;
    uint64_t small[8];
    void *copy = bytes <= sizeof(small) ? small : malloc(bytes);
    int rc;

    if (!copy)
        return shmemi_err(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "no memory for a copy of the %zu "
                          "bytes of GPU memory it waits on", bytes);
    while (!(rc = shmemi_cuda_copy(copy, ivars, bytes, rtn)) && !scan(arg, copy)) {
        if (!block) {
            shmemi_progress();
            break;
        }
        /* The watchdog names the routine, not the word, which it could
         * not load. */
        if (!it)
            shmemi_wait_note(NULL, 0, 0, "", 0, rtn);
        shmemi_wait_backoff(&it);
    }
    if (copy != small)
        free(copy);
    return rc;
}

#define SHMEMI_ANY_MEMO 8
static __thread struct {
    const void *ivars, *site;
    size_t next; /* where the next scan of ivars from site starts */
} any_memo[SHMEMI_ANY_MEMO];
static __thread unsigned any_memo_victim;

/* Where an any-scan of the n elements of ivars from site starts. */
static inline size_t any_start(const void *ivars, const void *site, size_t n)
{
    unsigned i;

    for (i = 0; i < SHMEMI_ANY_MEMO; i++)
        if (any_memo[i].ivars == ivars && any_memo[i].site == site)
            return any_memo[i].next < n ? any_memo[i].next : 0;
    return 0;
}

/* An any-wait or any-test on the n elements of ivars from site returned
 * idx. */
static void any_returned(const void *ivars, const void *site, size_t idx, size_t n)
{
    unsigned i;

    for (i = 0; i < SHMEMI_ANY_MEMO && (any_memo[i].ivars != ivars || any_memo[i].site != site);
         i++)
        ;
    if (i == SHMEMI_ANY_MEMO) {
        i = any_memo_victim++ % SHMEMI_ANY_MEMO;
        any_memo[i].ivars = ivars;
        any_memo[i].site = site;
    }
    any_memo[i].next = idx + 1 < n ? idx + 1 : 0;
}

/* Whether the result r of a scan of kind ends the wait. */
static inline int scan_done(int kind, size_t r)
{
    return kind == SHMEMI_WAIT_ALL ? r == 1 : kind == SHMEMI_WAIT_ANY ? r != SIZE_MAX : r != 0;
}

#define SHMEMI_CMP(v, cmp, c) \
    ((cmp) == SHMEM_CMP_EQ ? (v) == (c) : (cmp) == SHMEM_CMP_NE ? (v) != (c) : \
     (cmp) == SHMEM_CMP_GT ? (v) > (c) : (cmp) == SHMEM_CMP_GE ? (v) >= (c) : \
     (cmp) == SHMEM_CMP_LT ? (v) < (c) : (v) <= (c))

/* The cores of one type: ok (one element), scan (one pass over a set:
 * for ALL 1 when every element not excluded is satisfied, else 0; for
 * ANY the first satisfied index from start on, wrapping around, or
 * SIZE_MAX; for SOME how many, their indices in indices), and the
 * routines of core/wait.h. */
#define SHMEMI_P2P_CORE(TYPE, TN) \
    static inline int TN##_ok(TYPE *p, int cmp, TYPE c) \
    { \
        TYPE v = __atomic_load_n(p, __ATOMIC_ACQUIRE); \
        return SHMEMI_CMP(v, cmp, c); \
    } \
    /* The conditions a sleeping wait checks (shmemi_wait_backoff_cond). */ \
    struct TN##_one { TYPE *p; int cmp; TYPE c; }; \
    static int TN##_one_done(const void *arg) \
    { \
        const struct TN##_one *o = arg; \
        return TN##_ok(o->p, o->cmp, o->c); \
    } \
    static size_t TN##_scan(int kind, TYPE *ivars, size_t n, size_t *indices, const int *status, \
                            int cmp, const TYPE *cv, size_t st, size_t start) \
    { \
        size_t i, j, k = 0; \
        for (j = 0, i = start; j < n; j++, i = i + 1 < n ? i + 1 : 0) { \
            if (status && status[i]) \
                continue; \
            if (!TN##_ok(&ivars[i], cmp, cv[i * st])) { \
                if (kind == SHMEMI_WAIT_ALL) \
                    return 0; \
            } else if (kind == SHMEMI_WAIT_ANY) { \
                return i; \
            } else if (kind == SHMEMI_WAIT_SOME) { \
                indices[k++] = i; \
            } \
        } \
        return kind == SHMEMI_WAIT_ALL ? 1 : kind == SHMEMI_WAIT_ANY ? SIZE_MAX : k; \
    } \
    struct TN##_set { \
        int kind, cmp; \
        TYPE *ivars; \
        size_t n, *indices, st, start; \
        const int *status; \
        const TYPE *cv; \
    }; \
    static int TN##_set_done(const void *arg) \
    { \
        const struct TN##_set *a = arg; \
        return scan_done(a->kind, TN##_scan(a->kind, a->ivars, a->n, a->indices, a->status, \
                                            a->cmp, a->cv, a->st, a->start)); \
    } \
    /* A scan of a copy of the set made by the GPU (shmemi_dev_wait): \
     * a->ivars is the copy, the result in a->r. */ \
    struct TN##_dev { struct TN##_set set; size_t r; }; \
    static int TN##_dev_scan(void *arg, const void *copy) \
    { \
        struct TN##_dev *a = arg; \
        struct TN##_set *q = &a->set; \
        a->r = TN##_scan(q->kind, (TYPE *)copy, q->n, q->indices, q->status, q->cmp, q->cv, \
                         q->st, q->start); \
        return scan_done(q->kind, a->r); \
    } \
    /* ivars[0 .. n) in GPU memory (n > 0): the set's scans on copies. */ \
    static int TN##_dev_set(struct TN##_set set, int block, size_t *res_p, const char *rtn) \
    { \
        struct TN##_dev a = { set, 0 }; \
        int rc = shmemi_dev_wait(set.ivars, set.n * sizeof(TYPE), block, TN##_dev_scan, &a, \
                                 rtn); \
        *res_p = a.r; \
        return rc; \
    } \
    /* One variable in GPU memory: a set of one, all of it. */ \
    static int TN##_dev_one(TYPE *ivar, int cmp, TYPE *c, int block, int *res_p, \
                            const char *rtn) \
    { \
        size_t r = 0; \
        struct TN##_set set = { SHMEMI_WAIT_ALL, cmp, ivar, 1, NULL, 0, 0, NULL, c }; \
        int rc = TN##_dev_set(set, block, &r, rtn); \
        if (res_p) \
            *res_p = (int)r; \
        return rc; \
    } \
    int shmemi_##TN##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value, const char *rtn) \
    { \
        unsigned long it = 0; \
        struct TN##_one one = { ivar, cmp, cmp_value }; \
        int rc = check_one(ivar, cmp, rtn); \
        if (SHMEMI_UNLIKELY(rc)) \
            return rc; \
        if (SHMEMI_UNLIKELY(shmemi_dev_local(ivar, sizeof(TYPE)))) \
            return TN##_dev_one(ivar, cmp, &cmp_value, 1, NULL, rtn); \
        if (TN##_ok(ivar, cmp, cmp_value)) \
            return 0; \
        shmemi_wait_note(ivar, (uint64_t)cmp_value, sizeof(TYPE), shmemi_cmp_name(cmp), 0, rtn); \
        while (!TN##_ok(ivar, cmp, cmp_value)) \
            shmemi_wait_backoff_cond(&it, TN##_one_done, &one); \
        return 0; \
    } \
    int shmemi_##TN##_test(TYPE *ivar, int cmp, TYPE cmp_value, int *res_p, const char *rtn) \
    { \
        int rc = check_one(ivar, cmp, rtn); \
        if (SHMEMI_UNLIKELY(rc)) \
            return rc; \
        if (SHMEMI_UNLIKELY(shmemi_dev_local(ivar, sizeof(TYPE)))) \
            return TN##_dev_one(ivar, cmp, &cmp_value, 0, res_p, rtn); \
        if (!(*res_p = TN##_ok(ivar, cmp, cmp_value))) \
            shmemi_progress(); \
        return 0; \
    } \
    int shmemi_##TN##_wait_set(int kind, int block, TYPE *ivars, size_t nelems, size_t *indices, \
                               const int *status, int cmp, const TYPE *cv, size_t st, \
                               size_t *res_p, const void *site, const char *rtn) \
    { \
        unsigned long it = 0; \
        size_t r, start; \
        struct TN##_set set; \
        int rc = check_set(kind, ivars, nelems, indices, cmp, cv, st, rtn); \
        if (SHMEMI_UNLIKELY(rc)) \
            return rc; \
        start = kind == SHMEMI_WAIT_ANY ? any_start(ivars, site, nelems) : 0; \
        set = (struct TN##_set){ kind, cmp, ivars, nelems, indices, st, start, status, cv }; \
        /* Nothing to wait for: none of the set can ever satisfy ANY or \
         * SOME (ALL holds at once). */ \
        if (block && kind != SHMEMI_WAIT_ALL && all_excluded(nelems, status)) { \
            *res_p = kind == SHMEMI_WAIT_ANY ? SIZE_MAX : 0; \
            return 0; \
        } \
        if (nelems && SHMEMI_UNLIKELY(shmemi_dev_local(ivars, nelems * sizeof(TYPE)))) { \
            rc = TN##_dev_set(set, block, &r, rtn); \
            if (!rc && kind == SHMEMI_WAIT_ANY && r != SIZE_MAX) \
                any_returned(ivars, site, r, nelems); \
            *res_p = r; \
            return rc; \
        } \
        while (!scan_done(kind, r = TN##_scan(kind, ivars, nelems, indices, status, cmp, cv, \
                                              st, start))) { \
            if (!block) { \
                shmemi_progress(); \
                break; \
            } \
            if (!it) \
                shmemi_wait_note(ivars, (uint64_t)cv[0], sizeof(TYPE), shmemi_cmp_name(cmp), \
                                 nelems, rtn); \
            shmemi_wait_backoff_cond(&it, TN##_set_done, &set); \
        } \
        if (kind == SHMEMI_WAIT_ANY && r != SIZE_MAX) \
            any_returned(ivars, site, r, nelems); \
        *res_p = r; \
        return 0; \
    }

SHMEMI_P2P_TYPES(SHMEMI_P2P_CORE)
