/*
 * Contexts: the context object, the transport its operations go to, and
 * the live contexts.
 */
#ifndef SHMEMI_CTX_H
#define SHMEMI_CTX_H

#include "base/state.h"

/* A context.  tp is its own transport, a child of the default one with an
 * endpoint of its own, made when the context first hands an operation to
 * the provider (src/core/ctx.c); NULL before that and for contexts that share
 * the default transport (shared: the default context, contexts beyond
 * FABSHMEM_CTX_ENDPOINTS, providers that cannot make another endpoint).
 * dirty points to the flag that operations handed to the transport on
 * this context set and quiet clears: &shmemi_g.tp_dirty for the default
 * context, &own_dirty for the others.  A team context
 * (shmem_team_create_ctx) numbers PEs in its team: pes[team index] is the
 * world PE (NULL: world numbering). */
struct shmemi_ctx {
    long options;
    shmem_team_t team;
    shmemt_t *tp;       /* read and set with __atomic builtins */
    int shared;
    _Atomic int *dirty;
    int *pes;
    int n_pes;
    _Atomic int own_dirty;
    _Atomic int quieting; /* quiets in progress (src/core/sync.c) */
    struct shmemi_ctx *prev, *next; /* the live contexts (src/core/ctx.c) */
};

/* Quiets and releases every context that is still alive: those of team
 * (shmem_team_destroy), or all of them (team NULL, shmem_finalize).  0,
 * or the class of the first quiet that failed, recorded as rtn's (every
 * context is released all the same). */
int shmemi_ctxs_release(shmem_team_t team, const char *rtn) SHMEMI_WUR;
/* Quiets the default context and every live one (each of them, whatever
 * failed before): what shmem_finalize and the unregistering of buffers do
 * before anything is released.  0, or the class of the last quiet that
 * failed, recorded as rtn's and marked as ending the job in
 * SHMEMX_ERRORS_ABORT mode (shmemi_err_set_ends): there the job ends, as
 * it did before routines returned the failure; in SHMEMX_ERRORS_RETURN
 * mode the caller returns it. */
int shmemi_quiet_all(const char *rtn) SHMEMI_WUR;
/* Hands wrap the transports of the contexts that have an endpoint of their
 * own (live or kept for reuse), n of them in tps, under the contexts'
 * lock; wrap replaces all of them in tps and returns 0, or changes none
 * and returns a negative errno.  The contexts then use the replacements. */
int shmemi_ctxs_wrap(int (*wrap)(shmemt_t **tps, int n, void *arg), void *arg);
/* src/core/tp_serial.c: when the default transport lacks SHMEMT_CAP_THREADS,
 * wraps it and every child made from it, before or after, so that one
 * process-wide lock serializes all calls into the provider (the wrapper
 * has the capability).  For shmem_init_thread(SHMEM_THREAD_MULTIPLE) and
 * the first stream; called while no other thread uses the transport.
 * 0 or a negative errno (nothing changed). */
int shmemi_tp_serialize(void);


/* ---- contexts ---- */
/* The transport that ctx's operations went to (NULL in a one-PE job):
 * for quiet and fence. */
static inline shmemt_t *shmemi_ctx_tp(shmem_ctx_t ctx)
{
    shmemt_t *tp = __atomic_load_n(&ctx->tp, __ATOMIC_ACQUIRE);
    return tp ? tp : shmemi_g.tp;
}

/* The transport that an operation on ctx goes to: the context's own
 * endpoint, made at the first call (src/core/ctx.c), or the default one. */
shmemt_t *shmemi_ctx_tp_make(shmem_ctx_t ctx);
static inline shmemt_t *shmemi_ctx_tp_issue(shmem_ctx_t ctx)
{
    shmemt_t *tp = __atomic_load_n(&ctx->tp, __ATOMIC_ACQUIRE);
    if (SHMEMI_LIKELY(tp != NULL))
        return tp;
    return ctx->shared ? shmemi_g.tp : shmemi_ctx_tp_make(ctx);
}

/* Turns *pe_p, a PE of ctx, into a world PE: 0, or the error recorded
 * when ctx is SHMEM_CTX_INVALID or the PE is not in the context's team.
 * The slow part takes the PE by value and returns the world PE, or minus
 * the class: no address of the caller's PE escapes, so the public routine
 * keeps its locals in registers and ends its fast path in a tail call of
 * memcpy. */
int shmemi_ctx_pe_slow(shmem_ctx_t ctx, int pe, const char *rtn) SHMEMI_WUR;
SHMEMI_INLINE SHMEMI_WUR int shmemi_ctx_pe(shmem_ctx_t ctx, int *pe_p, const char *rtn)
{
    if (SHMEMI_UNLIKELY(ctx == SHMEM_CTX_INVALID || ctx->pes != NULL)) {
        int world = shmemi_ctx_pe_slow(ctx, *pe_p, rtn);

        if (world < 0)
            return -world;
        *pe_p = world;
    }
    return 0;
}

/* ---- creation, destruction, queries (src/core/ctx.c) ----
 * Each returns 0 or the class of the error, recorded (base/error.h). */
/* Makes a context with options (SHMEM_CTX_* bits) into *ctx_p
 * (SHMEM_CTX_INVALID on failure).  Its PEs are numbered as in the world
 * when pes is NULL, else they are the world PEs pes[0 .. n_pes) of a team
 * (copied); n_pes 0 says that the team is not one this PE is in
 * (SHMEM_TEAM_INVALID among others), a failure without a message.  team
 * is only kept, for shmemi_ctx_get_team and shmemi_ctxs_release. */
int shmemi_ctx_create(long options, const int *pes, int n_pes, shmem_team_t team,
                      shmem_ctx_t *ctx_p, const char *rtn) SHMEMI_WUR;
/* Quiets and frees ctx (SHMEM_CTX_INVALID: nothing). */
int shmemi_ctx_destroy(shmem_ctx_t ctx, const char *rtn) SHMEMI_WUR;
/* The team given at creation into *team_p (SHMEM_TEAM_INVALID and a
 * failure without a message for SHMEM_CTX_INVALID). */
int shmemi_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team_p, const char *rtn) SHMEMI_WUR;
/* The session hints: they check their arguments only. */
int shmemi_ctx_session_start(shmem_ctx_t ctx, long options,
                             const shmem_ctx_session_config_t *config, long config_mask,
                             const char *rtn) SHMEMI_WUR;
int shmemi_ctx_session_stop(shmem_ctx_t ctx, const char *rtn) SHMEMI_WUR;

#endif
