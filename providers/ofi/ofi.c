/*
 * libfabric transport, init: the transport object's allocation, opening
 * and start, the card exchange (every PE's address and keys), and
 * finalization.  Provider selection lives in ofi_select.c; the endpoints,
 * contexts and the CQ poll in ofi_ep.c; data movement in ofi_rma.c,
 * ofi_atomic.c and ofi_am.c; memory registration in ofi_mr.c; the
 * progress thread and idle waits in ofi_prog.c; per-provider differences
 * in ofi_quirks.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setname_np */
#endif
#include "ofi_am.h"
#include "ofi_mr.h"
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
    o->thread_start = args->thread_start;
    o->cfg = args->ofi;
    if (o->cfg.timeout_s <= 0)
        o->cfg.timeout_s = OFI_TIMEOUT_S;
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
        o->pub.caps |= SHMEMT_CAP_HMEM | (o->q.hmem_copies ? SHMEMT_CAP_HMEM_COPY : 0);
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

