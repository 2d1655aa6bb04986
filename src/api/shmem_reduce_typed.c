/*
 * The typed reductions, scans and reduce-scatters: one-line wrappers over
 * the size-based engine of coll_reduce.c, generated from the lists of
 * fabshmem/types.def, api_reduce.def and shmemx_coll.h.
 *
 * Each OpenSHMEM routine is defined as pshmem_x followed by
 * SHMEMI_ALIAS(shmem_x) and passes its public name for error messages; the
 * shmemx_ reduce-scatters are plain exported functions.  The team forms
 * return the engine's status (coll_status.h says which failures end the
 * job in the default mode); the active-set forms end the job on a failure
 * in the default mode.  The type code of the engine comes from the C type
 * (SHMEMI_RT_CODE, coll_reduce.h).
 */
#include "api/coll_status.h"
#include "coll/coll_reduce.h"
#include <pshmem.h>

/* Every integer of the lists is 1, 2, 4 or 8 bytes. */
#define SHMEMI_RT_SIZE_CHECK(TYPE, TN) \
    _Static_assert(__builtin_types_compatible_p(TYPE, float) || \
                   __builtin_types_compatible_p(TYPE, double) || \
                   __builtin_types_compatible_p(TYPE, long double) || \
                   sizeof(TYPE) == 1 || sizeof(TYPE) == 2 || sizeof(TYPE) == 4 || \
                   sizeof(TYPE) == 8, "reduction type " #TYPE " has no integer kernel");
SHMEMI_REDUCE_MINMAX_TYPES(SHMEMI_RT_SIZE_CHECK)
SHMEMI_REDUCE_BITWISE_TYPES(SHMEMI_RT_SIZE_CHECK)

/* ---- team-based reductions and scans ---- */

#define SHMEMI_RDEF(TYPE, TN, OP, OPC, TC) \
    int pshmem_##TN##_##OP##_reduce(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                    size_t nreduce) \
    { \
        return shmemi_api_coll_status(shmemi_reduce(team, TC, OPC, sizeof(TYPE), dest, source, \
                                                    nreduce, "shmem_" #TN "_" #OP "_reduce"), \
                                      team); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_##OP##_reduce)

#define SHMEMI_SDEF(TYPE, TN, KIND, EXCL, TC) \
    int pshmem_##TN##_sum_##KIND(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                 size_t nelems) \
    { \
        return shmemi_api_coll_status(shmemi_scan(team, TC, sizeof(TYPE), dest, source, nelems, \
                                                  EXCL, "shmem_" #TN "_sum_" #KIND), team); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_sum_##KIND)

#define SHMEMI_RDEF_BITWISE(TYPE, TN) \
    SHMEMI_RDEF(TYPE, TN, and, SHMEMI_ROP_AND, SHMEMI_RT_CODE(TYPE)) \
    SHMEMI_RDEF(TYPE, TN, or, SHMEMI_ROP_OR, SHMEMI_RT_CODE(TYPE)) \
    SHMEMI_RDEF(TYPE, TN, xor, SHMEMI_ROP_XOR, SHMEMI_RT_CODE(TYPE))
#define SHMEMI_RDEF_MINMAX(TYPE, TN) \
    SHMEMI_RDEF(TYPE, TN, max, SHMEMI_ROP_MAX, SHMEMI_RT_CODE(TYPE)) \
    SHMEMI_RDEF(TYPE, TN, min, SHMEMI_ROP_MIN, SHMEMI_RT_CODE(TYPE))
#define SHMEMI_RDEF_ARITH_TC(TYPE, TN, TC) \
    SHMEMI_RDEF(TYPE, TN, sum, SHMEMI_ROP_SUM, TC) \
    SHMEMI_RDEF(TYPE, TN, prod, SHMEMI_ROP_PROD, TC) \
    SHMEMI_SDEF(TYPE, TN, inscan, 0, TC) \
    SHMEMI_SDEF(TYPE, TN, exscan, 1, TC)
#define SHMEMI_RDEF_ARITH(TYPE, TN) SHMEMI_RDEF_ARITH_TC(TYPE, TN, SHMEMI_RT_CODE(TYPE))
#define SHMEMI_RDEF_ARITH_C(TYPE, TN) SHMEMI_RDEF_ARITH_TC(TYPE, TN, SHMEMI_RT_CODE_C(TYPE))

SHMEMI_REDUCE_BITWISE_TYPES(SHMEMI_RDEF_BITWISE)
SHMEMI_REDUCE_MINMAX_TYPES(SHMEMI_RDEF_MINMAX)
SHMEMI_REDUCE_ARITH_TYPES(SHMEMI_RDEF_ARITH)
SHMEMI_REDUCE_COMPLEX_TYPES(SHMEMI_RDEF_ARITH_C)

/* ---- the deprecated active-set forms ---- */

#define SHMEMI_TDEF(TYPE, TN, OP, OPC, TC) \
    void pshmem_##TN##_##OP##_to_all(TYPE *dest, const TYPE *source, int nreduce, \
                                     int PE_start, int logPE_stride, int PE_size, TYPE *pWrk, \
                                     long *pSync) \
    { \
        shmemi_api_check(shmemi_reduce_to_all(TC, OPC, sizeof(TYPE), dest, source, nreduce, \
                                              PE_start, logPE_stride, PE_size, \
                                              "shmem_" #TN "_" #OP "_to_all")); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_##OP##_to_all)

#define SHMEMI_TDEF_BITWISE(TYPE, TN) \
    SHMEMI_TDEF(TYPE, TN, and, SHMEMI_ROP_AND, SHMEMI_RT_CODE(TYPE)) \
    SHMEMI_TDEF(TYPE, TN, or, SHMEMI_ROP_OR, SHMEMI_RT_CODE(TYPE)) \
    SHMEMI_TDEF(TYPE, TN, xor, SHMEMI_ROP_XOR, SHMEMI_RT_CODE(TYPE))
#define SHMEMI_TDEF_MINMAX(TYPE, TN) \
    SHMEMI_TDEF(TYPE, TN, max, SHMEMI_ROP_MAX, SHMEMI_RT_CODE(TYPE)) \
    SHMEMI_TDEF(TYPE, TN, min, SHMEMI_ROP_MIN, SHMEMI_RT_CODE(TYPE))
#define SHMEMI_TDEF_ARITH_TC(TYPE, TN, TC) \
    SHMEMI_TDEF(TYPE, TN, sum, SHMEMI_ROP_SUM, TC) \
    SHMEMI_TDEF(TYPE, TN, prod, SHMEMI_ROP_PROD, TC)
#define SHMEMI_TDEF_ARITH(TYPE, TN) SHMEMI_TDEF_ARITH_TC(TYPE, TN, SHMEMI_RT_CODE(TYPE))
#define SHMEMI_TDEF_ARITH_C(TYPE, TN) SHMEMI_TDEF_ARITH_TC(TYPE, TN, SHMEMI_RT_CODE_C(TYPE))

SHMEMI_TOALL_BITWISE_TYPES(SHMEMI_TDEF_BITWISE)
SHMEMI_TOALL_MINMAX_TYPES(SHMEMI_TDEF_MINMAX)
SHMEMI_TOALL_ARITH_TYPES(SHMEMI_TDEF_ARITH)
SHMEMI_REDUCE_COMPLEX_TYPES(SHMEMI_TDEF_ARITH_C)

/* ---- shmemx reduce-scatter ---- */

#define SHMEMI_XDEF(TYPE, TN, OP, OPC, TC) \
    SHMEM_API int shmemx_##TN##_##OP##_reducescatter(shmem_team_t team, TYPE *dest, \
                                                     const TYPE *source, size_t nreduce) \
    { \
        return shmemi_api_coll_status(shmemi_reducescatter(team, TC, OPC, sizeof(TYPE), dest, \
                                                           source, nreduce, \
                                                           "shmemx_" #TN "_" #OP \
                                                           "_reducescatter"), team); \
    }

#define SHMEMI_XDEF_BITWISE(TYPE, TN) \
    SHMEMI_XDEF(TYPE, TN, and, SHMEMI_ROP_AND, SHMEMI_RT_CODE(TYPE)) \
    SHMEMI_XDEF(TYPE, TN, or, SHMEMI_ROP_OR, SHMEMI_RT_CODE(TYPE)) \
    SHMEMI_XDEF(TYPE, TN, xor, SHMEMI_ROP_XOR, SHMEMI_RT_CODE(TYPE))
#define SHMEMI_XDEF_MINMAX(TYPE, TN) \
    SHMEMI_XDEF(TYPE, TN, max, SHMEMI_ROP_MAX, SHMEMI_RT_CODE(TYPE)) \
    SHMEMI_XDEF(TYPE, TN, min, SHMEMI_ROP_MIN, SHMEMI_RT_CODE(TYPE))
#define SHMEMI_XDEF_ARITH_TC(TYPE, TN, TC) \
    SHMEMI_XDEF(TYPE, TN, sum, SHMEMI_ROP_SUM, TC) \
    SHMEMI_XDEF(TYPE, TN, prod, SHMEMI_ROP_PROD, TC)
#define SHMEMI_XDEF_ARITH(TYPE, TN) SHMEMI_XDEF_ARITH_TC(TYPE, TN, SHMEMI_RT_CODE(TYPE))
#define SHMEMI_XDEF_ARITH_C(TYPE, TN) SHMEMI_XDEF_ARITH_TC(TYPE, TN, SHMEMI_RT_CODE_C(TYPE))

SHMEMI_REDUCE_BITWISE_TYPES(SHMEMI_XDEF_BITWISE)
SHMEMI_REDUCE_MINMAX_TYPES(SHMEMI_XDEF_MINMAX)
SHMEMI_REDUCE_ARITH_TYPES(SHMEMI_XDEF_ARITH)
SHMEMI_REDUCE_COMPLEX_TYPES(SHMEMI_XDEF_ARITH_C)
