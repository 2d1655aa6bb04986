/*
 * Streams: ordered queues of work executed by one worker thread each (see
 * include/fabshmem/shmemx_stream.h for the contract).
 *
 * The queue is a growable ring of work items under a mutex; the worker
 * sleeps on a condition variable while it is empty, and signals another
 * when it has executed an item, which shmemx_stream_sync waits on.  The
 * worker creates a private context at start, so its traffic has its own
 * completion and a quiet on it waits for nothing else.
 *
 * The worker's puts are non-blocking: consecutive puts stream out
 * together, and one quiet on the stream's context completes them before
 * whatever comes next (any other item) and before the batch counts as
 * executed (shmemx_stream_sync, shmemx_stream_query).  Puts are not ordered
 * with each other without a quiet in OpenSHMEM either, and a source buffer
 * is the stream's until then.  1024 puts of 64 KiB over tcp: 64 -> 50 ms
 * (one round trip each before).
 *
 * Offload (FABSHMEM_STREAM_OFFLOAD, a provider with FI_TRIGGER): the
 * stream also owns a triggered queue of the transport, whose counter
 * orders all of the stream's work.  Every item takes a threshold, the
 * count of the items before it (s->thr).  Puts, gets and signals to PEs
 * that are not mapped go straight to the provider from the enqueuing
 * thread, as triggered operations with that threshold: the provider starts
 * each when the one before it is complete at its target, with no thread of
 * ours in the loop.  Everything else (host kernels, mapped peers, waits,
 * collectives) stays a worker item: the worker waits until the counter
 * reaches the item's threshold, executes it, and adds 1 to the counter,
 * which starts the triggered operations that follow.
 *
 * Consecutive puts form a group of up to TRIG_GROUP that shares the
 * threshold of the group's first put, so they stream out together rather
 * than one round trip each (puts are not ordered with each other without
 * a quiet in OpenSHMEM either); whatever follows the group waits for all
 * of it.  Gets, signals and worker items always wait for everything
 * before them.  The worker quiets its context after each item it runs on
 * an offloading stream, so that what the counter starts next finds it
 * complete.
 *
 * Errors never end the job here: the routines check their arguments when
 * they enqueue (stream_rma.c, stream_coll.c), and the worker's puts, gets
 * and quiets go to the transport directly and record a failure the
 * transport reports, as the triggered path records a failed operation.
 * The first error since the last sync is what sync reports.  Signals and
 * collectives run through the library's usual routines, which end the job
 * on a transport failure; every message the worker logs names the
 * *_on_stream routine of the item it executes (shmemi_log_context).
 */
#define _GNU_SOURCE
#include "coll/coll.h"
#include "stream/stream.h"
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>

/* Short names for the work kinds of stream.h. */
#define W_PUT SHMEMI_W_PUT
#define W_GET SHMEMI_W_GET
#define W_IPUT SHMEMI_W_IPUT
#define W_IGET SHMEMI_W_IGET
#define W_PUT_SIGNAL SHMEMI_W_PUT_SIGNAL
#define W_SIGNAL_OP SHMEMI_W_SIGNAL_OP
#define W_SIGNAL_WAIT SHMEMI_W_SIGNAL_WAIT
#define W_QUIET SHMEMI_W_QUIET
#define W_BARRIER SHMEMI_W_BARRIER
#define W_SYNC SHMEMI_W_SYNC
#define W_LAUNCH SHMEMI_W_LAUNCH
#define W_CALL SHMEMI_W_CALL
#define W_EXIT SHMEMI_W_EXIT
typedef struct shmemi_work work_t;

/* What the triggered operation of a threshold is, to name it if it fails. */
struct trig_desc {
    const char *rtn;
    const char *what;
    int pe;
};

