/*
 * What the reduction tests share (tests/coll/reduce.c, tests/stream/stream_coll.c):
 * the type lists of the specification's reduction tables, the operations,
 * the inputs, which keep every type exact (small integers for the sums,
 * which may wrap the narrow integers as the library must, 1..3 for the
 * products, signed values for max/min of the signed types and
 * pseudo-random bit patterns for the bitwise operations), and the walk
 * over the (type, operation) pairs of a table.  Include common.h first.
 */
#ifndef FABSHMEM_TESTS_REDUCE_COMMON_H
#define FABSHMEM_TESTS_REDUCE_COMMON_H

/* ---- the type lists of the specification's tables ---- */

/* The unsigned and fixed-size types and size_t (tests/common.h). */
#define TEST_RED_BITWISE_TYPES(X) TEST_UNSIGNED_FIXED_TYPES(X)
#define TEST_RED_MINMAX_TYPES(X) \
    TEST_RED_BITWISE_TYPES(X) \
    TEST_SIGNED_INT_TYPES(X) \
    X(ptrdiff_t, ptrdiff) \
    X(float, float) \
    X(double, double) \
    X(long double, longdouble)
/* X(TYPE, TYPENAME, REAL TYPE) */
#define TEST_RED_COMPLEX_TYPES(X) \
    X(double _Complex, complexd, double) \
    X(float _Complex, complexf, float)

/* ---- operations and inputs ---- */

enum { OP_AND, OP_OR, OP_XOR, OP_MAX, OP_MIN, OP_SUM, OP_PROD };

#define COMB_and(a, b)  ((a) & (b))
#define COMB_or(a, b)   ((a) | (b))
#define COMB_xor(a, b)  ((a) ^ (b))
#define COMB_max(a, b)  ((a) > (b) ? (a) : (b))
#define COMB_min(a, b)  ((a) < (b) ? (a) : (b))
#define COMB_sum(a, b)  ((a) + (b))
#define COMB_prod(a, b) ((a) * (b))

#define IS_SIGNED(T) ((T)-1 < (T)1)

/* The input of world PE pe at index i for operation op. */
static inline long long in_val(int op, int sgn, int pe, size_t i, int salt)
{
    long long v = test_val(pe, i, salt);

    switch (op) {
    case OP_AND:
    case OP_OR:
    case OP_XOR:
        return (long long)((unsigned long long)v * 0x9E3779B97F4A7C15ull ^
                           ((unsigned long long)v << 7));
    case OP_MAX:
    case OP_MIN:
        return sgn ? v - 50 : v;
    case OP_PROD:
        return 1 + v % 3;
    default:
        return v;
    }
}

/* The imaginary part of a complex input. */
static inline long long in_imag(int op, int pe, size_t i, int salt)
{
    long long v = test_val(pe, i, salt + 3);
    return op == OP_PROD ? v % 2 : v;
}

/* The input element of a real or integer type T. */
#define IN_R(T, OPC, pe, i, salt) ((T)in_val(OPC, IS_SIGNED(T), pe, i, salt))

/* ---- the (type, operation) pairs of a table ---- */

/*
 * A table holds one entry per (type, operation) pair, in the order of the
 * specification's tables: and, or, xor over the bitwise types, max, min
 * and then sum, prod over the min/max types, sum, prod over the complex
 * types.  RED_PAIRS(F, BITWISE_TYPES, MINMAX_TYPES) walks that order
 * through F_BITWISE, F_MINMAX, F_ARITH and F_COMPLEX.  With F = PAIR each
 * pair expands PAIR_R(T, TN, OP, OPC) (a real type) or PAIR_C(T, TN, RT,
 * OP, OPC) (a complex one of real part RT), which the program defines to
 * make its functions; with F = REF each pair is PAIR_FN(TN, OP), the
 * function's name as the program defines it, for its table.
 */
#define RED_PAIRS(F, BITWISE_TYPES, MINMAX_TYPES) \
    BITWISE_TYPES(F##_BITWISE) MINMAX_TYPES(F##_MINMAX) MINMAX_TYPES(F##_ARITH) \
    TEST_RED_COMPLEX_TYPES(F##_COMPLEX)
#define PAIR_BITWISE(T, TN) \
    PAIR_R(T, TN, and, OP_AND) PAIR_R(T, TN, or, OP_OR) PAIR_R(T, TN, xor, OP_XOR)
#define PAIR_MINMAX(T, TN) PAIR_R(T, TN, max, OP_MAX) PAIR_R(T, TN, min, OP_MIN)
#define PAIR_ARITH(T, TN) PAIR_R(T, TN, sum, OP_SUM) PAIR_R(T, TN, prod, OP_PROD)
#define PAIR_COMPLEX(T, TN, RT) PAIR_C(T, TN, RT, sum, OP_SUM) PAIR_C(T, TN, RT, prod, OP_PROD)
#define REF_BITWISE(T, TN) PAIR_FN(TN, and), PAIR_FN(TN, or), PAIR_FN(TN, xor),
#define REF_MINMAX(T, TN) PAIR_FN(TN, max), PAIR_FN(TN, min),
#define REF_ARITH(T, TN) PAIR_FN(TN, sum), PAIR_FN(TN, prod),
#define REF_COMPLEX(T, TN, RT) PAIR_FN(TN, sum), PAIR_FN(TN, prod),

#endif
