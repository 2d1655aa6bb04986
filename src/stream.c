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
 * before them.
 */
#define _GNU_SOURCE
#include "coll.h"
#include "stream.h"
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>

enum wkind {
    W_PUT, W_GET, W_PUT_SIGNAL, W_SIGNAL_OP, W_SIGNAL_WAIT, W_QUIET, W_BARRIER, W_SYNC,
    W_LAUNCH, W_CALL, W_EXIT
};

struct work {
    enum wkind kind;
    void *dest;
    const void *src;
    size_t len;
    uint64_t *sig;
    uint64_t value;
    int op;           /* sig_op or cmp */
    int pe;
    shmem_team_t team;
    void (*fn)(void *);
    void *arg;
    /* W_CALL: a collective, with its arguments. */
    void (*call)(const struct shmemi_stream_coll *);
    struct shmemi_stream_coll coll;
    uint64_t thr;     /* offload: the counter value at which it may start */
};

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
    struct work *ring;
    size_t cap, head, count; /* items at ring[head .. head+count) mod cap */
    uint64_t enqueued, executed;
    pthread_t worker;
    int worker_sleeps;       /* the worker waits on more */
    int syncers;             /* threads waiting on done */
    uint64_t wake_at;        /* the smallest target of those threads */
    shmem_ctx_t ctx;
    char error[256];         /* the first refusal since the last sync */
    int error_code;          /* and its SHMEMX_ERROR_* class */
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

