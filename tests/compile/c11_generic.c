/*
 * Compile-only check of the C11 type-generic RMA forms: every generic form,
 * with and without a context, over several types (including the stdint.h
 * typedefs, arrays and const sources).  Build with
 *   cc -std=c11 -Wall -Wextra -Werror -pedantic -c c11_generic.c
 */
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>

#if !defined(shmem_put) || !defined(shmem_get_nbi)
#error "the C11 generic forms are missing"
#endif

#define TEST_TYPE(T, TN) \
    void test_##TN(shmem_ctx_t ctx, T *dest, const T *source, T value); \
    void test_##TN(shmem_ctx_t ctx, T *dest, const T *source, T value) \
    { \
        T arr[4]; \
        shmem_put(dest, source, 1, 0); \
        shmem_put(ctx, dest, source, 1, 0); \
        shmem_put(arr, source, 1, 0); \
        shmem_p(dest, value, 0); \
        shmem_p(ctx, dest, value, 0); \
        shmem_iput(dest, source, 2, 1, 1, 0); \
        shmem_iput(ctx, dest, source, 2, 1, 1, 0); \
        shmem_ibput(dest, source, 4, 2, 2, 3, 0); \
        shmem_ibput(ctx, dest, source, 4, 2, 2, 3, 0); \
        shmem_get(dest, source, 1, 0); \
        shmem_get(ctx, dest, source, 1, 0); \
        shmem_get(arr, source, 1, 0); \
        value = shmem_g(source, 0); \
        value = shmem_g(dest, 0); \
        value = shmem_g(ctx, source, 0); \
        value = shmem_g(ctx, dest, 0); \
        shmem_iget(dest, source, 1, 2, 1, 0); \
        shmem_iget(ctx, dest, source, 1, 2, 1, 0); \
        shmem_ibget(dest, source, 2, 4, 2, 3, 0); \
        shmem_ibget(ctx, dest, source, 2, 4, 2, 3, 0); \
        shmem_put_nbi(dest, source, 1, 0); \
        shmem_put_nbi(ctx, dest, source, 1, 0); \
        shmem_get_nbi(dest, source, 1, 0); \
        shmem_get_nbi(ctx, dest, source, 1, 0); \
        shmem_p(dest, value, 0); \
    }
SHMEMI_RMA_TYPES(TEST_TYPE)

void test_selection(shmem_ctx_t ctx, int *i, long double *ld, uint64_t *u64, ptrdiff_t *pd);
void test_selection(shmem_ctx_t ctx, int *i, long double *ld, uint64_t *u64, ptrdiff_t *pd)
{
    test_int(ctx, i, i, 1);
    test_longdouble(ctx, ld, ld, 1.0L);
    test_uint64(ctx, u64, u64, 1);
    test_ptrdiff(ctx, pd, pd, 1);
    /* shmem_g returns the element type. */
    _Static_assert(_Generic(shmem_g(ld, 0), long double: 1, default: 0), "g long double");
    _Static_assert(_Generic(shmem_g(ctx, i, 0), int: 1, default: 0), "ctx g int");
    _Static_assert(_Generic(shmem_g(u64, 0), uint64_t: 1, default: 0), "g uint64");
    /* The untyped, sized and deprecated routines and the extensions. */
    shmem_putmem(i, i, 4, 0);
    shmem_ctx_getmem_nbi(ctx, i, i, 4, 0);
    shmem_put128(ld, ld, 1, 0);
    shmem_ctx_ibget32(ctx, i, i, 2, 2, 1, 1, 0);
    pshmem_int_put(i, i, 1, 0);
    pshmem_ctx_put64_nbi(ctx, u64, u64, 1, 0);
    shfree(shrealloc(shmalloc(8), 16));
    shfree(shmemalign(64, 64));
    int major, minor, patch;
    shmemx_vendor_get_version_info(&major, &minor, &patch);
    (void)shmem_team_n_pes(SHMEMX_TEAM_NODE);
    (void)shmem_team_n_pes(SHMEMX_TEAM_SAME_MYPE_NODE);
    /* The deprecated generic AMOs of 1.3. */
    static long dl;
    static double dd;
    _Static_assert(_Generic(shmem_fetch(&dd, 0), double: 1, default: 0), "fetch double");
    (void)shmem_swap(&dl, 1L, 0);
    (void)shmem_cswap(&dl, 1L, 2L, 0);
    (void)shmem_fadd(&dl, 1L, 0);
    (void)shmem_finc(&dl, 0);
    shmem_add(&dl, 1L, 0);
    shmem_inc(&dl, 0);
    shmem_set(&dd, 1.0, 0);
    /* shmem_sync: the team form (1.5/1.6) and the deprecated active set. */
    static long psync[SHMEM_SYNC_SIZE];
    _Static_assert(_Generic(shmem_sync(SHMEM_TEAM_WORLD), int: 1, default: 0), "sync(team)");
    (void)shmem_sync(SHMEM_TEAM_SHARED);
    shmem_sync(0, 0, 2, psync);
}

/* shmem_global_exit is noreturn: no "control reaches end" warning here. */
int test_noreturn(void);
int test_noreturn(void)
{
    shmem_global_exit(1);
}