struct shmemx_stream {
    uint32_t magic;
    pthread_mutex_t lock;
    pthread_cond_t more;     /* work was enqueued */
    pthread_cond_t done;     /* work was executed */
    work_t *ring;
    size_t cap, head, count; /* items at ring[head .. head+count) mod cap */
    uint64_t enqueued, executed;
    pthread_t worker;
    int worker_sleeps;       /* the worker waits on more */
    struct shmemi_stream_cpu cpu; /* where the worker may run (stream_cpu.c) */
    int syncers;             /* threads waiting on done */
    uint64_t wake_at;        /* the smallest target of those threads */
    shmem_ctx_t ctx;
    char error[256];         /* the first error since the last sync */
    int error_code;          /* and its SHMEMX_ERROR_* class */
    int errors_after;        /* errors since then that sync does not print */
    /* Worker only: the first put (or strided put) issued since the last
     * quiet of ctx, to name it when the quiet fails (NULL: none open). */
    const char *open_rtn;
    int open_pe;
    int tp_noted;            /* the worker saw ctx take an endpoint or share one */
    struct shmemx_stream *next_live; /* streams not yet destroyed */
    /* Offload: the triggered queue (NULL: the worker runs everything). */
    shmemt_t *trig;
    uint64_t thr;            /* under lock: the number of the next item */
    uint64_t grp_thr;        /* under lock: the threshold of the open group of puts */
    int grp_n;               /* its puts so far (0: no group open) */
    pthread_mutex_t trig_lock;
    uint64_t trig_failed;    /* under trig_lock: failures seen and passed over */
    struct trig_desc *desc;  /* [SHMEMT_TRIG_DEPTH], by threshold, under lock */
};

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shmemx_stream *live;

#define STREAM_MAGIC 0x5354524du
/* Puts that may start together (see the top). */
#define TRIG_GROUP 64

/* Refusing work with SHMEMX_ERROR_INVALID_VALUE (stream.h). */
#define refuse shmemi_stream_refuse
static void refuse_code(struct shmemx_stream *s, int code, const char *rtn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- offload ---- */

int shmemi_stream_offload_mode(const char *rtn)
{
    const char *v = shmemi_g.env.stream_offload;

    if (!strcmp(v, "auto"))
        return 2;
    if (!strcmp(v, "1"))
        return 1;
    if (!strcmp(v, "0"))
        return 0;
    shmemi_user_error(rtn, "FABSHMEM_STREAM_OFFLOAD: unknown value '%s' (auto, 1 or 0)", v);
}

/* Triggered operations that failed stop the chain (the counter does not
 * count them): name the first in the stream's error and add the failures
 * to the counter, so that what follows runs. */
static void trig_failures(struct shmemx_stream *s)
{
    shmemt_t *tp = shmemi_g.tp;
    uint64_t done, failed;
    struct trig_desc d;

    pthread_mutex_lock(&s->trig_lock);
    tp->ops->trig_status(s->trig, &done, &failed);
    if (failed > s->trig_failed) {
        /* The operation that failed is the one at the counter's value, or
         * a put of the same group. */
        pthread_mutex_lock(&s->lock);
        d = s->desc[done % SHMEMT_TRIG_DEPTH];
        pthread_mutex_unlock(&s->lock);
        refuse_code(s, SHMEMX_ERROR_TRANSPORT, d.rtn ? d.rtn : "shmemx_stream",
                    "the triggered %s %s PE %d%s failed (see the provider's message above)",
                    d.what ? d.what : "operation",
                    d.what && !strcmp(d.what, "get") ? "from" : "to", d.pe,
                    d.what && !strcmp(d.what, "put") ? " or a put posted with it" : "");
        tp->ops->trig_add(s->trig, failed - s->trig_failed);
        s->trig_failed = failed;
    }
    pthread_mutex_unlock(&s->trig_lock);
}

/* The counter of the stream's triggered queue. */
static uint64_t trig_done(struct shmemx_stream *s)
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

/* Waits, yielding and then sleeping, until the counter reaches thr. */
static void trig_wait(struct shmemx_stream *s, uint64_t thr)
{
    unsigned long it = 0;

    while (trig_done(s) < thr)
        shmemi_wait_backoff(&it);
}

/* ---- the worker's operations ---- */

/* Remembers once per process that a stream shares the default endpoint,
 * in a message the user sees: its quiets then also wait for the default
 * context's traffic (and the other sharers'). */
static void note_shared(const char *rtn, const char *why)
{
    static int noted;

    if (__atomic_exchange_n(&noted, 1, __ATOMIC_RELAXED))
        return;
    shmemi_log(SHMEMI_LOG_WARN, "%s: a stream shares the default endpoint (%s): its quiets also "
               "wait for the default context's traffic; further streams that share it are not "
               "reported", rtn, why);
}

/* After the worker ran w: once the stream's context has made its choice
 * (an endpoint of its own, or sharing the default one: at its first
 * operation through the provider), say so when it shares. */
static void check_shared(struct shmemx_stream *s, const work_t *w)
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
        note_shared(w->rtn, why);
    }
}

/* A symmetric range that was checked at enqueue and may have been
 * unregistered since (shmemx_buffer_unregister_symmetric): 0 with its
 * segment and offset, or -1 after recording the error. */
