/*
 * Contexts: shmem_ctx_create, shmem_team_create_ctx, shmem_ctx_destroy,
 * shmem_ctx_get_team and the session hints, wrappers over the core
 * (core/ctx.h, src/core/ctx.c).
 */
#include "api/api.h"
/* The team struct (its world PEs and size) for shmem_team_create_ctx. */
#include "coll/coll.h"

SHMEM_API int pshmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return shmemi_api_status(shmemi_ctx_create(options, NULL, shmemi_g.n_pes, SHMEM_TEAM_WORLD,
                                               ctx, "shmem_ctx_create"));
}
SHMEMI_ALIAS(shmem_ctx_create)

/* The core gets the team's world PEs and size (0: a team this PE is not
 * in, SHMEM_TEAM_INVALID included); the world's context numbers PEs as
 * the world does. */
SHMEM_API int pshmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    int ok;

    /* A destroyed team's handle, or (FABSHMEM_CHECKS=1) no handle at all. */
    if (SHMEMI_UNLIKELY(shmemi_check_init("shmem_team_create_ctx") == 0 &&
                        shmemi_team_destroyed(team))) {
        if (ctx)
            *ctx = SHMEM_CTX_INVALID;
        return shmemi_api_status(shmemi_err_warn(SHMEMX_ERROR_INVALID_VALUE,
                                                 "shmem_team_create_ctx", "team %s",
                                                 shmemi_team_bad_msg(team)));
    }
    ok = shmemi_team_ok(team);

    return shmemi_api_status(shmemi_ctx_create(options,
                                               ok && team != SHMEM_TEAM_WORLD ? team->pes : NULL,
                                               ok ? team->n_pes : 0, team, ctx,
                                               "shmem_team_create_ctx"));
}
SHMEMI_ALIAS(shmem_team_create_ctx)

SHMEM_API void pshmem_ctx_destroy(shmem_ctx_t ctx)
{
    shmemi_api_check(shmemi_ctx_destroy(ctx, "shmem_ctx_destroy"));
}
SHMEMI_ALIAS(shmem_ctx_destroy)

SHMEM_API int pshmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    return shmemi_api_status(shmemi_ctx_get_team(ctx, team, "shmem_ctx_get_team"));
}
SHMEMI_ALIAS(shmem_ctx_get_team)

SHMEM_API void pshmem_ctx_session_start(shmem_ctx_t ctx, long options,
                                        const shmem_ctx_session_config_t *config,
                                        long config_mask)
{
    shmemi_api_check(shmemi_ctx_session_start(ctx, options, config, config_mask,
                                              "shmem_ctx_session_start"));
}
SHMEMI_ALIAS(shmem_ctx_session_start)

SHMEM_API void pshmem_ctx_session_stop(shmem_ctx_t ctx)
{
    shmemi_api_check(shmemi_ctx_session_stop(ctx, "shmem_ctx_session_stop"));
}
SHMEMI_ALIAS(shmem_ctx_session_stop)