static void refuse(struct shmemx_stream *s, const char *rtn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
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

static void exec_work(struct shmemx_stream *s, struct work *w)
{
    shmem_ctx_t ctx = s->ctx;

    switch (w->kind) {
    case W_PUT:
        pshmem_ctx_putmem(ctx, w->dest, w->src, w->len, w->pe);
        break;
    case W_GET:
        pshmem_ctx_getmem(ctx, w->dest, w->src, w->len, w->pe);
        break;
    case W_PUT_SIGNAL:
        pshmem_ctx_putmem_signal(ctx, w->dest, w->src, w->len, w->sig, w->value, w->op, w->pe);
        break;
    case W_SIGNAL_OP:
        if (w->op == SHMEM_SIGNAL_ADD)
            pshmem_ctx_signal_add(ctx, w->sig, w->value, w->pe);
        else
            pshmem_ctx_signal_set(ctx, w->sig, w->value, w->pe);
        break;
    case W_SIGNAL_WAIT:
        pshmem_signal_wait_until(w->sig, w->op, w->value);
        break;
    case W_QUIET:
        pshmem_ctx_quiet(ctx);
        break;
    case W_BARRIER:
        pshmem_ctx_quiet(ctx);
        shmemi_team_barrier(w->team);
        break;
    case W_SYNC:
        shmemi_team_sync(w->team);
        break;
    case W_LAUNCH:
        w->fn(w->arg);
        break;
    case W_CALL:
        w->call(&w->coll);
        break;
    case W_EXIT:
        break;
    }
}

#define BATCH 32

static void *worker_main(void *arg)
{
    struct shmemx_stream *s = arg;
    struct work w[BATCH];
    size_t k, nb;
    int quit = 0, open_puts = 0;

    pthread_mutex_lock(&s->lock);
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
        for (k = 0; k < nb; k++) {
            if (w[k].kind == W_EXIT) {
                quit = 1;
                nb = k + 1;
                break;
            }
            if (s->trig) {
                /* After the triggered work before it; then start what
                 * follows. */
                trig_wait(s, w[k].thr);
                exec_work(s, &w[k]);
                shmemi_g.tp->ops->trig_add(s->trig, 1);
            } else if (w[k].kind == W_PUT) {
                pshmem_ctx_putmem_nbi(s->ctx, w[k].dest, w[k].src, w[k].len, w[k].pe);
                open_puts = 1;
            } else {
                if (open_puts) {
                    pshmem_ctx_quiet(s->ctx);
                    open_puts = 0;
                }
                exec_work(s, &w[k]);
            }
        }
        if (open_puts) {
            pshmem_ctx_quiet(s->ctx);
            open_puts = 0;
        }
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

/* Remembers the first refusal; never ends the job. */
/* Remembers the first error since the last sync: its SHMEMX_ERROR_* code
 * and its message.  refuse is for bad arguments (SHMEMX_ERROR_INVALID_VALUE). */
static void refuse_v(struct shmemx_stream *s, int code, const char *rtn, const char *fmt,
                     va_list ap)
{
    int n;

    pthread_mutex_lock(&s->lock);
    if (!s->error[0]) {
        s->error_code = code;
        n = snprintf(s->error, sizeof(s->error), "%s: ", rtn);
        vsnprintf(s->error + n, sizeof(s->error) - (size_t)n, fmt, ap);
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

static void refuse(struct shmemx_stream *s, const char *rtn, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    refuse_v(s, SHMEMX_ERROR_INVALID_VALUE, rtn, fmt, ap);
    va_end(ap);
}

/* Appends w to the worker's queue; the caller holds s->lock. */
static void enqueue_locked(struct shmemx_stream *s, const struct work *w)
{
    if (s->count == s->cap) {
        size_t ncap = s->cap * 2, i;
        struct work *nr = malloc(ncap * sizeof(*nr));
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
    /* Wake the worker only when it sleeps: a busy worker finds the item. */
    if (s->worker_sleeps)
        pthread_cond_signal(&s->more);
}

static void enqueue(struct shmemx_stream *s, const struct work *w)
{
    pthread_mutex_lock(&s->lock);
    enqueue_locked(s, w);
    pthread_mutex_unlock(&s->lock);
}

/* The remote range that work of kind (W_PUT, W_GET, W_SIGNAL_OP and the
 * data of W_PUT_SIGNAL) targets on w->pe. */
static const void *work_target(const struct work *w, enum wkind kind, size_t *len_p)
{
    *len_p = kind == W_SIGNAL_OP ? sizeof(uint64_t) : w->len;
    return kind == W_GET ? w->src : kind == W_SIGNAL_OP ? w->sig : w->dest;
}

/* Posts one triggered operation (kind, with the arguments of w) as number
 * s->thr (caller holds s->lock): 0, -ENOTSUP (the worker must do it) or
 * another error. */
static int trig_post_one(struct shmemx_stream *s, enum wkind kind, const struct work *w,
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
static void submit(struct shmemx_stream *s, const struct work *w, const char *rtn)
{
    const void *raddr;
    size_t rlen;
    int nops = w->kind == W_PUT_SIGNAL ? 2 : 1, ret;
    struct work sigw;

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

/* Checks the stream handle of an *_on_stream routine; ends the job for a
 * handle that is not a stream (there is no stream to report to). */
static struct shmemx_stream *check_stream(shmemx_stream_t s, const char *rtn)
{
    SHMEMI_CHECK_INIT(rtn);
    if (!stream_ok(s))
        shmemi_user_error(rtn, "stream %p is not a stream made by shmemx_stream_create",
                          (void *)s);
    return s;
}

static int check_pe(struct shmemx_stream *s, int pe, const char *rtn)
{
    if (pe < 0 || pe >= shmemi_g.n_pes) {
        refuse(s, rtn, "pe %d is out of range (the job has %d PEs)", pe, shmemi_g.n_pes);
        return -1;
    }
    return 0;
}

static int check_sym(struct shmemx_stream *s, const void *addr, size_t len, const char *what,
                     const char *rtn)
{
    int seg;
    uint64_t off;

    if (len && shmemi_addr_seg(addr, len, &seg, &off)) {
        refuse(s, rtn, "%s %p (%zu bytes) is not inside a symmetric object", what, addr, len);
        return -1;
    }
    return 0;
}

static int check_sig(struct shmemx_stream *s, const uint64_t *sig, int sig_op, const char *rtn)
{
    if ((uintptr_t)sig % sizeof(uint64_t) || check_sym(s, sig, sizeof(uint64_t), "sig_addr", rtn))
        return -1;
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) {
        refuse(s, rtn, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", sig_op);
        return -1;
    }
    return 0;
}

/* ---- lifetime ---- */

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
     * so that a failure is reported to the caller. */
    if (pshmem_ctx_create(SHMEM_CTX_SERIALIZED, &s->ctx))
        s->ctx = SHMEM_CTX_DEFAULT;
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

SHMEM_API int shmemx_stream_sync(shmemx_stream_t stream)
{
    struct shmemx_stream *s = check_stream(stream, "shmemx_stream_sync");
    struct work q = { .kind = W_QUIET };
    uint64_t target;
    char err[sizeof(s->error)];
    int code;

    /* The worker owns the stream's context: it does the final quiet too. */
    enqueue(s, &q);
    pthread_mutex_lock(&s->lock);
    target = s->enqueued;
    s->syncers++;
    while (s->executed < target) {
        if (target < s->wake_at)
            s->wake_at = target;
        pthread_cond_wait(&s->done, &s->lock);
    }
    s->syncers--;
    memcpy(err, s->error, sizeof(err));
    code = s->error_code;
    s->error[0] = '\0';
    s->error_code = SHMEMX_SUCCESS;
    pthread_mutex_unlock(&s->lock);
    if (err[0]) {
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_stream_sync: work refused by the stream: %s", err);
        return code;
    }
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
    struct work w = { .kind = W_EXIT };
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
    struct work w = { .kind = W_LAUNCH, .fn = fn, .arg = arg };

    if (!fn) {
        refuse(s, "shmemx_launch_on_stream", "fn is NULL");
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    enqueue(s, &w);
    return 0;
}

static void rma_on_stream(enum wkind kind, void *dest, const void *src, size_t nelems,
                          size_t elsize, int pe, shmemx_stream_t stream, const char *rtn)
{
    struct shmemx_stream *s = check_stream(stream, rtn);
    struct work w = { .kind = kind, .dest = dest, .src = src, .pe = pe };

    if (__builtin_mul_overflow(nelems, elsize, &w.len)) {
        refuse(s, rtn, "nelems %zu times element size %zu overflows", nelems, elsize);
        return;
    }
    if (check_pe(s, pe, rtn) ||
        check_sym(s, kind == W_GET ? src : dest, w.len, kind == W_GET ? "source" : "dest", rtn))
        return;
    submit(s, &w, rtn);
}

static void put_signal_on_stream(void *dest, const void *src, size_t nelems, size_t elsize,
                                 uint64_t *sig, uint64_t signal, int sig_op, int pe,
                                 shmemx_stream_t stream, const char *rtn)
{
    struct shmemx_stream *s = check_stream(stream, rtn);
    struct work w = { .kind = W_PUT_SIGNAL, .dest = dest, .src = src, .sig = sig,
                      .value = signal, .op = sig_op, .pe = pe };

    if (__builtin_mul_overflow(nelems, elsize, &w.len)) {
        refuse(s, rtn, "nelems %zu times element size %zu overflows", nelems, elsize);
        return;
    }
    if (check_pe(s, pe, rtn) || check_sym(s, dest, w.len, "dest", rtn) ||
        check_sig(s, sig, sig_op, rtn))
        return;
    submit(s, &w, rtn);
}

SHMEM_API void shmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                                       shmemx_stream_t stream)
{
    rma_on_stream(W_PUT, dest, source, nelems, 1, pe, stream, "shmemx_putmem_on_stream");
}

SHMEM_API void shmemx_getmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                                       shmemx_stream_t stream)
{
    rma_on_stream(W_GET, dest, source, nelems, 1, pe, stream, "shmemx_getmem_on_stream");
}

SHMEM_API void shmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nelems,
                                              uint64_t *sig_addr, uint64_t signal, int sig_op,
                                              int pe, shmemx_stream_t stream)
{
    put_signal_on_stream(dest, source, nelems, 1, sig_addr, signal, sig_op, pe, stream,
                         "shmemx_putmem_signal_on_stream");
}

#define STREAM_RMA_DEF(TYPE, TN) \
    SHMEM_API void shmemx_##TN##_put_on_stream(TYPE *dest, const TYPE *source, size_t nelems, \
                                               int pe, shmemx_stream_t stream) \
    { \
        rma_on_stream(W_PUT, dest, source, nelems, sizeof(TYPE), pe, stream, \
                      "shmemx_" #TN "_put_on_stream"); \
    } \
    SHMEM_API void shmemx_##TN##_get_on_stream(TYPE *dest, const TYPE *source, size_t nelems, \
                                               int pe, shmemx_stream_t stream) \
    { \
        rma_on_stream(W_GET, dest, source, nelems, sizeof(TYPE), pe, stream, \
                      "shmemx_" #TN "_get_on_stream"); \
    } \
    SHMEM_API void shmemx_##TN##_put_signal_on_stream(TYPE *dest, const TYPE *source, \
                                                      size_t nelems, uint64_t *sig_addr, \
                                                      uint64_t signal, int sig_op, int pe, \
                                                      shmemx_stream_t stream) \
    { \
        put_signal_on_stream(dest, source, nelems, sizeof(TYPE), sig_addr, signal, sig_op, pe, \
                             stream, "shmemx_" #TN "_put_signal_on_stream"); \
    }
SHMEMI_RMA_TYPES(STREAM_RMA_DEF)

SHMEM_API void shmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                          shmemx_stream_t stream)
{
    const char *rtn = "shmemx_signal_op_on_stream";
    struct shmemx_stream *s = check_stream(stream, rtn);
    struct work w = { .kind = W_SIGNAL_OP, .sig = sig_addr, .value = signal, .op = sig_op,
                      .pe = pe };

    if (check_pe(s, pe, rtn) || check_sig(s, sig_addr, sig_op, rtn))
        return;
    submit(s, &w, rtn);
}

SHMEM_API void shmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                                  shmemx_stream_t stream)
{
    const char *rtn = "shmemx_signal_wait_until_on_stream";
    struct shmemx_stream *s = check_stream(stream, rtn);
    struct work w = { .kind = W_SIGNAL_WAIT, .sig = sig_addr, .value = cmp_value, .op = cmp };

    if (check_sig(s, sig_addr, SHMEM_SIGNAL_SET, rtn))
        return;
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE) {
        refuse(s, rtn, "cmp %d is not one of SHMEM_CMP_EQ .. SHMEM_CMP_LE", cmp);
        return;
    }
    enqueue(s, &w);
}

SHMEM_API void shmemx_quiet_on_stream(shmemx_stream_t stream)
{
    struct shmemx_stream *s = check_stream(stream, "shmemx_quiet_on_stream");
    struct work w = { .kind = W_QUIET };

    enqueue(s, &w);
}

static void team_on_stream(enum wkind kind, shmem_team_t team, shmemx_stream_t stream,
                           const char *rtn)
{
    struct shmemx_stream *s = check_stream(stream, rtn);
    struct work w = { .kind = kind, .team = team };

    if (!shmemi_team_ok(team)) {
        refuse(s, rtn, "team is SHMEM_TEAM_INVALID or this PE is not a member of it");
        return;
    }
    enqueue(s, &w);
}

SHMEM_API void shmemx_barrier_all_on_stream(shmemx_stream_t stream)
{
    team_on_stream(W_BARRIER, SHMEM_TEAM_WORLD, stream, "shmemx_barrier_all_on_stream");
}

SHMEM_API void shmemx_sync_all_on_stream(shmemx_stream_t stream)
{
    team_on_stream(W_SYNC, SHMEM_TEAM_WORLD, stream, "shmemx_sync_all_on_stream");
}

SHMEM_API void shmemx_barrier_on_stream(shmem_team_t team, shmemx_stream_t stream)
{
    team_on_stream(W_BARRIER, team, stream, "shmemx_barrier_on_stream");
}

SHMEM_API void shmemx_team_sync_on_stream(shmem_team_t team, shmemx_stream_t stream)
{
    team_on_stream(W_SYNC, team, stream, "shmemx_team_sync_on_stream");
}

void shmemi_stream_call(shmemx_stream_t stream, const char *rtn,
                        void (*call)(const struct shmemi_stream_coll *),
                        const struct shmemi_stream_coll *args)
{
    struct shmemx_stream *s = check_stream(stream, rtn);
    struct work w = { .kind = W_CALL, .call = call, .coll = *args };

    if (!shmemi_team_ok(args->team)) {
        refuse(s, rtn, "team is SHMEM_TEAM_INVALID or this PE is not a member of it");
        return;
    }
    enqueue(s, &w);
}
