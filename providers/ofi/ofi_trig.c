/*
 * Triggered queues (FI_TRIGGER): the offload of streams (src/stream/stream.c).
 *
 * A queue is a child endpoint whose one counter (put_cntr, bound to
 * FI_WRITE | FI_READ) counts every operation posted on it when it is
 * complete at its target (writes and atomics carry FI_DELIVERY_COMPLETE
 * where the provider's local completion is not remote).  Each operation is
 * posted with FI_TRIGGER and a threshold on that counter: the provider
 * starts it by itself when the counter reaches the threshold, so a caller
 * that gives each operation the count of everything before it gets a
 * chain that the provider runs in order with no thread of ours in the
 * loop.  Work that the host does in between (src/stream/stream.c: host kernels,
 * mapped peers, waits) bumps the counter with fi_cntr_add when done.
 *
 * The triggered contexts must stay valid until their operation completes:
 * they live in a ring of SHMEMT_TRIG_DEPTH slots indexed by the operation's
 * number, and the caller never has more than that in flight.  A slot starts like an
 * ofi_req_t, so that ofi_cq_poll can record the error of a failed
 * operation in it like any other request.
 */
#include "ofi.h"
#include "ofi_mr.h"
#include "ofi_post.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_trigger.h>

struct ofi_trig_slot {
    ofi_req_t req;      /* first: req.fictx is the fi_triggered_context2 */
    uint64_t operand;   /* an atomic's operand, read when the atomic fires */
};

_Static_assert(sizeof(struct fi_triggered_context2) <= sizeof(struct fi_context2),
               "the triggered context must fit in the request's context");

struct ofi_trig_slot *ofi_trig_slots_alloc(void)
{
    return calloc(SHMEMT_TRIG_DEPTH, sizeof(struct ofi_trig_slot));
}

int ofi_trig_create(shmemt_t *t, shmemt_t **q_p)
{
    if (!(t->caps & SHMEMT_CAP_TRIGGER))
        return -ENOSYS;
    return ofi_child_create(t, 1, q_p);
}

/* The slot of operation seq, its triggered context filled in. */
static struct ofi_trig_slot *trig_slot(shmemt_ofi_t *o, uint64_t seq, uint64_t thr)
{
    struct ofi_trig_slot *sl = &o->trig[seq % SHMEMT_TRIG_DEPTH];
    struct fi_triggered_context2 *tc = (struct fi_triggered_context2 *)&sl->req.fictx;

    memset(sl, 0, sizeof(*sl));
    tc->event_type = FI_TRIGGER_THRESHOLD;
    tc->trigger.threshold.cntr = o->put_cntr;
    tc->trigger.threshold.threshold = (size_t)thr;
    return sl;
}

enum { TRIG_WRITE, TRIG_READ, TRIG_ATOMIC };

/* Posts a triggered operation of kind TRIG_* (rma: the message of a read
 * or write, amo: of an atomic) to pe, retried while the provider refuses
 * it for now. */
static int trig_post(shmemt_ofi_t *o, int kind, int pe, const struct fi_msg_rma *rma,
                     const struct fi_msg_atomic *amo)
{
    static const char *const calls[] = { "fi_write", "fi_read", "fi_atomic" };
    const char *call = calls[kind];
    ofi_retry_t r;
    ssize_t rc;

    ofi_retry_init(&r, 0);
    do
        rc = kind == TRIG_ATOMIC ? fi_atomicmsg(o->ep, amo, FI_TRIGGER | o->atomic_dc_flag)
             : kind == TRIG_READ ? fi_readmsg(o->ep, rma, FI_TRIGGER)
                                 : fi_writemsg(o->ep, rma, FI_TRIGGER | o->dc_flag);
    while (ofi_retry(o, &r, &rc, call));
    if (rc)
        return ofi_post_failed(o, &r, rc, "%s (triggered) to PE %d", call, pe);
    return 0;
}

/* A triggered write (read 0) or read (read 1) of len bytes between buf and
 * (pe, seg, off). */
