/*
 * The executor: runs a batch of a stream's work items, in order, through
 * the core's routines, the same that the API calls (RMA, signals, waits,
 * quiet, the collectives), on the stream's context.  The items were
 * checked when they were enqueued, by the same checks; the core checks
 * again as it runs, which only fails for what changed since (a registered
 * buffer unregistered) or for the transport.
 *
 * Puts are non-blocking: consecutive puts stream out together, and one
 * quiet on the stream's context completes them before whatever comes next
 * (any other item) and before the batch counts as executed.  Puts are not
 * ordered with each other without a quiet in OpenSHMEM either, and a
 * source buffer is the stream's until then.  1024 puts of 64 KiB over
 * tcp: 64 -> 50 ms (one round trip each before).  On an offloading stream
 * each item first waits for the triggered work before it, and counts as
 * done (starting the triggered work after it) once it is complete.
 *
 * Failures have nobody to return to (the thread that enqueued the work
 * has gone on): they become the stream's error, which the next sync
 * reports, and the stream goes on with the work behind them, for the
 * puts, gets and quiets and for a signal or wait whose word is no longer
 * symmetric.  A transport failure of a signal, and any failure of a
 * barrier or collective, ends the job as it does off streams (the PE at
 * the other end would wait forever), with the message naming the
 * on-stream routine.
 */
#include "stream/stream_int.h"
#include "core/rma.h"
#include "core/signal.h"

/* ---- failures ---- */

/* What a failed routine of the executor (class rc, recorded on this
 * thread) means: it becomes the stream's error; a bad argument found now
 * was valid when the work was enqueued, so a buffer was unregistered
 * since. */
static void exec_failed(struct shmemx_stream *s, int rc)
{
    if (rc == SHMEMX_ERROR_INVALID_VALUE)
        shmemi_stream_fail(s, rc, "%s (no longer inside a symmetric object when the stream "
                           "executes the work: unregistered since it was enqueued?)",
                           shmemi_err_last()->msg);
    else
        shmemi_stream_fail(s, rc, "%s", shmemi_err_last()->msg);
    shmemi_err_clear();
}

/* For a signal or a wait: a bad argument is the stream's error, any other
 * failure ends the job. */
static void exec_signal_failed(struct shmemx_stream *s, int rc)
{
    if (rc != SHMEMX_ERROR_INVALID_VALUE)
        shmemi_must(rc);
    exec_failed(s, rc);
}

/* ---- the context ---- */

void shmemi_stream_note_shared(const char *rtn, const char *why)
{
    static int noted;

    if (__atomic_exchange_n(&noted, 1, __ATOMIC_RELAXED))
        return;
    shmemi_debug("%s: a stream shares the default endpoint (%s): its quiets also wait for the "
                 "default context's traffic; further streams that share it are not reported",
                 rtn, why);
}

/* After the executor ran w: once the stream's context has made its choice
 * (an endpoint of its own, or sharing the default one: at its first
 * operation through the provider), say so when it shares. */
static void check_shared(struct shmemx_stream *s, const shmemi_work_t *w)
{
    char why[160];

    if (s->tp_noted || s->ctx == SHMEM_CTX_DEFAULT)
        return;
    if (__atomic_load_n(&s->ctx->tp, __ATOMIC_ACQUIRE)) {
        s->tp_noted = 1;
    } else if (s->ctx->shared) {
        s->tp_noted = 1;
        snprintf(why, sizeof(why), "FABSHMEM_CTX_ENDPOINTS=%ld endpoints for contexts are all "
                 "in use, or the %s provider cannot make another",
                 (long)shmemi_g.env.ctx_endpoints, shmemi_g.tp ? shmemi_g.tp->prov_name : "");
        shmemi_stream_note_shared(w->rtn, why);
    }
}

/* Completes what the executor issued on the stream's context; a failure
 * is recorded against the first put issued since the last quiet. */
static void stream_quiet(struct shmemx_stream *s, const char *rtn)
{
    int rc = shmemi_quiet(s->ctx, rtn);

    if (rc && s->open_rtn)
        shmemi_stream_fail(s, rc, "%s: the put to PE %d, or a put of the stream after it, did "
                           "not complete (%s)", s->open_rtn, s->open_pe,
                           shmemi_err_last()->msg);
    else if (rc)
        shmemi_stream_fail(s, rc, "%s: completing the stream's operations failed (%s)", rtn,
                           shmemi_err_last()->msg);
    if (rc)
        shmemi_err_clear();
    s->open_rtn = NULL;
}

/* After a put of w: the first put that reached the transport since the
 * last quiet is the one a failed quiet names. */
static void note_open(struct shmemx_stream *s, const shmemi_work_t *w)
{
    if (!s->open_rtn && atomic_load_explicit(s->ctx->dirty, memory_order_relaxed)) {
        s->open_rtn = w->rtn;
        s->open_pe = w->pe;
    }
}

/* ---- the items ---- */

/* A collective: any failure ends the job (the other members would wait
 * for this one forever). */
