/*
 * The serializing transport: SHMEM_THREAD_MULTIPLE (and streams, whose
 * worker threads call the transport beside the application) over a
 * transport that is not safe for concurrent threads (SHMEMT_CAP_THREADS
 * clear, such as libfabric's shm provider).
 *
 * shmemi_tp_serialize wraps the default transport in one whose every
 * operation holds one process-wide lock around the real operation, and
 * does the same for every child (contexts and triggered queues) made from
 * it before or after, so that at most one thread at a time is inside the
 * provider.  The wrapper reports SHMEMT_CAP_THREADS.  The lock is the
 * transport's own (shmemt_t.serial), which the provider's own threads
 * (the progress thread) hold whenever they drive it, from the start: so
 * they are serialized with the application from the first wrapped call
 * on.  A provider without such a lock gets one of ours (it then has no
 * threads of its own, or must be thread safe against them).
 *
 * Holding the lock across a blocking operation (a get, a quiet) is
 * sound: the waiting thread drives the provider itself, the other threads
 * of the PE only wait for the lock, and the peers' progress does not
 * depend on this PE's application threads (their own waiting thread or
 * progress thread drives them).  No operation calls back into the
 * operations table (the providers call their own functions directly), so
 * the lock is not recursive.  idle drives the provider under the lock
 * without waiting (replies it still holds go out), then sleeps without
 * the lock.
 *
 * Transports with SHMEMT_CAP_THREADS are never wrapped: their hot path
 * has no lock.
 */
#include "core/ctx.h"
#include <pthread.h>
#include <stdlib.h>

typedef struct tp_serial {
    shmemt_t pub;                /* first: what the core holds; pub.serial
                                  * is NULL (the wrapper is thread safe) */
    shmemt_t *real;
    pthread_mutex_t *lock;       /* the one lock of the whole family */
    struct tp_serial *root;      /* the wrapper of the default transport */
    /* The root lists the wrappers of its children, under the lock, to
     * free those that were not destroyed when it closes. */
    struct tp_serial *next, *children;
} tp_serial_t;

/* For a transport that has no lock of its own. */
static pthread_mutex_t serial_lock_own = PTHREAD_MUTEX_INITIALIZER;
static const shmemt_ops_t serial_ops;

#define SER(t) ((tp_serial_t *)(t))
#define REAL(t) (SER(t)->real)

static inline void serial_enter(shmemt_t *t)
{
    pthread_mutex_lock(SER(t)->lock);
}

static inline void serial_leave(shmemt_t *t)
{
    pthread_mutex_unlock(SER(t)->lock);
}

static void serial_init(tp_serial_t *w, shmemt_t *real, tp_serial_t *root)
{
    w->pub.ops = &serial_ops;
    w->pub.prov_name = real->prov_name;
    w->pub.caps = real->caps | SHMEMT_CAP_THREADS;
    w->pub.priv = real->priv;
    w->real = real;
    w->root = root ? root : w;
    w->lock = root ? root->lock : real->serial ? real->serial : &serial_lock_own;
}

/* Lists child wrapper c in its root (the lock held). */
static void serial_link(tp_serial_t *c)
{
    c->next = c->root->children;
    c->root->children = c;
}

