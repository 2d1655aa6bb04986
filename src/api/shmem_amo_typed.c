/*
 * The typed atomic memory operations: one-line wrappers over the size-based
 * core shmemi_amo() (core/amo.h, src/core/amo.c), generated from the lists of
 * fabshmem/types.def and fabshmem/api_amo.def.
 *
 * As in rma_typed.c, each routine is defined as pshmem_x and followed by
 * SHMEMI_ALIAS(shmem_x), and passes its public name to the core for error
 * messages.  The core works on 4- or 8-byte words, so every value crosses
 * into it as the bits of a uint64_t buffer (memcpy, the bytes at offset 0):
 * float and double travel as their bits (fetch, set and swap only move
 * bits), and signed addition is the two's complement addition of the
 * unsigned bits, which wraps like the hardware.
 */
#include "core/shmemi.h"
#include <pshmem.h>
#include <string.h>

/* Every AMO type is a 4- or 8-byte word on this platform. */
#define SHMEMI_AMO_SIZE_CHECK(TYPE, TN) \
    _Static_assert(sizeof(TYPE) == 4 || sizeof(TYPE) == 8, \
                   "the AMO type " #TYPE " is neither 4 nor 8 bytes");
SHMEMI_AMO_EXTENDED_TYPES(SHMEMI_AMO_SIZE_CHECK)
SHMEMI_AMO_BITWISE_TYPES(SHMEMI_AMO_SIZE_CHECK)

/* A blocking AMO: value and cond are read, the old value is stored in
 * *result_p unless result_p is NULL (size bytes each).  Inline, with the
 * core's fast path: an AMO on a mapped peer's word is one CPU atomic. */
SHMEMI_INLINE SHMEMI_WUR int amo_blocking(shmem_ctx_t ctx, const void *dest, int op,
                                          const void *value, const void *cond, size_t size,
                                          int pe, const char *rtn, void *result_p)
{
    uint64_t v = 0, c = 0, r = 0;
    int rc;

    memcpy(&v, value, size);
    memcpy(&c, cond, size);
    rc = shmemi_amo(ctx, (void *)dest, op, &v, &c, result_p ? &r : NULL, size, pe, 0, rtn);
    if (result_p)
        memcpy(result_p, &r, size);
    return rc;
}

/* A fetching non-blocking AMO: the old value lands in *fetch by the next
 * quiet on ctx. */
SHMEMI_INLINE SHMEMI_WUR int amo_nbi(shmem_ctx_t ctx, const void *dest, int op,
                                     const void *value, const void *cond, void *fetch,
                                     size_t size, int pe, const char *rtn)
{
    uint64_t v = 0, c = 0;

    memcpy(&v, value, size);
    memcpy(&c, cond, size);
    return shmemi_amo(ctx, (void *)dest, op, &v, &c, fetch, size, pe, 1, rtn);
}

/*
 * One routine and its ctx_ form: name without the shmem_ prefix, ARGS the
 * parenthesized parameters after ctx, BODY(ctx, rtn, ...) the statements.
 * SHMEMI_AMO_DEF_NOCTX defines a deprecated routine, which has no ctx_ form.
 */
#define SHMEMI_UNPAREN(...) __VA_ARGS__
#define SHMEMI_AMO_DEF(ret, name, ARGS, BODY, ...) \
    ret pshmem_##name ARGS { BODY(SHMEM_CTX_DEFAULT, "shmem_" #name, __VA_ARGS__) } \
    SHMEMI_ALIAS(shmem_##name) \
    ret pshmem_ctx_##name(shmem_ctx_t ctx, SHMEMI_UNPAREN ARGS) \
    { BODY(ctx, "shmem_ctx_" #name, __VA_ARGS__) } \
    SHMEMI_ALIAS(shmem_ctx_##name)
#define SHMEMI_AMO_DEF_NOCTX(ret, name, ARGS, BODY, ...) \
    ret pshmem_##name ARGS { BODY(SHMEM_CTX_DEFAULT, "shmem_" #name, __VA_ARGS__) } \
    SHMEMI_ALIAS(shmem_##name)

/* Bodies: TYPE, the SHMEMT_AOP_ op, the target, the operand and the
 * comparand (0 where the op has none).  Each hands the core's status to
 * the API's error handling (base/error.h); a fetching routine that failed
 * returns 0 (SHMEMX_ERRORS_RETURN). */
#define SHMEMI_B_FETCHING(ctx, rtn, TYPE, OP, DEST, VAL, COND) \
    TYPE v_ = (VAL), c_ = (COND), r_ = 0; \
    int rc_ = amo_blocking(ctx, DEST, SHMEMT_AOP_##OP, &v_, &c_, sizeof(TYPE), pe, rtn, &r_); \
    if (SHMEMI_UNLIKELY(rc_)) { \
        shmemi_api_fail(rc_); \
        return 0; \
    } \
    return r_;
#define SHMEMI_B_PLAIN(ctx, rtn, TYPE, OP, DEST, VAL, COND) \
    TYPE v_ = (VAL), c_ = (COND); \
    shmemi_api_check(amo_blocking(ctx, DEST, SHMEMT_AOP_##OP, &v_, &c_, sizeof(TYPE), pe, rtn, \
                                  NULL));
#define SHMEMI_B_NBI(ctx, rtn, TYPE, OP, DEST, VAL, COND) \
    TYPE v_ = (VAL), c_ = (COND); \
    shmemi_api_check(amo_nbi(ctx, DEST, SHMEMT_AOP_##OP, &v_, &c_, fetch, sizeof(TYPE), pe, rtn));

/* fetch, set, swap and their _nbi forms: the extended types. */
#define SHMEMI_AMO_EXTENDED(TYPE, TN) \
    SHMEMI_AMO_DEF(TYPE, TN##_atomic_fetch, (const TYPE *source, int pe), \
                   SHMEMI_B_FETCHING, TYPE, FETCH, source, 0, 0) \
    SHMEMI_AMO_DEF(void, TN##_atomic_set, (TYPE *dest, TYPE value, int pe), \
                   SHMEMI_B_PLAIN, TYPE, SET, dest, value, 0) \
    SHMEMI_AMO_DEF(TYPE, TN##_atomic_swap, (TYPE *dest, TYPE value, int pe), \
                   SHMEMI_B_FETCHING, TYPE, SWAP, dest, value, 0) \
    SHMEMI_AMO_DEF(void, TN##_atomic_fetch_nbi, (TYPE *fetch, const TYPE *source, int pe), \
                   SHMEMI_B_NBI, TYPE, FETCH, source, 0, 0) \
    SHMEMI_AMO_DEF(void, TN##_atomic_swap_nbi, (TYPE *fetch, TYPE *dest, TYPE value, int pe), \
                   SHMEMI_B_NBI, TYPE, SWAP, dest, value, 0)

/* compare_swap, fetch_inc, inc, fetch_add, add: the standard types. */
#define SHMEMI_AMO_STANDARD(TYPE, TN) \
    SHMEMI_AMO_DEF(TYPE, TN##_atomic_compare_swap, (TYPE *dest, TYPE cond, TYPE value, int pe), \
                   SHMEMI_B_FETCHING, TYPE, CSWAP, dest, value, cond) \
    SHMEMI_AMO_DEF(TYPE, TN##_atomic_fetch_inc, (TYPE *dest, int pe), \
                   SHMEMI_B_FETCHING, TYPE, ADD, dest, 1, 0) \
    SHMEMI_AMO_DEF(void, TN##_atomic_inc, (TYPE *dest, int pe), \
                   SHMEMI_B_PLAIN, TYPE, ADD, dest, 1, 0) \
    SHMEMI_AMO_DEF(TYPE, TN##_atomic_fetch_add, (TYPE *dest, TYPE value, int pe), \
                   SHMEMI_B_FETCHING, TYPE, ADD, dest, value, 0) \
    SHMEMI_AMO_DEF(void, TN##_atomic_add, (TYPE *dest, TYPE value, int pe), \
                   SHMEMI_B_PLAIN, TYPE, ADD, dest, value, 0) \
    SHMEMI_AMO_DEF(void, TN##_atomic_compare_swap_nbi, \
                   (TYPE *fetch, TYPE *dest, TYPE cond, TYPE value, int pe), \
                   SHMEMI_B_NBI, TYPE, CSWAP, dest, value, cond) \
    SHMEMI_AMO_DEF(void, TN##_atomic_fetch_inc_nbi, (TYPE *fetch, TYPE *dest, int pe), \
                   SHMEMI_B_NBI, TYPE, ADD, dest, 1, 0) \
    SHMEMI_AMO_DEF(void, TN##_atomic_fetch_add_nbi, \
                   (TYPE *fetch, TYPE *dest, TYPE value, int pe), \
                   SHMEMI_B_NBI, TYPE, ADD, dest, value, 0)

/* fetch_OP, OP, fetch_OP_nbi of one bitwise op: the bitwise types. */
#define SHMEMI_AMO_BITWISE_OP(TYPE, TN, op, OP) \
    SHMEMI_AMO_DEF(TYPE, TN##_atomic_fetch_##op, (TYPE *dest, TYPE value, int pe), \
                   SHMEMI_B_FETCHING, TYPE, OP, dest, value, 0) \
    SHMEMI_AMO_DEF(void, TN##_atomic_##op, (TYPE *dest, TYPE value, int pe), \
                   SHMEMI_B_PLAIN, TYPE, OP, dest, value, 0) \
    SHMEMI_AMO_DEF(void, TN##_atomic_fetch_##op##_nbi, \
                   (TYPE *fetch, TYPE *dest, TYPE value, int pe), \
                   SHMEMI_B_NBI, TYPE, OP, dest, value, 0)
#define SHMEMI_AMO_BITWISE(TYPE, TN) \
    SHMEMI_AMO_BITWISE_OP(TYPE, TN, and, AND) \
    SHMEMI_AMO_BITWISE_OP(TYPE, TN, or, OR) \
    SHMEMI_AMO_BITWISE_OP(TYPE, TN, xor, XOR)

/* The deprecated pre-1.4 names. */
#define SHMEMI_AMO_DEPRECATED_EXTENDED(TYPE, TN) \
    SHMEMI_AMO_DEF_NOCTX(TYPE, TN##_swap, (TYPE *dest, TYPE value, int pe), \
                         SHMEMI_B_FETCHING, TYPE, SWAP, dest, value, 0) \
    SHMEMI_AMO_DEF_NOCTX(TYPE, TN##_fetch, (const TYPE *source, int pe), \
                         SHMEMI_B_FETCHING, TYPE, FETCH, source, 0, 0) \
    SHMEMI_AMO_DEF_NOCTX(void, TN##_set, (TYPE *dest, TYPE value, int pe), \
                         SHMEMI_B_PLAIN, TYPE, SET, dest, value, 0)
#define SHMEMI_AMO_DEPRECATED(TYPE, TN) \
    SHMEMI_AMO_DEPRECATED_EXTENDED(TYPE, TN) \
    SHMEMI_AMO_DEF_NOCTX(TYPE, TN##_cswap, (TYPE *dest, TYPE cond, TYPE value, int pe), \
                         SHMEMI_B_FETCHING, TYPE, CSWAP, dest, value, cond) \
    SHMEMI_AMO_DEF_NOCTX(TYPE, TN##_finc, (TYPE *dest, int pe), \
                         SHMEMI_B_FETCHING, TYPE, ADD, dest, 1, 0) \
    SHMEMI_AMO_DEF_NOCTX(void, TN##_inc, (TYPE *dest, int pe), \
                         SHMEMI_B_PLAIN, TYPE, ADD, dest, 1, 0) \
    SHMEMI_AMO_DEF_NOCTX(TYPE, TN##_fadd, (TYPE *dest, TYPE value, int pe), \
                         SHMEMI_B_FETCHING, TYPE, ADD, dest, value, 0) \
    SHMEMI_AMO_DEF_NOCTX(void, TN##_add, (TYPE *dest, TYPE value, int pe), \
                         SHMEMI_B_PLAIN, TYPE, ADD, dest, value, 0)

SHMEMI_AMO_EXTENDED_TYPES(SHMEMI_AMO_EXTENDED)
SHMEMI_AMO_STANDARD_TYPES(SHMEMI_AMO_STANDARD)
SHMEMI_AMO_BITWISE_TYPES(SHMEMI_AMO_BITWISE)
SHMEMI_AMO_DEPRECATED_TYPES(SHMEMI_AMO_DEPRECATED)
SHMEMI_AMO_DEPRECATED_EXTENDED_TYPES(SHMEMI_AMO_DEPRECATED_EXTENDED)
SHMEMI_AMO_DEF_NOCTX(long, swap, (long *dest, long value, int pe),
                     SHMEMI_B_FETCHING, long, SWAP, dest, value, 0)
