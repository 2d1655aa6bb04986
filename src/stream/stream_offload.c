/*
 * Offload (FABSHMEM_STREAM_OFFLOAD, a provider with FI_TRIGGER): the
 * stream also owns a triggered queue of the transport, whose counter
 * orders all of the stream's work.  Every item takes a threshold, the
 * count of the items before it (s->thr).  Puts, gets and signals to PEs
 * that are not mapped go straight to the provider from the enqueuing
 * thread, as triggered operations with that threshold: the provider starts
 * each when the one before it is complete at its target, with no thread of
 * ours in the loop.  Everything else (host kernels, mapped peers, waits,
 * collectives) stays an item of the queue: the executor waits until the
 * counter reaches the item's threshold, runs it, and adds 1 to the
 * counter, which starts the triggered operations that follow.
 *
 * Consecutive puts form a group of up to TRIG_GROUP that shares the
 * threshold of the group's first put, so they stream out together rather
 * than one round trip each (puts are not ordered with each other without
 * a quiet in OpenSHMEM either); whatever follows the group waits for all
 * of it.  Gets, signals and queued items always wait for everything
 * before them.
 *
 * A triggered operation that fails becomes the stream's error (naming the
 * on-stream routine that posted it) and the counter is moved past it, so
 * that what follows runs.
 */
#include "stream/stream_int.h"
#include <stdlib.h>

/* Puts that may start together (see the top). */
#define TRIG_GROUP 64

/* ---- configuration ---- */

int shmemi_stream_offload_mode(void)
{
    int v = shmemi_g.env.stream_offload;

    return v == SHMEMI_ENV_STREAM_OFFLOAD_ON ? 1 : v == SHMEMI_ENV_STREAM_OFFLOAD_OFF ? 0 : 2;
}

/* ---- the counter ---- */

/* Triggered operations that failed stop the chain (the counter does not
 * count them): name the first in the stream's error and add the failures
 * to the counter, so that what follows runs. */
static void trig_failures(struct shmemx_stream *s)
{
    shmemt_t *tp = shmemi_g.tp;
    uint64_t done, failed;
    struct shmemi_trig_desc d;

    pthread_mutex_lock(&s->trig_lock);
    tp->ops->trig_status(s->trig, &done, &failed);
    if (failed > s->trig_failed) {
        /* The operation that failed is the one at the counter's value, or
         * a put of the same group. */
        pthread_mutex_lock(&s->lock);
        d = s->desc[done % SHMEMT_TRIG_DEPTH];
        pthread_mutex_unlock(&s->lock);
        shmemi_stream_fail(s, SHMEMX_ERROR_TRANSPORT, "%s: the triggered %s %s PE %d%s failed "
                           "(see the provider's message above)",
                           d.rtn ? d.rtn : "shmemx_stream", d.what ? d.what : "operation",
                           d.what && !strcmp(d.what, "get") ? "from" : "to", d.pe,
                           d.what && !strcmp(d.what, "put") ? " or a put posted with it" : "");
        tp->ops->trig_add(s->trig, failed - s->trig_failed);
        s->trig_failed = failed;
    }
    pthread_mutex_unlock(&s->trig_lock);
}

/* The counter of the stream's triggered queue, failures passed over. */
static uint64_t trig_counter(struct shmemx_stream *s)
{
    uint64_t done, failed;

    shmemi_g.tp->ops->trig_status(s->trig, &done, &failed);
    if (failed != __atomic_load_n(&s->trig_failed, __ATOMIC_RELAXED)) {
        trig_failures(s);
        shmemi_g.tp->ops->trig_status(s->trig, &done, &failed);
    }
    return done;
}

/* The counter alone (no failure handling: callable under s->lock). */
static uint64_t trig_count(struct shmemx_stream *s)
{
    uint64_t done, failed;

    shmemi_g.tp->ops->trig_status(s->trig, &done, &failed);
    return done;
}

void shmemi_stream_trig_wait(struct shmemx_stream *s, uint64_t thr)
{
    unsigned long it = 0;

    while (trig_counter(s) < thr)
        shmemi_wait_backoff(&it);
}

void shmemi_stream_trig_done(struct shmemx_stream *s)
{
    shmemi_g.tp->ops->trig_add(s->trig, 1);
}

