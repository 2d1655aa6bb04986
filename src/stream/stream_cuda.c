/*
 * The CUDA kind of stream (docs/gpu.md, "CUDA streams"): a shmemx_stream_t
 * over a CUDA stream of the program's (shmemx_stream_create_cuda), whose
 * work is ordered on that CUDA stream with the program's kernels and
 * copies.  Each item is issued by the thread that enqueues it:
 *
 * - onto the CUDA stream itself, when the GPU can do it alone: a put or
 *   get between GPU memory and a device heap that this PE maps (its own,
 *   a node peer's) is a copy on the stream (the copy engines); a signal
 *   to a mapped device-heap word is a stream memory operation
 *   (cuStreamWriteValue64, SET) or the library's one-thread atomic kernel
 *   (ADD); a small put with signal from GPU memory is one kernel of the
 *   library's that stores the data, then the signal; a wait on a
 *   device-heap word of this PE is the stream's wait
 *   (cuStreamWaitValue64) or the library's waiting kernel; a quiet is
 *   nothing (each of these is complete when the stream passes it); team
 *   synchronizations and collectives on device buffers of teams that map
 *   each other are the GPU's own (src/coll/coll_dev_stream.c);
 * - else into the queue, held: the CUDA stream gets a host function that
 *   releases the item to the stream's worker thread when the stream
 *   reaches it, then a wait until the worker has executed it (the count
 *   of executed items, in pinned host memory that the GPU reads).  The
 *   worker runs released items through the executor, as a CPU stream's
 *   worker does (PEs that are not mapped, host memory, host kernels), and
 *   sleeps while nothing is released: no thread polls for a stream that
 *   has nothing to do.
 *
 * Sync is cuStreamSynchronize (the held items are part of the stream),
 * then the stream's error.
 */
#include "stream/stream_int.h"
#include "core/dev.h"
#include <errno.h>
#include <time.h>

#define BATCH 32

/* ---- the held items ---- */

/* The host function of a held item: the CUDA stream has reached it. */
static void cu_release(void *arg)
{
    struct shmemx_stream *s = arg;

    pthread_mutex_lock(&s->lock);
    s->cu_gate++;
    if (s->worker_sleeps) {
        s->worker_sleeps = 0;
        pthread_cond_signal(&s->more);
    }
    pthread_mutex_unlock(&s->lock);
}

/* Items released and not yet taken (the caller holds s->lock). */
static size_t cu_released(const struct shmemx_stream *s)
{
    return (size_t)(s->cu_gate - s->executed) < s->count ? (size_t)(s->cu_gate - s->executed)
                                                          : s->count;
}

/* How often the worker of an offloaded stream with chains in flight
 * looks for one that failed (stream_cuda_trig.c), in ms. */
#define CU_CHECK_MS 50

/* The worker waits for a release (the caller holds s->lock).  While
 * chains of triggered operations are in flight it wakes now and then to
 * look for one that failed: the CUDA stream would wait for its word
 * forever, also where the program waits on the CUDA stream by itself.
 * Otherwise it sleeps until woken (worker_sleeps 2: the next chain
 * wakes it). */
