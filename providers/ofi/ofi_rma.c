/*
 * libfabric transport: put, get, their non-blocking forms, quiet, fence and
 * progress.
 *
 * Completion accounting: every write and non-fetching atomic is counted by
 * put_cntr, every read and fetching atomic by get_cntr; put_issued and
 * get_issued count what was posted.  quiet waits until the counters (plus
 * their error counts) reach the issued counts.  Several threads post and
 * quiet at once (SHMEM_THREAD_MULTIPLE), and the counters do not say whose
 * operation completed, so the order matters: an operation is counted as
 * issued before it is posted, and quiet reads the counters before the
 * issued counts.  Every completion quiet sees then belongs to an operation
 * it counted as issued, so completions >= issued means all of them are
 * done, those of other threads included.
 *
 * Remote completion (ofi_quirks.c picks the method per provider): with
 * OFI_RC_DELIVERY writes carry FI_DELIVERY_COMPLETE, so the counters mean
 * remote completion.  With OFI_RC_FLUSH writes complete locally and quiet
 * then reads 8 bytes from every PE written since the last flush: the
 * provider orders a read after the writes before it (FI_ORDER_RMA_RAW), so
 * its answer means they were applied.  The CQ is bound with
 * FI_SELECTIVE_COMPLETION: it carries only the completions somebody waits
 * for (blocking get, large blocking put, fetching atomics, flush reads) and
 * the errors.
 */
#include "ofi.h"
#include "ofi_mr.h"
#include "ofi_post.h"
#include "providers/shmemt_spin.h"
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void ofi_wait_init(ofi_wait_t *w)
{
    w->spins = 0;
    w->start_ns = 0;
    w->last_change_ns = 0;
    w->poll_since_ns = 0;
    w->last_value = 0;
    w->yields = 0;
}

/* The spin budget (issue 18 item 9; the policy is providers/shmemt_spin.h).
 * A wait polls the provider while it is younger than the budget, then
 * yields (unless the PEs outnumber the cores, or the thread's yields hand
 * the core to other processes for long), then sleeps on the CQ's
 * wait fd (ofi_idle), which traffic ends.  16 PEs on 2 cores, tcp, every
 * PE fetch-adding on every other:
 * a fixed 512 polls and 3584 yields per wait burnt the cores that the
 * targets needed (see docs/performance.md).  The ceiling is lower when the
 * PEs outnumber the cores: a peer that is not running answers no sooner
 * for a longer spin. */
#define OFI_WAIT_SPIN_MIN_NS 2000ULL
#define OFI_WAIT_SPIN_MAX_NS 200000ULL
#define OFI_WAIT_SPIN_MAX_OVERSUB_NS 20000ULL
/* How long a non-oversubscribed wait yields after its budget, before it
 * sleeps. */
#define OFI_WAIT_YIELD_NS 500000ULL
/* The running mean of this thread's waits (ofi_wait_done), in ns; it
 * starts at a value that gives the ceiling's budget. */
static __thread uint64_t ofi_wait_mean_ns = OFI_WAIT_SPIN_MAX_OVERSUB_NS / 2;
/* Whether this thread's yields pay (providers/shmemt_spin.h). */
static __thread shmemt_yield_t ofi_yield;

static uint64_t ofi_wait_max_ns(const shmemt_ofi_t *o)
{
    return o->oversubscribed ? OFI_WAIT_SPIN_MAX_OVERSUB_NS : OFI_WAIT_SPIN_MAX_NS;
}

static uint64_t ofi_wait_budget_ns(const shmemt_ofi_t *o)
{
    return shmemt_spin_budget(ofi_wait_mean_ns, 0, OFI_WAIT_SPIN_MIN_NS, ofi_wait_max_ns(o));
}

void ofi_wait_done(shmemt_ofi_t *o, const ofi_wait_t *w)
{
    if (!w->start_ns)
        return; /* answered at the first poll: not timed, counts as short */
    shmemt_spin_account(&ofi_wait_mean_ns, shmemt_now_ns() - w->start_ns, ofi_wait_max_ns(o));
}