int shmemi_stream_trig_busy(struct shmemx_stream *s)
{
    return s->trig && trig_count(s) < s->thr;
}

void shmemi_stream_trig_check(struct shmemx_stream *s)
{
    (void)trig_counter(s);
}

/* Numbers work the host does (an item of the queue, a CUDA stream's
 * release): the next number, which no put group shares. */
static uint64_t number_host(struct shmemx_stream *s, const char *rtn, const char *what)
{
    struct shmemi_trig_desc *d = &s->desc[s->thr % SHMEMT_TRIG_DEPTH];

    d->rtn = rtn;
    d->what = what;
    d->pe = shmemi_g.my_pe;
    s->grp_n = 0;
    return s->thr++;
}

void shmemi_stream_offload_number(struct shmemx_stream *s, shmemi_work_t *slot)
{
    slot->thr = number_host(s, NULL, NULL);
}

/* ---- posting ---- */

/* The remote range that work of kind (W_PUT, W_GET, W_SIGNAL_OP and the
 * data of W_PUT_SIGNAL) targets on w->pe. */
static const void *work_target(const shmemi_work_t *w, enum shmemi_wkind kind, size_t *len_p)
{
    *len_p = kind == SHMEMI_W_SIGNAL_OP ? sizeof(uint64_t) : w->len;
    return kind == SHMEMI_W_GET ? w->src : kind == SHMEMI_W_SIGNAL_OP ? w->sig : w->dest;
}

/* Posts one triggered operation (kind, with the arguments of w) as number
 * s->thr (caller holds s->lock): 0, -ENOTSUP (the executor must do it) or
 * another error. */
static int trig_post_one(struct shmemx_stream *s, enum shmemi_wkind kind, const shmemi_work_t *w,
                         const char *rtn)
{
    const shmemt_ops_t *ops = shmemi_g.tp->ops;
    struct shmemi_trig_desc *d;
    uint64_t off, thr = s->thr;
    size_t len;
    const void *raddr = work_target(w, kind, &len);
    int seg, ret;

    if (shmemi_addr_seg(raddr, len, &seg, &off))
        return -EINVAL;
    if (kind == SHMEMI_W_PUT) {
        /* Join the open group of puts, or open one. */
        if (s->grp_n == 0 || s->grp_n >= TRIG_GROUP)
            s->grp_thr = s->thr;
        thr = s->grp_thr;
        ret = ops->trig_put(s->trig, s->thr, thr, w->pe, seg, off, w->src, w->len);
    } else if (kind == SHMEMI_W_GET) {
        ret = ops->trig_get(s->trig, s->thr, thr, w->pe, seg, off, w->dest, w->len);
    } else {
        ret = ops->trig_atomic(s->trig, s->thr, thr, w->pe, seg, off,
                               w->op == SHMEM_SIGNAL_ADD ? SHMEMT_AOP_ADD : SHMEMT_AOP_SET,
                               w->value);
    }
    if (ret)
        return ret;
    if (kind == SHMEMI_W_PUT)
        s->grp_n = s->grp_thr == s->thr ? 1 : s->grp_n + 1;
    else
        s->grp_n = 0;
    d = &s->desc[s->thr % SHMEMT_TRIG_DEPTH];
    d->rtn = rtn;
    d->what = kind == SHMEMI_W_PUT ? "put" : kind == SHMEMI_W_GET ? "get" : "signal";
    d->pe = w->pe;
    s->thr++;
    return 0;
}

/* Takes s->lock once the triggered queue has room for nops more
 * operations: at most SHMEMT_TRIG_DEPTH - TRIG_GROUP in flight (a group
 * completes in any order).  Waits for room without the lock (the executor
 * needs it to get on). */
static void lock_with_room(struct shmemx_stream *s, int nops)
{
    for (;;) {
        uint64_t need;
        pthread_mutex_lock(&s->lock);
        need = s->thr + (uint64_t)nops + TRIG_GROUP;
        if (need <= SHMEMT_TRIG_DEPTH || trig_count(s) >= need - SHMEMT_TRIG_DEPTH)
            return;
        pthread_mutex_unlock(&s->lock);
        shmemi_stream_trig_wait(s, need - SHMEMT_TRIG_DEPTH);
    }
}

/* Posts w's operations as the next numbers (the caller holds s->lock): a
 * put with signal is the put, then the signal.  0, or the error of the
 * first that failed, with *rest what is left of w (w, or the signal after
 * its put) and *posted_p whether anything of w was posted. */
