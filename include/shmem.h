/*
 * fabshmem: the OpenSHMEM 1.6 API.
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
/* The complex reductions take std::complex in C++ (api_reduce.def). */
#include <complex>
extern "C" {
#endif

#if defined(__GNUC__)
#define SHMEM_API __attribute__((visibility("default")))
#define SHMEMI_NORETURN __attribute__((noreturn))
#else
#define SHMEM_API
#define SHMEMI_NORETURN
#endif

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 6
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "fabshmem 0.1.0 (OpenSHMEM 1.6 over libfabric)"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

/* Thread levels. */
enum {
    SHMEM_THREAD_SINGLE = 0,
    SHMEM_THREAD_FUNNELED = 1,
    SHMEM_THREAD_SERIALIZED = 2,
    SHMEM_THREAD_MULTIPLE = 3
};

/* Comparison operators of the wait and test routines. */
enum {
    SHMEM_CMP_EQ = 0, SHMEM_CMP_NE = 1, SHMEM_CMP_GT = 2,
    SHMEM_CMP_GE = 3, SHMEM_CMP_LT = 4, SHMEM_CMP_LE = 5
};
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* Signal operators. */
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Context options. */
#define SHMEM_CTX_PRIVATE    (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE    (1L << 2)

/* Memory hints for shmem_malloc_with_hints: advice; a hint that cannot be
 * followed, and a bit that no hint defines, make it behave as shmem_malloc
 * (SHMEMX_MALLOC_DEVICE of shmemx.h without a device heap included). */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE  (1L << 1)

/* Team configuration mask bits. */
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* Sizes of the work and sync arrays of the deprecated active-set routines. */
#define SHMEM_BCAST_SYNC_SIZE     64
#define SHMEM_BARRIER_SYNC_SIZE   64
#define SHMEM_REDUCE_SYNC_SIZE    64
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 64
#define SHMEM_COLLECT_SYNC_SIZE   64
#define SHMEM_ALLTOALL_SYNC_SIZE  64
#define SHMEM_ALLTOALLS_SYNC_SIZE 64
#define SHMEM_SYNC_SIZE           64
#define SHMEM_SYNC_VALUE          0L
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE

typedef struct shmemi_ctx *shmem_ctx_t;
typedef struct shmemi_team *shmem_team_t;

typedef struct {
    int num_contexts;
} shmem_team_config_t;

SHMEM_API extern shmem_ctx_t SHMEM_CTX_DEFAULT;
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
SHMEM_API extern shmem_team_t SHMEM_TEAM_WORLD;
SHMEM_API extern shmem_team_t SHMEM_TEAM_SHARED;
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

#include <fabshmem/types.def>
#include <fabshmem/api_rma.def>
#include <fabshmem/api_amo.def>
#include <fabshmem/api_sync.def>
#include <fabshmem/api_team.def>
#include <fabshmem/api_ctx.def>
#include <fabshmem/api_coll.def>
#include <fabshmem/api_reduce.def>

/*
 * Per-routine attributes: SHMEMI_FN_ATTR(name) is the attribute list of a
 * routine, empty unless SHMEMI_ATTR_<name> is defined as "~, attributes"
 * (the second argument of SHMEMI_SECOND is the attributes when the probe
 * expanded, empty otherwise).
 */
#define SHMEMI_SECOND_(a, b, ...) b
#define SHMEMI_SECOND(...) SHMEMI_SECOND_(__VA_ARGS__)
#define SHMEMI_FN_ATTR(name) SHMEMI_SECOND(SHMEMI_ATTR_##name, , )
#define SHMEMI_ATTR_global_exit ~, SHMEMI_NORETURN

/* The untyped routines, then the typed and sized RMA routines. */
#define SHMEMI_FN(ret, name, args) SHMEM_API SHMEMI_FN_ATTR(name) ret shmem_##name args;
#include <fabshmem/api_core.def>
SHMEMI_RMA_TYPES(SHMEMI_RMA_TYPED_FNS)
SHMEMI_RMA_SIZES(SHMEMI_RMA_SIZED_FNS)
SHMEMI_API_AMO_FNS
SHMEMI_API_SYNC_FNS
SHMEMI_API_TEAM_FNS
SHMEMI_API_CTX_FNS
SHMEMI_API_COLL_FNS
SHMEMI_API_REDUCE_FNS
#undef SHMEMI_FN

/* Deprecated memory routines (pre-1.2 names of malloc, free, realloc, align). */
SHMEM_API void *shmalloc(size_t size);
SHMEM_API void shfree(void *ptr);
SHMEM_API void *shrealloc(void *ptr, size_t size);
SHMEM_API void *shmemalign(size_t alignment, size_t size);
/* Deprecated setup and query routines (pre-1.2): start_pes initializes
 * (npes is unused) and the library finalizes at exit. */
SHMEM_API void start_pes(int npes);
SHMEM_API int _my_pe(void);
SHMEM_API int _num_pes(void);
/* Deprecated cache management (1.3): no-ops on cache-coherent machines. */
SHMEM_API void shmem_set_cache_inv(void);
SHMEM_API void shmem_set_cache_line_inv(void *target);
SHMEM_API void shmem_clear_cache_inv(void);
SHMEM_API void shmem_clear_cache_line_inv(void *target);
SHMEM_API void shmem_udcflush(void);
SHMEM_API void shmem_udcflush_line(void *target);

/*
 * C11 type-generic forms.  The first argument selects the routine: a
 * shmem_ctx_t selects the ctx_ form and the type of the second argument
 * chooses among them, otherwise the type of the first argument (dest, or
 * source for shmem_g) does.  "&*(a)" keeps the pointer type (and turns an
 * array into a pointer); "(a) + 0" works for pointers and for the scalar
 * second argument of the non-ctx forms, whose inner selection is parsed
 * though not chosen.  An unsupported type selects
 * shmemi_c11_type_not_supported, which takes no arguments, so the call
 * fails to compile with a message naming it.
 */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
void shmemi_c11_type_not_supported(void);

#define SHMEMI_C11_ARG1_(a, ...) a
#define SHMEMI_C11_ARG1(...) SHMEMI_C11_ARG1_(__VA_ARGS__, _)
#define SHMEMI_C11_ARG2(a, ...) SHMEMI_C11_ARG1_(__VA_ARGS__, _)

#define SHMEMI_C11_GENERIC(CASE, CTX_CASE, ...) \
    _Generic(&*(SHMEMI_C11_ARG1(__VA_ARGS__)), \
        shmem_ctx_t: _Generic((SHMEMI_C11_ARG2(__VA_ARGS__)) + 0, \
            SHMEMI_RMA_GENERIC_TYPES(CTX_CASE) \
            default: shmemi_c11_type_not_supported), \
        SHMEMI_RMA_GENERIC_TYPES(CASE) \
        default: shmemi_c11_type_not_supported)(__VA_ARGS__)

#define SHMEMI_C11_put(T, N)          T *: shmem_##N##_put,
#define SHMEMI_C11_ctx_put(T, N)      T *: shmem_ctx_##N##_put,
#define SHMEMI_C11_p(T, N)            T *: shmem_##N##_p,
#define SHMEMI_C11_ctx_p(T, N)        T *: shmem_ctx_##N##_p,
#define SHMEMI_C11_iput(T, N)         T *: shmem_##N##_iput,
#define SHMEMI_C11_ctx_iput(T, N)     T *: shmem_ctx_##N##_iput,
#define SHMEMI_C11_ibput(T, N)        T *: shmem_##N##_ibput,
#define SHMEMI_C11_ctx_ibput(T, N)    T *: shmem_ctx_##N##_ibput,
#define SHMEMI_C11_get(T, N)          T *: shmem_##N##_get,
#define SHMEMI_C11_ctx_get(T, N)      T *: shmem_ctx_##N##_get,
#define SHMEMI_C11_g(T, N)            T *: shmem_##N##_g, const T *: shmem_##N##_g,
#define SHMEMI_C11_ctx_g(T, N)        T *: shmem_ctx_##N##_g, const T *: shmem_ctx_##N##_g,
#define SHMEMI_C11_iget(T, N)         T *: shmem_##N##_iget,
#define SHMEMI_C11_ctx_iget(T, N)     T *: shmem_ctx_##N##_iget,
#define SHMEMI_C11_ibget(T, N)        T *: shmem_##N##_ibget,
#define SHMEMI_C11_ctx_ibget(T, N)    T *: shmem_ctx_##N##_ibget,
#define SHMEMI_C11_put_nbi(T, N)      T *: shmem_##N##_put_nbi,
#define SHMEMI_C11_ctx_put_nbi(T, N)  T *: shmem_ctx_##N##_put_nbi,
#define SHMEMI_C11_get_nbi(T, N)      T *: shmem_##N##_get_nbi,
#define SHMEMI_C11_ctx_get_nbi(T, N)  T *: shmem_ctx_##N##_get_nbi,

#define shmem_put(...)     SHMEMI_C11_GENERIC(SHMEMI_C11_put, SHMEMI_C11_ctx_put, __VA_ARGS__)
#define shmem_p(...)       SHMEMI_C11_GENERIC(SHMEMI_C11_p, SHMEMI_C11_ctx_p, __VA_ARGS__)
#define shmem_iput(...)    SHMEMI_C11_GENERIC(SHMEMI_C11_iput, SHMEMI_C11_ctx_iput, __VA_ARGS__)
#define shmem_ibput(...)   SHMEMI_C11_GENERIC(SHMEMI_C11_ibput, SHMEMI_C11_ctx_ibput, __VA_ARGS__)
#define shmem_get(...)     SHMEMI_C11_GENERIC(SHMEMI_C11_get, SHMEMI_C11_ctx_get, __VA_ARGS__)
#define shmem_g(...)       SHMEMI_C11_GENERIC(SHMEMI_C11_g, SHMEMI_C11_ctx_g, __VA_ARGS__)
#define shmem_iget(...)    SHMEMI_C11_GENERIC(SHMEMI_C11_iget, SHMEMI_C11_ctx_iget, __VA_ARGS__)
#define shmem_ibget(...)   SHMEMI_C11_GENERIC(SHMEMI_C11_ibget, SHMEMI_C11_ctx_ibget, __VA_ARGS__)
#define shmem_put_nbi(...) SHMEMI_C11_GENERIC(SHMEMI_C11_put_nbi, SHMEMI_C11_ctx_put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) SHMEMI_C11_GENERIC(SHMEMI_C11_get_nbi, SHMEMI_C11_ctx_get_nbi, __VA_ARGS__)
#include <fabshmem/generic_amo.h>
#include <fabshmem/generic_sync.h>
#include <fabshmem/generic_coll.h>
#include <fabshmem/generic_reduce.h>
#endif

#ifdef __cplusplus
}

/* C++: the one-argument team form of shmem_sync (OpenSHMEM 1.5/1.6), an
 * overload with C++ linkage beside the deprecated active-set form. */
static inline int shmem_sync(shmem_team_t team)
{
    return shmem_team_sync(team);
}

/* GNU C++: the complex reductions also take C's _Complex types, as
 * overloads of C++ linkage bound to the C routines' symbols
 * (api_reduce.def). */
#ifdef SHMEMI_API_REDUCE_COMPLEX_GNU_FNS
#define SHMEMI_FN(ret, name, args) \
    SHMEM_API ret shmem_##name args SHMEMI_CXX_SYMBOL(shmem_##name);
SHMEMI_API_REDUCE_COMPLEX_GNU_FNS
#undef SHMEMI_FN
#endif
#endif
#endif
