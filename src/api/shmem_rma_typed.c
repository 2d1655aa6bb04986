/*
 * The typed, sized and untyped (mem) RMA routines: one-line wrappers over
 * the size-based core of shmemi.h, generated from the lists of
 * fabshmem/types.def.
 *
 * Each routine is defined as pshmem_x (the profiling name) and followed by
 * SHMEMI_ALIAS(shmem_x), which exports shmem_x as a weak alias of it (GCC
 * wants an alias in the translation unit that defines its target).  Each
 * passes its public name to the core, so an error message names the routine
 * the user called.  The prototypes come from shmem.h and pshmem.h, so a
 * definition that drifts from the declared signature does not compile.
 */
#include "core/shmemi.h"
#include <pshmem.h>

/*
 * One routine and its ctx_ form.  name is the name without the shmem_
 * prefix, ARGS the parenthesized parameters after ctx, and BODY(ctx, rtn)
 * the statements, given the context and the public name.
 */
#define SHMEMI_UNPAREN(...) __VA_ARGS__
#define SHMEMI_DEF(ret, name, ARGS, BODY, ...) \
    ret pshmem_##name ARGS { BODY(SHMEM_CTX_DEFAULT, "shmem_" #name, __VA_ARGS__) } \
    SHMEMI_ALIAS(shmem_##name) \
    ret pshmem_ctx_##name(shmem_ctx_t ctx, SHMEMI_UNPAREN ARGS) \
    { BODY(ctx, "shmem_ctx_" #name, __VA_ARGS__) } \
    SHMEMI_ALIAS(shmem_ctx_##name)

/* Bodies; elsize is the size of one element in bytes.  Each hands the
 * core's status to the API's error handling (base/error.h). */
#define SHMEMI_B_PUT(ctx, rtn, elsize) \
    shmemi_api_check(shmemi_rma(ctx, dest, source, nelems, elsize, pe, 1, 0, rtn));
#define SHMEMI_B_GET(ctx, rtn, elsize) \
    shmemi_api_check(shmemi_rma(ctx, dest, source, nelems, elsize, pe, 0, 0, rtn));
#define SHMEMI_B_PUT_NBI(ctx, rtn, elsize) \
    shmemi_api_check(shmemi_rma(ctx, dest, source, nelems, elsize, pe, 1, 1, rtn));
#define SHMEMI_B_GET_NBI(ctx, rtn, elsize) \
    shmemi_api_check(shmemi_rma(ctx, dest, source, nelems, elsize, pe, 0, 1, rtn));
#define SHMEMI_B_IPUT(ctx, rtn, elsize) \
    shmemi_api_check(shmemi_iput(ctx, dest, source, dst, sst, 1, nelems, elsize, pe, rtn));
#define SHMEMI_B_IGET(ctx, rtn, elsize) \
    shmemi_api_check(shmemi_iget(ctx, dest, source, dst, sst, 1, nelems, elsize, pe, rtn));
#define SHMEMI_B_IBPUT(ctx, rtn, elsize) \
    shmemi_api_check(shmemi_iput(ctx, dest, source, dst, sst, bsize, nblocks, elsize, pe, rtn));
#define SHMEMI_B_IBGET(ctx, rtn, elsize) \
    shmemi_api_check(shmemi_iget(ctx, dest, source, dst, sst, bsize, nblocks, elsize, pe, rtn));
#define SHMEMI_B_P(ctx, rtn, elsize) \
    shmemi_api_check(shmemi_rma(ctx, dest, &value, 1, sizeof(value), pe, 1, 0, rtn));
/* A failed g returns 0 (SHMEMX_ERRORS_RETURN). */
#define SHMEMI_B_G(ctx, rtn, TYPE) \
    TYPE value = 0; \
    int rc_ = shmemi_rma(ctx, &value, source, 1, sizeof(value), pe, 0, 0, rtn); \
    if (SHMEMI_UNLIKELY(rc_)) { \
        shmemi_api_fail(rc_); \
        return 0; \
    } \
    return value;

/* Parameter lists. */
#define SHMEMI_A_CONTIG(T) (T *dest, const T *source, size_t nelems, int pe)
#define SHMEMI_A_STRIDED(T) \
    (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)
#define SHMEMI_A_BLOCKED(T) (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                             size_t bsize, size_t nblocks, int pe)

/* The 20 routines of one standard RMA type. */
#define SHMEMI_TYPED(TYPE, TN) \
    SHMEMI_DEF(void, TN##_put, SHMEMI_A_CONTIG(TYPE), SHMEMI_B_PUT, sizeof(TYPE)) \
    SHMEMI_DEF(void, TN##_p, (TYPE *dest, TYPE value, int pe), SHMEMI_B_P, sizeof(TYPE)) \
    SHMEMI_DEF(void, TN##_iput, SHMEMI_A_STRIDED(TYPE), SHMEMI_B_IPUT, sizeof(TYPE)) \
    SHMEMI_DEF(void, TN##_ibput, SHMEMI_A_BLOCKED(TYPE), SHMEMI_B_IBPUT, sizeof(TYPE)) \
    SHMEMI_DEF(void, TN##_get, SHMEMI_A_CONTIG(TYPE), SHMEMI_B_GET, sizeof(TYPE)) \
    SHMEMI_DEF(TYPE, TN##_g, (const TYPE *source, int pe), SHMEMI_B_G, TYPE) \
    SHMEMI_DEF(void, TN##_iget, SHMEMI_A_STRIDED(TYPE), SHMEMI_B_IGET, sizeof(TYPE)) \
    SHMEMI_DEF(void, TN##_ibget, SHMEMI_A_BLOCKED(TYPE), SHMEMI_B_IBGET, sizeof(TYPE)) \
    SHMEMI_DEF(void, TN##_put_nbi, SHMEMI_A_CONTIG(TYPE), SHMEMI_B_PUT_NBI, sizeof(TYPE)) \
    SHMEMI_DEF(void, TN##_get_nbi, SHMEMI_A_CONTIG(TYPE), SHMEMI_B_GET_NBI, sizeof(TYPE))

/* The 16 routines of one size in bits. */
#define SHMEMI_SIZED(SIZE) \
    SHMEMI_DEF(void, put##SIZE, SHMEMI_A_CONTIG(void), SHMEMI_B_PUT, (SIZE) / 8) \
    SHMEMI_DEF(void, iput##SIZE, SHMEMI_A_STRIDED(void), SHMEMI_B_IPUT, (SIZE) / 8) \
    SHMEMI_DEF(void, ibput##SIZE, SHMEMI_A_BLOCKED(void), SHMEMI_B_IBPUT, (SIZE) / 8) \
    SHMEMI_DEF(void, get##SIZE, SHMEMI_A_CONTIG(void), SHMEMI_B_GET, (SIZE) / 8) \
    SHMEMI_DEF(void, iget##SIZE, SHMEMI_A_STRIDED(void), SHMEMI_B_IGET, (SIZE) / 8) \
    SHMEMI_DEF(void, ibget##SIZE, SHMEMI_A_BLOCKED(void), SHMEMI_B_IBGET, (SIZE) / 8) \
    SHMEMI_DEF(void, put##SIZE##_nbi, SHMEMI_A_CONTIG(void), SHMEMI_B_PUT_NBI, (SIZE) / 8) \
    SHMEMI_DEF(void, get##SIZE##_nbi, SHMEMI_A_CONTIG(void), SHMEMI_B_GET_NBI, (SIZE) / 8)

SHMEMI_RMA_TYPES(SHMEMI_TYPED)
SHMEMI_RMA_SIZES(SHMEMI_SIZED)

/* The untyped routines of api_core.def: elements are bytes. */
SHMEMI_DEF(void, putmem, SHMEMI_A_CONTIG(void), SHMEMI_B_PUT, 1)
SHMEMI_DEF(void, getmem, SHMEMI_A_CONTIG(void), SHMEMI_B_GET, 1)
SHMEMI_DEF(void, putmem_nbi, SHMEMI_A_CONTIG(void), SHMEMI_B_PUT_NBI, 1)
SHMEMI_DEF(void, getmem_nbi, SHMEMI_A_CONTIG(void), SHMEMI_B_GET_NBI, 1)
