/*
 * The enqueue of RMA, signals, waits and quiet on streams (stream.h).
 * Each routine checks its arguments with the core's checks, the same that
 * the core routine the executor calls will make (core/rma.h, signal.h,
 * wait.h), before anything is enqueued: bad work is refused (stream.h
 * says how) instead of failing on the executor, where it could not be
 * returned to anybody.  Puts, gets and signals go to the offload
 * (stream_offload.c), which hands what it does not post to the queue.
 */
#include "stream/stream_int.h"
#include "core/rma.h"
#include "core/signal.h"

/* rc, the class of the checks (0: none), kept by s when it is a refusal. */
static int refuse_if(struct shmemx_stream *s, int rc)
{
    return rc ? shmemi_stream_refused(s, rc) : 0;
}

/* The checks of a signal word: on a CUDA stream it may be GPU memory of
 * the device heap (stream_cuda.c checks it), else the core's. */
static int signal_check(struct shmemx_stream *s, uint64_t *sig_addr, int sig_op, int pe,
                        const char *rtn)
{
    int dev, rc = shmemi_stream_cuda_word(s, sig_addr, sizeof(uint64_t), 1, sig_op, pe, &dev,
                                          rtn);

    return rc || dev ? rc : shmemi_signal_check(s->ctx, sig_addr, sig_op, pe, rtn);
}

/* The checks of a waited word, the same way. */
static int wait_check(struct shmemx_stream *s, const void *ivar, size_t size, size_t align,
                      int cmp, const char *what, const char *rtn)
{
    int dev, rc = shmemi_stream_cuda_word(s, ivar, size, 0, cmp, -1, &dev, rtn);

    return rc || dev ? rc : shmemi_wait_check(ivar, size, align, cmp, what, rtn);
}

int shmemi_stream_rma(shmemx_stream_t stream, int is_put, void *dest, const void *src,
                      size_t nelems, size_t elsize, int pe, const char *rtn)
{
    struct shmemx_stream *s;
    shmemi_work_t w = { .kind = is_put ? SHMEMI_W_PUT : SHMEMI_W_GET, .rtn = rtn, .dest = dest,
                        .src = src, .pe = pe };
    int rc = shmemi_stream_lookup(stream, &s, rtn);

    if (rc)
        return rc;
    if ((rc = shmemi_nbytes(nelems, elsize, &w.len, rtn)) ||
        (rc = shmemi_rma_check(s->ctx, is_put ? dest : src, w.len, pe, is_put, rtn)))
        return shmemi_stream_refused(s, rc);
    return shmemi_stream_submit(s, &w);
}

int shmemi_stream_p(shmemx_stream_t stream, void *dest, const void *value, size_t size, int pe,
                    const char *rtn)
{
    struct shmemx_stream *s;
    shmemi_work_t w = { .kind = SHMEMI_W_PUT, .rtn = rtn, .dest = dest, .len = size, .pe = pe };
    int rc = shmemi_stream_lookup(stream, &s, rtn);

    if (rc || (rc = refuse_if(s, shmemi_rma_check(s->ctx, dest, size, pe, 1, rtn))))
        return rc;
    memcpy(w.imm.b, value, size);
    return shmemi_stream_enqueue(s, &w);
}

int shmemi_stream_g(shmemx_stream_t stream, void *value, const void *src, size_t size, int pe,
                    const char *rtn)
{
    struct shmemx_stream *s;
    shmemi_work_t w = { .kind = SHMEMI_W_GET, .rtn = rtn, .dest = value, .src = src,
                        .len = size, .pe = pe };
    int rc = shmemi_stream_lookup(stream, &s, rtn);

    if (rc || (rc = refuse_if(s, shmemi_rma_check(s->ctx, src, size, pe, 0, rtn))))
        return rc;
    if ((rc = shmemi_stream_enqueue(s, &w)))
        return rc;
    shmemi_stream_drain(s);
    return 0;
}

int shmemi_stream_strided(shmemx_stream_t stream, int is_put, void *dest, const void *src,
                          ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elsize, int pe,
                          const char *rtn)
{
    struct shmemx_stream *s;
    shmemi_work_t w = { .kind = is_put ? SHMEMI_W_IPUT : SHMEMI_W_IGET, .rtn = rtn,
                        .dest = dest, .src = src, .len = elsize, .nelems = nelems, .dst = dst,
                        .sst = sst, .pe = pe };
    int rc = shmemi_stream_lookup(stream, &s, rtn);

    if (rc || (rc = refuse_if(s, shmemi_strided_check(s->ctx, is_put ? dest : src,
                                                      is_put ? dst : sst, 1, nelems, elsize,
                                                      &w.pe, is_put, rtn))))
        return rc;
    if (nelems == 0)
        return 0;
    return shmemi_stream_enqueue(s, &w);
}

