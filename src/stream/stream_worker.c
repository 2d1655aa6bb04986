/*
 * The worker thread: the kind of stream that runs its queue on a thread of
 * the library.  The worker sleeps on a condition variable while the queue
 * is empty (after a short spin, so that a caller enqueueing one item after
 * another does not pay a wake-up each time), takes the items in batches
 * under one lock, runs each batch through the executor and retires it.
 * Whoever enqueues into an empty queue wakes it, steering it first to a
 * CPU where no other worker is busy (stream_cpu.c).
 */
#define _GNU_SOURCE
#include "stream/stream_int.h"

/* Items taken under one lock: an enqueuer that keeps the queue full then
 * meets the lock once per batch, not once per item. */
#define BATCH 32

static void *worker_main(void *arg)
{
    struct shmemx_stream *s = arg;
    shmemi_work_t w[BATCH];
    size_t nb;
    int cpu;

    pthread_mutex_lock(&s->lock);
    shmemi_stream_cpu_init(&s->cpu);
    for (;;) {
        if (s->count == 0 && !s->stopping) {
            pthread_mutex_unlock(&s->lock);
            for (int spin = 0; spin < 20000 &&
                               !__atomic_load_n(&s->count, __ATOMIC_RELAXED); spin++)
                if (spin % 64 == 63)
                    sched_yield();
            pthread_mutex_lock(&s->lock);
        }
        while (s->count == 0 && !s->stopping) {
            s->worker_sleeps = 1;
            pthread_cond_wait(&s->more, &s->lock);
            s->worker_sleeps = 0;
        }
        if (s->count == 0)
            break; /* stopping, and nothing is left */
        nb = shmemi_stream_take(s, w, BATCH);
        pthread_mutex_unlock(&s->lock);
        cpu = shmemi_stream_cpu_enter(&s->cpu);
        shmemi_stream_run(s, w, nb);
        shmemi_stream_cpu_leave(cpu);
        pthread_mutex_lock(&s->lock);
        shmemi_stream_retire(s, nb);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static int worker_start(struct shmemx_stream *s, const char *rtn)
{
    int ret;

    pthread_cond_init(&s->more, NULL);
    ret = pthread_create(&s->worker, NULL, worker_main, s);
    if (ret) {
        pthread_cond_destroy(&s->more);
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_INTERNAL),
                                "%s: cannot start the worker thread: %s", rtn, strerror(ret));
    }
    return 0;
}

/* Wakes the worker only when it sleeps: a busy worker finds the item.
 * Once signalled it counts as awake, so that the enqueues before it takes
 * the lock neither signal nor steer it again. */
static void worker_wake(struct shmemx_stream *s)
{
    if (s->worker_sleeps) {
        s->worker_sleeps = 0;
        shmemi_stream_cpu_steer(&s->cpu, s->worker);
        pthread_cond_signal(&s->more);
    }
}

static void worker_stop(struct shmemx_stream *s)
{
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    pthread_cond_signal(&s->more);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->worker, NULL);
    pthread_cond_destroy(&s->more);
}

const struct shmemi_stream_kind shmemi_stream_worker_kind = {
    .name = "worker thread",
    .start = worker_start,
    .wake = worker_wake,
    .stop = worker_stop,
};