static void cu_sleep(struct shmemx_stream *s)
{
    struct timespec ts;

    if (!s->cu_word || !shmemi_stream_trig_busy(s)) {
        s->worker_sleeps = 2;
        pthread_cond_wait(&s->more, &s->lock);
        s->worker_sleeps = 0;
        return;
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += CU_CHECK_MS * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    s->worker_sleeps = 1;
    if (pthread_cond_timedwait(&s->more, &s->lock, &ts) == ETIMEDOUT) {
        s->worker_sleeps = 0;
        pthread_mutex_unlock(&s->lock);
        shmemi_stream_trig_check(s);
        pthread_mutex_lock(&s->lock);
    }
    s->worker_sleeps = 0;
}

void shmemi_stream_cuda_chain_posted(struct shmemx_stream *s)
{
    pthread_mutex_lock(&s->lock);
    if (s->worker_sleeps == 2) {
        s->worker_sleeps = 0;
        pthread_cond_signal(&s->more);
    }
    pthread_mutex_unlock(&s->lock);
}

static void *cu_worker(void *arg)
{
    struct shmemx_stream *s = arg;
    shmemi_work_t w[BATCH];
    size_t nb;

    /* Host kernels and the executor's copies run with the PE's GPU
     * current, as on the thread that made the stream. */
    (void)shmemi_cuda_push();
    /* The CUDA stream waits for the items this thread executes; a provider
     * that moves GPU memory with CUDA copies of its own would wait for the
     * stream in them (libfabric 1.17.1's shm: cudaMemcpy with its bounce
     * buffer, then cudaDeviceSynchronize, seen in the stacks of a hung
     * gpu_stream, docs/gpu.md "FI_HMEM"): the thread stages instead, as the
     * proxy does. */
    shmemi_dev_thread_stages(1);
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!cu_released(s) && !s->stopping)
            cu_sleep(s);
        if (!cu_released(s))
            break; /* stopping: the CUDA stream was synchronized, nothing is held */
        nb = shmemi_stream_take(s, w, cu_released(s) < BATCH ? cu_released(s) : BATCH);
        pthread_mutex_unlock(&s->lock);
        shmemi_stream_run(s, w, nb);
        pthread_mutex_lock(&s->lock);
        shmemi_stream_retire(s, nb);
        /* The GPU's waits read this: the items up to it are complete. */
        __atomic_store_n(s->cu_done, s->executed, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Holds w in the queue, and queues its release and the wait for it on
 * the CUDA stream (the caller holds s->cu_issue). */
int shmemi_stream_cuda_hold(struct shmemx_stream *s, const shmemi_work_t *w)
{
    uint64_t n;
    int rc;

    pthread_mutex_lock(&s->lock);
    rc = shmemi_stream_enqueue_locked(s, w);
    n = s->enqueued;
    pthread_mutex_unlock(&s->lock);
    if (rc)
        return rc;
    if ((rc = shmemi_cuda_host_fn_on(s->cu, cu_release, s, w->rtn)))
        return rc;
    return shmemi_cuda_wait_on(s->cu, (const void *)s->cu_done, 8, 0, SHMEM_CMP_GE, n, w->rtn);
}

/* ---- what the GPU does alone ---- */

/* What cu_native returns for work that the worker must do (not an error
 * class: those are positive). */
#define CU_HOLD (-1)

/* 1 when the library's kernels may read len bytes at p: this PE's device
 * heap, or GPU memory of its device (the copy engines read any GPU's, a
 * kernel faults on another's that the context has no peer access to). */
static int kern_mem(const void *p, size_t len)
{
    uint64_t off;

    return shmemi_dev_range(p, len, &off) || shmemi_cuda_is_own_device(p);
}

/* A signal (op SET or ADD by value) to the word sig of PE pe, mapped here
 * at sp. */
static int cu_signal(struct shmemx_stream *s, uint64_t *sp, uint64_t value, int op,
                     const char *rtn)
{
    return op == SHMEM_SIGNAL_SET ? shmemi_cuda_write_on(s->cu, sp, value, 8, rtn)
                                  : shmemi_cuda_add_on(s->cu, sp, value, rtn);
}

/* The GPU's own collective or synchronization of w: 0 or the class;
 * CU_HOLD when the team or the buffers are not for it (host memory, a
 * team whose PEs do not all map each other). */
static int cu_coll(struct shmemx_stream *s, const shmemi_work_t *w)
{
    if (w->kind != SHMEMI_W_COLL)
        return shmemi_coll_dev_stream_team(w->team)
                   ? shmemi_coll_dev_sync_on(w->team, s->cu, w->rtn) : CU_HOLD;
    /* Host buffers, and device buffers of a team whose PEs do not all map
     * each other (the blocking collective reaches them through the core's
     * RMA), are the worker's. */
    if (!shmemi_coll_dev_case(w->dest, w->src))
        return CU_HOLD;
    if (!shmemi_coll_dev_stream_team(w->team)) {
        /* Checked now, as the GPU's own are, and run by the worker. */
        int rc = shmemi_coll_dev_check_coll(
            w->team, w->coll == SHMEMI_WC_BCAST ? SHMEMI_CK_BCAST
                     : w->coll == SHMEMI_WC_FCOLLECT ? SHMEMI_CK_COLLECT
                     : w->coll == SHMEMI_WC_ALLTOALL ? SHMEMI_CK_ALLTOALL : SHMEMI_CK_REDUCE,
            w->dest, w->src, w->nelems, w->len,
            w->coll == SHMEMI_WC_BCAST ? w->pe : w->coll == SHMEMI_WC_REDUCESCATTER, w->tc,
            w->op, w->rtn);
        return rc ? rc : CU_HOLD;
    }
    switch (w->coll) {
    case SHMEMI_WC_BCAST:
        return shmemi_coll_dev_bcast_on(w->team, w->dest, w->src, w->nelems, w->len, w->pe,
                                        s->cu, w->rtn);
    case SHMEMI_WC_FCOLLECT:
        return shmemi_coll_dev_fcollect_on(w->team, w->dest, w->src, w->nelems, w->len, s->cu,
                                           w->rtn);
    case SHMEMI_WC_ALLTOALL:
        return shmemi_coll_dev_alltoall_on(w->team, w->dest, w->src, w->nelems, w->len, s->cu,
                                           w->rtn);
    default:
        return shmemi_coll_dev_reduce_on(w->team, w->tc, w->op, w->len, w->dest, w->src,
                                         w->nelems, w->coll == SHMEMI_WC_REDUCESCATTER, s->cu,
                                         w->rtn);
    }
}

/* Issues w onto the CUDA stream when the GPU can do it alone: 0 or the
 * class; CU_HOLD when it must be held for the worker. */
static int cu_native(struct shmemx_stream *s, const shmemi_work_t *w)
{
    uint64_t off;
    void *rp;
    uint64_t *sp;

    switch (w->kind) {
    case SHMEMI_W_PUT:
        if (!(rp = shmemi_dev_ptr(w->dest, w->pe)))
            return CU_HOLD;
        if (!w->src) /* p: the value is in the item */
            return w->len == 4 || w->len == 8
                       ? shmemi_cuda_write_on(s->cu, rp, w->imm.u, w->len, w->rtn) : CU_HOLD;
        return w->len == 0 ? 0
               : shmemi_dev_is_gpu(w->src, w->len)
                   ? shmemi_cuda_copy_on(s->cu, rp, w->src, w->len, w->rtn) : CU_HOLD;
    case SHMEMI_W_GET:
        if (!(rp = shmemi_dev_ptr(w->src, w->pe)))
            return CU_HOLD;
        return w->len == 0 ? 0
               : shmemi_dev_is_gpu(w->dest, w->len)
                   ? shmemi_cuda_copy_on(s->cu, w->dest, rp, w->len, w->rtn) : CU_HOLD;
    case SHMEMI_W_PUT_SIGNAL:
        rp = shmemi_dev_ptr(w->dest, w->pe);
        if (!(sp = shmemi_dev_ptr(w->sig, w->pe)))
            return CU_HOLD;
        /* Small ones from GPU memory: the library's kernel stores the data
         * and then the signal, one launch instead of a copy and a stream
         * operation, which is what a ping-pong of small messages waits
         * on (FABSHMEM_CUDA_PUT_SIGNAL_KERNEL; the copy engines are
         * faster above it). */
        if (rp && w->len && w->len <= shmemi_g.env.cuda_put_signal_kernel &&
            kern_mem(w->src, w->len))
            return shmemi_cuda_put_signal_on(s->cu, rp, w->src, w->len, sp, w->value,
                                             w->op == SHMEM_SIGNAL_ADD, w->rtn);
        if (w->len) {
            shmemi_work_t put = *w;
            int rc;
            /* Data the GPU cannot move alone goes to the worker; the
             * signal follows on the stream once it is complete. */
            put.kind = SHMEMI_W_PUT;
            rc = rp && shmemi_dev_is_gpu(w->src, w->len)
                     ? shmemi_cuda_copy_on(s->cu, rp, w->src, w->len, w->rtn)
                     : shmemi_stream_cuda_hold(s, &put);
            if (rc)
                return rc;
        }
        return cu_signal(s, sp, w->value, w->op, w->rtn);
    case SHMEMI_W_SIGNAL_OP:
        sp = shmemi_dev_ptr(w->sig, w->pe);
        return sp ? cu_signal(s, sp, w->value, w->op, w->rtn) : CU_HOLD;
    case SHMEMI_W_SIGNAL_WAIT:
        return shmemi_dev_range(w->sig, 8, &off)
                   ? shmemi_cuda_wait_on(s->cu, w->sig, 8, 0, w->op, w->value, w->rtn)
                   : CU_HOLD;
    case SHMEMI_W_CALL: /* a typed wait: len is the size, tc 1 for a signed type */
        if (!shmemi_dev_range(w->dest, w->len ? w->len : 1, &off))
            return CU_HOLD;
        return shmemi_cuda_wait_on(s->cu, w->dest, w->len, w->tc, w->op,
                                   w->len == 8 ? w->imm.u : (uint64_t)*(const uint32_t *)w->imm.b,
                                   w->rtn);
    case SHMEMI_W_QUIET:
        return 0;
    case SHMEMI_W_BARRIER:
    case SHMEMI_W_SYNC:
    case SHMEMI_W_COLL:
        return cu_coll(s, w);
    default:
        return CU_HOLD;
    }
}

/* ---- the kind ---- */

static int cu_issue(struct shmemx_stream *s, const shmemi_work_t *w)
{
    int rc;

    pthread_mutex_lock(&s->cu_issue);
    rc = cu_native(s, w);
    /* Work for the host: triggered operations that the CUDA stream
     * releases where it can be (stream_cuda_trig.c), else held for the
     * worker. */
    if (rc == CU_HOLD && (rc = shmemi_stream_cuda_trig(s, w)) == 1)
        rc = shmemi_stream_cuda_hold(s, w);
    pthread_mutex_unlock(&s->cu_issue);
    return rc ? shmemi_stream_refused(s, rc) : 0;
}

static int cu_start(struct shmemx_stream *s, const char *rtn)
{
    int ret;

    /* Offloaded: the completion word first.  Without one the held work
     * runs on the worker (said once) and the stream does not say it
     * offloads; FABSHMEM_STREAM_OFFLOAD=1 refuses. */
    if (s->trig && shmemi_stream_cuda_trig_open(s)) {
        if (shmemi_stream_offload_mode() == 1)
            return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "FABSHMEM_STREAM_OFFLOAD=1 but "
                              "the CUDA stream has no completion word for its triggered "
                              "operations (see the warning before this)");
        shmemi_stream_offload_close(s);
    }
    if (!(s->cu_done = shmemi_cuda_host_alloc(sizeof(uint64_t), rtn))) {
        shmemi_stream_cuda_trig_close(s);
        return shmemi_err_last()->code;
    }
    pthread_mutex_init(&s->cu_issue, NULL);
    pthread_cond_init(&s->more, NULL);
    ret = pthread_create(&s->worker, NULL, cu_worker, s);
    if (ret) {
        pthread_cond_destroy(&s->more);
        pthread_mutex_destroy(&s->cu_issue);
        shmemi_cuda_host_free((void *)s->cu_done);
        shmemi_stream_cuda_trig_close(s);
        return shmemi_err_fatal(shmemi_status_from_errno(ret, SHMEMX_ERROR_INTERNAL),
                                "%s: cannot start the CUDA stream's worker thread: %s", rtn,
                                strerror(ret));
    }
    return 0;
}

/* The worker runs only what the CUDA stream released (cu_release wakes it). */
static void cu_wake(struct shmemx_stream *s)
{
    (void)s;
}

static void cu_stop(struct shmemx_stream *s)
{
    /* The worker thread ends as a CPU stream's does. */
    shmemi_stream_worker_kind.stop(s);
    shmemi_stream_cuda_trig_close(s);
    pthread_mutex_destroy(&s->cu_issue);
    shmemi_cuda_host_free((void *)s->cu_done);
    s->cu_done = NULL;
}

/* An offloaded stream's sync and query look for triggered operations
 * that failed while the CUDA stream is busy: its wait for the completion
 * word would not end before the counter is moved past them. */
static int cu_sync(struct shmemx_stream *s, const char *rtn)
{
    unsigned long it = 0;

    if (s->cu_word)
        while (shmemi_cuda_stream_busy(s->cu) == 1) {
            shmemi_stream_trig_check(s);
            shmemi_wait_backoff(&it);
        }
    return shmemi_cuda_stream_sync(s->cu, rtn);
}

static int cu_busy(struct shmemx_stream *s)
{
    int busy = shmemi_cuda_stream_busy(s->cu);

    if (busy == 1 && s->cu_word)
        shmemi_stream_trig_check(s);
    return busy;
}

const struct shmemi_stream_kind shmemi_stream_cuda_kind = {
    .name = "CUDA stream",
    .start = cu_start,
    .wake = cu_wake,
    .stop = cu_stop,
    .issue = cu_issue,
    .sync = cu_sync,
    .busy = cu_busy,
};

/* ---- checks ---- */

int shmemi_stream_cuda_word(const struct shmemx_stream *s, const void *addr, size_t size,
                            int is_signal, int op, int pe, int *dev_p, const char *rtn)
{
    uint64_t off;
    const char *what = is_signal ? "sig_addr" : "ivar";

    *dev_p = 0;
    if (!shmemi_stream_is_cuda(s) || !shmemi_dev_range(addr, size, &off))
        return 0;
    *dev_p = 1;
    if ((uintptr_t)addr % size)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "%s %p is not aligned to %zu bytes",
                          what, addr, size);
    if (!is_signal) {
        if (op < SHMEM_CMP_EQ || op > SHMEM_CMP_LE)
            return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "cmp %d is not one of the "
                              "SHMEM_CMP_ constants", op);
        if (size != 4 && size != 8)
            return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "ivar %p is GPU memory: waits "
                              "on a CUDA stream take 32- and 64-bit words there", addr);
        return 0;
    }
    if (op != SHMEM_SIGNAL_SET && op != SHMEM_SIGNAL_ADD)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "sig_op %d is not SHMEM_SIGNAL_SET "
                          "or SHMEM_SIGNAL_ADD", op);
    if (pe < 0 || pe >= shmemi_g.n_pes)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "pe %d is out of range (the job has "
                          "%d PEs: 0 to %d)", pe, shmemi_g.n_pes, shmemi_g.n_pes - 1);
    if (!shmemi_dev_ptr(addr, pe))
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "sig_addr %p is GPU memory and PE "
                          "%d does not map this PE's device heap: signal words in GPU memory "
                          "take PEs within SHMEM_TEAM_SHARED", addr, pe);
    return 0;
}
