/*
 * Device API: the producer side of the proxy (docs/device.md, "The
 * proxy"): how a kernel hands an operation on a PE this GPU does not map
 * to the host's proxy thread, exactly per the protocol at the top of
 * <fabshmem/device/proxy.h>.  A request takes a ticket (atomicAdd on
 * state.proxy.tail), waits until its slot is free (ctl[SHMEMD_PX_FREED]),
 * fills the slot (pinned host memory: volatile stores), fences at system
 * scope and stores ready = ticket + 1.  A blocking request then waits for
 * ctl[SHMEMD_PX_DONE] > ticket; a fetching one reads ret and releases the
 * slot (ready = SHMEMD_PX_RELEASED).  Every wait gives up, recording
 * SHMEMD_ERR_PROXY, when ctl[SHMEMD_PX_STATUS] says the proxy stopped.
 * The routines of rma, amo, sync and coll call these only on their path
 * to an unmapped peer; everything here is out of line (noinline), so that
 * the mapped path stays as small as it was.  Included by rma.cuh.
 */
#ifndef FABSHMEM_DEVICE_PROXY_CUH
#define FABSHMEM_DEVICE_PROXY_CUH

#include <fabshmem/device/base.cuh>

/* The slot is written as words 1 to 6 of 8 bytes (word 0 is ready);
 * checked where the compiler has __builtin_offsetof (nvcc; NVRTC has not,
 * and compiles the same struct). */
#ifndef __CUDACC_RTC__
static_assert(sizeof(shmemd_proxy_req_t) == 64 && __builtin_offsetof(shmemd_proxy_req_t, op) == 8 &&
                  __builtin_offsetof(shmemd_proxy_req_t, amo) == 10 &&
                  __builtin_offsetof(shmemd_proxy_req_t, routine) == 11 &&
                  __builtin_offsetof(shmemd_proxy_req_t, pe) == 12 &&
                  __builtin_offsetof(shmemd_proxy_req_t, dst) == 16 &&
                  __builtin_offsetof(shmemd_proxy_req_t, cmp) == 48 &&
                  __builtin_offsetof(shmemd_proxy_req_t, ret) == 56,
              "shmemd_proxy_req_t: the layout proxy.cuh writes");
#else
static_assert(sizeof(shmemd_proxy_req_t) == 64, "shmemd_proxy_req_t: the layout proxy.cuh writes");
#endif

/* The ticket of a request that could not be posted (the proxy stopped). */
#define SHMEMDI_PX_NONE (~0ull)
typedef unsigned long long shmemdi_u64;

/* Waits until ctl[word] + lag > t: word SHMEMD_PX_DONE and lag 0, ticket
 * t is complete; lag 1, every ticket below t is; word SHMEMD_PX_FREED and
 * lag nslots, the slot of ticket t is free.  One acquire load of the word
 * (what the proxy wrote before it, ret or a get's data, is visible after
 * it), which is all when the condition holds already (one read across
 * PCIe: the control block is pinned host memory); else polls with
 * volatile loads, looks at the proxy's status every 32 polls, and ends
 * with an acquire load.  0, or -1 with SHMEMD_ERR_PROXY recorded when the
 * proxy stopped. */
SHMEMDI_NOINLINE int shmemdi_px_wait(int word, shmemdi_u64 lag, shmemdi_u64 t, int rtn, int pe,
                                     shmemdi_u64 addr)
{
    shmemdi_u64 *ctl = shmemd_state_c.proxy.ctl;
    if (shmemdi_ld_acq(ctl + word) + lag > t)
        return 0;
    const volatile shmemdi_u64 *w = ctl + word;
    shmemdi_backoff b = { 0 };
    while (*w + lag <= t) {
        if ((b.n & 31) == 31 && ((const volatile shmemdi_u64 *)ctl)[SHMEMD_PX_STATUS] !=
                                    SHMEMD_PX_RUNNING) {
            shmemdi_error(rtn, SHMEMD_ERR_PROXY, pe, (const void *)(uintptr_t)addr);
            return -1;
        }
        b.pause();
    }
    (void)shmemdi_ld_acq(ctl + word);
    return 0;
}

/* Posts one request (op SHMEMD_PX_*, amo SHMEMD_AMO_* or 0, the caller's
 * routine for the proxy's error reports, the world PE, then the fields of
 * shmemd_proxy_req_t); its ticket, or SHMEMDI_PX_NONE (the error
 * recorded).  Does not wait for it. */
