/*
 * The element kernels of the reductions: for every (type, op) pair a
 * three-operand form d = a op b and an accumulating form d = d op b over
 * contiguous arrays.
 *
 * The loops are written for the vectorizer of -O2: restrict pointers, and
 * a main loop over blocks of SHMEMI_RK_BLOCK elements whose inner loop has
 * a constant trip count (GCC's cheap cost model at -O2 vectorizes only
 * loops whose iterations need no scalar epilogue), then a scalar tail.
 *
 * Integers: sum and prod compute in the unsigned type of the same size
 * (multiplied in at least unsigned int, so that narrow types do not
 * overflow int), which wraps like two's complement hardware; max and min
 * compare in the signed or unsigned type.  Reals: max and min are
 * "a > b ? a : b" (x86 maxps semantics for NaN).
 */
#include "coll/coll_reduce.h"

#define SHMEMI_RK_BLOCK 16

#define SHMEMI_RK_DEF(NAME, T, EXPR) \
    static void NAME##_k3(void *restrict dv, const void *restrict av, const void *restrict bv, \
                          size_t n) \
    { \
        T *restrict d = dv; \
        const T *restrict a = av; \
        const T *restrict b = bv; \
        size_t i = 0, j; \
        for (; i + SHMEMI_RK_BLOCK <= n; i += SHMEMI_RK_BLOCK) \
            for (j = 0; j < SHMEMI_RK_BLOCK; j++) { \
                T x = a[i + j], y = b[i + j]; \
                d[i + j] = (EXPR); \
            } \
        for (; i < n; i++) { \
            T x = a[i], y = b[i]; \
            d[i] = (EXPR); \
        } \
    } \
    static void NAME##_k2(void *restrict dv, const void *restrict bv, size_t n) \
    { \
        T *restrict d = dv; \
        const T *restrict b = bv; \
        size_t i = 0, j; \
        for (; i + SHMEMI_RK_BLOCK <= n; i += SHMEMI_RK_BLOCK) \
            for (j = 0; j < SHMEMI_RK_BLOCK; j++) { \
                T x = d[i + j], y = b[i + j]; \
                d[i + j] = (EXPR); \
            } \
        for (; i < n; i++) { \
            T x = d[i], y = b[i]; \
            d[i] = (EXPR); \
        } \
    }

#define SHMEMI_RK_MAX(x, y) ((x) > (y) ? (x) : (y))
#define SHMEMI_RK_MIN(x, y) ((x) < (y) ? (x) : (y))

/* The kernels of one integer size: UT unsigned, ST signed. */
#define SHMEMI_RK_INT(B, UT, ST) \
    SHMEMI_RK_DEF(u##B##_and, UT, x & y) \
    SHMEMI_RK_DEF(u##B##_or, UT, x | y) \
    SHMEMI_RK_DEF(u##B##_xor, UT, x ^ y) \
    SHMEMI_RK_DEF(u##B##_sum, UT, (UT)(x + y)) \
    SHMEMI_RK_DEF(u##B##_prod, UT, (UT)(x * 1u * y)) \
    SHMEMI_RK_DEF(u##B##_max, UT, SHMEMI_RK_MAX(x, y)) \
    SHMEMI_RK_DEF(u##B##_min, UT, SHMEMI_RK_MIN(x, y)) \
    SHMEMI_RK_DEF(s##B##_max, ST, SHMEMI_RK_MAX(x, y)) \
    SHMEMI_RK_DEF(s##B##_min, ST, SHMEMI_RK_MIN(x, y))

SHMEMI_RK_INT(8, uint8_t, int8_t)
SHMEMI_RK_INT(16, uint16_t, int16_t)
SHMEMI_RK_INT(32, uint32_t, int32_t)
SHMEMI_RK_INT(64, uint64_t, int64_t)

#define SHMEMI_RK_REAL(N, T) \
    SHMEMI_RK_DEF(N##_sum, T, x + y) \
    SHMEMI_RK_DEF(N##_prod, T, x * y) \
    SHMEMI_RK_DEF(N##_max, T, SHMEMI_RK_MAX(x, y)) \
    SHMEMI_RK_DEF(N##_min, T, SHMEMI_RK_MIN(x, y))

SHMEMI_RK_REAL(f32, float)
SHMEMI_RK_REAL(f64, double)
SHMEMI_RK_REAL(ld, long double)

#define SHMEMI_RK_COMPLEX(N, T) \
    SHMEMI_RK_DEF(N##_sum, T, x + y) \
    SHMEMI_RK_DEF(N##_prod, T, x * y)

SHMEMI_RK_COMPLEX(c32, float _Complex)
SHMEMI_RK_COMPLEX(c64, double _Complex)

#define K(NAME) { NAME##_k3, NAME##_k2 }

/* Signed integers share the unsigned kernels but for max and min. */
#define SHMEMI_RK_ROW_INT(B, S) \
    { [SHMEMI_ROP_AND] = K(u##B##_and), [SHMEMI_ROP_OR] = K(u##B##_or), \
      [SHMEMI_ROP_XOR] = K(u##B##_xor), [SHMEMI_ROP_SUM] = K(u##B##_sum), \
      [SHMEMI_ROP_PROD] = K(u##B##_prod), [SHMEMI_ROP_MAX] = K(S##B##_max), \
      [SHMEMI_ROP_MIN] = K(S##B##_min) }
#define SHMEMI_RK_ROW_REAL(N) \
    { [SHMEMI_ROP_SUM] = K(N##_sum), [SHMEMI_ROP_PROD] = K(N##_prod), \
      [SHMEMI_ROP_MAX] = K(N##_max), [SHMEMI_ROP_MIN] = K(N##_min) }
#define SHMEMI_RK_ROW_COMPLEX(N) \
    { [SHMEMI_ROP_SUM] = K(N##_sum), [SHMEMI_ROP_PROD] = K(N##_prod) }

static const shmemi_rkern_t kernels[SHMEMI_RT_COUNT][SHMEMI_ROP_COUNT] = {
    [SHMEMI_RT_I8] = SHMEMI_RK_ROW_INT(8, s),
    [SHMEMI_RT_I16] = SHMEMI_RK_ROW_INT(16, s),
    [SHMEMI_RT_I32] = SHMEMI_RK_ROW_INT(32, s),
    [SHMEMI_RT_I64] = SHMEMI_RK_ROW_INT(64, s),
    [SHMEMI_RT_U8] = SHMEMI_RK_ROW_INT(8, u),
    [SHMEMI_RT_U16] = SHMEMI_RK_ROW_INT(16, u),
    [SHMEMI_RT_U32] = SHMEMI_RK_ROW_INT(32, u),
    [SHMEMI_RT_U64] = SHMEMI_RK_ROW_INT(64, u),
    [SHMEMI_RT_F32] = SHMEMI_RK_ROW_REAL(f32),
    [SHMEMI_RT_F64] = SHMEMI_RK_ROW_REAL(f64),
    [SHMEMI_RT_LD] = SHMEMI_RK_ROW_REAL(ld),
    [SHMEMI_RT_C32] = SHMEMI_RK_ROW_COMPLEX(c32),
    [SHMEMI_RT_C64] = SHMEMI_RK_ROW_COMPLEX(c64),
};

const shmemi_rkern_t *shmemi_reduce_kernel(int tc, int op)
{
    const shmemi_rkern_t *k;

    if (tc < 0 || tc >= SHMEMI_RT_COUNT || op < 0 || op >= SHMEMI_ROP_COUNT)
        return NULL;
    k = &kernels[tc][op];
    return k->k3 ? k : NULL;
}