static int trig_rma(shmemt_t *q, uint64_t seq, uint64_t thr, int pe, int seg, uint64_t off,
                    void *buf, size_t len, int read)
{
    shmemt_ofi_t *o = OFI_T(q);
    uint64_t raddr, key;
    struct iovec iov = { buf, len };
    struct fi_rma_iov riov;
    struct fi_msg_rma msg;
    void *desc;

    if (!o->trig)
        return -ENOSYS;
    if (ofi_remote(o, pe, seg, off, len, &raddr, &key))
        return -EINVAL;
    desc = ofi_local_desc(o, buf, len);
    if ((!desc && (o->mr_mode & FI_MR_LOCAL)) || len > o->max_msg_size)
        return -ENOTSUP;
    riov.addr = raddr;
    riov.len = len;
    riov.key = key;
    ofi_rma_msg(o, &msg, &iov, &desc, &riov, pe, trig_slot(o, seq, thr));
    return trig_post(o, read ? TRIG_READ : TRIG_WRITE, pe, &msg, NULL);
}

int ofi_trig_put(shmemt_t *q, uint64_t seq, uint64_t thr, int pe, int seg, uint64_t off,
                 const void *src, size_t len)
{
    return trig_rma(q, seq, thr, pe, seg, off, (void *)src, len, 0);
}

int ofi_trig_get(shmemt_t *q, uint64_t seq, uint64_t thr, int pe, int seg, uint64_t off, void *dst,
                 size_t len)
{
    return trig_rma(q, seq, thr, pe, seg, off, dst, len, 1);
}

int ofi_trig_atomic(shmemt_t *q, uint64_t seq, uint64_t thr, int pe, int seg, uint64_t off,
                    int op, uint64_t operand)
{
    shmemt_ofi_t *o = OFI_T(q);
    uint64_t raddr, key;
    struct fi_ioc ioc;
    struct fi_rma_ioc rioc;
    struct fi_msg_atomic msg;
    struct ofi_trig_slot *sl;
    void *desc = NULL;
    enum fi_op fop;
    int kind;

    /* Atomics are active messages applied by the target's CPU: a provider
     * atomic on the same word would not be atomic with them. */
    if (o->am)
        return -ENOTSUP;

    if (!o->trig)
        return -ENOSYS;
    if (!(o->pub.caps & SHMEMT_CAP_ATOMIC) || (o->mr_mode & FI_MR_LOCAL) ||
        ofi_aop_map(op, 0, &fop, &kind) || kind != OFI_AK_BASE)
        return -ENOTSUP;
    if (ofi_remote(o, pe, seg, off, sizeof(uint64_t), &raddr, &key))
        return -EINVAL;
    sl = trig_slot(o, seq, thr);
    sl->operand = operand;
    ioc.addr = &sl->operand;
    ioc.count = 1;
    rioc.addr = raddr;
    rioc.count = 1;
    rioc.key = key;
    ofi_atomic_msg(o, &msg, &ioc, &desc, &rioc, pe, FI_UINT64, fop, sl);
    return trig_post(o, TRIG_ATOMIC, pe, NULL, &msg);
}

int ofi_trig_status(shmemt_t *q, uint64_t *done_p, uint64_t *failed_p)
{
    shmemt_ofi_t *o = OFI_T(q);
    int ret;

    if (!o->trig)
        return -ENOSYS;
    /* Reads the CQ: a failed operation leaves an error entry there. */
    ret = ofi_cq_poll(o);
    *done_p = fi_cntr_read(o->put_cntr);
    *failed_p = fi_cntr_readerr(o->put_cntr);
    OFI_HB_COUNTED(o);
    return ret;
}

int ofi_trig_add(shmemt_t *q, uint64_t n)
{
    shmemt_ofi_t *o = OFI_T(q);
    int ret;

    if (!o->trig)
        return -ENOSYS;
    ret = fi_cntr_add(o->put_cntr, n);
    if (ret) {
        ofi_err(o, "fi_cntr_add: %s", fi_strerror(-ret));
        return -EIO;
    }
    return 0;
}
