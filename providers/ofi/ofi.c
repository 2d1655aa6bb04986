/*
 * libfabric transport: provider selection, fabric/domain/endpoint setup,
 * the key exchange, the CQ poll, the provider listing
 * and finalization.  Data movement lives in ofi_rma.c, ofi_atomic.c and
 * ofi_am.c; memory registration in ofi_mr.c; the progress thread and idle waits in ofi_prog.c;
 * per-provider differences in ofi_quirks.c.
 * (long: selection, endpoints and init in one file until it is split by
 * object, issue 28.)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setname_np */
#endif
#include "ofi_am.h"
#include <rdma/fi_cm.h>
#include <errno.h>
#include <sys/eventfd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define OFI_ADDR_MAX 256

/* What each PE publishes at init. */
typedef struct ofi_card {
    int64_t err;       /* 0, or the negative errno of a PE that failed before
                        * the exchange (then nothing else is filled in) */
    uint64_t addrlen;
    char addr[OFI_ADDR_MAX];
    ofi_peer_seg_t seg[SHMEMT_NSEGS];
    uint64_t am_key[2];  /* what active messages to this PE are sealed with */
} ofi_card_t;

static struct fi_info *ofi_hints(const char *prov, uint64_t caps)
{
    struct fi_info *h;

    /* Before libfabric reads its providers' parameters. */
    ofi_quirks_env();
    h = fi_allocinfo();

    if (!h)
        return NULL;
    h->caps = caps;
    h->mode = 0;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
                              FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_SAFE;
    if (prov) {
        h->fabric_attr->prov_name = strdup(prov);
        if (!h->fabric_attr->prov_name) {
            fi_freeinfo(h);
            return NULL;
        }
    }
    return h;
}

/* A copy of info alone (fi_dupinfo copies it and whatever follows it). */
static struct fi_info *ofi_dup_one(struct fi_info *info)
{
    struct fi_info *next = info->next, *dup;

    info->next = NULL;
    dup = fi_dupinfo(info);
    info->next = next;
    return dup;
}

/* 1 when an entry before cur in list has the same provider name (fi_getinfo
 * lists a provider once per fabric and domain). */
static int ofi_name_seen(const struct fi_info *list, const struct fi_info *cur)
{
    for (; list != cur; list = list->next)
        if (!strcmp(list->fabric_attr->prov_name, cur->fabric_attr->prov_name))
            return 1;
    return 0;
}

/* The best fi_info for requested with the given caps, duplicated, or NULL
 * with *ret_p set (-ENOENT: none fits).  log: where a failure of
 * fi_getinfo itself is reported. */
static struct fi_info *ofi_pick(const char *requested, uint64_t caps, int *ret_p,
                                const ofi_log_t *log)
{
    struct fi_info *hints, *list = NULL, *cur, *best = NULL, *dup = NULL;
    int best_rank = -1, r, ret;
    const char *full = requested && *requested ? ofi_quirks_full_name(requested) : NULL;

    hints = ofi_hints(full, caps);
    if (!hints) {
        *ret_p = -ENOMEM;
        return NULL;
    }
    ret = fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (ret) {
        *ret_p = ret == -FI_ENODATA ? -ENOENT : -EIO;
        if (ret != -FI_ENODATA)
            ofi_log(log, SHMEMT_LOG_ERR, "fi_getinfo: %s", fi_strerror(-ret));
        return NULL;
    }
    for (cur = list; cur; cur = cur->next) {
        r = shmemt_ofi_rank_provider(requested, cur->fabric_attr->prov_name);
        if (r < 0)
            continue;
        if (!best || r < best_rank) {
            best = cur;
            best_rank = r;
        }
    }
    if (best)
        dup = ofi_dup_one(best);
    fi_freeinfo(list);
    *ret_p = best ? (dup ? 0 : -ENOMEM) : -ENOENT;
    return dup;
}

/* The best fi_info for requested, asking for the most capabilities first:
 * messages carry the active messages (ofi_am.c); a provider without them
 * still does RMA, and its own atomics where it has them. */
static struct fi_info *ofi_pick_any(const char *requested, int *ret_p, const ofi_log_t *log)
{
    static const uint64_t caps[] = { FI_RMA | FI_ATOMIC | FI_MSG, FI_RMA | FI_MSG,
                                     FI_RMA | FI_ATOMIC, FI_RMA };
    struct fi_info *info = NULL;
    size_t i;

    *ret_p = -ENOENT;
    for (i = 0; i < sizeof(caps) / sizeof(caps[0]) && !info && *ret_p == -ENOENT; i++)
        info = ofi_pick(requested, caps[i], ret_p, log);
    return info;
}

