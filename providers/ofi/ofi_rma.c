/*
 * libfabric transport: put, get, their non-blocking forms, quiet, fence and
 * progress.
 *
 * Completion accounting: every write and non-fetching atomic is counted by
 * put_cntr, every read and fetching atomic by get_cntr; put_issued and
 * get_issued count what was posted.  quiet waits until the counters (plus
 * their error counts) reach the issued counts.  Writes carry
 * FI_DELIVERY_COMPLETE where the provider reports local completion early
 * (see ofi_quirks.c), so the counters then mean remote completion.  The CQ
 * is bound with FI_SELECTIVE_COMPLETION: it carries only the completions
 * somebody waits for (blocking get, large blocking put, fetching atomics)
 * and the errors.
 */
#include "ofi.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t ofi_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void ofi_wait_init(ofi_wait_t *w)
{
    w->spins = 0;
    w->last_change_ns = 0;
    w->last_value = 0;
}

int ofi_wait_step(shmemt_ofi_t *o, ofi_wait_t *w, uint64_t value, const char *what)
{
    int ret;

    atomic_fetch_add_explicit(&o->app_polls, 1, memory_order_relaxed);
    ret = ofi_cq_poll(o);

    if (ret)
        return ret;
    if (value != w->last_value) {
        w->last_value = value;
        w->spins = 0;
        w->last_change_ns = 0;
        return 0;
    }
    w->spins++;
    if (w->spins < 512)
        return 0;
    if (!w->last_change_ns) {
        w->last_change_ns = ofi_now_ns();
    } else if ((w->spins & 63) == 0 && ofi_now_ns() - w->last_change_ns > OFI_TIMEOUT_NS) {
        ofi_err("%s: no progress for %llu s with provider %s; giving up", what,
                (unsigned long long)(OFI_TIMEOUT_NS / 1000000000ULL), o->prov_name);
        return -ETIMEDOUT;
    }
    if (w->spins < 4096) {
        sched_yield();
    } else {
        /* Sleep 1 us, growing to 100 us. */
        unsigned long us = (w->spins - 4096) / 64 + 1;
        struct timespec ts = { 0, (long)(us > 100 ? 100 : us) * 1000 };
        nanosleep(&ts, NULL);
    }
    return 0;
}

int ofi_req_wait(shmemt_ofi_t *o, ofi_req_t *req, const char *what)
{
    ofi_wait_t w;
    int ret;

    ofi_wait_init(&w);
    while (!atomic_load_explicit(&req->done, memory_order_acquire)) {
        ret = ofi_wait_step(o, &w, 0, what);
        if (ret)
            return ret;
    }
    return req->err;
}

/* Posts one write, retrying on -FI_EAGAIN with progress.  ctx non-NULL asks
 * for a CQ completion. */
static int ofi_post_write(shmemt_ofi_t *o, int pe, const void *src, size_t len, void *desc,
                          uint64_t raddr, uint64_t key, uint64_t flags, void *ctx)
{
    struct iovec iov = { (void *)src, len };
    struct fi_rma_iov riov = { raddr, len, key };
    struct fi_msg_rma msg;
    ofi_wait_t w;
    ssize_t ret;

    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &iov;
    msg.desc = &desc;
    msg.iov_count = 1;
    msg.addr = o->addr[pe];
    msg.rma_iov = &riov;
    msg.rma_iov_count = 1;
    msg.context = ctx;
    ofi_wait_init(&w);
    for (;;) {
        ret = fi_writemsg(o->ep, &msg, flags | o->dc_flag | (ctx ? FI_COMPLETION : 0));
        if (ret != -FI_EAGAIN)
            break;
        ret = ofi_wait_step(o, &w, 0, "fi_write");
        if (ret)
            return (int)ret;
    }
    if (ret) {
        ofi_err("fi_write of %zu bytes to PE %d: %s", len, pe, fi_strerror((int)-ret));
        return -EIO;
    }
    atomic_fetch_add_explicit(&o->put_issued, 1, memory_order_relaxed);
    if (o->q.rc_mode == OFI_RC_FLUSH)
        atomic_store_explicit(&o->dirty[pe], 1, memory_order_relaxed);
    return 0;
}