static void exec_coll(const shmemi_work_t *w)
{
    int rc;

    switch (w->coll) {
    case SHMEMI_WC_BCAST:
        rc = shmemi_coll_bcast(w->team, w->dest, w->src, w->nelems, w->len, w->pe, 1, w->rtn);
        break;
    case SHMEMI_WC_FCOLLECT:
        rc = shmemi_coll_collect(w->team, w->dest, w->src, w->nelems, w->len, 1, w->rtn);
        break;
    case SHMEMI_WC_ALLTOALL:
        rc = shmemi_coll_alltoall(w->team, w->dest, w->src, 1, 1, w->nelems, w->len, w->rtn);
        break;
    case SHMEMI_WC_REDUCE:
        rc = shmemi_reduce(w->team, w->tc, w->op, w->len, w->dest, w->src, w->nelems, w->rtn);
        break;
    default:
        rc = shmemi_reducescatter(w->team, w->tc, w->op, w->len, w->dest, w->src, w->nelems,
                                  w->rtn);
        break;
    }
    shmemi_must(rc);
}

static void exec_work(struct shmemx_stream *s, shmemi_work_t *w)
{
    shmem_ctx_t ctx = s->ctx;
    uint64_t v;
    int rc = 0;

    switch (w->kind) {
    case SHMEMI_W_PUT:
        rc = shmemi_put_w(ctx, w->dest, w->src ? w->src : w->imm.b, w->len, w->pe, 1, w->rtn);
        note_open(s, w);
        break;
    case SHMEMI_W_GET:
        rc = shmemi_get_w(ctx, w->dest, w->src, w->len, w->pe, 0, w->rtn);
        break;
    case SHMEMI_W_IPUT:
        rc = shmemi_iput_nbi(ctx, w->dest, w->src, w->dst, w->sst, 1, w->nelems, w->len, w->pe,
                             w->rtn);
        note_open(s, w);
        break;
    case SHMEMI_W_IGET:
        rc = shmemi_iget(ctx, w->dest, w->src, w->dst, w->sst, 1, w->nelems, w->len, w->pe,
                         w->rtn);
        break;
    case SHMEMI_W_PUT_SIGNAL:
        if ((rc = shmemi_put_signal(ctx, w->dest, w->src, w->len, 1, w->sig, w->value, w->op,
                                    w->pe, 0, w->rtn)))
            exec_signal_failed(s, rc);
        return;
    case SHMEMI_W_SIGNAL_OP:
        if ((rc = shmemi_signal_op(ctx, w->sig, w->value, w->op, w->pe, w->rtn)))
            exec_signal_failed(s, rc);
        return;
    case SHMEMI_W_SIGNAL_WAIT:
        /* The word must still be symmetric (the wait itself does not ask). */
        if ((rc = shmemi_check_sym(w->sig, sizeof(uint64_t), "sig_addr", w->rtn)) ||
            (rc = shmemi_signal_wait_until(w->sig, w->op, w->value, &v, w->rtn)))
            exec_signal_failed(s, rc);
        return;
    case SHMEMI_W_CALL:
        if ((rc = w->call(w)))
            exec_signal_failed(s, rc);
        return;
    case SHMEMI_W_QUIET:
        stream_quiet(s, w->rtn);
        return;
    case SHMEMI_W_BARRIER:
        stream_quiet(s, w->rtn);
        shmemi_must(shmemi_coll_barrier(w->team, w->rtn));
        return;
    case SHMEMI_W_SYNC:
        shmemi_must(shmemi_coll_sync(w->team, w->rtn));
        return;
    case SHMEMI_W_COLL:
        exec_coll(w);
        return;
    case SHMEMI_W_LAUNCH:
        w->fn(w->arg);
        return;
    }
    if (rc)
        exec_failed(s, rc);
}

void shmemi_stream_run(struct shmemx_stream *s, shmemi_work_t *w, size_t n)
{
    size_t k;

    for (k = 0; k < n; k++) {
        shmemi_log_context(w[k].rtn);
        if (s->trig) {
            /* After the triggered work before it, complete before what
             * follows starts. */
            shmemi_stream_trig_wait(s, w[k].thr);
            exec_work(s, &w[k]);
            stream_quiet(s, w[k].rtn);
            shmemi_stream_trig_done(s);
        } else {
            /* Puts stream out together; anything else first completes
             * them. */
            if (s->open_rtn && w[k].kind != SHMEMI_W_PUT && w[k].kind != SHMEMI_W_IPUT)
                stream_quiet(s, w[k].rtn);
            exec_work(s, &w[k]);
        }
        check_shared(s, &w[k]);
        shmemi_log_context(NULL);
    }
    /* Complete the batch's puts before it counts as executed (their
     * sources, p's values among them in w[], are in use until then). */
    if (s->open_rtn) {
        shmemi_log_context(s->open_rtn);
        stream_quiet(s, "shmemx_stream_sync");
        shmemi_log_context(NULL);
    }
}