static int still_symmetric(struct shmemx_stream *s, const work_t *w, const void *addr, size_t len,
                           const char *what, int *seg_p, uint64_t *off_p)
{
    if (!shmemi_addr_seg(addr, len ? len : 1, seg_p, off_p))
        return 0;
    refuse(s, w->rtn, "%s %p (%zu bytes) is no longer inside a symmetric object when the "
           "stream executes the work (unregistered since it was enqueued?)", what, addr, len);
    return -1;
}

static void transport_failed(struct shmemx_stream *s, const work_t *w, const char *what, int ret)
{
    refuse_code(s, shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT), w->rtn,
                "the %s %s PE %d failed: %s", what, strcmp(what, "get") ? "to" : "from", w->pe,
                strerror(-ret));
}

/* Completes what the worker issued on the stream's context; a failure is
 * recorded against the first put issued since the last quiet. */
static void stream_quiet(struct shmemx_stream *s, const char *rtn)
{
    int rc = shmemi_quiet(s->ctx, rtn);

    if (rc && s->open_rtn)
        refuse_code(s, rc, s->open_rtn, "the put to PE %d, or a put of the stream after it, did "
                    "not complete (%s)", s->open_pe, shmemi_err_last()->msg);
    else if (rc)
        refuse_code(s, rc, rtn, "completing the stream's operations failed (%s)",
                    shmemi_err_last()->msg);
    s->open_rtn = NULL;
}

/* The part of a contiguous put (is_put) or get of the worker that needs
 * no provider: a copy through the mapping of a peer, or a plain copy on
 * this PE or where the stream's context has no transport.  Returns the
 * transport, with the segment and offset of the remote side (dest of a
 * put, src of a get), when the provider must carry it; NULL when the work
 * is done or was refused. */
static shmemt_t *exec_rw_local(struct shmemx_stream *s, const work_t *w, void *dest,
                               const void *src, size_t len, int is_put, int *seg_p,
                               uint64_t *off_p)
{
    const void *remote = is_put ? dest : src;
    char *p = shmemi_direct(remote, len, w->pe);
    shmemt_t *tp;

    if (len == 0)
        return NULL;
    if (p) {
        if (is_put)
            memcpy(p, src, len);
        else
            memcpy(dest, p, len);
        return NULL;
    }
    if (still_symmetric(s, w, remote, len, is_put ? "dest" : "source", seg_p, off_p))
        return NULL;
    if (w->pe == shmemi_g.my_pe || !(tp = shmemi_ctx_tp_issue(s->ctx))) {
        memmove(dest, src, len);
        return NULL;
    }
    return tp;
}

/* One contiguous put of the worker, non-blocking through the transport
 * (complete at the next stream_quiet). */
static void exec_put(struct shmemx_stream *s, const work_t *w, void *dest, const void *src,
                     size_t len)
{
    shmemt_t *tp;
    uint64_t off;
    int seg, ret;

    if (!(tp = exec_rw_local(s, w, dest, src, len, 1, &seg, &off)))
        return;
    ret = tp->ops->put_nbi(tp, w->pe, seg, off, src, len);
    shmemi_ctx_issued(s->ctx);
    if (!s->open_rtn) {
        s->open_rtn = w->rtn;
        s->open_pe = w->pe;
    }
    if (ret)
        transport_failed(s, w, "put", ret);
}

/* One contiguous get of the worker; nbi: complete at the next quiet. */
static void exec_get(struct shmemx_stream *s, const work_t *w, void *dest, const void *src,
                     size_t len, int nbi)
{
    shmemt_t *tp;
    uint64_t off;
    int seg, ret;

    if (!(tp = exec_rw_local(s, w, dest, src, len, 0, &seg, &off)))
        return;
    ret = nbi ? tp->ops->get_nbi(tp, w->pe, seg, off, dest, len)
              : tp->ops->get(tp, w->pe, seg, off, dest, len);
    shmemi_ctx_issued(s->ctx);
    if (ret)
        transport_failed(s, w, "get", ret);
}

/* Strided: element i is at element i * dst of dest and i * sst of src. */
static void exec_strided(struct shmemx_stream *s, const work_t *w, int is_put)
{
    ptrdiff_t es = (ptrdiff_t)w->len;
    size_t i;

    for (i = 0; i < w->nelems; i++) {
        char *d = (char *)w->dest + (ptrdiff_t)i * w->dst * es;
        const char *c = (const char *)w->src + (ptrdiff_t)i * w->sst * es;
        if (is_put)
            exec_put(s, w, d, c, w->len);
        else
            exec_get(s, w, d, c, w->len, 1);
    }
    if (!is_put)
        stream_quiet(s, w->rtn);
}

