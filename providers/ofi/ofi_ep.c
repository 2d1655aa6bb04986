/*
 * libfabric transport, endpoints: the CQ poll, the opening of the endpoint
 * with its CQ and counters and the scratch area, contexts (children of the
 * default transport with endpoints of their own), and the closing of it
 * all.  Provider selection is in ofi_select.c, init and the card exchange
 * in ofi.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setname_np */
#endif
#include "ofi_am.h"
#include "ofi_mr.h"
#include "ofi_post.h"
#include <rdma/fi_cm.h>
#include <errno.h>
#include <sys/eventfd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static int ofi_cq_poll_once(shmemt_ofi_t *o)
{
    struct fi_cq_msg_entry ent[16];
    struct fi_cq_err_entry e;
    ofi_req_t *req;
    ssize_t n, i;
    char buf[256];

    if (o->am_rbufs && atomic_load_explicit(&o->am_npend_hint, memory_order_relaxed))
        ofi_am_flush_replies(o);
    n = fi_cq_read(o->cq, ent, 16);
    OFI_HB_POLLED(o);
    if (n > 0) {
        /* Waits (ofi_progress) and the progress thread look. */
        atomic_fetch_add_explicit(&o->n_cqe, (uint64_t)n, memory_order_relaxed);
        for (i = 0; i < n; i++) {
            req = ent[i].op_context;
            if (req)
                OFI_HB_ACQUIRE(req);
            if (ofi_am_is_rbuf(o, req))
                ofi_am_recv(o, req, ent[i].len);
            else if (req)
                atomic_store_explicit(&req->done, 1, memory_order_release);
        }
        return 0;
    }
    if (n == -FI_EAGAIN)
        return 0;
    if (n == -FI_EAVAIL) {
        memset(&e, 0, sizeof(e));
        n = fi_cq_readerr(o->cq, &e, 0);
        if (n == -FI_EAGAIN)
            return 0;
        if (n < 0) {
            ofi_err(o, "fi_cq_readerr: %s", fi_strerror((int)-n));
            return -EIO;
        }
        req = e.op_context;
        if (req)
            OFI_HB_ACQUIRE(req);
        if (ofi_am_is_rbuf(o, req)) {
            /* A receive buffer: canceled when the endpoint closes. */
            if (e.err != FI_ECANCELED) {
                ofi_err(o, "active-message receive failed: %s", fi_strerror(e.err));
                ofi_am_recv(o, req, 0);
            }
            return 0;
        }
        ofi_err(o, "%s to a remote PE failed: %s (%s)",
                e.flags & FI_READ ? "fi_read" : e.flags & FI_ATOMIC ? "fi_atomic" : "fi_write",
                fi_strerror(e.err),
                fi_cq_strerror(o->cq, e.prov_errno, e.err_data, buf, sizeof(buf)));
        if (req) {
            req->err = -(e.err ? e.err : EIO);
            atomic_store_explicit(&req->done, 1, memory_order_release);
        } else {
            atomic_store(&o->async_err, -(e.err ? e.err : EIO));
        }
        return 0;
    }
    ofi_err(o, "fi_cq_read: %s", fi_strerror((int)-n));
    return -EIO;
}

int ofi_cq_poll(shmemt_ofi_t *o)
{
    int ret;

    if (!o->am_rbufs)
        return ofi_cq_poll_once(o);
    /* Messages are applied in the order they arrived: one reader at a time
     * (the other is polling for us). */
    if (pthread_mutex_trylock(&o->am_poll_lock))
        return 0;
    ret = ofi_cq_poll_once(o);
    pthread_mutex_unlock(&o->am_poll_lock);
    return ret;
}

