/*
 * The team routines of the API: queries, configuration, splits,
 * destruction and teams from unique ids, thin wrappers over src/team,
 * which returns a status with the message recorded.  What a failure means
 * is decided here, as these routines always did it in the default mode
 * (SHMEMX_ERRORS_ABORT): a refused split (bad values, no free team slot)
 * and an id or a team that cannot be had for want of room are returned,
 * with the message printed once; a NULL output argument, a bad unique id,
 * a predefined team to destroy and failures inside the library end the
 * job.  In SHMEMX_ERRORS_RETURN mode every failure is returned, silently.
 */
#include "team/team.h"
#include "init/init.h"

/* 0 when the library is initialized, else the failure (which ends the job
 * in the default mode). */
static inline int api_init(const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (SHMEMI_UNLIKELY(rc))
        shmemi_api_fail(rc);
    return rc;
}

/* 1 when team (the argument arg) is the handle of a destroyed team or,
 * with FABSHMEM_CHECKS=1, no team handle at all: the message (a warning,
 * printed in the default mode) is recorded, and the routine answers as
 * for SHMEM_TEAM_INVALID. */
static int stale_arg(shmem_team_t team, const char *arg, const char *rtn)
{
    if (SHMEMI_LIKELY(!shmemi_team_destroyed(team)))
        return 0;
    shmemi_api_status(shmemi_err_warn(SHMEMX_ERROR_INVALID_VALUE, rtn, "%s %s", arg,
                                      shmemi_team_bad_msg(team)));
    return 1;
}
static int stale(shmem_team_t team, const char *rtn)
{
    return stale_arg(team, "team", rtn);
}

SHMEM_API void *pshmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    if (api_init("shmem_team_ptr") || team == SHMEM_TEAM_INVALID || stale(team, "shmem_team_ptr") ||
        pe < 0 || pe >= team->n_pes)
        return NULL;
    return shmemi_ptr_world(dest, team->pes[pe]);
}
SHMEMI_ALIAS(shmem_team_ptr)

SHMEM_API int pshmem_team_my_pe(shmem_team_t team)
{
    if (api_init("shmem_team_my_pe"))
        return -1;
    return team == SHMEM_TEAM_INVALID || stale(team, "shmem_team_my_pe") ? -1 : team->my_pe;
}
SHMEMI_ALIAS(shmem_team_my_pe)

SHMEM_API int pshmem_team_n_pes(shmem_team_t team)
{
    if (api_init("shmem_team_n_pes"))
        return -1;
    return team == SHMEM_TEAM_INVALID || stale(team, "shmem_team_n_pes") ? -1 : team->n_pes;
}
SHMEMI_ALIAS(shmem_team_n_pes)

SHMEM_API int pshmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    if (api_init("shmem_team_translate_pe") ||
        stale_arg(src_team, "src_team", "shmem_team_translate_pe") ||
        stale_arg(dest_team, "dest_team", "shmem_team_translate_pe"))
        return -1;
    return shmemi_team_translate(src_team, src_pe, dest_team);
}
SHMEMI_ALIAS(shmem_team_translate_pe)

SHMEM_API int pshmem_team_get_config(shmem_team_t team, long config_mask,
                                     shmem_team_config_t *config)
{
    int rc = api_init("shmem_team_get_config");

    if (rc)
        return rc;
    if (team == SHMEM_TEAM_INVALID || !config || stale(team, "shmem_team_get_config"))
        return SHMEMX_ERROR_INVALID_VALUE;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->config.num_contexts;
    return 0;
}
SHMEMI_ALIAS(shmem_team_get_config)

/* The status of a split.  Bad values and a lack of team slots (warnings
 * and SHMEMX_ERROR_OUT_OF_MEMORY, the same on every parent member) are
 * printed by the parent's member 0 only (by every PE when the parent is
 * not a team of theirs); the outcomes the specification defines as
 * ordinary (a parent of SHMEM_TEAM_INVALID, size 0, xrange 0: recorded
 * with shmemi_err_quiet) only under SHMEM_DEBUG; everything else ends the
 * job in the default mode. */
static int split_status(int rc, shmem_team_t parent)
{
    const shmemi_errrec_t *r = shmemi_err_last();

    if (!rc)
        return 0;
    if (rc == SHMEMX_ERROR_INVALID_STATE || r->exit_status == SHMEMI_EXIT_FATAL ||
        (r->level == SHMEMI_LOG_ERR && rc != SHMEMX_ERROR_OUT_OF_MEMORY)) {
        shmemi_api_fail(rc);
        return rc;
    }
    if (!shmemi_team_ok(parent) || parent->my_pe == 0)
        return shmemi_api_status(rc);
    return rc;
}

SHMEM_API int pshmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                                        const shmem_team_config_t *config, long config_mask,
                                        shmem_team_t *new_team)
{
    return split_status(shmemi_team_split_strided(parent_team, start, stride, size, config,
                                                  config_mask, new_team,
                                                  "shmem_team_split_strided"), parent_team);
}
SHMEMI_ALIAS(shmem_team_split_strided)

SHMEM_API int pshmem_team_split_2d(shmem_team_t parent_team, int xrange,
                                   const shmem_team_config_t *xaxis_config, long xaxis_mask,
                                   shmem_team_t *xaxis_team,
                                   const shmem_team_config_t *yaxis_config, long yaxis_mask,
                                   shmem_team_t *yaxis_team)
{
    return split_status(shmemi_team_split_2d(parent_team, xrange, xaxis_config, xaxis_mask,
                                             xaxis_team, yaxis_config, yaxis_mask, yaxis_team,
                                             "shmem_team_split_2d"),
                        parent_team);
}
SHMEMI_ALIAS(shmem_team_split_2d)

/* A team destroyed twice gets a warning, as the handle's other uses do
 * (the core refuses it too). */
SHMEM_API void pshmem_team_destroy(shmem_team_t team)
{
    int slot, rc;

    if (api_init("shmem_team_destroy") || stale(team, "shmem_team_destroy"))
        return;
    /* A member's words of the device API in the team's slot go back to
     * zero after the team's last synchronization, before the slot is
     * free for a new team (init_devapi.c). */
    slot = team != SHMEM_TEAM_INVALID && team->my_pe >= 0 ? team->slot : -1;
    rc = shmemi_team_destroy(team, "shmem_team_destroy");
    if (!rc && slot >= 0)
        rc = shmemi_devapi_slot_clear(slot, "shmem_team_destroy");
    shmemi_api_check(rc);
}
SHMEMI_ALIAS(shmem_team_destroy)

/* The status of the unique-id routines: no room (all ids in use, no team
 * slot) is returned with its message; the rest ends the job in the
 * default mode. */
static int uid_status(int rc)
{
    if (rc == SHMEMX_ERROR_OUT_OF_MEMORY && shmemi_err_last()->exit_status != SHMEMI_EXIT_FATAL)
        return shmemi_api_status(rc);
    if (rc)
        shmemi_api_fail(rc);
    return rc;
}

SHMEM_API int shmemx_team_get_uniqueid(shmemx_team_uniqueid_t *uid)
{
    return uid_status(shmemi_team_get_uniqueid(uid, "shmemx_team_get_uniqueid"));
}

SHMEM_API int shmemx_team_init(shmem_team_t *team, shmem_team_config_t *config, long config_mask,
                               int npes, int pe_idx_in_team, const shmemx_team_uniqueid_t *uid)
{
    return uid_status(shmemi_team_init_uid(team, config, config_mask, npes, pe_idx_in_team, uid,
                                           "shmemx_team_init"));
}