static void exec_work(struct shmemx_stream *s, work_t *w)
{
    shmem_ctx_t ctx = s->ctx;
    uint64_t off;
    int seg;

    switch (w->kind) {
    case W_PUT:
        exec_put(s, w, w->dest, w->src ? w->src : w->imm.b, w->len);
        break;
    case W_GET:
        exec_get(s, w, w->dest, w->src, w->len, 0);
        break;
    case W_IPUT:
        exec_strided(s, w, 1);
        break;
    case W_IGET:
        exec_strided(s, w, 0);
        break;
    case W_PUT_SIGNAL:
        if ((w->len && still_symmetric(s, w, w->dest, w->len, "dest", &seg, &off)) ||
            still_symmetric(s, w, w->sig, sizeof(uint64_t), "sig_addr", &seg, &off))
            break;
        pshmem_ctx_putmem_signal(ctx, w->dest, w->src, w->len, w->sig, w->value, w->op, w->pe);
        break;
    case W_SIGNAL_OP:
        if (still_symmetric(s, w, w->sig, sizeof(uint64_t), "sig_addr", &seg, &off))
            break;
        if (w->op == SHMEM_SIGNAL_ADD)
            pshmem_ctx_signal_add(ctx, w->sig, w->value, w->pe);
        else
            pshmem_ctx_signal_set(ctx, w->sig, w->value, w->pe);
        break;
    case W_SIGNAL_WAIT:
        if (still_symmetric(s, w, w->sig, sizeof(uint64_t), "sig_addr", &seg, &off))
            break;
        pshmem_signal_wait_until(w->sig, w->op, w->value);
        break;
    case W_QUIET:
        stream_quiet(s, w->rtn);
        break;
    case W_BARRIER:
        stream_quiet(s, w->rtn);
        shmemi_team_barrier(w->team);
        break;
    case W_SYNC:
        shmemi_team_sync(w->team);
        break;
    case W_LAUNCH:
        w->fn(w->arg);
        break;
    case W_CALL:
        w->call(w);
        break;
    case W_EXIT:
        break;
    }
}

#define BATCH 32