static int ofi_open_cq(shmemt_ofi_t *o, int want_fd)
{
    struct fi_cq_attr attr;
    int ret;

    memset(&attr, 0, sizeof(attr));
    attr.format = FI_CQ_FORMAT_MSG;
    attr.size = o->parent ? OFI_CHILD_TX_SIZE : 0;
    attr.wait_obj = want_fd ? FI_WAIT_FD : FI_WAIT_NONE;
    ret = fi_cq_open(o->domain, &attr, &o->cq, NULL);
    if (ret && want_fd) {
        attr.wait_obj = FI_WAIT_NONE;
        ret = fi_cq_open(o->domain, &attr, &o->cq, NULL);
        want_fd = 0;
    }
    if (ret) {
        ofi_err(o, "fi_cq_open: %s", fi_strerror(-ret));
        return -EIO;
    }
    o->wait_fd = -1;
    if (want_fd) {
        int fd = -1;
        ret = fi_control(&o->cq->fid, FI_GETWAIT, &fd);
        if (ret == 0 && fd >= 0)
            o->wait_fd = fd;
    }
    return 0;
}

static int ofi_open_cntr(shmemt_ofi_t *o, struct fid_cntr **c_p)
{
    struct fi_cntr_attr attr;
    int ret;

    memset(&attr, 0, sizeof(attr));
    attr.events = FI_CNTR_EVENTS_COMP;
    attr.wait_obj = FI_WAIT_NONE;
    ret = fi_cntr_open(o->domain, &attr, c_p, NULL);
    if (ret) {
        attr.wait_obj = FI_WAIT_UNSPEC;
        ret = fi_cntr_open(o->domain, &attr, c_p, NULL);
    }
    if (ret) {
        ofi_err(o, "fi_cntr_open: %s", fi_strerror(-ret));
        return -EIO;
    }
    return 0;
}

/* The endpoint of o with its CQ and counters, bound to o->av and enabled
 * (the default transport and every child make one each). */
static int ofi_open_endpoint(shmemt_ofi_t *o, int want_fd)
{
    int ret;

    ret = ofi_open_cq(o, want_fd);
    if (ret)
        return ret;
    ret = ofi_open_cntr(o, &o->put_cntr);
    if (ret)
        return ret;
    ret = ofi_open_cntr(o, &o->get_cntr);
    if (ret)
        return ret;
    ret = fi_endpoint(o->domain, o->info, &o->ep, NULL);
    if (ret) {
        ofi_err(o, "fi_endpoint (%s): %s", o->prov_name, fi_strerror(-ret));
        return -EIO;
    }
    ret = fi_ep_bind(o->ep, &o->av->fid, 0);
    if (!ret)
        ret = fi_ep_bind(o->ep, &o->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION);
    /* A triggered queue chains everything on one counter. */
    if (!ret)
        ret = fi_ep_bind(o->ep, &o->put_cntr->fid, o->trig ? FI_WRITE | FI_READ : FI_WRITE);
    if (!ret && !o->trig)
        ret = fi_ep_bind(o->ep, &o->get_cntr->fid, FI_READ);
    if (ret) {
        ofi_err(o, "fi_ep_bind: %s", fi_strerror(-ret));
        return -EIO;
    }
    ret = fi_enable(o->ep);
    if (ret) {
        ofi_err(o, "fi_enable: %s", fi_strerror(-ret));
        return -EIO;
    }
    return 0;
}

/* Fabric, domain and AV, then the endpoint with its CQ and counters. */
int ofi_open_ep(shmemt_ofi_t *o, int want_fd)
{
    struct fi_av_attr av_attr;
    int ret;

    ret = fi_fabric(o->info->fabric_attr, &o->fabric, NULL);
    if (ret) {
        ofi_err(o, "fi_fabric (%s): %s", o->prov_name, fi_strerror(-ret));
        return -EIO;
    }
    ret = fi_domain(o->fabric, o->info, &o->domain, NULL);
    if (ret) {
        ofi_err(o, "fi_domain (%s): %s", o->prov_name, fi_strerror(-ret));
        return -EIO;
    }
    memset(&av_attr, 0, sizeof(av_attr));
    av_attr.type = FI_AV_TABLE;
    av_attr.count = (size_t)o->n_pes;
    ret = fi_av_open(o->domain, &av_attr, &o->av, NULL);
    if (ret) {
        ofi_err(o, "fi_av_open: %s", fi_strerror(-ret));
        return -EIO;
    }
    return ofi_open_endpoint(o, want_fd);
}

/* Registers the scratch area of o (bounce buffer, flush sink, atomic
 * operands). */
