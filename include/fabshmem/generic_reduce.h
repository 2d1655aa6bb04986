/*
 * C11 generic forms of the reductions and scans of api_reduce.def
 * (included by shmem.h inside its C11 block, after SHMEMI_C11_ARG1/ARG2
 * and shmemi_c11_type_not_supported are defined).
 *
 *   shmem_sum_reduce(team, dest, source, nreduce)
 *
 * The type of dest (the second argument) chooses the routine.  The keys are
 * the distinct C types of each list: the bitwise list adds the signed
 * fixed-width types (int8_t ... int64_t are signed char, short, int and
 * long or long long, distinct from the unsigned keys); in the other lists
 * they, size_t and ptrdiff_t are typedefs of keys already listed, whose
 * routines move the same bytes with the same operation.
 */
#ifndef FABSHMEM_GENERIC_REDUCE_H
#define FABSHMEM_GENERIC_REDUCE_H

#define SHMEMI_REDUCE_BITWISE_GENERIC_KEYS(X) \
    SHMEMI_REDUCE_BITWISE_GENERIC_TYPES(X) \
    X(int8_t, int8) \
    X(int16_t, int16) \
    X(int32_t, int32) \
    X(int64_t, int64)

/* The association of routine R (and_reduce, sum_inscan ...) for T. */
#define SHMEMI_C11_R_and(T, N)    T *: shmem_##N##_and_reduce,
#define SHMEMI_C11_R_or(T, N)     T *: shmem_##N##_or_reduce,
#define SHMEMI_C11_R_xor(T, N)    T *: shmem_##N##_xor_reduce,
#define SHMEMI_C11_R_max(T, N)    T *: shmem_##N##_max_reduce,
#define SHMEMI_C11_R_min(T, N)    T *: shmem_##N##_min_reduce,
#define SHMEMI_C11_R_sum(T, N)    T *: shmem_##N##_sum_reduce,
#define SHMEMI_C11_R_prod(T, N)   T *: shmem_##N##_prod_reduce,
#define SHMEMI_C11_R_inscan(T, N) T *: shmem_##N##_sum_inscan,
#define SHMEMI_C11_R_exscan(T, N) T *: shmem_##N##_sum_exscan,

/* LIST: the keys; K: the routine. */
#define SHMEMI_C11_REDUCE_GENERIC(LIST, K, ...) \
    _Generic(&*(SHMEMI_C11_ARG2(__VA_ARGS__)), \
        LIST(SHMEMI_C11_R_##K) \
        default: shmemi_c11_type_not_supported)(__VA_ARGS__)

#define shmem_and_reduce(...) \
    SHMEMI_C11_REDUCE_GENERIC(SHMEMI_REDUCE_BITWISE_GENERIC_KEYS, and, __VA_ARGS__)
#define shmem_or_reduce(...) \
    SHMEMI_C11_REDUCE_GENERIC(SHMEMI_REDUCE_BITWISE_GENERIC_KEYS, or, __VA_ARGS__)
#define shmem_xor_reduce(...) \
    SHMEMI_C11_REDUCE_GENERIC(SHMEMI_REDUCE_BITWISE_GENERIC_KEYS, xor, __VA_ARGS__)
#define shmem_max_reduce(...) \
    SHMEMI_C11_REDUCE_GENERIC(SHMEMI_REDUCE_MINMAX_GENERIC_TYPES, max, __VA_ARGS__)
#define shmem_min_reduce(...) \
    SHMEMI_C11_REDUCE_GENERIC(SHMEMI_REDUCE_MINMAX_GENERIC_TYPES, min, __VA_ARGS__)
#define shmem_sum_reduce(...) \
    SHMEMI_C11_REDUCE_GENERIC(SHMEMI_REDUCE_ARITH_GENERIC_TYPES, sum, __VA_ARGS__)
#define shmem_prod_reduce(...) \
    SHMEMI_C11_REDUCE_GENERIC(SHMEMI_REDUCE_ARITH_GENERIC_TYPES, prod, __VA_ARGS__)
#define shmem_sum_inscan(...) \
    SHMEMI_C11_REDUCE_GENERIC(SHMEMI_REDUCE_ARITH_GENERIC_TYPES, inscan, __VA_ARGS__)
#define shmem_sum_exscan(...) \
    SHMEMI_C11_REDUCE_GENERIC(SHMEMI_REDUCE_ARITH_GENERIC_TYPES, exscan, __VA_ARGS__)

#endif