static void *worker_main(void *arg)
{
    struct shmemx_stream *s = arg;
    work_t w[BATCH];
    size_t k, nb;
    int quit = 0, cpu;

    pthread_mutex_lock(&s->lock);
    shmemi_stream_cpu_init(&s->cpu);
    while (!quit) {
        if (s->count == 0) {
            /* Spin a little before sleeping: a caller that enqueues one item
             * after another would otherwise pay a wake-up each time. */
            pthread_mutex_unlock(&s->lock);
            for (int spin = 0; spin < 20000 &&
                               !__atomic_load_n(&s->count, __ATOMIC_RELAXED); spin++)
                if (spin % 64 == 63)
                    sched_yield();
            pthread_mutex_lock(&s->lock);
        }
        while (s->count == 0) {
            s->worker_sleeps = 1;
            pthread_cond_wait(&s->more, &s->lock);
            s->worker_sleeps = 0;
        }
        /* Take a batch under one lock: an enqueuer that keeps the queue
         * full then meets the lock once per batch, not once per item. */
        nb = s->count < BATCH ? s->count : BATCH;
        for (k = 0; k < nb; k++)
            w[k] = s->ring[(s->head + k) % s->cap];
        pthread_mutex_unlock(&s->lock);
        cpu = shmemi_stream_cpu_enter(&s->cpu);
        for (k = 0; k < nb; k++) {
            if (w[k].kind == W_EXIT) {
                quit = 1;
                nb = k + 1;
                break;
            }
            shmemi_log_context(w[k].rtn);
            if (s->trig) {
                /* After the triggered work before it, complete before what
                 * follows starts. */
                trig_wait(s, w[k].thr);
                exec_work(s, &w[k]);
                stream_quiet(s, w[k].rtn);
                shmemi_g.tp->ops->trig_add(s->trig, 1);
            } else {
                /* Puts stream out together; anything else first completes
                 * them. */
                if (s->open_rtn && w[k].kind != W_PUT && w[k].kind != W_IPUT)
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
        shmemi_stream_cpu_leave(cpu);
        pthread_mutex_lock(&s->lock);
        s->head = (s->head + nb) % s->cap;
        s->count -= nb;
        s->executed += nb;
        /* Wake the syncers when the first of them is done, not after every
         * batch: a woken caller takes the core the worker needs, and the
         * lock with it (a sync behind 1024 puts woke 32 times). */
        if (s->syncers && s->executed >= s->wake_at) {
            s->wake_at = UINT64_MAX;
            pthread_cond_broadcast(&s->done);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static int stream_ok(struct shmemx_stream *s)
{
    return s && s->magic == STREAM_MAGIC;
}

/* Remembers the first error since the last sync, its SHMEMX_ERROR_* code
 * and its message, and counts the others; never ends the job.  refuse is
 * for bad arguments (SHMEMX_ERROR_INVALID_VALUE). */
static void refuse_v(struct shmemx_stream *s, int code, const char *rtn, const char *fmt,
                     va_list ap)
{
    int n;

    pthread_mutex_lock(&s->lock);
    if (!s->error[0]) {
        s->error_code = code;
        n = snprintf(s->error, sizeof(s->error), "%s: ", rtn);
        vsnprintf(s->error + n, sizeof(s->error) - (size_t)n, fmt, ap);
    } else {
        s->errors_after++;
    }
    pthread_mutex_unlock(&s->lock);
}

static void refuse_code(struct shmemx_stream *s, int code, const char *rtn, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    refuse_v(s, code, rtn, fmt, ap);
    va_end(ap);
}

void shmemi_stream_refuse(struct shmemx_stream *s, const char *rtn, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    refuse_v(s, SHMEMX_ERROR_INVALID_VALUE, rtn, fmt, ap);
    va_end(ap);
}

/* Appends w to the worker's queue; the caller holds s->lock. */
static void enqueue_locked(struct shmemx_stream *s, const work_t *w)
{
    if (s->count == s->cap) {
        size_t ncap = s->cap * 2, i;
        work_t *nr = malloc(ncap * sizeof(*nr));
        if (!nr)
            shmemi_fatal("stream: out of memory growing the queue to %zu items", ncap);
        for (i = 0; i < s->count; i++)
            nr[i] = s->ring[(s->head + i) % s->cap];
        free(s->ring);
        s->ring = nr;
        s->cap = ncap;
        s->head = 0;
    }
    s->ring[(s->head + s->count) % s->cap] = *w;
    if (s->trig) {
        struct trig_desc *d = &s->desc[s->thr % SHMEMT_TRIG_DEPTH];
        d->rtn = NULL;
        d->what = NULL;
        s->grp_n = 0;
        s->ring[(s->head + s->count) % s->cap].thr = s->thr++;
    }
    s->count++;
    s->enqueued++;
    /* Wake the worker only when it sleeps: a busy worker finds the item.
     * Once signalled it counts as awake, so that the enqueues before it
     * takes the lock neither signal nor steer it again. */
    if (s->worker_sleeps) {
        s->worker_sleeps = 0;
        shmemi_stream_cpu_steer(&s->cpu, s->worker);
        pthread_cond_signal(&s->more);
    }
}

static void enqueue(struct shmemx_stream *s, const work_t *w)
{
    pthread_mutex_lock(&s->lock);
    enqueue_locked(s, w);
    pthread_mutex_unlock(&s->lock);
}

void shmemi_stream_enqueue(struct shmemx_stream *s, const work_t *w)
{
    enqueue(s, w);
}

/* The remote range that work of kind (W_PUT, W_GET, W_SIGNAL_OP and the
 * data of W_PUT_SIGNAL) targets on w->pe. */
static const void *work_target(const work_t *w, enum shmemi_wkind kind, size_t *len_p)
{
    *len_p = kind == W_SIGNAL_OP ? sizeof(uint64_t) : w->len;
    return kind == W_GET ? w->src : kind == W_SIGNAL_OP ? w->sig : w->dest;
}

/* Posts one triggered operation (kind, with the arguments of w) as number
 * s->thr (caller holds s->lock): 0, -ENOTSUP (the worker must do it) or
 * another error. */
static int trig_post_one(struct shmemx_stream *s, enum shmemi_wkind kind, const work_t *w,
                         const char *rtn)
{
    const shmemt_ops_t *ops = shmemi_g.tp->ops;
    struct trig_desc *d;
    uint64_t off, thr = s->thr;
    size_t len;
    const void *raddr = work_target(w, kind, &len);
    int seg, ret;

    if (shmemi_addr_seg(raddr, len, &seg, &off))
        return -EINVAL;
    if (kind == W_PUT) {
        /* Join the open group of puts, or open one. */
        if (s->grp_n == 0 || s->grp_n >= TRIG_GROUP)
            s->grp_thr = s->thr;
        thr = s->grp_thr;
        ret = ops->trig_put(s->trig, s->thr, thr, w->pe, seg, off, w->src, w->len);
    } else if (kind == W_GET) {
        ret = ops->trig_get(s->trig, s->thr, thr, w->pe, seg, off, w->dest, w->len);
    } else {
        ret = ops->trig_atomic(s->trig, s->thr, thr, w->pe, seg, off,
                               w->op == SHMEM_SIGNAL_ADD ? SHMEMT_AOP_ADD : SHMEMT_AOP_SET,
                               w->value);
    }
    if (ret)
        return ret;
    if (kind == W_PUT)
        s->grp_n = s->grp_thr == s->thr ? 1 : s->grp_n + 1;
    else
        s->grp_n = 0;
    d = &s->desc[s->thr % SHMEMT_TRIG_DEPTH];
    d->rtn = rtn;
    d->what = kind == W_PUT ? "put" : kind == W_GET ? "get" : "signal";
    d->pe = w->pe;
    s->thr++;
    return 0;
}

/* Hands w to the provider as triggered operations when the stream
 * offloads and the target is not mapped; else to the worker. */
void shmemi_stream_submit(struct shmemx_stream *s, const work_t *w)
{
    const char *rtn = w->rtn;
    const void *raddr;
    size_t rlen;
    int nops = w->kind == W_PUT_SIGNAL ? 2 : 1, ret;
    work_t sigw;

    if (!s->trig || (w->len == 0 && w->kind != W_SIGNAL_OP)) {
        enqueue(s, w);
        return;
    }
    raddr = work_target(w, w->kind, &rlen);
    if (shmemi_direct(raddr, rlen, w->pe) ||
        (w->kind == W_PUT_SIGNAL && shmemi_direct(w->sig, sizeof(uint64_t), w->pe))) {
        enqueue(s, w);
        return;
    }
    /* At most SHMEMT_TRIG_DEPTH - TRIG_GROUP in flight (a group completes
     * in any order): wait for room without the lock (the worker needs it
     * to get on). */
    for (;;) {
        uint64_t need;
        pthread_mutex_lock(&s->lock);
        need = s->thr + (uint64_t)nops + TRIG_GROUP;
        if (need <= SHMEMT_TRIG_DEPTH || trig_count(s) >= need - SHMEMT_TRIG_DEPTH)
            break;
        pthread_mutex_unlock(&s->lock);
        trig_wait(s, need - SHMEMT_TRIG_DEPTH);
    }
    if (w->kind == W_PUT_SIGNAL) {
        /* The put, then the signal; what the provider cannot trigger (the
         * whole put with signal, or the signal after the put) goes to the
         * worker in its place. */
        ret = trig_post_one(s, W_PUT, w, rtn);
        if (ret == 0) {
            sigw = *w;
            sigw.kind = W_SIGNAL_OP;
            w = &sigw;
            ret = trig_post_one(s, W_SIGNAL_OP, w, rtn);
        }
    } else {
        ret = trig_post_one(s, w->kind, w, rtn);
    }
    if (ret == -ENOTSUP)
        enqueue_locked(s, w);
    pthread_mutex_unlock(&s->lock);
    if (ret && ret != -ENOTSUP)
        refuse_code(s, shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT), rtn,
                    "the provider refused the triggered %s to PE %d (%s)",
                    w->kind == W_SIGNAL_OP ? "signal" : w->kind == W_GET ? "get" : "put", w->pe,
                    strerror(-ret));
}

struct shmemx_stream *shmemi_stream_get(shmemx_stream_t s, const char *rtn)
{
    SHMEMI_CHECK_INIT(rtn);
    if (!stream_ok(s))
        shmemi_user_error(rtn, "stream %p is not a stream made by shmemx_stream_create",
                          (void *)s);
    return s;
}

#define check_stream shmemi_stream_get

/* ---- lifetime ---- */

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

const char *shmemi_stream_path(void)
{
    static char buf[256];
    shmemt_t *tp = shmemi_g.tp, *q = NULL;
    int mode = shmemi_stream_offload_mode("shmem_init"), ret;

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
             "(FI_TRIGGER) for PEs that are not mapped, worker threads for the rest",
             tp->prov_name);
    return buf;
}

SHMEM_API int shmemx_stream_create(shmemx_stream_t *stream)
{
    const char *rtn = "shmemx_stream_create";
    struct shmemx_stream *s;
    shmemt_t *tp = shmemi_g.tp;
    int mode, ret;

    SHMEMI_CHECK_INIT(rtn);
    if (!stream) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: stream is NULL", rtn);
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    *stream = NULL;
    /* The worker calls the transport beside the application's threads: a
     * transport that is not safe for that gets its calls serialized (the
     * first stream does it; the caller is the only thread in the library,
     * or it was done at init for SHMEM_THREAD_MULTIPLE). */
    if (tp && !(tp->caps & SHMEMT_CAP_THREADS)) {
        ret = shmemi_tp_serialize();
        if (ret) {
            shmemi_log(SHMEMI_LOG_ERR, "%s: cannot serialize the calls into the %s provider: %s",
                       rtn, tp->prov_name, strerror(-ret));
            return shmemi_status_from_errno(ret, SHMEMX_ERROR_INTERNAL);
        }
        tp = shmemi_g.tp;
    }
    mode = shmemi_stream_offload_mode(rtn);
    if (mode == 1 && tp && !(tp->caps & SHMEMT_CAP_TRIGGER)) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: FABSHMEM_STREAM_OFFLOAD=1 but the %s provider has no "
                   "triggered operations (FI_TRIGGER; sockets has them here)", rtn,
                   tp->prov_name);
        return SHMEMX_ERROR_NOT_SUPPORTED;
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: out of memory", rtn);
        return SHMEMX_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_init(&s->trig_lock, NULL);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->more, NULL);
    pthread_cond_init(&s->done, NULL);
    s->wake_at = UINT64_MAX;
    s->ctx = SHMEM_CTX_DEFAULT;
    if (mode && tp && (tp->caps & SHMEMT_CAP_TRIGGER)) {
        ret = -ENOMEM;
        s->desc = calloc(SHMEMT_TRIG_DEPTH, sizeof(*s->desc));
        if (s->desc)
            ret = tp->ops->trig_create(tp, &s->trig);
        if (ret) {
            s->trig = NULL;
            free(s->desc);
            s->desc = NULL;
            if (mode == 1) {
                shmemi_log(SHMEMI_LOG_ERR, "%s: FABSHMEM_STREAM_OFFLOAD=1 but no triggered "
                           "queue could be made on %s (%s)", rtn, tp->prov_name, strerror(-ret));
                ret = shmemi_status_from_errno(ret, SHMEMX_ERROR_TRANSPORT);
                goto fail;
            }
            note_no_trig(tp, ret);
        }
    }
    s->cap = 64;
    s->ring = malloc(s->cap * sizeof(*s->ring));
    if (!s->ring) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: out of memory", rtn);
        ret = SHMEMX_ERROR_OUT_OF_MEMORY;
        goto fail;
    }
    /* The context is private to the stream's worker in use, but made here
     * so that a failure is seen at once.  Without one the stream uses the
     * default context, and says so. */
    ret = pshmem_ctx_create(SHMEM_CTX_SERIALIZED, &s->ctx);
    if (ret) {
        char why[128];
        s->ctx = SHMEM_CTX_DEFAULT;
        snprintf(why, sizeof(why), "shmem_ctx_create failed: %s", shmemx_strerror(ret));
        if (tp)
            note_shared(rtn, why);
    }
    s->magic = STREAM_MAGIC;
    ret = pthread_create(&s->worker, NULL, worker_main, s);
    if (ret) {
        s->magic = 0;
        shmemi_log(SHMEMI_LOG_ERR, "%s: cannot start the worker thread: %s", rtn, strerror(ret));
        ret = shmemi_status_from_errno(ret, SHMEMX_ERROR_INTERNAL);
        goto fail;
    }
    pthread_mutex_lock(&live_lock);
    s->next_live = live;
    live = s;
    pthread_mutex_unlock(&live_lock);
    *stream = s;
    return SHMEMX_SUCCESS;

fail:
    if (s->ctx != SHMEM_CTX_DEFAULT)
        pshmem_ctx_destroy(s->ctx);
    if (s->trig)
        tp->ops->ctx_destroy(s->trig);
    free(s->desc);
    free(s->ring);
    pthread_mutex_destroy(&s->trig_lock);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->more);
    pthread_cond_destroy(&s->done);
    free(s);
    return ret;
}