int ofi_scratch_open(shmemt_ofi_t *o)
{
    int ret;

    o->scratch = aligned_alloc(4096, OFI_SCRATCH_SIZE);
    if (!o->scratch)
        return -ENOMEM;
    memset(o->scratch, 0, OFI_SCRATCH_SIZE);
    ret = ofi_mr_reg(o, o->scratch, OFI_SCRATCH_SIZE, FI_READ | FI_WRITE, &o->scratch_mr);
    if (ret)
        return ret;
    o->scratch_desc = fi_mr_desc(o->scratch_mr);
    return 0;
}

/* Closes what every transport owns, the default one and a child alike:
 * its endpoint with its CQ and counters, its scratch area and the
 * accounting; frees the transport's own memory but not o itself. */
static void ofi_close_own(shmemt_ofi_t *o)
{
    if (o->scratch_mr)
        fi_close(&o->scratch_mr->fid);
    if (o->ep)
        fi_close(&o->ep->fid);
    /* The buffered puts' ring: after the endpoint, which may still read it. */
    ofi_bounce_close(o);
    if (o->put_cntr)
        fi_close(&o->put_cntr->fid);
    if (o->get_cntr)
        fi_close(&o->get_cntr->fid);
    if (o->cq)
        fi_close(&o->cq->fid);
    if (o->info)
        fi_freeinfo(o->info);
    free(o->scratch);
    free(o->trig);
    free((void *)o->wposted);
    free((void *)o->wflushed);
    pthread_mutex_destroy(&o->scratch_lock);
    pthread_mutex_destroy(&o->child_lock);
}

/* Stops the progress thread of the default transport o. */
static void ofi_prog_stop(shmemt_ofi_t *o)
{
    if (!o->prog_running)
        return;
    atomic_store(&o->prog_stop, 1);
    /* Wakes the thread, which may sleep for long (ofi_prog_main). */
    ofi_prog_wake(o);
    pthread_join(o->prog_thread, NULL);
    o->prog_running = 0;
    close(o->prog_wake_fd);
    o->prog_wake_fd = -1;
}

/* Closes a child (no longer in its parent's list) or the default
 * transport with everything it owns, its children included, and frees
 * it. */
void ofi_close_all(shmemt_ofi_t *o)
{
    shmemt_ofi_t *c;
    int s;

    if (o->parent) {
        ofi_close_own(o);
        ofi_am_stream_put(o);
        free(o);
        return;
    }
    ofi_prog_stop(o);
    /* Contexts the application did not destroy. */
    while ((c = o->children) != NULL) {
        o->children = c->next_child;
        ofi_close_all(c);
    }
    for (s = 0; s < SHMEMT_MAX_SEGS; s++)
        if (o->mr[s])
            fi_close(&o->mr[s]->fid);
    while (o->bufs) {
        struct ofi_buf *b = o->bufs;
        o->bufs = b->next;
        fi_close(&b->mr->fid);
        free(b);
    }
    pthread_rwlock_destroy(&o->buf_lock);
    ofi_close_own(o);
    /* The receive buffers are no longer posted (the endpoint is closed);
     * their registration goes before the domain. */
    ofi_am_close(o);
    if (o->av)
        fi_close(&o->av->fid);
    if (o->domain)
        fi_close(&o->domain->fid);
    if (o->fabric)
        fi_close(&o->fabric->fid);
    free(o->peer);
    free(o->addr);
    pthread_mutex_destroy(&o->serial_lock);
    free(o);
}

int ofi_ctx_create(shmemt_t *t, long options, shmemt_t **child_p)
{
    (void)options; /* Every kind of context gets the same endpoint. */
    return ofi_child_create(t, 0, child_p);
}

