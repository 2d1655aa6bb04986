/*
 * libfabric transport: active messages, atomics done by the target's CPU.
 *
 * Providers such as tcp;ofi_rxm and shm have no atomic hardware: their
 * fi_atomic is emulated with messages that the target's progress applies
 * under the provider's own locks (shm's are broken in libfabric 1.17).  In
 * active-message mode (FABSHMEM_OFI_AMO, see ofi_quirks_for) fabshmem does the
 * same with its own messages instead:
 *
 *   - An AMO is one request message to the target's default endpoint.  The
 *     target, in whichever thread reads its CQ (an application thread in a
 *     wait, quiet or progress call, or the progress thread), applies it with
 *     a CPU atomic instruction on its own memory and answers with one reply:
 *     the old value for a fetching AMO, an acknowledgement otherwise.
 *   - A put with signal whose data fits one message is one request too: the
 *     target copies the data, then (release order) updates the signal word
 *     with a CPU atomic.  One message instead of a put, a quiet and an
 *     atomic: whoever sees the signal sees the data.
 *
 * Because the target applies every AMO with CPU atomics, AMOs from other
 * nodes are atomic with the CPU atomics that node peers do directly on the
 * mapped word: the transport reports SHMEMT_CAP_AMO_CPU and the core keeps
 * the direct path for atomics on mapped peers even when some PEs are not
 * mapped (the atomicity rule in src/core/amo.h).
 *
 * Completion: a blocking fetching AMO waits for its reply.  Non-fetching
 * requests are counted in am_issued of the transport (default or context)
 * that sent them, and their acknowledgements in its am_acked; quiet waits
 * until the two meet.  A reply carries the request's token: the slot of
 * the waiting request in the requester's table, or the stream of the
 * transport whose am_acked counts it, each with its generation (ofi_am.h);
 * a reply that names nothing waiting is dropped.
 *
 * Trust: every message is authenticated and numbered (ofi_am.h,
 * ofi_am_auth.c); one that fails is dropped before anything of it is used.
 *
 * Acknowledgements are off the critical path: they wait in the queue of
 * pending replies until the next CQ poll (or ofi_idle), and those for the
 * same counter merge into one message that carries their number.  So the
 * target of a put with signal that answers at once (a ping-pong) sends its
 * answer before the acknowledgement, and a PE that many PEs hammer sends
 * one acknowledgement per sender and poll, not one per request.
 *
 * Order: the thread that reads the default CQ applies what it read before
 * another thread may read it (am_poll_lock), so messages from one sender
 * are applied in the order they were sent, as the provider's own atomics
 * are.  Collectives' signals (the signal op) rely on it: they are sent
 * without acknowledgement (token 0), since their receiver waits for them.
 *
 * Receive buffers: OFI_AM_NRECV buffers of OFI_AM_BUF bytes are posted on
 * the default endpoint; each is posted again once its message is handled.
 * A reply that the provider cannot take now (-FI_EAGAIN) is queued and sent
 * by a later CQ poll: a handler never waits inside the CQ poll.
 */
#include "ofi_am.h"
#include "ofi_mr.h"
#include "ofi_post.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>

struct ofi_am_rbuf {
    struct fi_context2 fictx; /* first: the CQ entry's op_context */
    union {
        ofi_am_hdr_t hdr;
        char bytes[OFI_AM_BUF];
    } u;
};

/* A reply the provider refused for now (-FI_EAGAIN), sealed when sent. */
struct ofi_am_pend {
    int pe;
    ofi_am_hdr_t hdr;
};

/* A message of one buffer (iov and desc live with the caller). */
static void ofi_am_msg(struct fi_msg *msg, struct iovec *iov, void **desc, fi_addr_t addr,
                       void *ctx)
{
    memset(msg, 0, sizeof(*msg));
    msg->msg_iov = iov;
    msg->desc = desc;
    msg->iov_count = 1;
    msg->addr = addr;
    msg->context = ctx;
    if (ctx)
        OFI_HB_RELEASE(ctx);
}

static void ofi_am_fill(shmemt_ofi_t *o, ofi_am_hdr_t *h, int type, int op, size_t size, int seg,
                        uint64_t off)
{
    memset(h, 0, sizeof(*h));
    h->type = (uint8_t)type;
    h->op = (uint8_t)op;
    h->size = (uint8_t)size;
    h->src_pe = (uint32_t)o->my_pe;
    h->seg = (uint8_t)seg;
    h->off = off;
}

