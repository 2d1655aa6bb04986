/*
 * A stream's life: create (the queue, the executor's context, offload,
 * then the kind that runs the work: a worker thread), sync (the final
 * quiet, then the stream's error), the queries, destroy, the host
 * kernels, and the list of live streams that finalize closes.
 */
#include "stream/stream_int.h"
#include "cuda/cuda.h"
#include <stdlib.h>

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shmemx_stream *live;

/* ---- create and destroy ---- */

/* Frees what create made of s (the kind is not running). */
static void stream_free(struct shmemx_stream *s, const char *rtn)
{
    if (s->ctx != SHMEM_CTX_DEFAULT)
        shmemi_must(shmemi_ctx_destroy(s->ctx, rtn));
    shmemi_stream_offload_close(s);
    s->magic = 0;
    free(s->ring);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->done);
    free(s);
}

/* The executor's context, private to the stream, made here so that a
 * failure is seen at once.  Without one the stream uses the default
 * context, and says so. */
static void make_ctx(struct shmemx_stream *s, const char *rtn)
{
    char why[192];
    int rc = shmemi_ctx_create(SHMEM_CTX_SERIALIZED, NULL, shmemi_g.n_pes,
                               SHMEM_TEAM_WORLD, &s->ctx, "shmem_ctx_create");

    if (rc) {
        s->ctx = SHMEM_CTX_DEFAULT;
        snprintf(why, sizeof(why), "shmem_ctx_create failed: %s", shmemi_strerror(rc));
        shmemi_err_clear();
        if (shmemi_g.tp)
            shmemi_stream_note_shared(rtn, why);
    }
}

/* The transport of a job with streams: one that is not safe for threads
 * gets its calls serialized (the executor calls it beside the
 * application's threads); the first stream does it, while the caller is
 * the only thread in the library (or it was done at init for
 * SHMEM_THREAD_MULTIPLE). */
static int transport_for_streams(int mode, const char *rtn)
{
    shmemt_t *tp = shmemi_g.tp;
    int ret;

    if (tp && !(tp->caps & SHMEMT_CAP_THREADS)) {
        ret = shmemi_tp_serialize();
        if (ret)
            return shmemi_err(shmemi_status_from_errno(ret, SHMEMX_ERROR_INTERNAL), rtn,
                              "cannot serialize the calls into the %s provider: %s",
                              tp->prov_name, strerror(-ret));
        tp = shmemi_g.tp;
    }
    if (mode == 1 && tp && !(tp->caps & SHMEMT_CAP_TRIGGER))
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "FABSHMEM_STREAM_OFFLOAD=1 but the "
                          "%s provider has no triggered operations (FI_TRIGGER; sockets has "
                          "them here)", tp->prov_name);
    return 0;
}

/* A stream of kind (the worker thread; CUDA: over the CUDA stream cu). */
static int stream_make(shmemx_stream_t *stream_p, const struct shmemi_stream_kind *kind,
                       void *cu, const char *rtn)
{
    struct shmemx_stream *s;
    int mode = shmemi_stream_offload_mode(), rc;

    if ((rc = shmemi_check_init(rtn)))
        return rc;
    if (!stream_p)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "stream is NULL");
    *stream_p = NULL;
    if (cu && (rc = shmemi_cuda_stream_check(cu, rtn)))
        return rc;
    if ((rc = transport_for_streams(mode, rtn)))
        return rc;
    s = calloc(1, sizeof(*s));
    if (!s)
        return shmemi_err(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "out of memory");
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->done, NULL);
    s->wake_at = UINT64_MAX;
    s->ctx = SHMEM_CTX_DEFAULT;
    s->kind = kind;
    s->cu = cu;
    s->cap = 64;
    s->ring = malloc(s->cap * sizeof(*s->ring));
    if (!s->ring) {
        stream_free(s, rtn);
        return shmemi_err(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "out of memory");
    }
    if ((rc = shmemi_stream_offload_open(s, mode, rtn))) {
        stream_free(s, rtn);
        return rc;
    }
    make_ctx(s, rtn);
    s->magic = SHMEMI_STREAM_MAGIC;
    if ((rc = s->kind->start(s, rtn))) {
        stream_free(s, rtn);
        return rc;
    }
    pthread_mutex_lock(&live_lock);
    s->next_live = live;
    live = s;
    pthread_mutex_unlock(&live_lock);
    *stream_p = s;
    return 0;
}

int shmemi_stream_create(shmemx_stream_t *stream_p, const char *rtn)
{
    return stream_make(stream_p, &shmemi_stream_worker_kind, NULL, rtn);
}

int shmemi_stream_create_cuda(shmemx_stream_t *stream_p, void *cuda_stream, const char *rtn)
{
    /* The legacy default stream is handle 0: the kind needs a non-NULL
     * handle to know itself by, and CU_STREAM_LEGACY is that stream. */
    return stream_make(stream_p, &shmemi_stream_cuda_kind,
                       cuda_stream ? cuda_stream : (void *)(uintptr_t)0x1, rtn);
}

int shmemi_stream_destroy(shmemx_stream_t stream, const char *rtn)
{
    struct shmemx_stream *s, **pp;
    int rc = shmemi_stream_lookup(stream, &s, rtn);

    if (rc)
        return rc;
    /* Its error is reported as sync reports it. */
    rc = shmemi_stream_sync(s, "shmemx_stream_sync");
    pthread_mutex_lock(&live_lock);
    for (pp = &live; *pp; pp = &(*pp)->next_live)
        if (*pp == s) {
            *pp = s->next_live;
            break;
        }
    pthread_mutex_unlock(&live_lock);
    s->kind->stop(s);
    stream_free(s, rtn);
    return rc;
}