static int ofi_post_read(shmemt_ofi_t *o, int pe, void *dst, size_t len, void *desc,
                         uint64_t raddr, uint64_t key, void *ctx)
{
    struct iovec iov = { dst, len };
    struct fi_rma_iov riov = { raddr, len, key };
    struct fi_msg_rma msg;
    ofi_wait_t w;
    ssize_t ret;

    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &iov;
    msg.desc = &desc;
    msg.iov_count = 1;
    msg.addr = o->addr[pe];
    msg.rma_iov = &riov;
    msg.rma_iov_count = 1;
    msg.context = ctx;
    ofi_wait_init(&w);
    for (;;) {
        ret = fi_readmsg(o->ep, &msg, ctx ? FI_COMPLETION : 0);
        if (ret != -FI_EAGAIN)
            break;
        ret = ofi_wait_step(o, &w, 0, "fi_read");
        if (ret)
            return (int)ret;
    }
    if (ret) {
        ofi_err("fi_read of %zu bytes from PE %d: %s", len, pe, fi_strerror((int)-ret));
        return -EIO;
    }
    atomic_fetch_add_explicit(&o->get_issued, 1, memory_order_relaxed);
    return 0;
}

static int ofi_bad_target(shmemt_ofi_t *o, const char *rtn, int pe, int seg, uint64_t off,
                          size_t len)
{
    ofi_err("%s: PE %d segment %d offset %llu length %zu is outside the registered memory",
            rtn, pe, seg, (unsigned long long)off, len);
    return -EINVAL;
}

/* The address of a segment of my own PE, for the (unexpected) self case. */
static char *ofi_self_addr(shmemt_ofi_t *o, int seg, uint64_t off, size_t len)
{
    if ((unsigned)seg >= SHMEMT_NSEGS || off > o->segs[seg].len || len > o->segs[seg].len - off)
        return NULL;
    return (char *)o->segs[seg].base + off;
}

static int ofi_put_common(shmemt_t *t, int pe, int seg, uint64_t off, const void *src,
                          size_t len, int blocking)
{
    shmemt_ofi_t *o = OFI_T(t);
    uint64_t raddr, key;
    void *desc;
    size_t done, chunk;
    int ret;

    if (len == 0)
        return 0;
    if (pe == o->my_pe) {
        char *dst = ofi_self_addr(o, seg, off, len);
        if (!dst)
            return ofi_bad_target(o, "put", pe, seg, off, len);
        memmove(dst, src, len);
        return 0;
    }
    if (ofi_remote(o, pe, seg, off, len, &raddr, &key))
        return ofi_bad_target(o, "put", pe, seg, off, len);

    /* Small: the provider copies the source, which is reusable at once. */
    if (len <= o->inject_size)
        return ofi_post_write(o, pe, src, len, NULL, raddr, key, FI_INJECT, NULL);

    desc = ofi_local_desc(o, src, len);
    if (!desc && (o->mr_mode & FI_MR_LOCAL)) {
        /* The source is not registered: bounce through the scratch area. */
        pthread_mutex_lock(&o->scratch_lock);
        for (done = 0, ret = 0; done < len && !ret; done += chunk) {
            ofi_req_t req = { .done = 0, .err = 0 };
            chunk = len - done < OFI_SCRATCH_SIZE ? len - done : OFI_SCRATCH_SIZE;
            memcpy(o->scratch, (const char *)src + done, chunk);
            ret = ofi_post_write(o, pe, o->scratch, chunk, o->scratch_desc, raddr + done, key,
                                 0, &req);
            if (!ret)
                ret = ofi_req_wait(o, &req, "put");
        }
        pthread_mutex_unlock(&o->scratch_lock);
        return ret;
    }

    for (done = 0; done < len; done += chunk) {
        chunk = len - done < o->max_msg_size ? len - done : o->max_msg_size;
        if (blocking) {
            ofi_req_t req = { .done = 0, .err = 0 };
            ret = ofi_post_write(o, pe, (const char *)src + done, chunk, desc, raddr + done,
                                 key, 0, &req);
            if (!ret)
                ret = ofi_req_wait(o, &req, "put");
        } else {
            ret = ofi_post_write(o, pe, (const char *)src + done, chunk, desc, raddr + done,
                                 key, 0, NULL);
        }
        if (ret)
            return ret;
    }
    return 0;
}