/* Posts a receive buffer.  It may run inside the CQ poll (a buffer posted
 * again after its message), where the retries cannot drive the default
 * CQ: a bounded number of them. */
static int ofi_am_post(shmemt_ofi_t *o, struct ofi_am_rbuf *rb)
{
    struct iovec iov = { rb->u.bytes, OFI_AM_BUF };
    struct fi_msg msg;
    void *desc = o->am_rdesc;
    ofi_retry_t r;
    ssize_t rc;

    ofi_am_msg(&msg, &iov, &desc, FI_ADDR_UNSPEC, rb);
    ofi_retry_init(&r, 1000);
    do
        rc = fi_recvmsg(o->ep, &msg, FI_COMPLETION);
    while (ofi_retry(o, &r, &rc, "fi_recvmsg of an active-message buffer"));
    if (rc)
        return ofi_post_failed(o, &r, rc, "fi_recvmsg of an active-message buffer");
    return 0;
}

int ofi_am_open(shmemt_ofi_t *o)
{
    size_t bytes = (size_t)OFI_AM_NRECV * sizeof(struct ofi_am_rbuf);
    int i, ret;

    /* Replies and AMO requests are injected (a reply is sent from inside
     * the CQ poll, which must not wait for a completion). */
    if (o->inject_size < sizeof(ofi_am_hdr_t)) {
        ofi_info_log(o, "ofi: provider %s injects %zu bytes, less than an active message (%zu): "
                     "the provider's atomics are used", o->prov_name, o->inject_size,
                     sizeof(ofi_am_hdr_t));
        o->am = 0;
        return 0;
    }
    pthread_mutex_init(&o->am_lock, NULL);
    pthread_mutex_init(&o->am_poll_lock, NULL);
    o->am_opened = 1;
    /* The key before the buffers: a message may come as soon as they are
     * posted (from a stranger: peers learn our address with the key). */
    ret = ofi_am_auth_open(o);
    if (ret)
        return ret;
    o->am_rbufs = aligned_alloc(64, bytes);
    if (!o->am_rbufs)
        return -ENOMEM;
    memset(o->am_rbufs, 0, bytes);
    if (o->mr_mode & FI_MR_LOCAL) {
        ret = ofi_mr_local(o, o->am_rbufs, bytes, FI_RECV, &o->am_rmr);
        if (ret)
            return ret;
        o->am_rdesc = fi_mr_desc(o->am_rmr);
    }
    for (i = 0; i < OFI_AM_NRECV; i++) {
        ret = ofi_am_post(o, &o->am_rbufs[i]);
        if (ret)
            return ret;
    }
    /* The data of a put with signal rides in one message, which is sent
     * from the stack: injected, or (larger) waited for, which needs no
     * registration unless the provider wants registered local buffers. */
    o->am_max_data = OFI_AM_BUF - sizeof(ofi_am_hdr_t);
    if ((o->mr_mode & FI_MR_LOCAL) && o->inject_size < OFI_AM_BUF)
        o->am_max_data = o->inject_size > sizeof(ofi_am_hdr_t) ?
                         o->inject_size - sizeof(ofi_am_hdr_t) : 0;
    return 0;
}

void ofi_am_close(shmemt_ofi_t *o)
{
    /* The endpoint is closed by now: the buffers are no longer posted. */
    if (o->am_rmr)
        fi_close(&o->am_rmr->fid);
    free(o->am_rbufs);
    free(o->am_pend);
    ofi_am_auth_close(o);
    o->am_rbufs = NULL;
    o->am_pend = NULL;
    o->am_rmr = NULL;
    if (o->am_opened) {
        pthread_mutex_destroy(&o->am_lock);
        pthread_mutex_destroy(&o->am_poll_lock);
        o->am_opened = 0;
    }
}

int ofi_am_is_rbuf(const shmemt_ofi_t *o, const void *ctx)
{
    const struct ofi_am_rbuf *rb = ctx;

    return o->am_rbufs && rb >= o->am_rbufs && rb < o->am_rbufs + OFI_AM_NRECV;
}

