/*
 * Team routines: queries, splits, configuration, destruction, teams from
 * any set of PEs (shmemx_team_get_uniqueid / shmemx_team_init) and the
 * NUMA teams.
 */
#include "coll.h"
#include <stdlib.h>

void *shmemi_ptr_world(const void *dest, int pe);

SHMEM_API void *pshmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    SHMEMI_CHECK_INIT("shmem_team_ptr");
    if (team == SHMEM_TEAM_INVALID || pe < 0 || pe >= team->n_pes)
        return NULL;
    return shmemi_ptr_world(dest, team->pes[pe]);
}
SHMEMI_ALIAS(shmem_team_ptr)

SHMEM_API int pshmem_team_my_pe(shmem_team_t team)
{
    SHMEMI_CHECK_INIT("shmem_team_my_pe");
    return team == SHMEM_TEAM_INVALID ? -1 : team->my_pe;
}
SHMEMI_ALIAS(shmem_team_my_pe)

SHMEM_API int pshmem_team_n_pes(shmem_team_t team)
{
    SHMEMI_CHECK_INIT("shmem_team_n_pes");
    return team == SHMEM_TEAM_INVALID ? -1 : team->n_pes;
}
SHMEMI_ALIAS(shmem_team_n_pes)

SHMEM_API int pshmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    SHMEMI_CHECK_INIT("shmem_team_translate_pe");
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID || src_pe < 0 ||
        src_pe >= src_team->n_pes)
        return -1;
    return dest_team->world_to_team[src_team->pes[src_pe]];
}
SHMEMI_ALIAS(shmem_team_translate_pe)