SHMEMDI_NOINLINE shmemdi_u64 shmemdi_px_post(int op, int amo, int rtn, int pe, shmemdi_u64 dst,
                                             shmemdi_u64 src, shmemdi_u64 len, shmemdi_u64 value,
                                             shmemdi_u64 cmp)
{
    const shmemd_proxy_t &px = shmemd_state_c.proxy;
    shmemdi_u64 t = atomicAdd(px.tail, 1ull);
    if (shmemdi_px_wait(SHMEMD_PX_FREED, px.nslots, t, rtn, pe, dst ? dst : src))
        return SHMEMDI_PX_NONE;
    volatile shmemdi_u64 *r = (volatile shmemdi_u64 *)(px.slots + (t & (px.nslots - 1)));
    r[1] = (shmemdi_u64)(unsigned)op | (shmemdi_u64)(unsigned)amo << 16 |
           (shmemdi_u64)(unsigned)rtn << 24 | (shmemdi_u64)(unsigned)pe << 32;
    r[2] = dst;
    r[3] = src;
    r[4] = len;
    r[5] = value;
    r[6] = cmp;
    __threadfence_system();
    r[0] = t + 1;
    return t;
}

/* Waits until the request of ticket t is complete (nothing when it was
 * not posted): 0, or -1 (the error recorded). */
SHMEMDI_NOINLINE int shmemdi_px_complete(shmemdi_u64 t, int rtn, int pe, shmemdi_u64 addr)
{
    if (t == SHMEMDI_PX_NONE)
        return -1;
    return shmemdi_px_wait(SHMEMD_PX_DONE, 0, t, rtn, pe, addr);
}

/* A fetching request (G, a fetching AMO): posts it, waits for it, reads
 * ret and releases the slot.  ret, or 0 when the proxy stopped. */
SHMEMDI_NOINLINE shmemdi_u64 shmemdi_px_fetch(int op, int amo, int rtn, int pe, shmemdi_u64 sym,
                                              shmemdi_u64 len, shmemdi_u64 value, shmemdi_u64 cmp)
{
    shmemdi_u64 t = op == SHMEMD_PX_G ? shmemdi_px_post(op, amo, rtn, pe, 0, sym, len, 0, 0)
                                      : shmemdi_px_post(op, amo, rtn, pe, sym, 0, len, value, cmp);
    if (shmemdi_px_complete(t, rtn, pe, sym))
        return 0;
    shmemd_proxy_req_t *s = shmemd_state_c.proxy.slots + (t & (shmemd_state_c.proxy.nslots - 1));
    shmemdi_u64 v = *(volatile shmemdi_u64 *)&s->ret;
    shmemdi_st_rel(&s->ready, SHMEMD_PX_RELEASED); /* after the load of ret */
    return v;
}

/* The proxy's part of a quiet: waits until every request posted so far
 * (by any thread of this PE) is complete. */
SHMEMDI_NOINLINE void shmemdi_px_quiet(void)
{
    shmemdi_u64 t = *(const volatile shmemdi_u64 *)shmemd_state_c.proxy.tail;
    if (t)
        (void)shmemdi_px_wait(SHMEMD_PX_DONE, 1, t, SHMEMD_RTN_QUIET, -1, 0);
}
/* A quiet: this thread's stores and atomics through mappings complete
 * (__threadfence_system), then, where a proxy runs, its requests. */
SHMEMDI_INLINE void shmemdi_quiet(void)
{
    __threadfence_system();
    if (shmemd_state_c.proxy.slots)
        shmemdi_px_quiet();
}

/* One PUT or GET of n bytes between the symmetric sym on pe and loc (this
 * PE's: the put's source, the get's destination), by the calling thread;
 * with wait, until it is complete.  loc must be global memory (GPU or
 * mapped host memory): the proxy reads or writes it from the host. */
SHMEMDI_NOINLINE void shmemdi_px_move(int op, const void *sym, const void *loc, size_t n, int pe,
                                      int rtn, int wait)
{
    if (!n)
        return;
    if (!__isGlobal(loc)) {
        shmemdi_error(rtn, SHMEMD_ERR_NOT_GLOBAL, pe, loc);
        return;
    }
    shmemdi_u64 s = (shmemdi_u64)(uintptr_t)sym, l = (shmemdi_u64)(uintptr_t)loc;
    shmemdi_u64 t = op == SHMEMD_PX_PUT ? shmemdi_px_post(op, 0, rtn, pe, s, l, n, 0, 0)
                                        : shmemdi_px_post(op, 0, rtn, pe, l, s, n, 0, 0);
    if (wait)
        (void)shmemdi_px_complete(t, rtn, pe, s);
}
/* The same for the whole scope S: after the scope's threads are
 * synchronized (what they stored in the source is ready), its first
 * thread posts the one request.  The caller synchronizes the scope after. */