void shmemi_streams_fini(void)
{
    struct shmemx_stream *s;
    int n = 0;

    for (;;) {
        pthread_mutex_lock(&live_lock);
        s = live;
        pthread_mutex_unlock(&live_lock);
        if (!s)
            break;
        shmemx_stream_destroy(s);
        n++;
    }
    if (n)
        shmemi_log(SHMEMI_LOG_WARN, "shmem_finalize: %d stream%s not destroyed: "
                   "synchronized and destroyed", n, n == 1 ? " was" : "s were");
}

/* Waits until the work enqueued so far has executed; holds s->lock. */
static void wait_executed_locked(struct shmemx_stream *s)
{
    uint64_t target = s->enqueued;

    s->syncers++;
    while (s->executed < target) {
        if (target < s->wake_at)
            s->wake_at = target;
        pthread_cond_wait(&s->done, &s->lock);
    }
    s->syncers--;
}

void shmemi_stream_drain(struct shmemx_stream *s)
{
    pthread_mutex_lock(&s->lock);
    wait_executed_locked(s);
    pthread_mutex_unlock(&s->lock);
}

SHMEM_API int shmemx_stream_sync(shmemx_stream_t stream)
{
    struct shmemx_stream *s = check_stream(stream, "shmemx_stream_sync");
    work_t q = { .kind = W_QUIET, .rtn = "shmemx_stream_sync" };
    char err[sizeof(s->error)];
    int code, more;

    /* The worker owns the stream's context: it does the final quiet too. */
    pthread_mutex_lock(&s->lock);
    enqueue_locked(s, &q);
    wait_executed_locked(s);
    memcpy(err, s->error, sizeof(err));
    code = s->error_code;
    more = s->errors_after;
    s->error[0] = '\0';
    s->error_code = SHMEMX_SUCCESS;
    s->errors_after = 0;
    pthread_mutex_unlock(&s->lock);
    if (err[0] && more)
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_stream_sync: the stream's first error since the last "
                   "sync: %s (and %d more after it)", err, more);
    else if (err[0])
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_stream_sync: the stream's first error since the last "
                   "sync: %s", err);
    if (err[0])
        return code;
    return SHMEMX_SUCCESS;
}

