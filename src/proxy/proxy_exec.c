/*
 * Carrying out one request of the ring: checked (the operation, the PE,
 * the size; the local buffer of a put or get), then the core's own
 * operation on the proxy's private context, complete before the next
 * (a put or a non-fetching AMO is quieted: its data is at the target when
 * done passes it).  A bad request is recorded in the device API's error
 * record, which the host reports at its next check (shmemx_device_check,
 * barrier_all, quiet, finalize); the proxy goes on.  An operation that
 * fails for any other reason (the transport, a dead peer) also stops the
 * proxy: the ring says SHMEMD_PX_FAILED and waiting producers give up.
 */
#include "proxy/proxy_int.h"
#include "core/amo.h"
#include "core/dev.h"
#include "core/rma.h"
#include "core/sync.h"
#include <stdarg.h>
#include <string.h>

const char *shmemi_proxy_rtn_name(int r)
{
#define NAME(id, name) case id: return name;
    switch (r) {
        SHMEMD_ROUTINES(NAME)
    }
#undef NAME
    return "a device routine";
}

/* Records the error of request r in x->err: the first one since the
 * host's last check keeps its routine, PE, kind and address there, and
 * its message and class (SHMEMX_ERROR_*) in x->why (shmemi_proxy_why).
 * The count comes after the first error's fields, as the kernels store it
 * (shmemdi_error), since the host reads the fields once it sees a count
 * (shmemi_devapi_check, without the lock); a later error only adds to a
 * count that the host's check has not taken yet.  The acquire loads order
 * the host's reading of the last record before this one's writing. */