/* The names of the providers with RDM endpoints and RMA, with the short
 * name a user may give first ("tcp (tcp;ofi_rxm), shm, sockets"), into
 * buf: for the message of a request that none of them fits. */
static void ofi_names_found(char *buf, size_t len)
{
    struct fi_info *hints = ofi_hints(NULL, FI_RMA), *list = NULL, *cur;
    const char *name, *alias;
    size_t n = 0;
    int w;

    snprintf(buf, len, "none");
    if (!hints)
        return;
    if (fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, hints, &list))
        list = NULL;
    fi_freeinfo(hints);
    for (cur = list; cur && n < len; cur = cur->next) {
        if (ofi_name_seen(list, cur))
            continue;
        name = cur->fabric_attr->prov_name;
        alias = ofi_quirks_short_name(name);
        w = alias ? snprintf(buf + n, len - n, "%s%s (%s)", n ? ", " : "", alias, name)
                  : snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name);
        n += w > 0 ? (size_t)w : 0;
    }
    if (list)
        fi_freeinfo(list);
}
/* Asks for o->info again with FI_TRIGGER (fi_getinfo reports only the caps
 * asked for) and keeps the answer of the same provider when there is one. */
static void ofi_want_trigger(shmemt_ofi_t *o)
{
    struct fi_info *h = fi_dupinfo(o->info), *list = NULL, *cur, *dup;

    if (!h)
        return;
    h->caps |= FI_TRIGGER;
    h->mode = 0;
    if (fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, h, &list) == 0) {
        for (cur = list; cur; cur = cur->next)
            if ((cur->caps & FI_TRIGGER) &&
                !strcmp(cur->fabric_attr->prov_name, o->info->fabric_attr->prov_name))
                break;
        if (cur && (dup = ofi_dup_one(cur)) != NULL) {
            fi_freeinfo(o->info);
            o->info = dup;
        }
        fi_freeinfo(list);
    }
    fi_freeinfo(h);
}

/* Why no provider fits, with the providers there are. */
static void ofi_select_failed(shmemt_ofi_t *o, const char *requested)
{
    char found[512];
    const char *full;

    if (!requested || !*requested) {
        ofi_err(o, "no libfabric provider with RDM endpoints and RMA found "
                "(tried verbs;ofi_rxm, tcp;ofi_rxm, sockets, shm)");
        return;
    }
    ofi_names_found(found, sizeof(found));
    full = ofi_quirks_full_name(requested);
    ofi_err(o, "libfabric provider \"%s\"%s%s%s is not available with RDM endpoints and RMA; "
            "the providers there are: %s (fabshmem_info shows what each can do)", requested,
            strcmp(full, requested) ? " (" : "", strcmp(full, requested) ? full : "",
            strcmp(full, requested) ? ")" : "", found);
}

static int ofi_select(shmemt_ofi_t *o, const char *requested, int trigger)
{
    int ret;

    o->info = ofi_pick_any(requested, &ret, &o->log);
    if (!o->info) {
        if (ret == -ENOENT)
            ofi_select_failed(o, requested);
        return ret;
    }
    if (trigger)
        ofi_want_trigger(o);
    snprintf(o->prov_name, sizeof(o->prov_name), "%s", o->info->fabric_attr->prov_name);
    return 0;
}

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
static int ofi_open_ep(shmemt_ofi_t *o, int want_fd)
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
static int ofi_scratch_open(shmemt_ofi_t *o)
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

/* This PE's card: the endpoint's address, and the segments registered
 * with their keys (the scratch area too, which is not on the card). */
static int ofi_card_fill(shmemt_ofi_t *o, ofi_card_t *me)
{
    uint64_t access = FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    size_t addrlen = OFI_ADDR_MAX;
    int s, ret;

    ret = fi_getname(&o->ep->fid, me->addr, &addrlen);
    if (ret) {
        ofi_err(o, "fi_getname: %s", fi_strerror(-ret));
        return -EIO;
    }
    me->addrlen = addrlen;
    memcpy(me->am_key, o->am_key, sizeof(me->am_key));
    for (s = 0; s < SHMEMT_NSEGS; s++) {
        if (!o->segs[s].base || !o->segs[s].len)
            continue;
        /* Under a key nobody outside the job can guess: its peers learn it
         * from this card, through the bootstrap. */
        ret = ofi_mr_reg(o, o->segs[s].base, o->segs[s].len, access, &o->mr[s]);
        if (ret)
            return ret;
        o->desc[s] = fi_mr_desc(o->mr[s]);
        me->seg[s].key = fi_mr_key(o->mr[s]);
        if (me->seg[s].key == FI_KEY_NOTAVAIL) {
            ofi_err(o, "provider %s needs raw memory keys (FI_MR_RAW), not supported",
                    o->prov_name);
            return -ENOTSUP;
        }
        me->seg[s].addr = (o->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)o->segs[s].base : 0;
        me->seg[s].len = o->segs[s].len;
    }
    return ofi_scratch_open(o);
}