/* Queues a reply for a later CQ poll; an acknowledgement (odd token) joins
 * a queued one for the same counter when there is one. */
static void ofi_am_defer(shmemt_ofi_t *o, int pe, const ofi_am_hdr_t *h)
{
    struct ofi_am_pend *p;
    int i;

    pthread_mutex_lock(&o->am_lock);
    if ((h->token & OFI_AM_TOK_ACK) && h->len == 0) {
        for (i = o->am_npend - 1; i >= 0; i--) {
            if (o->am_pend[i].pe == pe && o->am_pend[i].hdr.token == h->token &&
                o->am_pend[i].hdr.len == 0) {
                o->am_pend[i].hdr.operand += h->operand;
                pthread_mutex_unlock(&o->am_lock);
                return;
            }
        }
    }
    if (o->am_npend == o->am_cap) {
        int cap = o->am_cap ? 2 * o->am_cap : 64;
        p = realloc(o->am_pend, (size_t)cap * sizeof(*p));
        if (!p) {
            /* The requester would wait for the reply forever. */
            pthread_mutex_unlock(&o->am_lock);
            o->fatal("ofi: out of memory queueing an active-message reply");
            ofi_keep_err(o, -ENOMEM);
            return;
        }
        o->am_pend = p;
        o->am_cap = cap;
    }
    o->am_pend[o->am_npend].pe = pe;
    o->am_pend[o->am_npend].hdr = *h;
    o->am_npend++;
    atomic_store_explicit(&o->am_npend_hint, o->am_npend, memory_order_release);
    pthread_mutex_unlock(&o->am_lock);
}

void ofi_am_flush_replies(shmemt_ofi_t *o)
{
    int i, n;
    ssize_t rc;

    if (pthread_mutex_trylock(&o->am_lock))
        return;
    for (i = 0; i < o->am_npend; i++) {
        rc = ofi_am_post_reply(o, o->am_pend[i].pe, &o->am_pend[i].hdr);
        if (rc == -FI_EAGAIN)
            break;
        if (rc)
            ofi_err(o, "fi_inject of an active-message reply: %s", fi_strerror((int)-rc));
    }
    n = o->am_npend - i;
    memmove(o->am_pend, o->am_pend + i, (size_t)n * sizeof(*o->am_pend));
    o->am_npend = n;
    atomic_store_explicit(&o->am_npend_hint, n, memory_order_release);
    pthread_mutex_unlock(&o->am_lock);
}

/* Replies to req: the old value of a fetching AMO (sent at once), or an
 * acknowledgement of one request (queued, see above) with value 1. */
static void ofi_am_reply(shmemt_ofi_t *o, const ofi_am_hdr_t *req, int err, uint64_t value)
{
    ofi_am_hdr_t h;
    int pe = (int)req->src_pe;
    ssize_t rc;

    ofi_am_fill(o, &h, OFI_AM_REPLY, 0, 0, 0, 0);
    h.len = err;
    h.operand = value;
    h.token = req->token;
    /* A fetching AMO's requester waits for this: send it now.  It may
     * overtake queued acknowledgements, which nothing orders it with. */
    if (!(req->token & OFI_AM_TOK_ACK)) {
        rc = ofi_am_post_reply(o, pe, &h);
        if (rc == 0)
            return;
        if (rc != -FI_EAGAIN) {
            ofi_err(o, "fi_inject of an active-message reply to PE %u: %s", req->src_pe,
                    fi_strerror((int)-rc));
            return;
        }
    }
    ofi_am_defer(o, pe, &h);
}