static int ofi_put(shmemt_t *t, int pe, int seg, uint64_t off, const void *src, size_t len)
{
    return ofi_put_common(t, pe, seg, off, src, len, 1);
}

static int ofi_put_nbi(shmemt_t *t, int pe, int seg, uint64_t off, const void *src, size_t len)
{
    return ofi_put_common(t, pe, seg, off, src, len, 0);
}

static int ofi_get_common(shmemt_t *t, int pe, int seg, uint64_t off, void *dst, size_t len,
                          int blocking)
{
    shmemt_ofi_t *o = OFI_T(t);
    uint64_t raddr, key;
    void *desc;
    size_t done, chunk;
    int ret = 0;

    if (len == 0)
        return 0;
    if (pe == o->my_pe) {
        char *src = ofi_self_addr(o, seg, off, len);
        if (!src)
            return ofi_bad_target(o, "get", pe, seg, off, len);
        memmove(dst, src, len);
        return 0;
    }
    if (ofi_remote(o, pe, seg, off, len, &raddr, &key))
        return ofi_bad_target(o, "get", pe, seg, off, len);

    desc = ofi_local_desc(o, dst, len);
    if (!desc && (o->mr_mode & FI_MR_LOCAL)) {
        pthread_mutex_lock(&o->scratch_lock);
        for (done = 0; done < len && !ret; done += chunk) {
            ofi_req_t req = { .done = 0, .err = 0 };
            chunk = len - done < OFI_SCRATCH_SIZE ? len - done : OFI_SCRATCH_SIZE;
            ret = ofi_post_read(o, pe, o->scratch, chunk, o->scratch_desc, raddr + done, key,
                                &req);
            if (!ret)
                ret = ofi_req_wait(o, &req, "get");
            if (!ret)
                memcpy((char *)dst + done, o->scratch, chunk);
        }
        pthread_mutex_unlock(&o->scratch_lock);
        return ret;
    }

    for (done = 0; done < len; done += chunk) {
        chunk = len - done < o->max_msg_size ? len - done : o->max_msg_size;
        if (blocking) {
            ofi_req_t req = { .done = 0, .err = 0 };
            ret = ofi_post_read(o, pe, (char *)dst + done, chunk, desc, raddr + done, key, &req);
            if (!ret)
                ret = ofi_req_wait(o, &req, "get");
        } else {
            ret = ofi_post_read(o, pe, (char *)dst + done, chunk, desc, raddr + done, key, NULL);
        }
        if (ret)
            return ret;
    }
    return 0;
}

static int ofi_get(shmemt_t *t, int pe, int seg, uint64_t off, void *dst, size_t len)
{
    return ofi_get_common(t, pe, seg, off, dst, len, 1);
}

static int ofi_get_nbi(shmemt_t *t, int pe, int seg, uint64_t off, void *dst, size_t len)
{
    return ofi_get_common(t, pe, seg, off, dst, len, 0);
}

/* OFI_RC_FLUSH: a read from each PE written since the last quiet.  The
 * provider must order reads after writes (FI_ORDER_RMA_RAW). */
