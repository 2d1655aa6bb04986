/*
 * C11 type-generic forms of the team collectives of api_coll.def
 * (included by shmem.h inside its C11 section): the type of dest selects
 * the typed routine, the team comes first.
 */
#define SHMEMI_C11_broadcast_c(T, N) T *: shmem_##N##_broadcast,
#define SHMEMI_C11_collect_c(T, N)   T *: shmem_##N##_collect,
#define SHMEMI_C11_fcollect_c(T, N)  T *: shmem_##N##_fcollect,
#define SHMEMI_C11_alltoall_c(T, N)  T *: shmem_##N##_alltoall,
#define SHMEMI_C11_alltoalls_c(T, N) T *: shmem_##N##_alltoalls,
#define SHMEMI_C11_COLL(CASE, team, dest, ...) \
    _Generic(&*(dest), SHMEMI_RMA_GENERIC_TYPES(CASE) \
             default: shmemi_c11_type_not_supported)(team, dest, __VA_ARGS__)

#define shmem_broadcast(team, dest, ...) SHMEMI_C11_COLL(SHMEMI_C11_broadcast_c, team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...)   SHMEMI_C11_COLL(SHMEMI_C11_collect_c, team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...)  SHMEMI_C11_COLL(SHMEMI_C11_fcollect_c, team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...)  SHMEMI_C11_COLL(SHMEMI_C11_alltoall_c, team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...) SHMEMI_C11_COLL(SHMEMI_C11_alltoalls_c, team, dest, __VA_ARGS__)

/* shmem_sync: the team form of OpenSHMEM 1.5/1.6, shmem_sync(team), which
 * is shmem_team_sync, beside the deprecated active-set form
 * shmem_sync(PE_start, logPE_stride, PE_size, pSync), chosen by the type
 * of the first argument. */
#define shmem_sync(...) \
    _Generic((SHMEMI_C11_ARG1(__VA_ARGS__)), \
             shmem_team_t: shmem_team_sync, \
             default: shmem_sync)(__VA_ARGS__)