/* Applies a received request (o is the default transport). */
static void ofi_am_handle(shmemt_ofi_t *o, const ofi_am_hdr_t *h)
{
    uint64_t old = 0;
    char *dst;
    int err = 0;

    if (h->type == OFI_AM_REPLY) {
        if (h->token & OFI_AM_TOK_ACK) {
            /* A request that the target refused (it logged why): the next
             * quiet of the default transport reports it. */
            if (h->len < 0)
                atomic_store(&o->async_err, h->len);
            /* operand: how many requests this acknowledges. */
            if (ofi_am_acked(o, h->token, h->operand))
                ofi_am_dropped(o, h, sizeof(*h), "an acknowledgement for no context alive");
        } else if (ofi_am_slot_answer(o, h->token, h->operand, h->len < 0 ? h->len : 0)) {
            ofi_am_dropped(o, h, sizeof(*h), "a reply to no request that waits (unknown or "
                           "stale)");
        }
        return;
    }
    if (h->size != 4 && h->size != 8) {
        err = -EINVAL;
    } else if (h->type == OFI_AM_REQ_PUTSIG) {
        /* Both ranges are checked before anything is written. */
        dst = ofi_local_addr(o, h->seg, h->off, (uint64_t)h->len);
        if (!dst || (h->aux % h->size) || !ofi_local_addr(o, h->sig_seg, h->aux, h->size)) {
            err = -EINVAL;
        } else {
            memcpy(dst, (const char *)(h + 1), h->len);
            /* The data before the signal, for whoever sees the signal. */
            atomic_thread_fence(memory_order_release);
            err = ofi_cpu_atomic(o, h->sig_seg, h->aux, h->op, &h->operand, NULL, NULL,
                                 h->size);
        }
    } else if (h->type == OFI_AM_REQ_AMO) {
        err = ofi_cpu_atomic(o, h->seg, h->off, h->op, &h->operand, &h->aux, &old, h->size);
    } else {
        err = -EINVAL;
    }
    if (err)
        ofi_err(o, "active message from PE %u: type %u op %u segment %u offset %llu (%d bytes): "
                "outside the registered memory or malformed", h->src_pe, h->type, h->op, h->seg,
                (unsigned long long)h->off, h->len);
    /* Token 0: a signal nobody waits an acknowledgement for. */
    if (h->token)
        ofi_am_reply(o, h, err, (h->token & OFI_AM_TOK_ACK) ? 1 : old);
}

void ofi_am_recv(shmemt_ofi_t *o, void *ctx, size_t len)
{
    struct ofi_am_rbuf *rb = ctx;
    ofi_am_hdr_t *h = &rb->u.hdr;
    const char *why;
    int ret;

    /* Nothing of a message is used before it is known to come from a PE
     * of the job, for the first time. */
    why = ofi_am_verify(o, h, len);
    if (why)
        ofi_am_dropped(o, h, len, why);
    else
        ofi_am_handle(o, h);
    /* Nobody to return a failure to: quiet reports it. */
    if (!atomic_load_explicit(&o->prog_stop, memory_order_relaxed) && (ret = ofi_am_post(o, rb)))
        ofi_keep_err(o, ret);
}

/* Sends one request of len bytes from o's endpoint to pe's default one:
 * injected when it fits, else sent and waited for until buf may be reused
 * (local completion: the provider has copied it or put it on the wire). */
static int ofi_am_send(shmemt_ofi_t *o, int pe, ofi_am_hdr_t *buf, size_t len, const char *what)
{
    struct iovec iov = { (void *)buf, len };
    struct fi_msg msg;
    ofi_req_t req;
    ofi_retry_t r;
    void *desc = NULL;
    ssize_t rc;
    int inject = len <= o->inject_size;

    atomic_init(&req.done, 0);
    req.err = 0;
    ofi_am_msg(&msg, &iov, &desc, o->addr[pe], &req);
    ofi_retry_init(&r, 0);
    do
        rc = ofi_am_post_sealed(o, pe, buf, len, inject ? NULL : &msg);
    while (ofi_retry(o, &r, &rc, what));
    if (rc)
        return ofi_post_failed(o, &r, rc, "%s: %s to PE %d", what,
                               inject ? "fi_inject" : "fi_sendmsg", pe);
    return inject ? 0 : ofi_req_wait(o, &req, what);
}

/* Non-fetching requests: counted before they are sent (as in ofi_rma.c),
 * so that a quiet that sees am_acked reach the count it read covers them. */
static int ofi_am_send_counted(shmemt_ofi_t *o, int pe, ofi_am_hdr_t *h, size_t len,
                               const char *what)
{
    int ret;

    h->token = ofi_am_ack_token(o);
    atomic_fetch_add_explicit(&o->am_issued, 1, memory_order_seq_cst);
    ofi_prog_kick(o);
    ret = ofi_am_send(o, pe, h, len, what);
    if (ret)
        atomic_fetch_add_explicit(&o->am_acked, 1, memory_order_seq_cst);
    return ret;
}

