/*
 * A stream's queue: a growable ring of work items under the stream's
 * mutex.  Enqueuers append (and tell the stream's kind, which wakes
 * whatever runs the work); the kind takes batches of items from the head
 * and retires them once run, which wakes the threads waiting in sync.
 * The queue also keeps the stream's error: the first since the last sync,
 * with the count of those after it.
 */
#include "stream/stream_int.h"
#include <stdlib.h>

int shmemi_stream_lookup(shmemx_stream_t stream, struct shmemx_stream **s_p, const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (SHMEMI_UNLIKELY(rc))
        return rc;
    if (SHMEMI_UNLIKELY(!shmemi_stream_ok(stream)))
        return shmemi_err_ends(SHMEMX_ERROR_INVALID_VALUE, rtn, "stream %p is not a stream "
                               "made by shmemx_stream_create", (void *)stream);
    *s_p = stream;
    return 0;
}

/* Keeps msg (a whole message) as the stream's error, or counts it. */
static void keep(struct shmemx_stream *s, int code, const char *msg)
{
    pthread_mutex_lock(&s->lock);
    if (!s->error[0]) {
        s->error_code = code;
        snprintf(s->error, sizeof(s->error), "%s", msg);
    } else {
        s->errors_after++;
    }
    pthread_mutex_unlock(&s->lock);
}

int shmemi_stream_refused(struct shmemx_stream *s, int rc)
{
    keep(s, rc, shmemi_err_last()->msg);
    shmemi_err_clear();
    return rc;
}

void shmemi_stream_fail(struct shmemx_stream *s, int code, const char *fmt, ...)
{
    char msg[SHMEMI_STREAM_ERRLEN];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    keep(s, code, msg);
}

/* Doubles the ring, keeping the items in order: 0 or -1. */
static int grow(struct shmemx_stream *s)
{
    size_t ncap = s->cap * 2, i;
    shmemi_work_t *nr = malloc(ncap * sizeof(*nr));

    if (!nr)
        return -1;
    for (i = 0; i < s->count; i++)
        nr[i] = s->ring[(s->head + i) % s->cap];
    free(s->ring);
    s->ring = nr;
    s->cap = ncap;
    s->head = 0;
    return 0;
}

/* The body of both enqueues, inlined into each (the enqueuing thread's
 * cost per item is the stream's overhead). */
static inline __attribute__((always_inline)) int append(struct shmemx_stream *s,
                                                        const shmemi_work_t *w)
{
    shmemi_work_t *slot;

    if (SHMEMI_UNLIKELY(s->count == s->cap) && grow(s))
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory growing the "
                                "stream's queue beyond %zu items", w->rtn, s->cap);
    slot = &s->ring[(s->head + s->count) % s->cap];
    *slot = *w;
    if (s->trig)
        shmemi_stream_offload_number(s, slot);
    /* Atomic stores: the worker's spin reads count without the lock, the
     * watchdog's report (sync_describe) enqueued. */
    __atomic_store_n(&s->count, s->count + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&s->enqueued, s->enqueued + 1, __ATOMIC_RELAXED);
    s->kind->wake(s);
    return 0;
}

int shmemi_stream_enqueue_locked(struct shmemx_stream *s, const shmemi_work_t *w)
{
    return append(s, w);
}

int shmemi_stream_enqueue(struct shmemx_stream *s, const shmemi_work_t *w)
{
    int rc;

    if (s->kind->issue)
        return s->kind->issue(s, w);
    pthread_mutex_lock(&s->lock);
    rc = append(s, w);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

void shmemi_stream_wait_executed_locked(struct shmemx_stream *s)
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
    if (s->kind->sync) {
        /* A failure is the stream's, which its next sync reports. */
        if (s->kind->sync(s, "shmemx_stream_sync"))
            shmemi_stream_refused(s, shmemi_err_last()->code);
        return;
    }
    pthread_mutex_lock(&s->lock);
    shmemi_stream_wait_executed_locked(s);
    pthread_mutex_unlock(&s->lock);
}

size_t shmemi_stream_take(struct shmemx_stream *s, shmemi_work_t *w, size_t max)
{
    size_t k, nb = s->count < max ? s->count : max;

    for (k = 0; k < nb; k++)
        w[k] = s->ring[(s->head + k) % s->cap];
    return nb;
}

void shmemi_stream_retire(struct shmemx_stream *s, size_t n)
{
    s->head = (s->head + n) % s->cap;
    __atomic_store_n(&s->count, s->count - n, __ATOMIC_RELAXED);
    __atomic_store_n(&s->executed, s->executed + n, __ATOMIC_RELAXED);
    /* Wake the syncers when the first of them is done, not after every
     * batch: a woken caller takes the core the worker needs, and the lock
     * with it (a sync behind 1024 puts woke 32 times). */
    if (s->syncers && s->executed >= s->wake_at) {
        s->wake_at = UINT64_MAX;
        pthread_cond_broadcast(&s->done);
    }
}