static int ofi_flush(shmemt_ofi_t *o)
{
    int pe, ret = 0;

    pthread_mutex_lock(&o->scratch_lock);
    for (pe = 0; pe < o->n_pes && !ret; pe++) {
        uint64_t raddr, key;
        int seg;
        if (!atomic_exchange_explicit(&o->dirty[pe], 0, memory_order_relaxed))
            continue;
        for (seg = 0; seg < SHMEMT_NSEGS; seg++)
            if (!ofi_remote(o, pe, seg, 0, 1, &raddr, &key))
                break;
        if (seg == SHMEMT_NSEGS)
            continue;
        ofi_req_t req = { .done = 0, .err = 0 };
        ret = ofi_post_read(o, pe, o->scratch, 1, o->scratch_desc, raddr, key, &req);
        if (!ret)
            ret = ofi_req_wait(o, &req, "quiet (flush read)");
    }
    pthread_mutex_unlock(&o->scratch_lock);
    return ret;
}

int ofi_rma_quiet(shmemt_t *t)
{
    shmemt_ofi_t *o = OFI_T(t);
    uint64_t pi, gi, pc, gc, pe_err, ge_err, prev;
    ofi_wait_t w;
    int ret, i;

    ofi_wait_init(&w);
    for (;;) {
        pi = atomic_load_explicit(&o->put_issued, memory_order_acquire);
        gi = atomic_load_explicit(&o->get_issued, memory_order_acquire);
        pc = fi_cntr_read(o->put_cntr);
        pe_err = fi_cntr_readerr(o->put_cntr);
        gc = fi_cntr_read(o->get_cntr);
        ge_err = fi_cntr_readerr(o->get_cntr);
        if (pc + pe_err >= pi && gc + ge_err >= gi)
            break;
        ret = ofi_wait_step(o, &w, pc + gc + pe_err + ge_err, "quiet");
        if (ret)
            return ret;
    }
    ret = 0;
    prev = __atomic_exchange_n(&o->put_err_seen, pe_err, __ATOMIC_RELAXED);
    if (pe_err > prev)
        ret = -EIO;
    prev = __atomic_exchange_n(&o->get_err_seen, ge_err, __ATOMIC_RELAXED);
    if (ge_err > prev)
        ret = -EIO;
    if (ret) {
        /* The CQ holds the error entries; reading them logs the details. */
        for (i = 0; i < 16; i++)
            ofi_cq_poll(o);
        ofi_err("quiet: %llu operation(s) failed with provider %s",
                (unsigned long long)(pe_err + ge_err), o->prov_name);
        return ret;
    }
    ret = atomic_exchange(&o->async_err, 0);
    if (ret)
        return ret;
    if (o->q.rc_mode == OFI_RC_FLUSH)
        return ofi_flush(o);
    return 0;
}

static int ofi_pe_quiet(shmemt_t *t, const int *pes, int npes)
{
    (void)pes;
    (void)npes;
    return ofi_rma_quiet(t);
}

/* Ordering between operations to one PE: a quiet gives it (FI_FENCE is
 * offered by few providers, so SHMEMT_CAP_FENCE stays clear). */
static int ofi_fence(shmemt_t *t)
{
    return ofi_rma_quiet(t);
}

static int ofi_progress(shmemt_t *t)
{
    shmemt_ofi_t *o = OFI_T(t);

    atomic_fetch_add_explicit(&o->app_polls, 1, memory_order_relaxed);
    return ofi_cq_poll(o);
}

static void ofi_fini(shmemt_t *t)
{
    ofi_close_transport(t);
}

const shmemt_ops_t shmemt_ofi_ops = {
    .put = ofi_put,
    .put_nbi = ofi_put_nbi,
    .get = ofi_get,
    .get_nbi = ofi_get_nbi,
    .quiet = ofi_rma_quiet,
    .pe_quiet = ofi_pe_quiet,
    .fence = ofi_fence,
    .progress = ofi_progress,
    .atomic = ofi_atomic,
    .fini = ofi_fini,
};