static int post_work(struct shmemx_stream *s, const shmemi_work_t *w, shmemi_work_t *rest,
                     int *posted_p)
{
    int ret;

    *rest = *w;
    if (w->kind != SHMEMI_W_PUT_SIGNAL) {
        ret = trig_post_one(s, w->kind, w, w->rtn);
        *posted_p = ret == 0;
        return ret;
    }
    if ((*posted_p = (ret = trig_post_one(s, SHMEMI_W_PUT, w, w->rtn)) == 0)) {
        rest->kind = SHMEMI_W_SIGNAL_OP;
        ret = trig_post_one(s, SHMEMI_W_SIGNAL_OP, rest, w->rtn);
    }
    return ret;
}

/* Makes the provider's refusal (ret) to trigger w the stream's error:
 * its class. */
static int trig_refused(struct shmemx_stream *s, const shmemi_work_t *w, int ret)
{
    int rc = shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT);

    shmemi_stream_fail(s, rc, "%s: the provider refused the triggered %s to PE %d (%s)", w->rtn,
                       w->kind == SHMEMI_W_SIGNAL_OP ? "signal"
                       : w->kind == SHMEMI_W_GET    ? "get"
                                                    : "put",
                       w->pe, strerror(-ret));
    return rc;
}

int shmemi_stream_submit(struct shmemx_stream *s, const shmemi_work_t *w)
{
    const void *raddr;
    size_t rlen;
    int ret, posted, rc = 0;
    shmemi_work_t rest;

    /* A CUDA stream decides on each item as the CUDA stream reaches it
     * (stream_cuda.c). */
    if (!s->trig || s->kind->issue || (w->len == 0 && w->kind != SHMEMI_W_SIGNAL_OP))
        return shmemi_stream_enqueue(s, w);
    raddr = work_target(w, w->kind, &rlen);
    if (shmemi_direct(raddr, rlen, w->pe) ||
        (w->kind == SHMEMI_W_PUT_SIGNAL && shmemi_direct(w->sig, sizeof(uint64_t), w->pe)))
        return shmemi_stream_enqueue(s, w);
    lock_with_room(s, w->kind == SHMEMI_W_PUT_SIGNAL ? 2 : 1);
    /* What the provider cannot trigger (the whole put with signal, or the
     * signal after the put) goes to the queue in its place. */
    ret = post_work(s, w, &rest, &posted);
    if (ret == -ENOTSUP)
        rc = shmemi_stream_enqueue_locked(s, &rest);
    pthread_mutex_unlock(&s->lock);
    if (ret && ret != -ENOTSUP) {
        rc = trig_refused(s, &rest, ret);
        shmemi_err_clear(); /* the stream's, as a refusal (stream.h) */
    }
    return rc;
}

/* ---- released by a CUDA stream (stream_cuda.c) ---- */

/* Posts the self SET that ends a released chain: the word at off of this
 * PE's SHMEMT_SEG_SELF takes the count after it, which *value_p gets. */
static int post_done_word(struct shmemx_stream *s, uint64_t off, const char *rtn,
                          uint64_t *value_p)
{
    struct shmemi_trig_desc *d = &s->desc[s->thr % SHMEMT_TRIG_DEPTH];
    int ret = shmemi_g.tp->ops->trig_atomic(s->trig, s->thr, s->thr, shmemi_g.my_pe,
                                            SHMEMT_SEG_SELF, off, SHMEMT_AOP_SET, s->thr + 1);

    if (ret)
        return ret;
    d->rtn = rtn;
    d->what = "write of the CUDA stream's completion word";
    d->pe = shmemi_g.my_pe;
    s->grp_n = 0;
    *value_p = ++s->thr;
    return 0;
}