int ofi_wait_step(shmemt_ofi_t *o, ofi_wait_t *w, uint64_t value, const char *what)
{
    uint64_t now, age, budget;
    int ret;

    ofi_app_polled(o);
    ret = ofi_cq_poll(o);
    /* Replies to a context's active messages come to the default
     * endpoint.  And a provider that is not thread safe
     * (shmemt_t.serial): the caller may hold its lock while it waits
     * (src/core/tp_serial.c), and then neither another thread nor the progress
     * thread can drive the rest of the provider meanwhile.  Nor can
     * anyone when there is no progress thread (FABSHMEM_PROGRESS_THREAD=0)
     * and every application thread waits on a context.  This thread
     * does: the default endpoint, which incoming traffic targets (a peer
     * may wait for it while we wait for that peer), and the children. */
    if (!ret && o->parent && (o->am || ofi_serial(o) || !o->parent->prog_running))
        ret = ofi_cq_poll(o->parent);
    if (!ret && ofi_serial(o))
        ofi_poll_children(OFI_ROOT(o));
    if (ret)
        return ret;
    now = shmemt_now_ns();
    if (!w->start_ns)
        w->start_ns = now;
    if (value != w->last_value || !w->last_change_ns) {
        w->last_value = value;
        w->spins = 0;
        w->last_change_ns = now;
        w->poll_since_ns = now;
        return 0;
    }
    if (!w->poll_since_ns)
        w->poll_since_ns = now;
    w->spins++;
    if (now - w->last_change_ns > (uint64_t)o->cfg.timeout_s * 1000000000ULL) {
        ofi_err(o, "%s: no progress for %d s with provider %s; giving up (FABSHMEM_OFI_TIMEOUT "
                "sets the limit)", what, o->cfg.timeout_s, o->prov_name);
        return -ETIMEDOUT;
    }
    age = now - w->poll_since_ns;
    budget = ofi_wait_budget_ns(o);
    if (age < budget)
        return 0;
    if (!w->yields)
        w->yields = shmemt_yield_pays(&ofi_yield) ? 1 : -1;
    if (!o->oversubscribed && age < budget + OFI_WAIT_YIELD_NS && w->yields > 0) {
        /* A yield that handed the core to another process for long: no
         * more in this wait, and the thread's next waits sleep at once. */
        sched_yield();
        shmemt_yield_account(&ofi_yield, shmemt_now_ns() - now, 0);
        if (ofi_yield.mean_ns >= SHMEMT_YIELD_LONG_NS)
            w->yields = -1;
    } else {
        /* Sleep a sixteenth of the wait so far, 1 to 100 us, or until
         * traffic arrives (then poll as at the start).  When the PEs
         * outnumber the cores and the CQ's wait fd wakes us, up to 1 ms:
         * each early time-out is a wake-up that takes a core from a PE
         * with work to do. */
        uint64_t us = age / 16000, cap = 100;

        if (o->oversubscribed && !o->parent && o->wait_fd >= 0) {
            cap = 1000;
            us = age / 1000 + 50;
        }
        if (ofi_idle(o, us < 1 ? 1 : us > cap ? cap : us))
            w->poll_since_ns = 0;
    }
    return 0;
}

int ofi_retry_wait(shmemt_ofi_t *o, ofi_retry_t *r, ssize_t *rc_p, const char *what)
{
    int ret;

    if (r->limit && ++r->tries >= r->limit)
        return 0;
    ret = ofi_wait_step(o, &r->w, 0, what);
    if (ret) {
        r->wait_err = ret;
        *rc_p = ret;
        return 0;
    }
    return 1;
}

int ofi_post_failed(shmemt_ofi_t *o, const ofi_retry_t *r, ssize_t rc, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    if (r->wait_err)
        return r->wait_err;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    ofi_err(o, "%s: %s", what, fi_strerror((int)-rc));
    return -EIO;
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
    ofi_wait_done(o, &w);
    return req->err;
}

void ofi_note_written(shmemt_ofi_t *o, int pe)
{
    if (o->q.rc_mode != OFI_RC_FLUSH)
        return;
    /* Per PE first, then the total: a quiet that read the total and then
     * the PE's count covers every write the total counted. */
    atomic_fetch_add_explicit(&o->wposted[pe], 1, memory_order_seq_cst);
    atomic_fetch_add_explicit(&o->wposted_total, 1, memory_order_seq_cst);
}