/* Takes child wrapper c out of its root's list (the lock held). */
static void serial_unlink(tp_serial_t *c)
{
    tp_serial_t **pp;

    for (pp = &c->root->children; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
}

/* The plain wrappers: the real operation under the lock.  PARAMS and
 * ARGS are the operation's parameters after the transport, with and
 * without their types (each starts with a comma, or is empty). */
#define SERIAL_UNPAREN(...) __VA_ARGS__
#define SERIAL_OP(name, PARAMS, ARGS)                                                \
    static int serial_##name(shmemt_t *t SERIAL_UNPAREN PARAMS)                     \
    {                                                                               \
        int ret;                                                                    \
        serial_enter(t);                                                            \
        ret = REAL(t)->ops->name(REAL(t) SERIAL_UNPAREN ARGS);                      \
        serial_leave(t);                                                            \
        return ret;                                                                 \
    }
#define SERIAL_OP_VOID(name, PARAMS, ARGS)                                           \
    static void serial_##name(shmemt_t *t SERIAL_UNPAREN PARAMS)                    \
    {                                                                               \
        serial_enter(t);                                                            \
        REAL(t)->ops->name(REAL(t) SERIAL_UNPAREN ARGS);                            \
        serial_leave(t);                                                            \
    }

SERIAL_OP(put, (, int pe, int seg, uint64_t off, const void *src, size_t len),
          (, pe, seg, off, src, len))
SERIAL_OP(put_nbi, (, int pe, int seg, uint64_t off, const void *src, size_t len),
          (, pe, seg, off, src, len))
SERIAL_OP(get, (, int pe, int seg, uint64_t off, void *dst, size_t len), (, pe, seg, off, dst, len))
SERIAL_OP(get_nbi, (, int pe, int seg, uint64_t off, void *dst, size_t len),
          (, pe, seg, off, dst, len))
SERIAL_OP(quiet, (), ())
SERIAL_OP(pe_quiet, (, const int *pes, int npes), (, pes, npes))
SERIAL_OP(fence, (), ())
SERIAL_OP(progress, (), ())
SERIAL_OP(atomic, (, int pe, int seg, uint64_t off, int op, const void *operand,
                   const void *compare, void *fetch, size_t size),
          (, pe, seg, off, op, operand, compare, fetch, size))
SERIAL_OP(put_signal, (, int pe, int seg, uint64_t off, const void *src, size_t len,
                       int sig_seg, uint64_t sig_off, uint64_t signal, int sig_op),
          (, pe, seg, off, src, len, sig_seg, sig_off, signal, sig_op))
SERIAL_OP(signal, (, int pe, int seg, uint64_t off, uint64_t value), (, pe, seg, off, value))
SERIAL_OP(seg_reg, (, int seg, void *base, size_t len, uint64_t card[3]), (, seg, base, len, card))
SERIAL_OP(seg_peer, (, int seg, int pe, const uint64_t card[3]), (, seg, pe, card))
SERIAL_OP_VOID(seg_dereg, (, int seg), (, seg))
SERIAL_OP(seg_reg_dev, (, int seg, void *base, size_t len, int cuda_device, uint64_t card[3]),
          (, seg, base, len, cuda_device, card))
SERIAL_OP(buf_reg, (, void *base, size_t len, void **handle_p), (, base, len, handle_p))
SERIAL_OP_VOID(buf_dereg, (, void *handle), (, handle))
SERIAL_OP(trig_put, (, uint64_t seq, uint64_t threshold, int pe, int seg, uint64_t off,
                     const void *src, size_t len),
          (, seq, threshold, pe, seg, off, src, len))
SERIAL_OP(trig_get, (, uint64_t seq, uint64_t threshold, int pe, int seg, uint64_t off,
                     void *dst, size_t len),
          (, seq, threshold, pe, seg, off, dst, len))
SERIAL_OP(trig_atomic, (, uint64_t seq, uint64_t threshold, int pe, int seg, uint64_t off,
                        int op, uint64_t operand),
          (, seq, threshold, pe, seg, off, op, operand))
SERIAL_OP(trig_status, (, uint64_t *done_p, uint64_t *failed_p), (, done_p, failed_p))
SERIAL_OP(trig_add, (, uint64_t n), (, n))

static int serial_idle(shmemt_t *t, unsigned long us)
{
    struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
    int ret = 0;

    if (REAL(t)->ops->idle) {
        serial_enter(t);
        ret = REAL(t)->ops->idle(REAL(t), 0);
        serial_leave(t);
    }
    if (!ret)
        nanosleep(&ts, NULL);
    return ret;
}

/* Wraps child, just made by the real transport under the lock (held);
 * closes it when there is no memory for the wrapper. */
static int serial_adopt(tp_serial_t *parent, shmemt_t *child, shmemt_t **w_p)
{
    tp_serial_t *w = calloc(1, sizeof(*w));

    if (!w) {
        child->ops->ctx_destroy(child);
        return -ENOMEM;
    }
    serial_init(w, child, parent->root);
    serial_link(w);
    *w_p = &w->pub;
    return 0;
}

static int serial_ctx_create(shmemt_t *t, long options, shmemt_t **child_p)
{
    shmemt_t *child;
    int ret;

    serial_enter(t);
    ret = REAL(t)->ops->ctx_create(REAL(t), options, &child);
    if (!ret)
        ret = serial_adopt(SER(t), child, child_p);
    serial_leave(t);
    return ret;
}

static void serial_ctx_destroy(shmemt_t *child)
{
    tp_serial_t *w = SER(child);

    if (w->root == w)
        return; /* Not a child (the real provider ignores that too). */
    serial_enter(child);
    serial_unlink(w);
    w->real->ops->ctx_destroy(w->real);
    serial_leave(child);
    free(w);
}

/* The default transport closes its children with itself: their wrappers
 * go too.  It runs without the lock, which may be the transport's own and
 * go with it: at finalize no other thread calls the transport any more
 * (the streams' workers are gone) and the provider stops its own threads
 * first.  fini on a child destroys it, as the providers do. */
static void serial_fini(shmemt_t *t)
{
    tp_serial_t *w = SER(t), *c;

    if (w->root != w) {
        serial_ctx_destroy(t);
        return;
    }
    w->real->ops->fini(w->real);
    while ((c = w->children) != NULL) {
        w->children = c->next;
        free(c);
    }
    free(w);
}

static int serial_trig_create(shmemt_t *t, shmemt_t **q_p)
{
    shmemt_t *q;
    int ret;

    serial_enter(t);
    ret = REAL(t)->ops->trig_create(REAL(t), &q);
    if (!ret)
        ret = serial_adopt(SER(t), q, q_p);
    serial_leave(t);
    return ret;
}

static const shmemt_ops_t serial_ops = {
    .put = serial_put,
    .put_nbi = serial_put_nbi,
    .get = serial_get,
    .get_nbi = serial_get_nbi,
    .quiet = serial_quiet,
    .pe_quiet = serial_pe_quiet,
    .fence = serial_fence,
    .progress = serial_progress,
    .idle = serial_idle,
    .atomic = serial_atomic,
    .put_signal = serial_put_signal,
    .signal = serial_signal,
    .fini = serial_fini,
    .ctx_create = serial_ctx_create,
    .ctx_destroy = serial_ctx_destroy,
    .seg_reg = serial_seg_reg,
    .seg_peer = serial_seg_peer,
    .seg_dereg = serial_seg_dereg,
    .seg_reg_dev = serial_seg_reg_dev,
    .buf_reg = serial_buf_reg,
    .buf_dereg = serial_buf_dereg,
    .trig_create = serial_trig_create,
    .trig_put = serial_trig_put,
    .trig_get = serial_trig_get,
    .trig_atomic = serial_trig_atomic,
    .trig_status = serial_trig_status,
    .trig_add = serial_trig_add,
};

/* Wraps the n children of the default transport that contexts made
 * before serialization (shmemi_ctxs_wrap): all of them or, out of memory,
 * none. */
static int serial_wrap_children(shmemt_t **tps, int n, void *arg)
{
    tp_serial_t *root = arg, **w;
    int i, ret = 0;

    if (n == 0)
        return 0;
    w = calloc((size_t)n, sizeof(*w));
    if (!w)
        return -ENOMEM;
    for (i = 0; i < n; i++)
        if (!(w[i] = calloc(1, sizeof(**w))))
            ret = -ENOMEM;
    if (ret)
        goto out;
    serial_enter(&root->pub);
    for (i = 0; i < n; i++) {
        serial_init(w[i], tps[i], root);
        serial_link(w[i]);
        tps[i] = &w[i]->pub;
        w[i] = NULL;
    }
    serial_leave(&root->pub);
out:
    for (i = 0; i < n; i++)
        free(w[i]);
    free(w);
    return ret;
}

int shmemi_tp_serialize(void)
{
    shmemt_t *real = shmemi_g.tp;
    tp_serial_t *root;
    int ret;

    if (!real || (real->caps & SHMEMT_CAP_THREADS))
        return 0; /* Nothing to do, or done already. */
    root = calloc(1, sizeof(*root));
    if (!root)
        return -ENOMEM;
    serial_init(root, real, NULL);
    ret = shmemi_ctxs_wrap(serial_wrap_children, root);
    if (ret) {
        free(root);
        return ret;
    }
    __atomic_store_n(&shmemi_g.tp, &root->pub, __ATOMIC_RELEASE);
    shmemi_debug("the %s provider is not safe for concurrent threads: calls into it are "
                 "serialized by one lock", real->prov_name);
    return 0;
}
