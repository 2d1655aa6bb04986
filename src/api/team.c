/*
 * The team routines of the API: queries, configuration, splits,
 * destruction and teams from unique ids, thin wrappers over src/team.
 */
#include "team/team.h"
#include "init/init.h"

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
    return shmemi_team_translate(src_team, src_pe, dest_team);
}
SHMEMI_ALIAS(shmem_team_translate_pe)

SHMEM_API int pshmem_team_get_config(shmem_team_t team, long config_mask,
                                     shmem_team_config_t *config)
{
    SHMEMI_CHECK_INIT("shmem_team_get_config");
    if (team == SHMEM_TEAM_INVALID || !config)
        return SHMEMX_ERROR_INVALID_VALUE;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->config.num_contexts;
    return 0;
}
SHMEMI_ALIAS(shmem_team_get_config)

SHMEM_API int pshmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                                        const shmem_team_config_t *config, long config_mask,
                                        shmem_team_t *new_team)
{
    SHMEMI_CHECK_INIT("shmem_team_split_strided");
    return shmemi_team_split_strided(parent_team, start, stride, size, config, config_mask,
                                     new_team, "shmem_team_split_strided");
}
SHMEMI_ALIAS(shmem_team_split_strided)

SHMEM_API int pshmem_team_split_2d(shmem_team_t parent_team, int xrange,
                                   const shmem_team_config_t *xaxis_config, long xaxis_mask,
                                   shmem_team_t *xaxis_team,
                                   const shmem_team_config_t *yaxis_config, long yaxis_mask,
                                   shmem_team_t *yaxis_team)
{
    SHMEMI_CHECK_INIT("shmem_team_split_2d");
    return shmemi_team_split_2d(parent_team, xrange, xaxis_config, xaxis_mask, xaxis_team,
                                yaxis_config, yaxis_mask, yaxis_team, "shmem_team_split_2d");
}
SHMEMI_ALIAS(shmem_team_split_2d)

SHMEM_API void pshmem_team_destroy(shmem_team_t team)
{
    SHMEMI_CHECK_INIT("shmem_team_destroy");
    shmemi_team_destroy(team, "shmem_team_destroy");
}
SHMEMI_ALIAS(shmem_team_destroy)

SHMEM_API int shmemx_team_get_uniqueid(shmemx_team_uniqueid_t *uid)
{
    SHMEMI_CHECK_INIT("shmemx_team_get_uniqueid");
    return shmemi_team_get_uniqueid(uid, "shmemx_team_get_uniqueid");
}

SHMEM_API int shmemx_team_init(shmem_team_t *team, shmem_team_config_t *config, long config_mask,
                               int npes, int pe_idx_in_team, const shmemx_team_uniqueid_t *uid)
{
    SHMEMI_CHECK_INIT("shmemx_team_init");
    return shmemi_team_init_uid(team, config, config_mask, npes, pe_idx_in_team, uid,
                                "shmemx_team_init");
}