int ofi_post_rma(shmemt_ofi_t *o, int write, int pe, void *buf, size_t len, void *desc,
                 uint64_t raddr, uint64_t key, uint64_t flags, void *ctx, uint64_t *seq_p)
{
    struct iovec iov = { buf, len };
    struct fi_rma_iov riov = { raddr, len, key };
    struct fi_msg_rma msg;
    const char *call = write ? "fi_write" : "fi_read";
    ofi_retry_t r;
    uint64_t seq;
    ssize_t rc;

    ofi_rma_msg(o, &msg, &iov, &desc, &riov, pe, ctx);
    if (ctx)
        flags |= FI_COMPLETION;
    /* Issued before posted: see the accounting note at the top. */
    seq = atomic_fetch_add_explicit(write ? &o->put_issued : &o->get_issued, 1,
                                    memory_order_seq_cst) + 1;
    if (seq_p)
        *seq_p = seq;
    ofi_prog_kick(o);
    ofi_retry_init(&r, 0);
    do
        rc = write ? fi_writemsg(o->ep, &msg, flags | o->dc_flag) : fi_readmsg(o->ep, &msg, flags);
    while (ofi_retry(o, &r, &rc, call));
    if (rc) {
        atomic_fetch_add_explicit(write ? &o->put_failed : &o->get_failed, 1,
                                  memory_order_seq_cst);
        return ofi_post_failed(o, &r, rc, "%s of %zu bytes %s PE %d", call, len,
                               write ? "to" : "from", pe);
    }
    if (write)
        ofi_note_written(o, pe);
    return 0;
}

static int ofi_bad_target(shmemt_ofi_t *o, const char *rtn, int pe, int seg, uint64_t off,
                          size_t len)
{
    ofi_err(o, "%s: PE %d segment %d offset %llu length %zu is outside the registered memory",
            rtn, pe, seg, (unsigned long long)off, len);
    return -EINVAL;
}

/* 1 when [buf, buf + len) overlaps the device heap's segment: GPU memory,
 * which the CPU must not copy. */
static int ofi_dev_local(const shmemt_ofi_t *o, const void *buf, size_t len)
{
    const shmemt_ofi_t *r = OFI_ROOT(o);
    uintptr_t a = (uintptr_t)buf, base = (uintptr_t)r->segs[SHMEMT_SEG_DEV].base;

    return r->mr[SHMEMT_SEG_DEV] && a < base + r->segs[SHMEMT_SEG_DEV].len && a + len > base;
}

/* A put (write 1) or get of a local buffer that the provider needs
 * registered and that is not: through the scratch area, one chunk at a
 * time. */
static int ofi_rma_bounce(shmemt_ofi_t *o, int write, int pe, void *buf, size_t len,
                          uint64_t raddr, uint64_t key)
{
    size_t done, chunk;
    int ret = 0;

    pthread_mutex_lock(&o->scratch_lock);
    for (done = 0; done < len && !ret; done += chunk) {
        ofi_req_t req = { .done = 0, .err = 0 };
        chunk = len - done < OFI_SCRATCH_BOUNCE ? len - done : OFI_SCRATCH_BOUNCE;
        if (write)
            memcpy(o->scratch, (const char *)buf + done, chunk);
        ret = ofi_post_rma(o, write, pe, o->scratch, chunk, o->scratch_desc, raddr + done, key,
                           0, &req, NULL);
        if (!ret)
            ret = ofi_req_wait(o, &req, write ? "put" : "get");
        if (!ret && !write)
            memcpy((char *)buf + done, o->scratch, chunk);
    }
    pthread_mutex_unlock(&o->scratch_lock);
    return ret;
}

/* A put (write 1) or get of len bytes between buf and (pe, seg, off); with
 * blocking the call returns when it completed (for a put: buf may be
 * reused). */