/* What a child c shares with its parent o (see shmemt_ofi_t). */
static void ofi_child_inherit(shmemt_ofi_t *c, shmemt_ofi_t *o)
{
    int s;

    c->parent = o;
    memcpy(c->prov_name, o->prov_name, sizeof(c->prov_name));
    c->my_pe = o->my_pe;
    c->n_pes = o->n_pes;
    c->log = o->log;
    c->fatal = o->fatal;
    c->cfg = o->cfg;
    c->fabric = o->fabric;
    c->domain = o->domain;
    c->av = o->av;
    c->mr_mode = o->mr_mode;
    c->inject_size = o->inject_size;
    c->max_msg_size = o->max_msg_size;
    c->dc_flag = o->dc_flag;
    c->atomic_dc_flag = o->atomic_dc_flag;
    c->q = o->q;
    c->am = o->am;
    c->am_max_data = o->am_max_data;
    for (s = 0; s < SHMEMT_NSEGS; s++) {
        c->segs[s] = o->segs[s];
        c->mr[s] = o->mr[s];
        c->desc[s] = o->desc[s];
    }
    c->addr = o->addr;
    c->peer = o->peer;
    c->am_peer_key = o->am_peer_key;
    c->wait_fd = -1;
    c->pub = o->pub;
    c->pub.priv = c;
}

int ofi_child_create(shmemt_t *t, int trig, shmemt_t **child_p)
{
    shmemt_ofi_t *o = OFI_T(t), *c;
    int ret;

    if (o->parent)
        o = o->parent;
    /* The segments' registrations are bound to the default endpoint. */
    if (o->mr_mode & FI_MR_ENDPOINT)
        return -ENOSYS;
    c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    pthread_mutex_init(&c->scratch_lock, NULL);
    pthread_mutex_init(&c->child_lock, NULL);
    ofi_child_inherit(c, o);
    /* Small queues: a child only initiates (remote PEs target the default
     * endpoint), and the provider sizes its buffer pools by them (tcp;
     * ofi_rxm: 2048 entries of 16 KiB each way by default). */
    c->info = fi_dupinfo(o->info);
    c->wposted = calloc((size_t)c->n_pes, sizeof(*c->wposted));
    c->wflushed = calloc((size_t)c->n_pes, sizeof(*c->wflushed));
    if (trig)
        c->trig = ofi_trig_slots_alloc();
    if (!c->info || !c->wposted || !c->wflushed || (trig && !c->trig)) {
        ret = -ENOMEM;
        goto err;
    }
    if (c->info->tx_attr && c->info->tx_attr->size > OFI_CHILD_TX_SIZE)
        c->info->tx_attr->size = OFI_CHILD_TX_SIZE;
    if (c->info->rx_attr && c->info->rx_attr->size > OFI_CHILD_RX_SIZE)
        c->info->rx_attr->size = OFI_CHILD_RX_SIZE;
    /* No wait object: the parent's progress drives the child. */
    ret = ofi_open_endpoint(c, 0);
    if (!ret)
        ret = ofi_scratch_open(c);
    if (!ret && c->am)
        ret = ofi_am_stream_get(c);
    if (ret) {
        if (ret == -EIO)
            ret = -ENOSYS;
        goto err;
    }
    pthread_mutex_lock(&o->child_lock);
    c->next_child = o->children;
    o->children = c;
    atomic_fetch_add(&o->n_children, 1);
    pthread_mutex_unlock(&o->child_lock);
    *child_p = &c->pub;
    return 0;

err:
    ofi_close_all(c);
    return ret;
}

void ofi_ctx_destroy(shmemt_t *child)
{
    shmemt_ofi_t *c = OFI_T(child), *o = c->parent, **pp;

    if (!o)
        return;
    pthread_mutex_lock(&o->child_lock);
    for (pp = &o->children; *pp; pp = &(*pp)->next_child) {
        if (*pp == c) {
            *pp = c->next_child;
            atomic_fetch_sub(&o->n_children, 1);
            break;
        }
    }
    pthread_mutex_unlock(&o->child_lock);
    ofi_close_all(c);
}

uint64_t ofi_poll_children(shmemt_ofi_t *o)
{
    shmemt_ofi_t *c;
    uint64_t ops = 0;

    if (!atomic_load_explicit(&o->n_children, memory_order_relaxed))
        return 0;
    /* A thread that finds the list busy leaves the round to the holder. */
    if (pthread_mutex_trylock(&o->child_lock))
        return 0;
    for (c = o->children; c; c = c->next_child) {
        ofi_cq_poll(c);
        ops += atomic_load_explicit(&c->put_issued, memory_order_relaxed) +
               atomic_load_explicit(&c->get_issued, memory_order_relaxed);
    }
    pthread_mutex_unlock(&o->child_lock);
    return ops;
}

