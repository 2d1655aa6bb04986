/*
 * Reductions, scans and reduce-scatter: the size-based engine under the
 * typed routines of coll_reduce_typed.c.
 *
 * A reduction is described by an element type code (SHMEMI_RT_*: the
 * arithmetic of the element, not its C name: int64_t and long long share
 * SHMEMI_RT_I64), an operation (SHMEMI_ROP_*) and the element size.  The
 * kernels of coll_reduce_kern.c combine arrays element by element; the
 * algorithms of coll_reduce.c move the bytes (no provider atomics), so long
 * double and the complex types work on every path.
 */
#ifndef SHMEMI_COLL_REDUCE_H
#define SHMEMI_COLL_REDUCE_H

#include "coll/coll.h"

/* Element arithmetic.  Signed integers add and multiply as their unsigned
 * counterparts (two's complement wrap-around, no undefined overflow); only
 * max and min differ. */
enum {
    SHMEMI_RT_I8, SHMEMI_RT_I16, SHMEMI_RT_I32, SHMEMI_RT_I64,
    SHMEMI_RT_U8, SHMEMI_RT_U16, SHMEMI_RT_U32, SHMEMI_RT_U64,
    SHMEMI_RT_F32, SHMEMI_RT_F64, SHMEMI_RT_LD,
    SHMEMI_RT_C32, SHMEMI_RT_C64,
    SHMEMI_RT_COUNT
};

enum {
    SHMEMI_ROP_AND, SHMEMI_ROP_OR, SHMEMI_ROP_XOR, SHMEMI_ROP_MAX, SHMEMI_ROP_MIN,
    SHMEMI_ROP_SUM, SHMEMI_ROP_PROD,
    SHMEMI_ROP_COUNT
};

/* The kernels of one (type, op) pair over n elements:
 * k3: d[i] = a[i] op b[i] (d, a, b pairwise disjoint);
 * k2: d[i] = d[i] op b[i] (d, b disjoint). */
typedef void (*shmemi_rk3_t)(void *restrict d, const void *restrict a, const void *restrict b,
                             size_t n);
typedef void (*shmemi_rk2_t)(void *restrict d, const void *restrict b, size_t n);
typedef struct shmemi_rkern {
    shmemi_rk3_t k3;
    shmemi_rk2_t k2;
} shmemi_rkern_t;

/* The kernels of (tc, op), or NULL when the pair has none (bitwise
 * operations on real or complex types, max/min on complex types). */
const shmemi_rkern_t *shmemi_reduce_kernel(int tc, int op);

/* The team-based reduction (allreduce) of nreduce elements of esize bytes:
 * 0, or -1 when team is not a valid team of this PE.  rtn names the
 * routine in error messages. */
int shmemi_reduce(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                  const void *source, size_t nreduce, const char *rtn);
/* The deprecated active-set form (*_to_all). */
void shmemi_reduce_to_all(int tc, int op, size_t esize, void *dest, const void *source,
                          int nreduce, int PE_start, int logPE_stride, int PE_size,
                          const char *rtn);
/* The sum scans: inclusive (exclusive == 0) or exclusive. */
int shmemi_scan(shmem_team_t team, int tc, size_t esize, void *dest, const void *source,
                size_t nelems, int exclusive, const char *rtn);
/* Reduce-scatter: source holds nreduce * team size elements, member i gets
 * block i reduced over the team in dest (nreduce elements). */
int shmemi_reducescatter(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                         const void *source, size_t nreduce, const char *rtn);

#endif