static inline int ofi_rma(shmemt_t *t, int write, int pe, int seg, uint64_t off, void *buf,
                          size_t len, int blocking)
{
    shmemt_ofi_t *o = OFI_T(t);
    const char *rtn = write ? "put" : "get";
    uint64_t raddr, key;
    void *desc;
    char *self;
    size_t done, chunk;
    int ret;

    if (len == 0)
        return 0;
    if (pe == o->my_pe) {
        /* The (unexpected) self case. */
        self = ofi_local_addr(OFI_ROOT(o), (unsigned)seg, off, len);
        if (!self)
            return ofi_bad_target(o, rtn, pe, seg, off, len);
        memmove(write ? self : buf, write ? buf : self, len);
        return 0;
    }
    if (ofi_remote(o, pe, seg, off, len, &raddr, &key))
        return ofi_bad_target(o, rtn, pe, seg, off, len);
    /* A small put: the provider copies the source, reusable at once (not
     * GPU memory: an inject has no descriptor to say what it is, and the
     * provider would read it with the CPU). */
    if (write && len <= o->inject_size && !ofi_dev_local(o, buf, len))
        return ofi_post_rma(o, 1, pe, buf, len, NULL, raddr, key, FI_INJECT, NULL, NULL);
    /* A medium blocking put: copied into the endpoint's registered ring,
     * complete at quiet (ofi_bounce.c). */
    if (write && blocking && len <= o->cfg.put_buffered && len <= o->max_msg_size && !o->trig &&
        !ofi_dev_local(o, buf, len)) {
        ret = ofi_bounce_put(o, pe, buf, len, raddr, key);
        if (ret <= 0)
            return ret;
    }
    desc = ofi_local_desc(o, buf, len);
    if (!desc && (o->mr_mode & FI_MR_LOCAL))
        return ofi_rma_bounce(o, write, pe, buf, len, raddr, key);
    for (done = 0; done < len; done += chunk) {
        ofi_req_t req = { .done = 0, .err = 0 };
        chunk = len - done < o->max_msg_size ? len - done : o->max_msg_size;
        ret = ofi_post_rma(o, write, pe, (char *)buf + done, chunk, desc, raddr + done, key, 0,
                           blocking ? &req : NULL, NULL);
        if (!ret && blocking)
            ret = ofi_req_wait(o, &req, rtn);
        if (ret)
            return ret;
    }
    return 0;
}

static int ofi_put(shmemt_t *t, int pe, int seg, uint64_t off, const void *src, size_t len)
{
    return ofi_rma(t, 1, pe, seg, off, (void *)src, len, 1);
}

static int ofi_put_nbi(shmemt_t *t, int pe, int seg, uint64_t off, const void *src, size_t len)
{
    return ofi_rma(t, 1, pe, seg, off, (void *)src, len, 0);
}

static int ofi_get(shmemt_t *t, int pe, int seg, uint64_t off, void *dst, size_t len)
{
    return ofi_rma(t, 0, pe, seg, off, dst, len, 1);
}

static int ofi_get_nbi(shmemt_t *t, int pe, int seg, uint64_t off, void *dst, size_t len)
{
    return ofi_rma(t, 0, pe, seg, off, dst, len, 0);
}

/* Raises *a to at least v. */
static void ofi_atomic_max(_Atomic uint64_t *a, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(a, memory_order_relaxed);

    while (cur < v && !atomic_compare_exchange_weak_explicit(a, &cur, v, memory_order_seq_cst,
                                                              memory_order_relaxed))
        ;
}

/* Waits for the flush reads of one batch and records what they cover. */
static int ofi_flush_wait(shmemt_ofi_t *o, ofi_req_t *req, const int *pes, const uint64_t *gen,
                          int n)
{
    int i, ret, first = 0;

    for (i = 0; i < n; i++) {
        ret = ofi_req_wait(o, &req[i], "quiet (flush read)");
        if (ret && !first)
            first = ret;
        if (!ret)
            ofi_atomic_max(&o->wflushed[pes[i]], gen[i]);
    }
    return first;
}

/* OFI_RC_FLUSH: an 8-byte read from each PE with writes that no completed
 * flush covers yet, all in flight at once.  The provider answers a read
 * only after the writes posted before it on the same connection were
 * applied (FI_ORDER_RMA_RAW).  A write counted in wposted[pe] was posted
 * before the count was read here, hence before the flush read.  Threads
 * may flush at the same time: each waits for its own reads, and wflushed
 * only ever grows. */
static int ofi_flush(shmemt_ofi_t *o)
{
    ofi_req_t req[OFI_FLUSH_BATCH];
    int pes[OFI_FLUSH_BATCH];
    uint64_t gen[OFI_FLUSH_BATCH], total, raddr, key, g;
    char *sink = o->scratch + OFI_FLUSH_SINK_OFF;
    int pe, n = 0, ret = 0, seg;

    total = atomic_load_explicit(&o->wposted_total, memory_order_seq_cst);
    if (total <= atomic_load_explicit(&o->wflushed_total, memory_order_seq_cst))
        return 0;
    for (pe = 0; pe < o->n_pes && !ret; pe++) {
        g = atomic_load_explicit(&o->wposted[pe], memory_order_seq_cst);
        if (g <= atomic_load_explicit(&o->wflushed[pe], memory_order_seq_cst))
            continue;
        for (seg = 0; seg < SHMEMT_NSEGS; seg++)
            if (!ofi_remote(o, pe, seg, 0, 8, &raddr, &key))
                break;
        if (seg == SHMEMT_NSEGS)
            continue;
        req[n].done = 0;
        req[n].err = 0;
        ret = ofi_post_rma(o, 0, pe, sink, 8, o->scratch_desc, raddr, key, 0, &req[n], NULL);
        if (ret)
            break;
        pes[n] = pe;
        gen[n] = g;
        if (++n == OFI_FLUSH_BATCH) {
            ret = ofi_flush_wait(o, req, pes, gen, n);
            n = 0;
        }
    }
    if (n) {
        int r = ofi_flush_wait(o, req, pes, gen, n);
        if (!ret)
            ret = r;
    }
    if (!ret)
        ofi_atomic_max(&o->wflushed_total, total);
    return ret;
}