int ofi_am_atomic(shmemt_ofi_t *o, int pe, int seg, uint64_t off, int op, const void *operand,
                  const void *compare, void *fetch, size_t size)
{
    ofi_am_hdr_t h;
    ofi_am_req_t req;
    int ret;

    /* ofi_atomic checked the range. */
    ofi_am_fill(o, &h, OFI_AM_REQ_AMO, op, size, seg, off);
    if (operand)
        memcpy(&h.operand, operand, size);
    if (compare)
        memcpy(&h.aux, compare, size);
    if (!fetch)
        return ofi_am_send_counted(o, pe, &h, sizeof(h), "atomic");
    atomic_init(&req.req.done, 0);
    req.req.err = 0;
    req.value = 0;
    /* A slot in the table that the reply names (they are many: a thread
     * that finds none free drives progress until one is). */
    while (!(h.token = ofi_am_slot_get(OFI_ROOT(o), &req))) {
        ofi_cq_poll(OFI_ROOT(o));
        sched_yield();
    }
    OFI_HB_RELEASE(&req);
    ret = ofi_am_send(o, pe, &h, sizeof(h), "fetching atomic");
    if (!ret)
        ret = ofi_req_wait(o, &req.req, "fetching atomic");
    /* A reply that comes after a wait gave up finds the slot stale. */
    ofi_am_slot_put(OFI_ROOT(o), h.token);
    if (ret)
        return ret;
    memcpy(fetch, &req.value, size);
    return 0;
}

int ofi_am_put_signal(shmemt_ofi_t *o, int pe, int seg, uint64_t off, const void *src,
                      size_t len, int sig_seg, uint64_t sig_off, uint64_t signal, int sig_op)
{
    union {
        ofi_am_hdr_t h;
        char bytes[OFI_AM_BUF];
    } m;

    if (!o->am || len > o->am_max_data || pe == o->my_pe)
        return -ENOTSUP;
    if (!ofi_remote_seg_ok(o, pe, seg, off, len) ||
        !ofi_remote_seg_ok(o, pe, sig_seg, sig_off, sizeof(uint64_t))) {
        ofi_err(o, "put with signal: PE %d segment %d offset %llu (%zu bytes) or signal "
                "segment %d offset %llu is outside the registered memory", pe, seg,
                (unsigned long long)off, len, sig_seg, (unsigned long long)sig_off);
        return -EINVAL;
    }
    ofi_am_fill(o, &m.h, OFI_AM_REQ_PUTSIG, sig_op, sizeof(uint64_t), seg, off);
    m.h.len = (int32_t)len;
    m.h.sig_seg = (uint8_t)sig_seg;
    m.h.aux = sig_off;
    m.h.operand = signal;
    memcpy(m.bytes + sizeof(m.h), src, len);
    return ofi_am_send_counted(o, pe, &m.h, sizeof(m.h) + len, "put with signal");
}

int ofi_am_signal(shmemt_ofi_t *o, int pe, int seg, uint64_t off, uint64_t value)
{
    ofi_am_hdr_t h;

    if (!ofi_remote_seg_ok(o, pe, seg, off, sizeof(value))) {
        ofi_err(o, "signal: PE %d segment %d offset %llu is outside the registered memory", pe, seg,
                (unsigned long long)off);
        return -EINVAL;
    }
    ofi_am_fill(o, &h, OFI_AM_REQ_AMO, SHMEMT_AOP_SET, sizeof(value), seg, off);
    h.operand = value;
    h.token = 0;
    return ofi_am_send(o, pe, &h, sizeof(h), "signal");
}

int ofi_am_drain(shmemt_ofi_t *o)
{
    uint64_t target = atomic_load_explicit(&o->am_issued, memory_order_seq_cst);
    ofi_wait_t w;
    int ret;

    ofi_wait_init(&w);
    while (atomic_load_explicit(&o->am_acked, memory_order_acquire) < target) {
        ret = ofi_wait_step(o, &w, atomic_load_explicit(&o->am_acked, memory_order_relaxed),
                            "quiet (active messages)");
        if (ret)
            return ret;
    }
    return 0;
}
