/*
 * fabshmem: the OpenSHMEM 1.6 API.
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
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

/* Memory hints for shmem_malloc_with_hints. */
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

/* The untyped routines. */
#define SHMEMI_FN(ret, name, args) SHMEM_API ret shmem_##name args;
#include <fabshmem/api_core.def>
#undef SHMEMI_FN

#ifdef __cplusplus
}
#endif
#endif