void shmemi_streams_fini(void)
{
    struct shmemx_stream *s;
    int n = 0, rc;

    for (;;) {
        pthread_mutex_lock(&live_lock);
        s = live;
        pthread_mutex_unlock(&live_lock);
        if (!s)
            break;
        /* An error the stream kept is printed as its sync prints it. */
        if ((rc = shmemi_stream_destroy(s, "shmem_finalize")))
            shmemi_log(SHMEMI_LOG_ERR, "%s", shmemi_err_last()->msg);
        n++;
    }
    if (n)
        shmemi_log(SHMEMI_LOG_WARN, "shmem_finalize: %d stream%s not destroyed: "
                   "synchronized and destroyed", n, n == 1 ? " was" : "s were");
}

/* ---- sync and queries ---- */

/* What a stream sync waits for (the watchdog's report): the stream, and
 * how far its executor got; the executor's own wait is reported by its
 * thread. */
static void sync_describe(const shmemi_wait_site_t *site, const volatile void *addr,
                          uint64_t value, char *buf, size_t len)
{
    struct shmemx_stream *s = (struct shmemx_stream *)(uintptr_t)site->arg;
    char kept[SHMEMI_STREAM_ERRLEN + 160] = "";
    /* Read without the lock (this runs in the watchdog's thread, beside
     * the stream's executor and the waiting thread). */
    unsigned long long executed = __atomic_load_n(&s->executed, __ATOMIC_RELAXED);
    unsigned long long enqueued = __atomic_load_n(&s->enqueued, __ATOMIC_RELAXED);

    (void)addr;
    (void)value;
    /* Work refused or failed since the last sync: a wait enqueued after
     * it may be waiting for what it would have done (a signal the
     * provider cannot carry). */
    if (pthread_mutex_trylock(&s->lock) == 0) {
        if (s->error[0])
            snprintf(kept, sizeof(kept), "; the stream holds an error since its last sync, which "
                     "the sync reports (a wait for what the refused or failed work would have "
                     "done never ends): %s",
                     s->error);
        pthread_mutex_unlock(&s->lock);
    }
    if (shmemi_stream_is_cuda(s)) {
        snprintf(buf, len, "stream %p (over CUDA stream %p): the CUDA stream has not done its "
                 "work (its host thread has executed %llu of the %llu items it holds)%s",
                 (const void *)s, s->cu, executed, enqueued, kept);
        return;
    }
    snprintf(buf, len, "stream %p (%s): its executor has executed %llu of the %llu work items "
             "enqueued and waits in the next one%s", (const void *)s, s->kind->name,
             executed, enqueued, kept);
}

int shmemi_stream_sync(shmemx_stream_t stream, const char *rtn)
{
    shmemi_wait_site_t site = { rtn, sync_describe, stream };
    shmemi_wait_block_t b;
    struct shmemx_stream *s;
    shmemi_work_t q = { .kind = SHMEMI_W_QUIET, .rtn = rtn };
    char err[SHMEMI_STREAM_ERRLEN];
    int code, more, rc = shmemi_stream_lookup(stream, &s, rtn);

    if (rc)
        return rc;
    if (s->kind->sync) {
        /* Its executor completes each item before the kind counts it. */
        shmemi_wait_block_begin(&b, &site);
        rc = s->kind->sync(s, rtn);
        shmemi_wait_block_end(&b);
        pthread_mutex_lock(&s->lock);
    } else {
        /* The executor owns the stream's context: it does the final quiet too. */
        pthread_mutex_lock(&s->lock);
        rc = shmemi_stream_enqueue_locked(s, &q);
        shmemi_wait_block_begin(&b, &site);
        shmemi_stream_wait_executed_locked(s);
        shmemi_wait_block_end(&b);
    }
    memcpy(err, s->error, sizeof(err));
    code = s->error_code;
    more = s->errors_after;
    s->error[0] = '\0';
    s->error_code = SHMEMX_SUCCESS;
    s->errors_after = 0;
    pthread_mutex_unlock(&s->lock);
    if (err[0] && more)
        return shmemi_err(code, rtn, "the stream's first error since the last sync: %s (and %d "
                          "more after it)", err, more);
    if (err[0])
        return shmemi_err(code, rtn, "the stream's first error since the last sync: %s", err);
    return rc;
}

int shmemi_stream_query(shmemx_stream_t stream)
{
    struct shmemx_stream *s = stream;
    int busy;

    if (!shmemi_stream_ok(s))
        return -1;
    if (s->kind->busy)
        return s->kind->busy(s);
    pthread_mutex_lock(&s->lock);
    busy = s->executed < s->enqueued || shmemi_stream_trig_busy(s);
    pthread_mutex_unlock(&s->lock);
    return busy;
}

int shmemi_stream_offloaded(shmemx_stream_t stream)
{
    struct shmemx_stream *s = stream;

    if (!shmemi_stream_ok(s))
        return -1;
    return s->trig != NULL;
}

/* ---- host kernels ---- */

int shmemi_stream_launch(shmemx_stream_t stream, void (*fn)(void *), void *arg, const char *rtn)
{
    struct shmemx_stream *s;
    shmemi_work_t w = { .kind = SHMEMI_W_LAUNCH, .rtn = rtn, .fn = fn, .arg = arg };
    int rc = shmemi_stream_lookup(stream, &s, rtn);

    if (rc)
        return rc;
    if (!fn)
        return shmemi_stream_refused(s, shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn,
                                                   "fn is NULL"));
    return shmemi_stream_enqueue(s, &w);
}