int shmemi_stream_put_signal(shmemx_stream_t stream, void *dest, const void *src, size_t nelems,
                             size_t elsize, uint64_t *sig_addr, uint64_t signal, int sig_op,
                             int pe, const char *rtn)
{
    struct shmemx_stream *s;
    shmemi_work_t w = { .kind = SHMEMI_W_PUT_SIGNAL, .rtn = rtn, .dest = dest, .src = src,
                        .sig = sig_addr, .value = signal, .op = sig_op, .pe = pe };
    int rc = shmemi_stream_lookup(stream, &s, rtn);

    if (rc)
        return rc;
    if ((rc = shmemi_nbytes(nelems, elsize, &w.len, rtn)) ||
        (rc = shmemi_rma_check(s->ctx, dest, w.len, pe, 1, rtn)) ||
        (rc = signal_check(s, sig_addr, sig_op, pe, rtn)))
        return shmemi_stream_refused(s, rc);
    return shmemi_stream_submit(s, &w);
}

int shmemi_stream_signal_op(shmemx_stream_t stream, uint64_t *sig_addr, uint64_t signal,
                            int sig_op, int pe, const char *rtn)
{
    struct shmemx_stream *s;
    shmemi_work_t w = { .kind = SHMEMI_W_SIGNAL_OP, .rtn = rtn, .sig = sig_addr,
                        .value = signal, .op = sig_op, .pe = pe };
    int rc = shmemi_stream_lookup(stream, &s, rtn);

    if (rc || (rc = refuse_if(s, signal_check(s, sig_addr, sig_op, pe, rtn))))
        return rc;
    return shmemi_stream_submit(s, &w);
}

int shmemi_stream_signal_wait(shmemx_stream_t stream, uint64_t *sig_addr, int cmp,
                              uint64_t cmp_value, const char *rtn)
{
    struct shmemx_stream *s;
    shmemi_work_t w = { .kind = SHMEMI_W_SIGNAL_WAIT, .rtn = rtn, .sig = sig_addr,
                        .value = cmp_value, .op = cmp };
    int rc = shmemi_stream_lookup(stream, &s, rtn);

    if (rc || (rc = refuse_if(s, wait_check(s, sig_addr, sizeof(uint64_t), sizeof(uint64_t),
                                            cmp, "sig_addr", rtn))))
        return rc;
    return shmemi_stream_enqueue(s, &w);
}

int shmemi_stream_quiet(shmemx_stream_t stream, const char *rtn)
{
    struct shmemx_stream *s;
    shmemi_work_t w = { .kind = SHMEMI_W_QUIET, .rtn = rtn };
    int rc = shmemi_stream_lookup(stream, &s, rtn);

    return rc ? rc : shmemi_stream_enqueue(s, &w);
}

/* ---- typed waits ----
 * The executor's part (call_<TN>_wait_until) is the core's typed wait;
 * the symmetric word must still be symmetric when it runs. */
#define WAIT_TYPED(TYPE, TN) \
    static int call_##TN##_wait_until(const shmemi_work_t *w) \
    { \
        TYPE v; \
        int rc = shmemi_check_sym(w->dest, sizeof(TYPE), "ivar", w->rtn); \
        memcpy(&v, w->imm.b, sizeof(v)); \
        return rc ? rc : shmemi_##TN##_wait_until((TYPE *)w->dest, w->op, v, w->rtn); \
    } \
    int shmemi_stream_##TN##_wait_until(shmemx_stream_t stream, TYPE *ivar, int cmp, \
                                        TYPE cmp_value, const char *rtn) \
    { \
        struct shmemx_stream *s; \
        shmemi_work_t w = { .kind = SHMEMI_W_CALL, .rtn = rtn, .dest = ivar, .op = cmp, \
                            .call = call_##TN##_wait_until, .len = sizeof(TYPE), \
                            .tc = (TYPE)-1 < (TYPE)1 }; \
        int rc = shmemi_stream_lookup(stream, &s, rtn); \
        if (rc || (rc = refuse_if(s, wait_check(s, ivar, sizeof(TYPE), _Alignof(TYPE), cmp, \
                                                "ivar", rtn)))) \
            return rc; \
        memcpy(w.imm.b, &cmp_value, sizeof(TYPE)); \
        return shmemi_stream_enqueue(s, &w); \
    }
SHMEMI_P2P_TYPES(WAIT_TYPED)
