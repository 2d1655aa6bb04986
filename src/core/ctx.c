/*
 * Contexts: the cores of creation (shmem_ctx_create, shmem_team_create_ctx),
 * destruction, queries and the session hints (the public routines are in
 * src/api/shmem_ctx.c), the context's endpoint, and the live contexts.
 *
 * Every context other than the default one asks the transport for a child
 * (shmemt_ops.ctx_create): an endpoint of its own with its own completion
 * counters, sharing the default transport's domain, address vector and
 * memory registrations.  Quiet on a context then waits only for that
 * context's operations.  When the provider cannot make another endpoint
 * the context shares the default transport (quiet on it then completes the
 * default context's traffic too, which the specification allows).  In a
 * one-PE job there is no transport and every context moves data directly.
 *
 * The direct path (memcpy and CPU atomics to mapped peers) ignores
 * contexts: its stores are complete when the call returns.
 *
 * The live contexts form a list, so that shmem_team_destroy can release
 * the contexts of its team that the application did not destroy (as the
 * specification asks) and shmem_finalize can quiet and free all of them.
 * The core knows nothing of teams: a team context gets the team's world
 * PEs (a copy) and keeps the team as an opaque handle to give back.
 */
#include "core/sync.h"
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shmemi_ctx *ctx_live;
/* Endpoints made for contexts: ctx_n_eps in all (at most
 * FABSHMEM_CTX_ENDPOINTS, 16 by default), of which ctx_n_pool are idle in
 * ctx_pool for the next context (making one costs about 10 MB of resident
 * memory on tcp;ofi_rxm and shm, and up to a second on tcp, so they are
 * kept until finalize). */
static int ctx_n_eps, ctx_n_pool;
static shmemt_t **ctx_pool;

/* A context that shares the default endpoint: an ordinary outcome once
 * FABSHMEM_CTX_ENDPOINTS are taken (the specification lets contexts share
 * resources), so a debug line (SHMEM_DEBUG), the first one saying what it
 * costs (its quiet then also waits for the default context's traffic, and
 * for the other sharing contexts') and how to avoid it. */
static void ctx_share_note(shmem_ctx_t ctx, const char *why)
{
    static int noted;

    if (!__atomic_exchange_n(&noted, 1, __ATOMIC_RELAXED))
        shmemi_debug("contexts start sharing the default endpoint (%s; %d contexts have their "
                     "own, FABSHMEM_CTX_ENDPOINTS=%ld): quiet on such a context also waits "
                     "for the traffic of the default context and of the other sharing ones; "
                     "raise FABSHMEM_CTX_ENDPOINTS or destroy unused contexts (each endpoint "
                     "costs about 10 MB on tcp and shm)", why, ctx_n_eps,
                     (long)shmemi_g.env.ctx_endpoints);
    shmemi_debug("context %p shares the default endpoint (%s)", (void *)ctx, why);
}