/* Records that the operations up to issued count n of a side are done. */
static void ofi_done_upto(_Atomic uint64_t *upto, uint64_t n)
{
    uint64_t cur = atomic_load_explicit(upto, memory_order_relaxed);

    while (cur < n &&
           !atomic_compare_exchange_weak_explicit(upto, &cur, n, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
}

/* One side (puts or gets) of a drain: 1 when every operation it counted
 * as issued is done.  Each counter read drives the provider (libfabric's
 * utility counters progress the endpoint on every read, error counts
 * included), so the common case reads one counter: a side whose issued
 * count has not moved since a drain found it complete reads none, and
 * one whose successes alone reach the issued count needs no error count
 * (a failed operation never adds to the successes).  Otherwise the full
 * reading: counters (successes, errors) before the issued count, as the
 * accounting note at the top requires; *err_p gets the error count.  The
 * counts read are added to *seen_p (a wait that sees them move is making
 * progress). */
static int ofi_drain_side(shmemt_ofi_t *o, struct fid_cntr *c, _Atomic uint64_t *issued,
                          _Atomic uint64_t *failed, _Atomic uint64_t *upto, uint64_t *err_p,
                          uint64_t *seen_p)
{
    uint64_t n, i, f, e = 0;
    int full;

    if (atomic_load_explicit(issued, memory_order_seq_cst) ==
        atomic_load_explicit(upto, memory_order_relaxed)) {
        OFI_HB_COUNTED(o);
        return 1;
    }
    for (full = 0; full < 2; full++) {
        n = fi_cntr_read(c);
        OFI_HB_POLLED(o);
        if (full)
            *err_p = e = fi_cntr_readerr(c);
        f = atomic_load_explicit(failed, memory_order_seq_cst);
        atomic_thread_fence(memory_order_seq_cst);
        i = atomic_load_explicit(issued, memory_order_seq_cst);
        *seen_p += n + e;
        if (n + e + f >= i) {
            ofi_done_upto(upto, i);
            OFI_HB_COUNTED(o);
            return 1;
        }
    }
    return 0;
}

/* Waits until every operation posted so far, by any thread, completed
 * (locally, or remotely where the completion means that) and reports the
 * errors seen. */
int ofi_drain(shmemt_ofi_t *o)
{
    uint64_t pe_err = UINT64_MAX, ge_err = UINT64_MAX, prev;
    int ret, i, put_ok = 0, get_ok = 0;
    ofi_wait_t w;

    ofi_wait_init(&w);
    for (;;) {
        uint64_t seen = 0;

        if (!put_ok)
            put_ok = ofi_drain_side(o, o->put_cntr, &o->put_issued, &o->put_failed,
                                    &o->put_done_upto, &pe_err, &seen);
        if (!get_ok)
            get_ok = ofi_drain_side(o, o->get_cntr, &o->get_issued, &o->get_failed,
                                    &o->get_done_upto, &ge_err, &seen);
        if (put_ok && get_ok)
            break;
        ret = ofi_wait_step(o, &w, seen, "quiet");
        if (ret)
            return ret;
    }
    /* Errors: only a side that needed the full reading can have new ones
     * (UINT64_MAX: not read). */
    ret = 0;
    if (pe_err != UINT64_MAX) {
        prev = __atomic_exchange_n(&o->put_err_seen, pe_err, __ATOMIC_RELAXED);
        if (pe_err > prev)
            ret = -EIO;
    }
    if (ge_err != UINT64_MAX) {
        prev = __atomic_exchange_n(&o->get_err_seen, ge_err, __ATOMIC_RELAXED);
        if (ge_err > prev)
            ret = -EIO;
    }
    if (ret) {
        /* The CQ holds the error entries; reading them logs the details. */
        for (i = 0; i < 16; i++)
            ofi_cq_poll(o);
        ofi_err(o, "quiet: operation(s) failed with provider %s", o->prov_name);
        return ret;
    }
    return atomic_exchange(&o->async_err, 0);
}

int ofi_rma_quiet(shmemt_t *t)
{
    shmemt_ofi_t *o = OFI_T(t);
    int ret = ofi_drain(o);

    if (!ret && o->q.rc_mode == OFI_RC_FLUSH)
        ret = ofi_flush(o);
    if (!ret && o->am)
        ret = ofi_am_drain(o);
    return ret;
}

static int ofi_pe_quiet(shmemt_t *t, const int *pes, int npes)
{
    (void)pes;
    (void)npes;
    return ofi_rma_quiet(t);
}

/* Ordering between operations to one PE: a quiet gives it (FI_FENCE is
 * offered by few providers, so SHMEMT_CAP_FENCE stays clear).  In flush
 * mode the provider delivers writes to one PE in order (FI_ORDER_RMA_WAW,
 * checked in ofi_quirks.c), and non-fetching atomics, which may overtake
 * writes, carry FI_DELIVERY_COMPLETE: waiting for the completions
 * already orders them, without the flush reads. */
static int ofi_fence(shmemt_t *t)
{
    shmemt_ofi_t *o = OFI_T(t);
    int ret;

    if (!(o->q.rc_mode == OFI_RC_FLUSH && o->q.ordered_writes))
        return ofi_rma_quiet(t);
    ret = ofi_drain(o);
    if (!ret && o->am)
        ret = ofi_am_drain(o);
    return ret;
}

static int ofi_put_signal(shmemt_t *t, int pe, int seg, uint64_t off, const void *src,
                          size_t len, int sig_seg, uint64_t sig_off, uint64_t signal, int sig_op)
{
    return ofi_am_put_signal(OFI_T(t), pe, seg, off, src, len, sig_seg, sig_off, signal, sig_op);
}

static int ofi_signal(shmemt_t *t, int pe, int seg, uint64_t off, uint64_t value)
{
    shmemt_ofi_t *o = OFI_T(t);

    if (o->am && pe != o->my_pe)
        return ofi_am_signal(o, pe, seg, off, value);
    if (o->pub.caps & SHMEMT_CAP_ATOMIC)
        return ofi_atomic(t, pe, seg, off, SHMEMT_AOP_SET, &value, NULL, NULL, sizeof(value));
    return ofi_put(t, pe, seg, off, &value, sizeof(value));
}

static int ofi_idle_op(shmemt_t *t, unsigned long us)
{
    return ofi_idle(OFI_T(t), us);
}

static int ofi_progress(shmemt_t *t)
{
    shmemt_ofi_t *o = OFI_T(t);
    uint64_t seen = atomic_load_explicit(&o->n_cqe, memory_order_relaxed);
    int ret;

    ofi_app_polled(o);
    ret = ofi_cq_poll(o);
    /* The children: their operations may need the initiator's progress
     * (connection set-up, queued sends) while their owner waits elsewhere. */
    if (!o->parent)
        ofi_poll_children(o);
    if (ret)
        return ret;
    /* Entries read (here or by another thread meanwhile): traffic. */
    return atomic_load_explicit(&o->n_cqe, memory_order_relaxed) != seen;
}

static void ofi_fini(shmemt_t *t)
{
    if (OFI_T(t)->parent)
        ofi_ctx_destroy(t);
    else
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
    .idle = ofi_idle_op,
    .atomic = ofi_atomic,
    .put_signal = ofi_put_signal,
    .signal = ofi_signal,
    .fini = ofi_fini,
    .ctx_create = ofi_ctx_create,
    .ctx_destroy = ofi_ctx_destroy,
    .seg_reg = ofi_seg_reg,
    .seg_peer = ofi_seg_peer,
    .seg_dereg = ofi_seg_dereg,
    .seg_reg_dev = ofi_seg_reg_dev,
    .buf_reg = ofi_buf_reg,
    .buf_dereg = ofi_buf_dereg,
    .trig_create = ofi_trig_create,
    .trig_put = ofi_trig_put,
    .trig_get = ofi_trig_get,
    .trig_atomic = ofi_trig_atomic,
    .trig_status = ofi_trig_status,
    .trig_add = ofi_trig_add,
};
