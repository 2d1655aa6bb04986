/*
 * Contexts: creation (shmem_ctx_create, shmem_team_create_ctx), destruction
 * and queries.
 */
#include "coll.h"
#include <stdlib.h>

/* ---- contexts: every context shares the default transport for now, so
 * quiet on one also completes the others' traffic (allowed: it completes
 * at least what the specification asks). ---- */

SHMEM_API int pshmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    struct shmemi_ctx *c;

    SHMEMI_CHECK_INIT("shmem_ctx_create");
    if (options & ~(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE))
        return -1;
    c = calloc(1, sizeof(*c));
    if (!c)
        return -1;
    c->options = options;
    c->team = SHMEM_TEAM_WORLD;
    *ctx = c;
    return 0;
}
SHMEMI_ALIAS(shmem_ctx_create)

SHMEM_API void pshmem_ctx_destroy(shmem_ctx_t ctx)
{
    SHMEMI_CHECK_INIT("shmem_ctx_destroy");
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx == SHMEM_CTX_DEFAULT)
        shmemi_user_error("shmem_ctx_destroy", "ctx is SHMEM_CTX_DEFAULT, which cannot be destroyed");
    shmemi_quiet(ctx);
    free(ctx);
}
SHMEMI_ALIAS(shmem_ctx_destroy)

SHMEM_API int pshmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    SHMEMI_CHECK_INIT("shmem_ctx_get_team");
    if (ctx == SHMEM_CTX_INVALID || !team) {
        if (team)
            *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ctx->team;
    return 0;
}
SHMEMI_ALIAS(shmem_ctx_get_team)
