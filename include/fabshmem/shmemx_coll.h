/*
 * fabshmem extensions: collectives (included by shmemx.h).
 *
 * Reduce-scatter (NVSHMEM's nvshmem_<T>_<op>_reducescatter):
 *
 *   int shmemx_<TYPENAME>_<op>_reducescatter(shmem_team_t team, TYPE *dest,
 *                                            const TYPE *source, size_t nreduce);
 *
 * source (symmetric) holds nreduce * shmem_team_n_pes(team) elements on
 * every member, dest (symmetric) nreduce elements; member i of the team
 * gets in dest block i (elements i * nreduce to (i + 1) * nreduce - 1) of
 * the sources reduced over the team.  The operations and types are those
 * of the team-based reductions (and, or, xor: SHMEMI_REDUCE_BITWISE_TYPES;
 * max, min: SHMEMI_REDUCE_MINMAX_TYPES; sum, prod: those plus the complex
 * types, in C; std::complex in C++, and C's _Complex types too under GNU
 * C++, as for the reductions of api_reduce.def).  Returns 0, or SHMEMX_ERROR_INVALID_VALUE on an invalid
 * team.  dest must not
 * overlap source, except that dest may be block i of source on member i.
 * These routines have no pshmem_ name.
 */
#ifndef FABSHMEMX_COLL_H
#define FABSHMEMX_COLL_H

#define SHMEMI_RS_OP_FN(TYPE, TN, OP) \
    SHMEMI_XFN(int, TN##_##OP##_reducescatter, (shmem_team_t team, TYPE *dest, \
                                                const TYPE *source, size_t nreduce))
#define SHMEMI_RS_BITWISE_FNS(TYPE, TN) \
    SHMEMI_RS_OP_FN(TYPE, TN, and) \
    SHMEMI_RS_OP_FN(TYPE, TN, or) \
    SHMEMI_RS_OP_FN(TYPE, TN, xor)
#define SHMEMI_RS_MINMAX_FNS(TYPE, TN) \
    SHMEMI_RS_OP_FN(TYPE, TN, max) \
    SHMEMI_RS_OP_FN(TYPE, TN, min)
#define SHMEMI_RS_ARITH_FNS(TYPE, TN) \
    SHMEMI_RS_OP_FN(TYPE, TN, sum) \
    SHMEMI_RS_OP_FN(TYPE, TN, prod)

/* The whole list, as SHMEMI_XFN(return type, name without shmemx_, (parameters)). */
#define SHMEMI_API_REDUCESCATTER_FNS \
    SHMEMI_REDUCE_BITWISE_TYPES(SHMEMI_RS_BITWISE_FNS) \
    SHMEMI_REDUCE_MINMAX_TYPES(SHMEMI_RS_MINMAX_FNS) \
    SHMEMI_REDUCE_ARITH_TYPES(SHMEMI_RS_ARITH_FNS) \
    SHMEMI_REDUCE_COMPLEX_TYPES_C(SHMEMI_RS_ARITH_FNS)

#define SHMEMI_XFN(ret, name, args) SHMEM_API ret shmemx_##name args;
SHMEMI_API_REDUCESCATTER_FNS
#undef SHMEMI_XFN

/* GNU C++: the overloads on C's _Complex types, declared by shmemx.h after
 * its extern "C" block (C++ linkage, the C routines' symbols). */
#ifdef SHMEMI_API_REDUCE_COMPLEX_GNU_FNS
#define SHMEMI_API_REDUCESCATTER_COMPLEX_GNU_FNS \
    SHMEMI_REDUCE_COMPLEX_TYPES_GNU(SHMEMI_RS_ARITH_FNS)
#endif

/* How many collectives of kind coll this PE ran on team with algorithm
 * algo since the team was made (the predefined teams: since shmem_init),
 * for tests and measurements that force an algorithm (FABSHMEM_*_ALGO)
 * and want to know that it ran rather than a fallback.  coll: "barrier"
 * (barriers and syncs), "broadcast", "collect" (collect and fcollect),
 * "alltoall" (alltoall and alltoalls), "reduce" (the reductions) or
 * "gpu_reduce" (the reductions and reduce-scatter on GPU memory); algo:
 * "direct", "small", "ll", "central", "dissemination", "tree", "linear",
 * "ring", "rd" (recursive doubling), "bruck" (its variant for team sizes
 * that are not powers of two), "pairwise", "rsag", "hier" or "oneshot".
 * Collectives of one PE are not counted, but for "gpu_reduce".  Returns -1 for an invalid team, or with a
 * warning for an unknown name. */
SHMEM_API long shmemx_team_coll_count(shmem_team_t team, const char *coll, const char *algo);

#endif