static void __attribute__((format(printf, 6, 7), cold))
px_record(shmemi_proxy_t *x, const shmemd_proxy_req_t *r, int what, int cls, uint64_t addr,
          const char *fmt, ...)
{
    shmemd_err_t *e = &x->err;
    unsigned n;
    va_list ap;

    pthread_mutex_lock(&x->lock);
    n = __atomic_load_n(&e->count, __ATOMIC_ACQUIRE);
    while (n && !__atomic_compare_exchange_n(&e->count, &n, n + 1, 0, __ATOMIC_ACQUIRE,
                                             __ATOMIC_ACQUIRE))
        ;
    if (!n) {
        va_start(ap, fmt);
        vsnprintf(x->why, sizeof(x->why), fmt, ap);
        va_end(ap);
        x->why_class = cls;
        e->routine = r->routine;
        e->what = what;
        e->pe = r->pe;
        e->addr = addr;
        __atomic_store_n(&e->count, 1u, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&x->lock);
}

/* The SHMEMT_AOP_* of amo, or -1. */
static int px_aop(int amo)
{
    static const signed char aop[SHMEMD_AMO_OPS_] = {
        [SHMEMD_AMO_SET] = SHMEMT_AOP_SET, [SHMEMD_AMO_ADD] = SHMEMT_AOP_ADD,
        [SHMEMD_AMO_AND] = SHMEMT_AOP_AND, [SHMEMD_AMO_OR] = SHMEMT_AOP_OR,
        [SHMEMD_AMO_XOR] = SHMEMT_AOP_XOR, [SHMEMD_AMO_FETCH] = SHMEMT_AOP_FETCH,
        [SHMEMD_AMO_SWAP] = SHMEMT_AOP_SWAP, [SHMEMD_AMO_CSWAP] = SHMEMT_AOP_CSWAP,
        [SHMEMD_AMO_FETCH_ADD] = SHMEMT_AOP_ADD, [SHMEMD_AMO_FETCH_AND] = SHMEMT_AOP_AND,
        [SHMEMD_AMO_FETCH_OR] = SHMEMT_AOP_OR, [SHMEMD_AMO_FETCH_XOR] = SHMEMT_AOP_XOR,
    };

    return amo > 0 && amo < SHMEMD_AMO_OPS_ ? aop[amo] : -1;
}

/* The low len bytes (1, 2, 4, 8) of v as a value of that size at out,
 * and back. */
static void px_narrow(uint64_t v, size_t len, void *out)
{
    uint8_t b = (uint8_t)v;
    uint16_t h = (uint16_t)v;
    uint32_t w = (uint32_t)v;

    memcpy(out, len == 1 ? (void *)&b : len == 2 ? (void *)&h : len == 4 ? (void *)&w : &v, len);
}

static uint64_t px_widen(const void *in, size_t len)
{
    uint8_t b;
    uint16_t h;
    uint32_t w;
    uint64_t v;

    switch (len) {
    case 1: memcpy(&b, in, 1); return b;
    case 2: memcpy(&h, in, 2); return h;
    case 4: memcpy(&w, in, 4); return w;
    default: memcpy(&v, in, 8); return v;
    }
}

/* 1 when [p, p + len) is GPU memory but not the device heap's. */
static int px_gpu_outside(uint64_t p, uint64_t len)
{
    uint64_t off;

    return !shmemi_dev_range((const void *)(uintptr_t)p, len, &off) &&
           shmemi_cuda_is_device((const void *)(uintptr_t)p);
}

/* The shape of r (operation, PE, size), or a message into why. */
static int px_valid(const shmemi_proxy_t *x, const shmemd_proxy_req_t *r, char *why, size_t n)
{
    uint64_t len = r->len;

    if (r->op == 0 || r->op >= SHMEMD_PX_OPS_)
        snprintf(why, n, "a request with operation %u (not one of SHMEMD_PX_*)", r->op);
    else if ((r->op == SHMEMD_PX_P || r->op == SHMEMD_PX_G) && len != 1 && len != 2 && len != 4 &&
             len != 8)
        snprintf(why, n, "a request of %llu bytes (1, 2, 4 or 8)", (unsigned long long)len);
    else if (r->op == SHMEMD_PX_AMO && ((len != 4 && len != 8) || px_aop(r->amo) < 0))
        snprintf(why, n, "an atomic request of operation %u on %llu bytes (SHMEMD_AMO_*, on 4 "
                 "or 8 bytes)", r->amo, (unsigned long long)len);
    else if (x->pinned && (r->op == SHMEMD_PX_PUT || r->op == SHMEMD_PX_GET) && len &&
             px_gpu_outside(r->op == SHMEMD_PX_PUT ? r->src : r->dst, len))
        snprintf(why, n, "the local buffer %#llx (%llu bytes) is GPU memory outside the device "
                 "heap, which the proxy cannot hand to the provider (use the device heap or "
                 "host memory)", (unsigned long long)(r->op == SHMEMD_PX_PUT ? r->src : r->dst),
                 (unsigned long long)len);
    else
        return 1;
    return 0;
}

/* r's operation through the core; 0 or the class, recorded; *ret_p the
 * fetched value. */
static int px_run(shmemi_proxy_t *x, const shmemd_proxy_req_t *r, uint64_t *ret_p,
                  const char *rtn)
{
    void *dst = (void *)(uintptr_t)r->dst, *src = (void *)(uintptr_t)r->src;
    size_t len = (size_t)r->len;
    unsigned char buf[8], cmp[8];
    int rc, aop;

    switch (r->op) {
    case SHMEMD_PX_PUT:
        rc = shmemi_put_w(x->ctx, dst, src, len, r->pe, 0, rtn);
        return rc ? rc : shmemi_quiet(x->ctx, rtn);
    case SHMEMD_PX_GET:
        return shmemi_get_w(x->ctx, dst, src, len, r->pe, 0, rtn);
    case SHMEMD_PX_P:
        px_narrow(r->value, len, buf);
        rc = shmemi_put_w(x->ctx, dst, buf, len, r->pe, 0, rtn);
        return rc ? rc : shmemi_quiet(x->ctx, rtn);
    case SHMEMD_PX_G:
        memset(buf, 0, sizeof(buf));
        if ((rc = shmemi_get_w(x->ctx, buf, src, len, r->pe, 0, rtn)))
            return rc;
        *ret_p = px_widen(buf, len);
        return 0;
    default: /* SHMEMD_PX_AMO */
        aop = px_aop(r->amo);
        px_narrow(r->value, len, buf);
        px_narrow(r->cmp, len, cmp);
        if (SHMEMD_AMO_FETCHING(r->amo)) {
            unsigned char old[8] = { 0 };
            if ((rc = shmemi_amo_w(x->ctx, dst, aop, buf, cmp, old, len, r->pe, 0, rtn)))
                return rc;
            *ret_p = px_widen(old, len);
            return 0;
        }
        rc = shmemi_amo_w(x->ctx, dst, aop, buf, cmp, NULL, len, r->pe, 0, rtn);
        return rc ? rc : shmemi_quiet(x->ctx, rtn);
    }
}

void shmemi_proxy_exec(shmemi_proxy_t *x, shmemd_proxy_req_t *slot, uint64_t t)
{
    shmemd_proxy_req_t r = *slot; /* ready was read with acquire */
    const char *rtn = shmemi_proxy_rtn_name(r.routine);
    uint64_t ret = 0;
    char why[160];
    int rc;

    shmemi_debug("proxy: request %llu: op %u (amo %u) of %s to PE %d, %llu bytes",
                 (unsigned long long)t, r.op, r.amo, rtn, r.pe, (unsigned long long)r.len);
    if ((unsigned)r.pe >= (unsigned)shmemi_g.n_pes) {
        px_record(x, &r, SHMEMD_ERR_BAD_PE, SHMEMX_ERROR_INVALID_VALUE, 0,
                  "%s: PE %d is out of range", rtn, r.pe);
    } else if (!px_valid(x, &r, why, sizeof(why))) {
        px_record(x, &r, SHMEMD_ERR_PROXY, SHMEMX_ERROR_INVALID_VALUE, r.dst, "%s: %s", rtn, why);
    } else if ((rc = px_run(x, &r, &ret, rtn))) {
        const shmemi_errrec_t *e = shmemi_err_last();

        /* A bad argument is the kernel's; anything else ends the proxy. */
        if (rc != SHMEMX_ERROR_INVALID_VALUE)
            x->failed = 1;
        px_record(x, &r, SHMEMD_ERR_PROXY, rc, r.op == SHMEMD_PX_GET || r.op == SHMEMD_PX_G
                  ? r.src : r.dst, "%s", e->msg[0] ? e->msg : shmemi_strerror(rc));
        shmemi_err_clear();
    }
    __atomic_store_n(&slot->ret, ret, __ATOMIC_RELAXED);
    __atomic_store_n(&x->pub.ctl[SHMEMD_PX_DONE], t + 1, __ATOMIC_RELEASE);
    shmemi_debug("proxy: request %llu done", (unsigned long long)t);
}