/* The first PE whose card says it failed, or -1. */
static int ofi_card_failed(const ofi_card_t *cards, int n)
{
    int pe;

    for (pe = 0; pe < n; pe++)
        if (cards[pe].err)
            return pe;
    return -1;
}

/* Exchanges addresses, keys and bases with every PE and fills the AV.  err
 * is this PE's failure so far (0: none), which its card carries instead:
 * when any PE failed, every PE returns a failure with *shared_p 1. */
static int ofi_exchange(shmemt_ofi_t *o, shmemb_t *boot, int err, int *shared_p)
{
    ofi_card_t *cards, me;
    int s, pe, ret;

    memset(&me, 0, sizeof(me));
    if (!err)
        err = ofi_card_fill(o, &me);
    if (err)
        memset(&me, 0, sizeof(me));
    me.err = err;
    cards = calloc((size_t)o->n_pes, sizeof(*cards));
    o->peer = calloc((size_t)o->n_pes * SHMEMT_MAX_SEGS, sizeof(*o->peer));
    o->addr = calloc((size_t)o->n_pes, sizeof(*o->addr));
    if (o->am)
        o->am_peer_key = calloc((size_t)o->n_pes, sizeof(*o->am_peer_key));
    if (!cards || !o->peer || !o->addr || (o->am && !o->am_peer_key)) {
        ret = -ENOMEM;
        goto out;
    }
    ret = boot->allgather(boot, &me, cards, sizeof(me));
    if (ret)
        goto out;
    pe = ofi_card_failed(cards, o->n_pes);
    if (pe >= 0) {
        if (!err)
            ofi_err(o, "PE %d could not open the libfabric provider (see its messages); "
                    "initialization is undone on every PE", pe);
        *shared_p = 1;
        ret = err ? err : (int)cards[pe].err;
        goto out;
    }
    for (pe = 0; pe < o->n_pes; pe++) {
        for (s = 0; s < SHMEMT_NSEGS; s++)
            o->peer[(size_t)pe * SHMEMT_MAX_SEGS + s] = cards[pe].seg[s];
        if (o->am)
            memcpy(o->am_peer_key[pe], cards[pe].am_key, sizeof(o->am_peer_key[pe]));
        ret = fi_av_insert(o->av, cards[pe].addr, 1, &o->addr[pe], 0, NULL);
        if (ret != 1) {
            ofi_err(o, "fi_av_insert of PE %d: %s", pe, fi_strerror(ret < 0 ? -ret : FI_EINVAL));
            ret = -EIO;
            goto out;
        }
    }
    ret = 0;
out:
    free(cards);
    return ret;
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
static void ofi_close_all(shmemt_ofi_t *o)
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

/* A default transport with what init's arguments say, nothing opened yet;
 * NULL when out of memory. */
static shmemt_ofi_t *ofi_alloc(const shmemt_init_args_t *args)
{
    shmemt_ofi_t *o = calloc(1, sizeof(*o));
    int s;

    if (!o)
        return NULL;
    pthread_mutex_init(&o->scratch_lock, NULL);
    pthread_mutex_init(&o->child_lock, NULL);
    pthread_mutex_init(&o->serial_lock, NULL);
    pthread_rwlock_init(&o->buf_lock, NULL);
    o->my_pe = args->my_pe;
    o->n_pes = args->n_pes;
    o->oversubscribed = args->oversubscribed;
    o->log.fn = args->log;
    o->log.level = args->log_level;
    o->fatal = args->fatal;
    o->cfg = args->ofi;
    o->wait_fd = -1;
    o->prog_wake_fd = -1;
    for (s = 0; s < SHMEMT_NSEGS; s++)
        o->segs[s] = args->segs[s];
    return o;
}

/* Everything of init before the exchange: the provider, its quirks, the
 * endpoint and the receive buffers of the active messages. */
static int ofi_open(shmemt_ofi_t *o, const shmemt_init_args_t *args)
{
    int ret;

    o->wposted = calloc((size_t)o->n_pes, sizeof(*o->wposted));
    o->wflushed = calloc((size_t)o->n_pes, sizeof(*o->wflushed));
    if (!o->wposted || !o->wflushed)
        return -ENOMEM;
    ret = ofi_select(o, args->provider, args->trigger);
    if (!ret)
        ret = ofi_bind(o, args->iface, args->single_host);
    if (ret)
        return ret;
    if (args->hmem)
        ofi_want_hmem(o);
    ofi_quirks_for(o->prov_name, o->info, &o->cfg, &o->q);
    o->mr_mode = o->info->domain_attr->mr_mode;
    if (o->q.force_mr_local)
        o->mr_mode |= FI_MR_LOCAL;
    o->inject_size = o->info->tx_attr->inject_size;
    o->max_msg_size = o->info->ep_attr->max_msg_size;
    if (o->q.max_inject && o->inject_size > o->q.max_inject)
        o->inject_size = o->q.max_inject;
    o->am = o->q.am;
    /* Someone of ours must read the CQ for the messages to be applied. */
    if (o->am)
        o->q.needs_progress = 1;
    o->dc_flag = o->q.rc_mode == OFI_RC_DELIVERY ? FI_DELIVERY_COMPLETE : 0;
    o->atomic_dc_flag = o->q.rc_mode != OFI_RC_NATIVE ? FI_DELIVERY_COMPLETE : 0;

    /* The wait fd lets a waiting PE sleep until traffic comes, with or
     * without the progress thread: without it, an idle wait would sleep
     * its whole nap while a peer waits for it to apply a message (a
     * fetch-add took 1.1 ms with FABSHMEM_PROGRESS_THREAD=0). */
    ret = ofi_open_ep(o, o->q.needs_progress && !o->q.fd_blind);
    if (ret)
        return ret;
    /* Receive buffers are posted before the peers learn our address. */
    return o->am ? ofi_am_open(o) : 0;
}

/* After the exchange: the ops, the capabilities and the progress thread. */
static int ofi_start(shmemt_ofi_t *o, const shmemt_init_args_t *args)
{
    int ret;

    o->pub.ops = &shmemt_ofi_ops;
    o->pub.prov_name = o->prov_name;
    o->pub.priv = o;
    o->pub.caps = SHMEMT_CAP_RMA;
    if (!o->q.no_threads)
        o->pub.caps |= SHMEMT_CAP_THREADS;
    else
        o->pub.serial = &o->serial_lock; /* Before the progress thread starts. */
    if (o->am)
        o->pub.caps |= SHMEMT_CAP_ATOMIC | SHMEMT_CAP_AMO_CPU;
    else if ((o->info->caps & FI_ATOMIC) && !o->q.no_atomics && ofi_atomic_check(o) == 0)
        o->pub.caps |= SHMEMT_CAP_ATOMIC;
    if (o->info->caps & FI_HMEM)
        o->pub.caps |= SHMEMT_CAP_HMEM;
    /* Triggered chains need the counter to mean "done at the target". */
    if ((o->info->caps & FI_TRIGGER) && o->q.rc_mode != OFI_RC_FLUSH &&
        !(o->mr_mode & FI_MR_ENDPOINT))
        o->pub.caps |= SHMEMT_CAP_TRIGGER;
    if (!args->progress_thread || !o->q.needs_progress)
        return 0;
    o->prog_interval_us = args->progress_interval_us > 0 ? args->progress_interval_us : 1000;
    o->prog_wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (o->prog_wake_fd < 0) {
        ofi_err(o, "eventfd for the progress thread: %s", strerror(errno));
        return -errno;
    }
    ret = pthread_create(&o->prog_thread, NULL, ofi_prog_main, o);
    if (ret) {
        close(o->prog_wake_fd);
        o->prog_wake_fd = -1;
        ofi_err(o, "pthread_create of the progress thread: %s", strerror(ret));
        return -ret;
    }
    /* Named, so that its wake-ups can be told apart (top -H, /proc). */
    pthread_setname_np(o->prog_thread, "shmem-progress");
    o->prog_running = 1;
    return 0;
}

int shmemt_ofi_init(const shmemt_init_args_t *args, shmemt_t **t_p, int *shared_p)
{
    shmemt_ofi_t *o;
    int ret;

    *shared_p = 0;
    o = ofi_alloc(args);
    if (!o)
        return -ENOMEM;
    /* A PE that failed so far still takes part in the exchange. */
    ret = ofi_open(o, args);
    ret = ofi_exchange(o, args->boot, ret, shared_p);
    if (!ret)
        ret = ofi_start(o, args);
    if (ret) {
        ofi_close_all(o);
        return ret;
    }
    ofi_info_log(o, "ofi: provider %s, mr_mode 0x%llx, inject %zu, remote completion %s, "
                 "progress thread %s (wait fd %d), triggered operations %s, atomics %s",
                 o->prov_name,
                 (unsigned long long)o->mr_mode, o->inject_size,
                 o->q.rc_mode == OFI_RC_DELIVERY ? "delivery" :
                 o->q.rc_mode == OFI_RC_FLUSH ? "flush" : "native",
                 o->prog_running ? "on" : "off", o->wait_fd,
                 (o->pub.caps & SHMEMT_CAP_TRIGGER) ? "yes" : "no",
                 o->am ? "active messages (the target's CPU)" :
                 (o->pub.caps & SHMEMT_CAP_ATOMIC) ? "the provider's" : "none");
    *t_p = &o->pub;
    return 0;
}

void ofi_close_transport(shmemt_t *t)
{
    ofi_close_all(OFI_T(t));
}

static void ofi_mr_mode_str(uint64_t m, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s%s%s", m & FI_MR_LOCAL ? "local," : "",
             m & FI_MR_VIRT_ADDR ? "virt_addr," : "", m & FI_MR_ALLOCATED ? "allocated," : "",
             m & FI_MR_PROV_KEY ? "prov_key," : "", m & FI_MR_ENDPOINT ? "endpoint," : "",
             m ? "" : "none");
    size_t n = strlen(buf);
    if (n && buf[n - 1] == ',')
        buf[n - 1] = '\0';
}

