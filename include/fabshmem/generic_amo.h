/*
 * C11 generic forms of the atomic memory operations (included by shmem.h
 * inside its C11 block, after SHMEMI_C11_ARG1/ARG2 and
 * shmemi_c11_type_not_supported are defined).
 *
 * The dispatch is that of the RMA generics: a shmem_ctx_t first argument
 * selects the ctx_ forms and the type of the second argument (dest, source
 * or fetch) chooses among them; otherwise the type of the first argument
 * does.  The keys are the distinct C types of each AMO list; the bitwise
 * list adds int32_t and int64_t, which are signed and so distinct from the
 * unsigned keys.  shmem_atomic_fetch and shmem_atomic_fetch_nbi accept a
 * const source (fetch_nbi selects on fetch, which is never const).
 */
#ifndef FABSHMEM_GENERIC_AMO_H
#define FABSHMEM_GENERIC_AMO_H

#define SHMEMI_AMO_BITWISE_GENERIC_KEYS(X) \
    SHMEMI_AMO_BITWISE_GENERIC_TYPES(X) \
    X(int32_t, int32) \
    X(int64_t, int64)

/* LIST: the type list; CASE/CTX_CASE: the association of one entry. */
#define SHMEMI_C11_AMO_GENERIC(LIST, CASE, CTX_CASE, ...) \
    _Generic(&*(SHMEMI_C11_ARG1(__VA_ARGS__)), \
        shmem_ctx_t: _Generic((SHMEMI_C11_ARG2(__VA_ARGS__)) + 0, \
            LIST(CTX_CASE) \
            default: shmemi_c11_type_not_supported), \
        LIST(CASE) \
        default: shmemi_c11_type_not_supported)(__VA_ARGS__)

/* Associations of routine R (atomic_fetch_add ...) for T and const T. */
#define SHMEMI_C11_AMO_CASE(T, N, R)     T *: shmem_##N##_##R,
#define SHMEMI_C11_AMO_CTX_CASE(T, N, R) T *: shmem_ctx_##N##_##R,

#define SHMEMI_C11_A_fetch(T, N)          T *: shmem_##N##_atomic_fetch, \
                                          const T *: shmem_##N##_atomic_fetch,
#define SHMEMI_C11_A_ctx_fetch(T, N)      T *: shmem_ctx_##N##_atomic_fetch, \
                                          const T *: shmem_ctx_##N##_atomic_fetch,