shmemt_t *shmemi_ctx_tp_make(shmem_ctx_t ctx)
{
    shmemt_t *tp = shmemi_g.tp, *child = NULL;
    int ret;

    if (!tp)
        return NULL;
    pthread_mutex_lock(&ctx_lock);
    if (ctx->tp || ctx->shared) {
        pthread_mutex_unlock(&ctx_lock);
        return ctx->tp ? ctx->tp : tp;
    }
    if (ctx_n_pool > 0) {
        child = ctx_pool[--ctx_n_pool];
        __atomic_store_n(&ctx->tp, child, __ATOMIC_RELEASE);
    } else if (!tp->ops->ctx_create || ctx_n_eps >= shmemi_g.env.ctx_endpoints) {
        ctx_share_note(ctx, !tp->ops->ctx_create ? "the provider makes no endpoints for "
                       "contexts" : "all FABSHMEM_CTX_ENDPOINTS are in use");
        ctx->shared = 1;
    } else if ((ret = tp->ops->ctx_create(tp, ctx->options, &child)) != 0) {
        ctx_share_note(ctx, strerror(-ret));
        ctx->shared = 1;
    } else if (!ctx_pool && !(ctx_pool = calloc((size_t)shmemi_g.env.ctx_endpoints,
                                                    sizeof(*ctx_pool)))) {
        tp->ops->ctx_destroy(child);
        child = NULL;
        ctx->shared = 1;
    } else {
        ctx_n_eps++;
        __atomic_store_n(&ctx->tp, child, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&ctx_lock);
    return child ? child : tp;
}

static void ctx_link(struct shmemi_ctx *c)
{
    pthread_mutex_lock(&ctx_lock);
    c->prev = NULL;
    c->next = ctx_live;
    if (ctx_live)
        ctx_live->prev = c;
    ctx_live = c;
    pthread_mutex_unlock(&ctx_lock);
}

/* Called with ctx_lock held. */
static void ctx_unlink(struct shmemi_ctx *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        ctx_live = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

/* Quiets c and frees it (c is no longer in the list; ctx_lock held): 0,
 * or the class of the quiet's failure, recorded (c is freed all the
 * same). */
static int ctx_free(struct shmemi_ctx *c, const char *rtn)
{
    int rc = shmemi_quiet(c, rtn);

    /* After a failed quiet the endpoint may hold operations: not reused. */
    if (c->tp && !rc)
        ctx_pool[ctx_n_pool++] = c->tp; /* quiet: nothing in flight */
    free(c->pes);
    free(c);
    return rc;
}

int shmemi_quiet_all(const char *rtn)
{
    struct shmemi_ctx *c;
    int rc = shmemi_quiet(SHMEM_CTX_DEFAULT, rtn), r;

    pthread_mutex_lock(&ctx_lock);
    for (c = ctx_live; c; c = c->next)
        if ((r = shmemi_quiet(c, rtn)))
            rc = r;
    pthread_mutex_unlock(&ctx_lock);
    return shmemi_err_set_ends(rc);
}

int shmemi_ctxs_release(shmem_team_t team, const char *rtn)
{
    struct shmemi_ctx *c, *next;
    int n = 0, rc = 0, r;

    pthread_mutex_lock(&ctx_lock);
    for (c = ctx_live; c; c = next) {
        next = c->next;
        if (team && c->team != team)
            continue;
        ctx_unlink(c);
        if ((r = ctx_free(c, rtn)) && !rc)
            rc = r;
        n++;
    }
    if (!team) {
        /* Finalize: the transport closes the endpoints with itself. */
        free(ctx_pool);
        ctx_pool = NULL;
        ctx_n_pool = ctx_n_eps = 0;
    }
    pthread_mutex_unlock(&ctx_lock);
    if (n && team)
        shmemi_debug("shmem_team_destroy: destroyed %d context%s of the team that the "
                     "application had not destroyed", n, n == 1 ? "" : "s");
    return rc;
}

int shmemi_ctxs_wrap(int (*wrap)(shmemt_t **tps, int n, void *arg), void *arg)
{
    struct shmemi_ctx *c;
    shmemt_t **tps;
    int n = 0, i, ret;

    pthread_mutex_lock(&ctx_lock);
    for (c = ctx_live; c; c = c->next)
        n += c->tp != NULL;
    tps = calloc((size_t)n + (size_t)ctx_n_pool + 1, sizeof(*tps));
    if (!tps) {
        ret = -ENOMEM;
        goto out;
    }
    for (i = 0, c = ctx_live; c; c = c->next)
        if (c->tp)
            tps[i++] = c->tp;
    /* ctx_pool is NULL until the first context gets an endpoint. */
    if (ctx_n_pool)
        memcpy(tps + n, ctx_pool, (size_t)ctx_n_pool * sizeof(*tps));
    ret = wrap(tps, n + ctx_n_pool, arg);
    if (ret)
        goto out;
    for (i = 0, c = ctx_live; c; c = c->next)
        if (c->tp)
            __atomic_store_n(&c->tp, tps[i++], __ATOMIC_RELEASE);
    if (ctx_n_pool)
        memcpy(ctx_pool, tps + n, (size_t)ctx_n_pool * sizeof(*tps));
out:
    pthread_mutex_unlock(&ctx_lock);
    free(tps);
    return ret;
}

int shmemi_ctx_pe_slow(shmem_ctx_t ctx, int pe, const char *rtn)
{
    if (ctx == SHMEM_CTX_INVALID)
        return -shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "ctx is SHMEM_CTX_INVALID");
    if (!ctx->pes)
        return pe;
    if (pe < 0 || pe >= ctx->n_pes)
        return -shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "pe %d is out of range for the "
                           "context's team (%d PEs: 0 to %d)", pe, ctx->n_pes, ctx->n_pes - 1);
    return ctx->pes[pe];
}