int shmemt_ofi_list(FILE *fp)
{
    struct fi_info *hints, *list = NULL, *alist = NULL, *cur, *prev;
    char mr[96];
    int ret;

    hints = ofi_hints(NULL, FI_RMA);
    if (!hints)
        return -ENOMEM;
    ret = fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (ret == -FI_ENODATA) {
        fprintf(fp, "  (no libfabric provider with RDM endpoints and RMA)\n");
        return 0;
    }
    if (ret) {
        fprintf(fp, "  (fi_getinfo: %s)\n", fi_strerror(-ret));
        return -EIO;
    }
    /* fi_getinfo reports only the caps asked for: ask again with atomics. */
    hints = ofi_hints(NULL, FI_RMA | FI_ATOMIC);
    if (hints && fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, hints, &alist))
        alist = NULL;
    fi_freeinfo(hints);
    for (cur = list; cur; cur = cur->next) {
        const char *name = cur->fabric_attr->prov_name;
        int atomics = 0, rank = shmemt_ofi_rank_provider(NULL, name);
        if (ofi_name_seen(list, cur))
            continue;
        for (prev = alist; prev; prev = prev->next)
            if (!strcmp(prev->fabric_attr->prov_name, name))
                atomics = 1;
        ofi_mr_mode_str(cur->domain_attr->mr_mode, mr, sizeof(mr));
        fprintf(fp, "  %-16s rma%s%s%s  progress=%s  mr_mode=%s  inject=%zu", name,
                atomics ? " atomic" : "", cur->caps & FI_FENCE ? " fence" : "",
                cur->caps & FI_TRIGGER ? " trigger" : "",
                cur->domain_attr->data_progress == FI_PROGRESS_AUTO ? "auto" : "manual", mr,
                cur->tx_attr->inject_size);
        if (rank >= 0)
            fprintf(fp, "  (automatic choice %d)", rank + 1);
        fputc('\n', fp);
    }
    fi_freeinfo(list);
    if (alist)
        fi_freeinfo(alist);
    return 0;
}

int shmemt_ofi_choice(const char *requested, char *name, size_t len, int *trigger_p)
{
    struct fi_info *info, *trig;
    int ret;

    /* As ofi_select picks, then asks the pick for triggered operations as
     * ofi_want_trigger does. */
    info = ofi_pick_any(requested, &ret, NULL);
    if (!info)
        return ret;
    snprintf(name, len, "%s", info->fabric_attr->prov_name);
    trig = ofi_pick(info->fabric_attr->prov_name, info->caps | FI_TRIGGER, &ret, NULL);
    *trigger_p = trig && (trig->caps & FI_TRIGGER);
    if (trig)
        fi_freeinfo(trig);
    fi_freeinfo(info);
    return 0;
}

const char *shmemt_ofi_version(void)
{
    static char buf[32];
    uint32_t v = fi_version();

    if (FI_MAJOR(v) == FI_MAJOR_VERSION && FI_MINOR(v) == FI_MINOR_VERSION)
        snprintf(buf, sizeof(buf), "%u.%u.%u", FI_MAJOR(v), FI_MINOR(v), FI_REVISION_VERSION);
    else
        snprintf(buf, sizeof(buf), "%u.%u", FI_MAJOR(v), FI_MINOR(v));
    return buf;
}
