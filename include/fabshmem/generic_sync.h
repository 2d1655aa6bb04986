/*
 * C11 generic forms of the signal and point-to-point synchronization
 * routines (included by shmem.h in C11, after the RMA generics).
 *
 * shmem_put_signal and shmem_put_signal_nbi dispatch like shmem_put (a
 * shmem_ctx_t first argument selects the ctx_ form).  The wait_until and
 * test families dispatch on the type of ivars, over the distinct C types
 * of the point-to-point synchronization list; an unsupported type selects
 * shmemi_c11_type_not_supported and fails to compile.  The deprecated
 * function shmem_wait_until(long *, int, long) is declared before this
 * macro, so it stays callable as (shmem_wait_until)(...) and through the
 * generic form with a long pointer, which selects shmem_long_wait_until.
 */
#ifndef FABSHMEM_GENERIC_SYNC_H
#define FABSHMEM_GENERIC_SYNC_H

#define SHMEMI_C11_put_signal(T, N)         T *: shmem_##N##_put_signal,
#define SHMEMI_C11_ctx_put_signal(T, N)     T *: shmem_ctx_##N##_put_signal,
#define SHMEMI_C11_put_signal_nbi(T, N)     T *: shmem_##N##_put_signal_nbi,
#define SHMEMI_C11_ctx_put_signal_nbi(T, N) T *: shmem_ctx_##N##_put_signal_nbi,

#define shmem_put_signal(...) \
    SHMEMI_C11_GENERIC(SHMEMI_C11_put_signal, SHMEMI_C11_ctx_put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) \
    SHMEMI_C11_GENERIC(SHMEMI_C11_put_signal_nbi, SHMEMI_C11_ctx_put_signal_nbi, __VA_ARGS__)

/* Selection on the first argument (ivar or ivars). */
#define SHMEMI_C11_P2P(CASE, ...) \
    _Generic(&*(SHMEMI_C11_ARG1(__VA_ARGS__)), \
        SHMEMI_P2P_GENERIC_TYPES(CASE) \
        default: shmemi_c11_type_not_supported)(__VA_ARGS__)

#define SHMEMI_C11_wait_until(T, N)               T *: shmem_##N##_wait_until,
#define SHMEMI_C11_wait_until_all(T, N)           T *: shmem_##N##_wait_until_all,
#define SHMEMI_C11_wait_until_any(T, N)           T *: shmem_##N##_wait_until_any,
#define SHMEMI_C11_wait_until_some(T, N)          T *: shmem_##N##_wait_until_some,
#define SHMEMI_C11_wait_until_all_vector(T, N)    T *: shmem_##N##_wait_until_all_vector,
#define SHMEMI_C11_wait_until_any_vector(T, N)    T *: shmem_##N##_wait_until_any_vector,
#define SHMEMI_C11_wait_until_some_vector(T, N)   T *: shmem_##N##_wait_until_some_vector,
#define SHMEMI_C11_test(T, N)                     T *: shmem_##N##_test,
#define SHMEMI_C11_test_all(T, N)                 T *: shmem_##N##_test_all,
#define SHMEMI_C11_test_any(T, N)                 T *: shmem_##N##_test_any,
#define SHMEMI_C11_test_some(T, N)                T *: shmem_##N##_test_some,
#define SHMEMI_C11_test_all_vector(T, N)          T *: shmem_##N##_test_all_vector,
#define SHMEMI_C11_test_any_vector(T, N)          T *: shmem_##N##_test_any_vector,
#define SHMEMI_C11_test_some_vector(T, N)         T *: shmem_##N##_test_some_vector,

#define shmem_wait_until(...)        SHMEMI_C11_P2P(SHMEMI_C11_wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...)    SHMEMI_C11_P2P(SHMEMI_C11_wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...)    SHMEMI_C11_P2P(SHMEMI_C11_wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...)   SHMEMI_C11_P2P(SHMEMI_C11_wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...) \
    SHMEMI_C11_P2P(SHMEMI_C11_wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...) \
    SHMEMI_C11_P2P(SHMEMI_C11_wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...) \
    SHMEMI_C11_P2P(SHMEMI_C11_wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...)              SHMEMI_C11_P2P(SHMEMI_C11_test, __VA_ARGS__)
#define shmem_test_all(...)          SHMEMI_C11_P2P(SHMEMI_C11_test_all, __VA_ARGS__)
#define shmem_test_any(...)          SHMEMI_C11_P2P(SHMEMI_C11_test_any, __VA_ARGS__)
#define shmem_test_some(...)         SHMEMI_C11_P2P(SHMEMI_C11_test_some, __VA_ARGS__)
#define shmem_test_all_vector(...)   SHMEMI_C11_P2P(SHMEMI_C11_test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...)   SHMEMI_C11_P2P(SHMEMI_C11_test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...)  SHMEMI_C11_P2P(SHMEMI_C11_test_some_vector, __VA_ARGS__)

#endif