#define SHMEMI_C11_A_set(T, N)            SHMEMI_C11_AMO_CASE(T, N, atomic_set)
#define SHMEMI_C11_A_ctx_set(T, N)        SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_set)
#define SHMEMI_C11_A_swap(T, N)           SHMEMI_C11_AMO_CASE(T, N, atomic_swap)
#define SHMEMI_C11_A_ctx_swap(T, N)       SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_swap)
#define SHMEMI_C11_A_fetch_nbi(T, N)      SHMEMI_C11_AMO_CASE(T, N, atomic_fetch_nbi)
#define SHMEMI_C11_A_ctx_fetch_nbi(T, N)  SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_fetch_nbi)
#define SHMEMI_C11_A_swap_nbi(T, N)       SHMEMI_C11_AMO_CASE(T, N, atomic_swap_nbi)
#define SHMEMI_C11_A_ctx_swap_nbi(T, N)   SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_swap_nbi)
#define SHMEMI_C11_A_cswap(T, N)          SHMEMI_C11_AMO_CASE(T, N, atomic_compare_swap)
#define SHMEMI_C11_A_ctx_cswap(T, N)      SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_compare_swap)
#define SHMEMI_C11_A_cswap_nbi(T, N)      SHMEMI_C11_AMO_CASE(T, N, atomic_compare_swap_nbi)
#define SHMEMI_C11_A_ctx_cswap_nbi(T, N)  SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_compare_swap_nbi)
#define SHMEMI_C11_A_finc(T, N)           SHMEMI_C11_AMO_CASE(T, N, atomic_fetch_inc)
#define SHMEMI_C11_A_ctx_finc(T, N)       SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_fetch_inc)
#define SHMEMI_C11_A_finc_nbi(T, N)       SHMEMI_C11_AMO_CASE(T, N, atomic_fetch_inc_nbi)
#define SHMEMI_C11_A_ctx_finc_nbi(T, N)   SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_fetch_inc_nbi)
#define SHMEMI_C11_A_inc(T, N)            SHMEMI_C11_AMO_CASE(T, N, atomic_inc)
#define SHMEMI_C11_A_ctx_inc(T, N)        SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_inc)
#define SHMEMI_C11_A_fadd(T, N)           SHMEMI_C11_AMO_CASE(T, N, atomic_fetch_add)
#define SHMEMI_C11_A_ctx_fadd(T, N)       SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_fetch_add)
#define SHMEMI_C11_A_fadd_nbi(T, N)       SHMEMI_C11_AMO_CASE(T, N, atomic_fetch_add_nbi)
#define SHMEMI_C11_A_ctx_fadd_nbi(T, N)   SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_fetch_add_nbi)
#define SHMEMI_C11_A_add(T, N)            SHMEMI_C11_AMO_CASE(T, N, atomic_add)
#define SHMEMI_C11_A_ctx_add(T, N)        SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_add)
#define SHMEMI_C11_A_fand(T, N)           SHMEMI_C11_AMO_CASE(T, N, atomic_fetch_and)
#define SHMEMI_C11_A_ctx_fand(T, N)       SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_fetch_and)
#define SHMEMI_C11_A_for(T, N)            SHMEMI_C11_AMO_CASE(T, N, atomic_fetch_or)
#define SHMEMI_C11_A_ctx_for(T, N)        SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_fetch_or)
#define SHMEMI_C11_A_fxor(T, N)           SHMEMI_C11_AMO_CASE(T, N, atomic_fetch_xor)
#define SHMEMI_C11_A_ctx_fxor(T, N)       SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_fetch_xor)
#define SHMEMI_C11_A_fand_nbi(T, N)       SHMEMI_C11_AMO_CASE(T, N, atomic_fetch_and_nbi)
#define SHMEMI_C11_A_ctx_fand_nbi(T, N)   SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_fetch_and_nbi)
#define SHMEMI_C11_A_for_nbi(T, N)        SHMEMI_C11_AMO_CASE(T, N, atomic_fetch_or_nbi)
#define SHMEMI_C11_A_ctx_for_nbi(T, N)    SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_fetch_or_nbi)
#define SHMEMI_C11_A_fxor_nbi(T, N)       SHMEMI_C11_AMO_CASE(T, N, atomic_fetch_xor_nbi)
#define SHMEMI_C11_A_ctx_fxor_nbi(T, N)   SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_fetch_xor_nbi)
#define SHMEMI_C11_A_and(T, N)            SHMEMI_C11_AMO_CASE(T, N, atomic_and)
#define SHMEMI_C11_A_ctx_and(T, N)        SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_and)
#define SHMEMI_C11_A_or(T, N)             SHMEMI_C11_AMO_CASE(T, N, atomic_or)
#define SHMEMI_C11_A_ctx_or(T, N)         SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_or)
#define SHMEMI_C11_A_xor(T, N)            SHMEMI_C11_AMO_CASE(T, N, atomic_xor)
#define SHMEMI_C11_A_ctx_xor(T, N)        SHMEMI_C11_AMO_CTX_CASE(T, N, atomic_xor)

#define SHMEMI_C11_AMO_EXT(K, ...) SHMEMI_C11_AMO_GENERIC(SHMEMI_AMO_EXTENDED_GENERIC_TYPES, \
    SHMEMI_C11_A_##K, SHMEMI_C11_A_ctx_##K, __VA_ARGS__)
#define SHMEMI_C11_AMO_STD(K, ...) SHMEMI_C11_AMO_GENERIC(SHMEMI_AMO_STANDARD_GENERIC_TYPES, \
    SHMEMI_C11_A_##K, SHMEMI_C11_A_ctx_##K, __VA_ARGS__)
#define SHMEMI_C11_AMO_BIT(K, ...) SHMEMI_C11_AMO_GENERIC(SHMEMI_AMO_BITWISE_GENERIC_KEYS, \
    SHMEMI_C11_A_##K, SHMEMI_C11_A_ctx_##K, __VA_ARGS__)