int shmemi_stream_trig_released(struct shmemx_stream *s, const shmemi_work_t *w, uint64_t off,
                                uint64_t *value_p, int *rest_p)
{
    shmemi_work_t rest;
    int ret, posted;

    *value_p = 0;
    *rest_p = 0;
    lock_with_room(s, 4);
    (void)number_host(s, w->rtn, NULL); /* the host function's trig_add */
    ret = post_work(s, w, &rest, &posted);
    if (!posted) {
        s->thr--; /* nothing of w was posted: no release either */
        pthread_mutex_unlock(&s->lock);
        return ret;
    }
    if (ret == -ENOTSUP)
        *rest_p = 1; /* the signal is the worker's, after the put */
    else if (ret)
        (void)trig_refused(s, &rest, ret);
    /* Without the word (-ENOTSUP), an item of the queue after the chain
     * says when it is complete. */
    if (!*rest_p && (ret = post_done_word(s, off, w->rtn, value_p)) && ret != -ENOTSUP)
        shmemi_stream_fail(s, shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT),
                           "%s: the provider refused the triggered write of the CUDA stream's "
                           "completion word (%s)", w->rtn, strerror(-ret));
    pthread_mutex_unlock(&s->lock);
    return 0;
}

/* ---- the triggered queue ---- */

/* A provider with triggered operations that made no triggered queue (auto:
 * the stream runs on its worker): said once per process. */
static void note_no_trig(const shmemt_t *tp, int err)
{
    static int noted;

    if (__atomic_exchange_n(&noted, 1, __ATOMIC_RELAXED))
        return;
    shmemi_log(SHMEMI_LOG_WARN, "shmemx_stream_create: the %s provider has triggered operations "
               "but no triggered queue could be made (%s): streams run on their worker threads "
               "(shmemx_stream_offloaded says which way each one runs)", tp->prov_name,
               strerror(-err));
}

int shmemi_stream_offload_open(struct shmemx_stream *s, int mode, const char *rtn)
{
    shmemt_t *tp = shmemi_g.tp;
    int ret = -ENOMEM;

    s->trig = NULL;
    if (!mode || !tp || !(tp->caps & SHMEMT_CAP_TRIGGER))
        return 0;
    pthread_mutex_init(&s->trig_lock, NULL);
    s->desc = calloc(SHMEMT_TRIG_DEPTH, sizeof(*s->desc));
    if (s->desc)
        ret = tp->ops->trig_create(tp, &s->trig);
    if (!ret)
        return 0;
    s->trig = NULL;
    free(s->desc);
    s->desc = NULL;
    pthread_mutex_destroy(&s->trig_lock);
    if (mode == 1)
        return shmemi_err(shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT), rtn,
                          "FABSHMEM_STREAM_OFFLOAD=1 but no triggered queue could be made on %s "
                          "(%s)", tp->prov_name, strerror(-ret));
    note_no_trig(tp, ret);
    return 0;
}

void shmemi_stream_offload_close(struct shmemx_stream *s)
{
    if (!s->trig)
        return;
    shmemi_g.tp->ops->ctx_destroy(s->trig);
    s->trig = NULL;
    free(s->desc);
    s->desc = NULL;
    pthread_mutex_destroy(&s->trig_lock);
}

const char *shmemi_stream_path(void)
{
    static char buf[256];
    shmemt_t *tp = shmemi_g.tp, *q = NULL;
    int mode = shmemi_stream_offload_mode(), ret;

    if (!tp)
        return "worker threads (no provider in use: every PE is mapped)";
    if (mode == 0)
        return "worker threads (FABSHMEM_STREAM_OFFLOAD=0)";
    if (!(tp->caps & SHMEMT_CAP_TRIGGER)) {
        snprintf(buf, sizeof(buf), mode == 1 ? "none: FABSHMEM_STREAM_OFFLOAD=1 and the %s "
                 "provider has no triggered operations (shmemx_stream_create fails)"
                 : "worker threads (the %s provider has no triggered operations)", tp->prov_name);
        return buf;
    }
    /* As shmemx_stream_create would: the capability is not the answer. */
    ret = tp->ops->trig_create(tp, &q);
    if (ret) {
        snprintf(buf, sizeof(buf), "%s (the %s provider has triggered operations, but no "
                 "triggered queue could be made: %s)", mode == 1 ? "none: shmemx_stream_create "
                 "fails" : "worker threads", tp->prov_name, strerror(-ret));
        return buf;
    }
    tp->ops->ctx_destroy(q);
    snprintf(buf, sizeof(buf), "offloaded to the %s provider as triggered operations "
             "(FI_TRIGGER) for PEs that are not mapped (on CUDA streams: between host buffers, "
             "released by the CUDA stream), worker threads for the rest", tp->prov_name);
    return buf;
}
