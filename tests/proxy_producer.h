/*
 * A CPU producer of the proxy's ring, in the place of a kernel: exactly
 * the protocol of include/fabshmem/device/proxy.h, with __atomic builtins
 * (the tests and bench/proxy_lat; the device side is
 * include/fabshmem/device/proxy.cuh).  Every routine returns 0, or -1
 * when the proxy stopped or failed (ctl[SHMEMD_PX_STATUS] not 0).
 */
#ifndef FABSHMEM_TESTS_PROXY_PRODUCER_H
#define FABSHMEM_TESTS_PROXY_PRODUCER_H

#include <fabshmem/device/state.h>
#include <sched.h>
#include <stdint.h>

static inline int px_stopped(const shmemd_proxy_t *px)
{
    return __atomic_load_n(&px->ctl[SHMEMD_PX_STATUS], __ATOMIC_ACQUIRE) != SHMEMD_PX_RUNNING;
}

/* One spin of a wait: the proxy may need this core. */
static inline void px_pause(unsigned *n)
{
    if (++*n % 64 == 0)
        sched_yield();
}

/* Posts *r (its ready word is set here) and returns its ticket in *t_p. */
static inline int px_post(const shmemd_proxy_t *px, const shmemd_proxy_req_t *r, uint64_t *t_p)
{
    uint64_t t = __atomic_fetch_add(px->tail, 1ull, __ATOMIC_RELAXED);
    shmemd_proxy_req_t *s = &px->slots[t & (px->nslots - 1)];
    unsigned n = 0;

    /* The slot's last user is done with it. */
    while (t - __atomic_load_n(&px->ctl[SHMEMD_PX_FREED], __ATOMIC_ACQUIRE) >= px->nslots) {
        if (px_stopped(px))
            return -1;
        px_pause(&n);
    }
    s->op = r->op;
    s->amo = r->amo;
    s->routine = r->routine;
    s->pe = r->pe;
    s->dst = r->dst;
    s->src = r->src;
    s->len = r->len;
    s->value = r->value;
    s->cmp = r->cmp;
    s->ret = 0;
    __atomic_store_n(&s->ready, t + 1, __ATOMIC_RELEASE);
    *t_p = t;
    return 0;
}

/* Waits until ticket t is done (every ticket below it is too). */
static inline int px_wait(const shmemd_proxy_t *px, uint64_t t)
{
    unsigned n = 0;

    while (__atomic_load_n(&px->ctl[SHMEMD_PX_DONE], __ATOMIC_ACQUIRE) <= t) {
        if (px_stopped(px))
            return -1;
        px_pause(&n);
    }
    return 0;
}

/* Waits for fetching ticket t, reads its ret into *ret_p and releases
 * its slot. */
static inline int px_fetch(const shmemd_proxy_t *px, uint64_t t, uint64_t *ret_p)
{
    shmemd_proxy_req_t *s = &px->slots[t & (px->nslots - 1)];

    if (px_wait(px, t))
        return -1;
    *ret_p = __atomic_load_n(&s->ret, __ATOMIC_RELAXED);
    __atomic_store_n(&s->ready, SHMEMD_PX_RELEASED, __ATOMIC_RELEASE);
    return 0;
}

/* Quiet: every request posted so far (by any producer) is complete. */
static inline int px_quiet(const shmemd_proxy_t *px)
{
    uint64_t tail = __atomic_load_n(px->tail, __ATOMIC_ACQUIRE);

    return tail ? px_wait(px, tail - 1) : 0;
}

/* One request, posted and waited for; *ret_p (may be NULL) its value. */
static inline int px_call(const shmemd_proxy_t *px, int op, int amo, int pe, void *dst,
                          const void *src, uint64_t len, uint64_t value, uint64_t cmp,
                          uint64_t *ret_p)
{
    shmemd_proxy_req_t r = { 0 };
    uint64_t t, ret = 0;

    static const unsigned char rtn[SHMEMD_PX_OPS_] = {
        [SHMEMD_PX_PUT] = SHMEMD_RTN_PUT, [SHMEMD_PX_GET] = SHMEMD_RTN_GET,
        [SHMEMD_PX_P] = SHMEMD_RTN_P, [SHMEMD_PX_G] = SHMEMD_RTN_G, [SHMEMD_PX_AMO] = SHMEMD_RTN_AMO
    };

    r.op = (unsigned short)op;
    r.routine = op > 0 && op < SHMEMD_PX_OPS_ ? rtn[op] : 0;
    r.amo = (unsigned char)amo;
    r.pe = pe;
    r.dst = (uint64_t)(uintptr_t)dst;
    r.src = (uint64_t)(uintptr_t)src;
    r.len = len;
    r.value = value;
    r.cmp = cmp;
    if (px_post(px, &r, &t))
        return -1;
    if (SHMEMD_PX_FETCHING(op, amo)) {
        if (px_fetch(px, t, &ret))
            return -1;
    } else if (px_wait(px, t)) {
        return -1;
    }
    if (ret_p)
        *ret_p = ret;
    return 0;
}

#endif