template <int S>
SHMEMDI_NOINLINE void shmemdi_px_rma(int op, const void *sym, const void *loc, size_t n, int pe,
                                     int rtn, int wait)
{
    shmemdi_scope_sync<S>();
    if (shmemdi_tid<S>() == 0)
        shmemdi_px_move(op, sym, loc, n, pe, rtn, wait);
}

/* p through the proxy: the value travels in the request (no wait). */
SHMEMDI_NOINLINE void shmemdi_px_p(const void *dest, shmemdi_u64 bits, int len, int pe, int rtn)
{
    (void)shmemdi_px_post(SHMEMD_PX_P, 0, rtn, pe, (shmemdi_u64)(uintptr_t)dest, 0,
                          (shmemdi_u64)len, bits, 0);
}
/* g through the proxy: len bytes of the value. */
SHMEMDI_NOINLINE shmemdi_u64 shmemdi_px_g(const void *src, int len, int pe, int rtn)
{
    return shmemdi_px_fetch(SHMEMD_PX_G, 0, rtn, pe, (shmemdi_u64)(uintptr_t)src,
                            (shmemdi_u64)len, 0, 0);
}

/* The words an element of T travels in through the proxy: itself, or 8
 * bytes at a time (shmemd_iput128's elements). */
template <typename T> struct shmemdi_px_part {
    typedef typename shmemdi_word<(sizeof(T) < 8 ? sizeof(T) : 8)>::t t;
};
/* iput and iget through the proxy: one P (or G) request a word. */
template <typename T>
SHMEMDI_NOINLINE void shmemdi_px_iput(T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst,
                                      size_t n, int pe)
{
    typedef typename shmemdi_px_part<T>::t W;
    for (size_t i = 0; i < n; i++)
        for (size_t h = 0; h < sizeof(T) / sizeof(W); h++)
            shmemdi_px_p((const W *)(dest + (ptrdiff_t)i * dst) + h,
                         (shmemdi_u64)((const W *)(src + (ptrdiff_t)i * sst))[h], (int)sizeof(W),
                         pe, SHMEMD_RTN_IPUT);
}
template <typename T>
SHMEMDI_NOINLINE void shmemdi_px_iget(T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst,
                                      size_t n, int pe)
{
    typedef typename shmemdi_px_part<T>::t W;
    for (size_t i = 0; i < n; i++)
        for (size_t h = 0; h < sizeof(T) / sizeof(W); h++)
            ((W *)(dest + (ptrdiff_t)i * dst))[h] =
                (W)shmemdi_px_g((const W *)(src + (ptrdiff_t)i * sst) + h, (int)sizeof(W), pe,
                                SHMEMD_RTN_IGET);
}

/* An AMO (SHMEMD_AMO_*) on the len-byte word dest of pe: a fetching one
 * waits and gives the old value, the others are posted only. */
SHMEMDI_NOINLINE shmemdi_u64 shmemdi_px_amo(int amo, const void *dest, int len, shmemdi_u64 value,
                                            shmemdi_u64 cmp, int pe, int rtn)
{
    shmemdi_u64 d = (shmemdi_u64)(uintptr_t)dest;
    if (SHMEMD_AMO_FETCHING(amo))
        return shmemdi_px_fetch(SHMEMD_PX_AMO, amo, rtn, pe, d, (shmemdi_u64)len, value, cmp);
    (void)shmemdi_px_post(SHMEMD_PX_AMO, amo, rtn, pe, d, 0, (shmemdi_u64)len, value, cmp);
    return 0;
}
/* A signal (SHMEM_SIGNAL_SET or _ADD) through the proxy: an AMO SET or ADD
 * of the 8-byte word, after the requests posted before it (the proxy is in
 * order); with wait, until it is complete. */
SHMEMDI_NOINLINE void shmemdi_px_signal(const void *sig_addr, shmemdi_u64 signal, int add, int pe,
                                        int rtn, int wait)
{
    shmemdi_u64 d = (shmemdi_u64)(uintptr_t)sig_addr;
    shmemdi_u64 t = shmemdi_px_post(SHMEMD_PX_AMO, add ? SHMEMD_AMO_ADD : SHMEMD_AMO_SET, rtn, pe,
                                    d, 0, 8, signal, 0);
    if (wait)
        (void)shmemdi_px_complete(t, rtn, pe, d);
}

#endif