SHMEM_API int shmemx_stream_query(shmemx_stream_t stream)
{
    struct shmemx_stream *s = stream;
    int busy;

    if (!stream_ok(s))
        return -1;
    pthread_mutex_lock(&s->lock);
    busy = s->executed < s->enqueued || (s->trig && trig_count(s) < s->thr);
    pthread_mutex_unlock(&s->lock);
    return busy;
}

SHMEM_API int shmemx_stream_offloaded(shmemx_stream_t stream)
{
    struct shmemx_stream *s = stream;

    if (!stream_ok(s))
        return -1;
    return s->trig != NULL;
}

SHMEM_API int shmemx_stream_destroy(shmemx_stream_t stream)
{
    struct shmemx_stream *s = check_stream(stream, "shmemx_stream_destroy");
    work_t w = { .kind = W_EXIT, .rtn = "shmemx_stream_destroy" };
    struct shmemx_stream **pp;
    int ret = shmemx_stream_sync(s);

    pthread_mutex_lock(&live_lock);
    for (pp = &live; *pp; pp = &(*pp)->next_live)
        if (*pp == s) {
            *pp = s->next_live;
            break;
        }
    pthread_mutex_unlock(&live_lock);
    enqueue(s, &w);
    pthread_join(s->worker, NULL);
    if (s->ctx != SHMEM_CTX_DEFAULT)
        pshmem_ctx_destroy(s->ctx);
    if (s->trig)
        shmemi_g.tp->ops->ctx_destroy(s->trig);
    free(s->desc);
    pthread_mutex_destroy(&s->trig_lock);
    s->magic = 0;
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->more);
    pthread_cond_destroy(&s->done);
    free(s->ring);
    free(s);
    return ret;
}

/* ---- work ---- */

SHMEM_API int shmemx_launch_on_stream(shmemx_stream_t stream, void (*fn)(void *arg), void *arg)
{
    struct shmemx_stream *s = check_stream(stream, "shmemx_launch_on_stream");
    work_t w = { .kind = W_LAUNCH, .rtn = "shmemx_launch_on_stream", .fn = fn, .arg = arg };

    if (!fn) {
        refuse(s, "shmemx_launch_on_stream", "fn is NULL");
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    enqueue(s, &w);
    return 0;
}