#define shmem_atomic_fetch(...)             SHMEMI_C11_AMO_EXT(fetch, __VA_ARGS__)
#define shmem_atomic_set(...)               SHMEMI_C11_AMO_EXT(set, __VA_ARGS__)
#define shmem_atomic_swap(...)              SHMEMI_C11_AMO_EXT(swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...)         SHMEMI_C11_AMO_EXT(fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...)          SHMEMI_C11_AMO_EXT(swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...)      SHMEMI_C11_AMO_STD(cswap, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)  SHMEMI_C11_AMO_STD(cswap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...)         SHMEMI_C11_AMO_STD(finc, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...)     SHMEMI_C11_AMO_STD(finc_nbi, __VA_ARGS__)
#define shmem_atomic_inc(...)               SHMEMI_C11_AMO_STD(inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...)         SHMEMI_C11_AMO_STD(fadd, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...)     SHMEMI_C11_AMO_STD(fadd_nbi, __VA_ARGS__)
#define shmem_atomic_add(...)               SHMEMI_C11_AMO_STD(add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...)         SHMEMI_C11_AMO_BIT(fand, __VA_ARGS__)
#define shmem_atomic_fetch_or(...)          SHMEMI_C11_AMO_BIT(for, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...)         SHMEMI_C11_AMO_BIT(fxor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)     SHMEMI_C11_AMO_BIT(fand_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)      SHMEMI_C11_AMO_BIT(for_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)     SHMEMI_C11_AMO_BIT(fxor_nbi, __VA_ARGS__)
#define shmem_atomic_and(...)               SHMEMI_C11_AMO_BIT(and, __VA_ARGS__)
#define shmem_atomic_or(...)                SHMEMI_C11_AMO_BIT(or, __VA_ARGS__)
#define shmem_atomic_xor(...)               SHMEMI_C11_AMO_BIT(xor, __VA_ARGS__)

/* The deprecated generic forms of OpenSHMEM 1.3 (deprecated in 1.4, still
 * in 1.6's list of deprecated routines): no ctx_ forms, the types of the
 * deprecated typed routines (int, long, long long; float and double too
 * for swap, fetch and set). */
#define SHMEMI_C11_OLD_EXT_TYPES(X) SHMEMI_AMO_DEPRECATED_TYPES(X) SHMEMI_AMO_DEPRECATED_EXTENDED_TYPES(X)
#define SHMEMI_C11_OLD(LIST, R, ...) \
    _Generic(&*(SHMEMI_C11_ARG1(__VA_ARGS__)), \
        LIST(R) \
        default: shmemi_c11_type_not_supported)(__VA_ARGS__)
#define SHMEMI_C11_O_swap(T, N)  T *: shmem_##N##_swap,
#define SHMEMI_C11_O_set(T, N)   T *: shmem_##N##_set,
#define SHMEMI_C11_O_fetch(T, N) T *: shmem_##N##_fetch, const T *: shmem_##N##_fetch,
#define SHMEMI_C11_O_cswap(T, N) T *: shmem_##N##_cswap,
#define SHMEMI_C11_O_finc(T, N)  T *: shmem_##N##_finc,
#define SHMEMI_C11_O_inc(T, N)   T *: shmem_##N##_inc,
#define SHMEMI_C11_O_fadd(T, N)  T *: shmem_##N##_fadd,
#define SHMEMI_C11_O_add(T, N)   T *: shmem_##N##_add,
#define shmem_swap(...)  SHMEMI_C11_OLD(SHMEMI_C11_OLD_EXT_TYPES, SHMEMI_C11_O_swap, __VA_ARGS__)
#define shmem_set(...)   SHMEMI_C11_OLD(SHMEMI_C11_OLD_EXT_TYPES, SHMEMI_C11_O_set, __VA_ARGS__)
#define shmem_fetch(...) SHMEMI_C11_OLD(SHMEMI_C11_OLD_EXT_TYPES, SHMEMI_C11_O_fetch, __VA_ARGS__)
#define shmem_cswap(...) SHMEMI_C11_OLD(SHMEMI_AMO_DEPRECATED_TYPES, SHMEMI_C11_O_cswap, __VA_ARGS__)
#define shmem_finc(...)  SHMEMI_C11_OLD(SHMEMI_AMO_DEPRECATED_TYPES, SHMEMI_C11_O_finc, __VA_ARGS__)
#define shmem_inc(...)   SHMEMI_C11_OLD(SHMEMI_AMO_DEPRECATED_TYPES, SHMEMI_C11_O_inc, __VA_ARGS__)
#define shmem_fadd(...)  SHMEMI_C11_OLD(SHMEMI_AMO_DEPRECATED_TYPES, SHMEMI_C11_O_fadd, __VA_ARGS__)
#define shmem_add(...)   SHMEMI_C11_OLD(SHMEMI_AMO_DEPRECATED_TYPES, SHMEMI_C11_O_add, __VA_ARGS__)

#endif
