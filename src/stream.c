/*
 * Streams: ordered queues of work executed by one worker thread each (see
 * include/fabshmem/shmemx_stream.h for the contract).
 *
 * The queue is a growable ring of work items under a mutex; the worker
 * sleeps on a condition variable while it is empty, and signals another
 * when it has executed an item, which shmemx_stream_sync waits on.  The
 * worker creates a private context at start, so its traffic has its own
 * completion and a quiet on it waits for nothing else.
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
    shmem_ctx_t ctx;
    char error[256];         /* the first refusal since the last sync */
    struct shmemx_stream *next_live; /* streams not yet destroyed */
};

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shmemx_stream *live;

#define STREAM_MAGIC 0x5354524du

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
    int quit = 0;

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
            exec_work(s, &w[k]);
            if (w[k].kind == W_EXIT) {
                quit = 1;
                nb = k + 1;
                break;
            }
        }
        pthread_mutex_lock(&s->lock);
        s->head = (s->head + nb) % s->cap;
        s->count -= nb;
        s->executed += nb;
        if (s->syncers)
            pthread_cond_broadcast(&s->done);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static int stream_ok(struct shmemx_stream *s)
{
    return s && s->magic == STREAM_MAGIC;
}

/* Remembers the first refusal; never ends the job. */
static void refuse(struct shmemx_stream *s, const char *rtn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void refuse(struct shmemx_stream *s, const char *rtn, const char *fmt, ...)
{
    va_list ap;
    int n;

    pthread_mutex_lock(&s->lock);
    if (!s->error[0]) {
        n = snprintf(s->error, sizeof(s->error), "%s: ", rtn);
        va_start(ap, fmt);
        vsnprintf(s->error + n, sizeof(s->error) - (size_t)n, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&s->lock);
}

static void enqueue(struct shmemx_stream *s, const struct work *w)
{
    pthread_mutex_lock(&s->lock);
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
    s->count++;
    s->enqueued++;
    /* Wake the worker only when it sleeps: a busy worker finds the item. */
    if (s->worker_sleeps)
        pthread_cond_signal(&s->more);
    pthread_mutex_unlock(&s->lock);
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
    struct shmemx_stream *s;

    SHMEMI_CHECK_INIT("shmemx_stream_create");
    if (!stream) {
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_stream_create: stream is NULL");
        return 1;
    }
    *stream = NULL;
    if (shmemi_g.tp && !(shmemi_g.tp->caps & SHMEMT_CAP_THREADS) && !shmemi_amo_direct) {
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_stream_create: the %s provider is not safe for "
                   "concurrent threads and some PEs are not mapped; streams need another "
                   "provider (FABSHMEM_PROVIDER=tcp)", shmemi_g.tp->prov_name);
        return 1;
    }
    s = calloc(1, sizeof(*s));
    if (!s)
        return 1;
    s->cap = 64;
    s->ring = malloc(s->cap * sizeof(*s->ring));
    if (!s->ring) {
        free(s);
        return 1;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->more, NULL);
    pthread_cond_init(&s->done, NULL);
    /* The context is private to the stream's worker in use, but made here
     * so that a failure is reported to the caller. */
    if (pshmem_ctx_create(SHMEM_CTX_SERIALIZED, &s->ctx))
        s->ctx = SHMEM_CTX_DEFAULT;
    s->magic = STREAM_MAGIC;
    if (pthread_create(&s->worker, NULL, worker_main, s)) {
        if (s->ctx != SHMEM_CTX_DEFAULT)
            pshmem_ctx_destroy(s->ctx);
        free(s->ring);
        free(s);
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_stream_create: cannot start the worker thread");
        return 1;
    }
    pthread_mutex_lock(&live_lock);
    s->next_live = live;
    live = s;
    pthread_mutex_unlock(&live_lock);
    *stream = s;
    return 0;
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

    /* The worker owns the stream's context: it does the final quiet too. */
    enqueue(s, &q);
    pthread_mutex_lock(&s->lock);
    target = s->enqueued;
    s->syncers++;
    while (s->executed < target)
        pthread_cond_wait(&s->done, &s->lock);
    s->syncers--;
    memcpy(err, s->error, sizeof(err));
    s->error[0] = '\0';
    pthread_mutex_unlock(&s->lock);
    if (err[0]) {
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_stream_sync: work refused by the stream: %s", err);
        return 1;
    }
    return 0;
}

SHMEM_API int shmemx_stream_query(shmemx_stream_t stream)
{
    struct shmemx_stream *s = stream;
    int busy;

    if (!stream_ok(s))
        return -1;
    pthread_mutex_lock(&s->lock);
    busy = s->executed < s->enqueued;
    pthread_mutex_unlock(&s->lock);
    return busy;
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
        return 1;
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
    enqueue(s, &w);
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
    enqueue(s, &w);
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
    enqueue(s, &w);
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