int shmemi_ctx_create(long options, const int *pes, int n_pes, shmem_team_t team,
                      shmem_ctx_t *ctx_p, const char *rtn)
{
    long bad = options & ~(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE);
    struct shmemi_ctx *c;
    int rc = shmemi_check_init(rtn);

    if (rc)
        return rc;
    if (!ctx_p)
        return shmemi_err_ends(SHMEMX_ERROR_INVALID_VALUE, rtn, "ctx is NULL");
    *ctx_p = SHMEM_CTX_INVALID;
    /* An invalid team is an ordinary case (a PE outside a split): no
     * message. */
    if (n_pes <= 0)
        return shmemi_err_quiet(SHMEMX_ERROR_INVALID_VALUE, rtn, "team is not a valid team "
                                "that holds this PE");
    if (bad)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "options 0x%lx holds bits 0x%lx that "
                          "are not SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED or SHMEM_CTX_NOSTORE",
                          options, bad);
    c = calloc(1, sizeof(*c));
    if (!c)
        return shmemi_err(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "out of memory for a context");
    c->options = options;
    c->team = team;
    c->dirty = &c->own_dirty;
    if (pes) {
        /* A copy: the numbering stays valid whatever happens to the team. */
        c->pes = malloc((size_t)n_pes * sizeof(int));
        if (!c->pes) {
            free(c);
            return shmemi_err(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "out of memory for a context of "
                              "%d PEs", n_pes);
        }
        memcpy(c->pes, pes, (size_t)n_pes * sizeof(int));
        c->n_pes = n_pes;
    }
    ctx_link(c);
    *ctx_p = c;
    return 0;
}

int shmemi_ctx_destroy(shmem_ctx_t ctx, const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (rc || ctx == SHMEM_CTX_INVALID)
        return rc;
    if (ctx == SHMEM_CTX_DEFAULT)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "ctx is SHMEM_CTX_DEFAULT, which "
                          "cannot be destroyed");
    pthread_mutex_lock(&ctx_lock);
    ctx_unlink(ctx);
    rc = ctx_free(ctx, rtn);
    pthread_mutex_unlock(&ctx_lock);
    return rc;
}

int shmemi_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team_p, const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (rc)
        return rc;
    if (!team_p)
        return shmemi_err_quiet(SHMEMX_ERROR_INVALID_VALUE, rtn, "team is NULL");
    if (ctx == SHMEM_CTX_INVALID) {
        *team_p = SHMEM_TEAM_INVALID;
        return shmemi_err_quiet(SHMEMX_ERROR_INVALID_VALUE, rtn, "ctx is SHMEM_CTX_INVALID");
    }
    *team_p = ctx->team;
    return 0;
}

/* Sessions are hints that a run of operations may be batched; the
 * transport already posts every operation as it comes, so they only check
 * their arguments (ctx SHMEM_CTX_INVALID: no effect). */
int shmemi_ctx_session_start(shmem_ctx_t ctx, long options,
                             const shmem_ctx_session_config_t *config, long config_mask,
                             const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (rc || ctx == SHMEM_CTX_INVALID)
        return rc;
    /* Unknown option and mask bits are hints this version does not know. */
    (void)options;
    if (config_mask && !config)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "config is NULL with config_mask "
                          "0x%lx", (unsigned long)config_mask);
    return 0;
}

int shmemi_ctx_session_stop(shmem_ctx_t ctx, const char *rtn)
{
    (void)ctx;
    return shmemi_check_init(rtn);
}
