/*
 * Device API: ordering (fence, quiet), signals, point-to-point waits and
 * tests, teams and barriers (docs/device.md): through the mapping to the
 * PEs this GPU maps, through the proxy (proxy.cuh) to the others.
 * Included by <fabshmem/shmem_device.cuh>.
 *
 * The memory model: a kernel's puts and AMOs to mapped peers are stores and
 * system-scope atomics through the mapping.  shmemd_fence and shmemd_quiet
 * are __threadfence_system(): every store the thread made before is seen
 * by every thread of the system (any GPU, the CPU) before any it makes
 * after; a quiet also waits until every proxy request posted so far is
 * complete (the proxy carries them out in order, so a fence needs nothing
 * for them).  A signal (put_signal, signal_op) is released after the
 * thread's fence, and a wait's load is an acquire at system scope: whoever
 * sees the signal sees the data put before it.  A barrier is a quiet, then
 * a dissemination of releases (AMO SET requests to members reached through
 * the proxy) and acquire loads over the team; where this GPU maps every
 * PE and every PE runs on it (shmemd_state_t.sync_gpu), the barrier's
 * release and acquire are at GPU scope: the stores it orders are
 * to this GPU's memory (the device heaps), the threads that see them run
 * on it.
 */
#ifndef FABSHMEM_DEVICE_SYNC_CUH
#define FABSHMEM_DEVICE_SYNC_CUH

#include <fabshmem/device/base.cuh>
#include <fabshmem/device/rma.cuh>

/* The proxy carries its requests out one at a time in ticket order, so a
 * fence needs nothing more for them; a quiet waits for them (proxy.cuh). */
SHMEMDI_INLINE void shmemd_fence(void) { __threadfence_system(); }
SHMEMDI_INLINE void shmemd_quiet(void) { shmemdi_quiet(); }

/* ---- comparisons and the wait loop ---- */

template <typename T> SHMEMDI_INLINE int shmemdi_cmp(T a, int cmp, T b)
{
    switch (cmp) {
    case SHMEM_CMP_EQ: return a == b;
    case SHMEM_CMP_NE: return a != b;
    case SHMEM_CMP_GT: return a > b;
    case SHMEM_CMP_GE: return a >= b;
    case SHMEM_CMP_LT: return a < b;
    default: return a <= b;
    }
}
/* Polls with relaxed loads, SHMEMDI_POLLS between two steps of the
 * back-off, and ends with one acquire load of the word, which reads the
 * value a release store made (or a later one) and so orders what the
 * storer released before it (acquire loads as the polls were no faster
 * on one H200; a fence at GPU scope in the load's place doubled a p
 * ping-pong of 2 PEs, 0.6 us against 0.3; docs/device.md). */
template <typename T> SHMEMDI_INLINE T shmemdi_wait(const T *ivar, int cmp, T value)
{
    shmemdi_backoff b = { 0 };
    for (;; b.pause(SHMEMDI_POLLS))
#pragma unroll
        for (int i = 0; i < SHMEMDI_POLLS; i++) {
            T v = shmemdi_load_cg(ivar);
            if (shmemdi_cmp(v, cmp, value)) {
                (void)shmemdi_load_acquire(ivar);
                return v;
            }
        }
}

/* ---- signals ---- */

/* The signal of PE pe: through the mapping, a fence then the atomic;
 * through the proxy, an AMO request after the ones before it (with wait,
 * until it is complete). */
SHMEMDI_INLINE void shmemdi_signal(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, int rtn,
                                   int wait)
{
    int px = 0;
    unsigned long long *w = (unsigned long long *)shmemdi_peer_px(sig_addr, 8, pe, rtn, &px);
    if (!w) {
        if (px)
            shmemdi_px_signal(sig_addr, signal, sig_op == SHMEM_SIGNAL_ADD, pe, rtn, wait);
        return;
    }
    __threadfence_system();
    if (sig_op == SHMEM_SIGNAL_ADD)
        atomicAdd_system(w, (unsigned long long)signal);
    else
        atomicExch_system(w, (unsigned long long)signal);
}
SHMEMDI_INLINE void shmemd_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    shmemdi_signal(sig_addr, signal, sig_op, pe, SHMEMD_RTN_SIGNAL_OP, 0);
}
SHMEMDI_INLINE uint64_t shmemd_signal_fetch(const uint64_t *sig_addr)
{
    return (uint64_t)shmemdi_ld_acq((const unsigned long long *)sig_addr);
}
SHMEMDI_INLINE uint64_t shmemd_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    return (uint64_t)shmemdi_wait((const unsigned long long *)sig_addr, cmp,
                                  (unsigned long long)cmp_value);
}
/* Through the proxy: the data's request (not waited for), then the
 * signal's, which the proxy carries out after it; the blocking form waits
 * for the signal's (so for both), the _nbi form for none. */
template <int S>
SHMEMDI_INLINE void shmemdi_put_signal(void *dest, const void *src, size_t n, uint64_t *sig_addr,
                                       uint64_t signal, int sig_op, int pe, int wait)
{
    shmemdi_put<S>(dest, src, n, pe, SHMEMD_RTN_PUT_SIGNAL, 0);
    if (shmemdi_tid<S>() == 0)
        shmemdi_signal(sig_addr, signal, sig_op, pe, SHMEMD_RTN_PUT_SIGNAL, wait);
    shmemdi_scope_sync<S>();
}
#define SHMEMDI_PUT_SIGNAL(NAME, T, SIZE, WAIT) \
    SHMEMDI_SCOPED(NAME, (T *dest, const T *src, size_t nelems, uint64_t *sig_addr, \
                          uint64_t signal, int sig_op, int pe), \
                   shmemdi_put_signal, (dest, src, nelems * (SIZE), sig_addr, signal, sig_op, pe, \
                                        WAIT))
#define SHMEMDI_PUT_SIGNAL_TYPED(T, N) \
    SHMEMDI_PUT_SIGNAL(shmemd_##N##_put_signal, T, sizeof(T), 1) \
    SHMEMDI_PUT_SIGNAL(shmemd_##N##_put_signal_nbi, T, sizeof(T), 0)
SHMEMI_RMA_DEVICE_TYPES(SHMEMDI_PUT_SIGNAL_TYPED)
#undef SHMEMDI_PUT_SIGNAL_TYPED
#define SHMEMDI_PUT_SIGNAL_SIZED(B) \
    SHMEMDI_PUT_SIGNAL(shmemd_put##B##_signal, void, B / 8, 1) \
    SHMEMDI_PUT_SIGNAL(shmemd_put##B##_signal_nbi, void, B / 8, 0)
SHMEMI_RMA_SIZES(SHMEMDI_PUT_SIGNAL_SIZED)
#undef SHMEMDI_PUT_SIGNAL_SIZED
SHMEMDI_PUT_SIGNAL(shmemd_putmem_signal, void, 1, 1)
SHMEMDI_PUT_SIGNAL(shmemd_putmem_signal_nbi, void, 1, 0)
#undef SHMEMDI_PUT_SIGNAL

/* ---- waits and tests (the point-to-point types) ---- */

/* Index i is eligible when status is 0 or status[i] is 0. */
#define SHMEMDI_ELIGIBLE(status, i) (!(status) || !(status)[i])

template <typename T>
SHMEMDI_INLINE size_t shmemdi_test_some(T *ivars, size_t n, size_t *idx, const int *status, int cmp,
                                        const T *values, T value, int stop_at_one)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (SHMEMDI_ELIGIBLE(status, i) &&
            shmemdi_cmp(shmemdi_load_acquire(ivars + i), cmp, values ? values[i] : value)) {
            if (idx)
                idx[k] = i;
            k++;
            if (stop_at_one)
                return i;
        }
    return stop_at_one ? (size_t)-1 : k;
}
template <typename T>
SHMEMDI_INLINE int shmemdi_test_all(T *ivars, size_t n, const int *status, int cmp,
                                    const T *values, T value)
{
    for (size_t i = 0; i < n; i++)
        if (SHMEMDI_ELIGIBLE(status, i) &&
            !shmemdi_cmp(shmemdi_load_acquire(ivars + i), cmp, values ? values[i] : value))
            return 0;
    return 1;
}
SHMEMDI_INLINE size_t shmemdi_eligible(const int *status, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += SHMEMDI_ELIGIBLE(status, i);
    return k;
}
template <typename T>
SHMEMDI_INLINE void shmemdi_wait_all(T *ivars, size_t n, const int *status, int cmp,
                                     const T *values, T value)
{
    shmemdi_backoff b = { 0 };
    while (!shmemdi_test_all(ivars, n, status, cmp, values, value))
        b.pause();
}
template <typename T>
SHMEMDI_INLINE size_t shmemdi_wait_any(T *ivars, size_t n, const int *status, int cmp,
                                       const T *values, T value)
{
    shmemdi_backoff b = { 0 };
    size_t i;
    if (!shmemdi_eligible(status, n))
        return (size_t)-1;
    while ((i = shmemdi_test_some(ivars, n, (size_t *)0, status, cmp, values, value, 1)) ==
           (size_t)-1)
        b.pause();
    return i;
}
template <typename T>
SHMEMDI_INLINE size_t shmemdi_wait_some(T *ivars, size_t n, size_t *idx, const int *status,
                                        int cmp, const T *values, T value)
{
    shmemdi_backoff b = { 0 };
    size_t k;
    if (!shmemdi_eligible(status, n))
        return 0;
    while (!(k = shmemdi_test_some(ivars, n, idx, status, cmp, values, value, 0)))
        b.pause();
    return k;
}

#define SHMEMDI_P2P(T, N) \
    SHMEMDI_INLINE void shmemd_##N##_wait_until(T *ivar, int cmp, T cmp_value) \
    { (void)shmemdi_wait(ivar, cmp, cmp_value); } \
    SHMEMDI_INLINE void shmemd_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, \
                                                    int cmp, T cmp_value) \
    { shmemdi_wait_all(ivars, nelems, status, cmp, (const T *)0, cmp_value); } \
    SHMEMDI_INLINE size_t shmemd_##N##_wait_until_any(T *ivars, size_t nelems, \
                                                      const int *status, int cmp, T cmp_value) \
    { return shmemdi_wait_any(ivars, nelems, status, cmp, (const T *)0, cmp_value); } \
    SHMEMDI_INLINE size_t shmemd_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, \
                                                       const int *status, int cmp, T cmp_value) \
    { return shmemdi_wait_some(ivars, nelems, indices, status, cmp, (const T *)0, cmp_value); } \
    SHMEMDI_INLINE void shmemd_##N##_wait_until_all_vector(T *ivars, size_t nelems, \
                                                           const int *status, int cmp, \
                                                           T *cmp_values) \
    { shmemdi_wait_all(ivars, nelems, status, cmp, (const T *)cmp_values, (T)0); } \
    SHMEMDI_INLINE size_t shmemd_##N##_wait_until_any_vector(T *ivars, size_t nelems, \
                                                             const int *status, int cmp, \
                                                             T *cmp_values) \
    { return shmemdi_wait_any(ivars, nelems, status, cmp, (const T *)cmp_values, (T)0); } \
    SHMEMDI_INLINE size_t shmemd_##N##_wait_until_some_vector(T *ivars, size_t nelems, \
                                                              size_t *indices, const int *status, \
                                                              int cmp, T *cmp_values) \
    { return shmemdi_wait_some(ivars, nelems, indices, status, cmp, (const T *)cmp_values, (T)0); } \
    SHMEMDI_INLINE int shmemd_##N##_test(T *ivar, int cmp, T cmp_value) \
    { return shmemdi_cmp(shmemdi_load_acquire(ivar), cmp, cmp_value); } \
    SHMEMDI_INLINE int shmemd_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, \
                                             T cmp_value) \
    { return shmemdi_test_all(ivars, nelems, status, cmp, (const T *)0, cmp_value); } \
    SHMEMDI_INLINE size_t shmemd_##N##_test_any(T *ivars, size_t nelems, const int *status, \
                                                int cmp, T cmp_value) \
    { return shmemdi_test_some(ivars, nelems, (size_t *)0, status, cmp, (const T *)0, cmp_value, 1); } \
    SHMEMDI_INLINE size_t shmemd_##N##_test_some(T *ivars, size_t nelems, size_t *indices, \
                                                 const int *status, int cmp, T cmp_value) \
    { return shmemdi_test_some(ivars, nelems, indices, status, cmp, (const T *)0, cmp_value, 0); } \
    SHMEMDI_INLINE int shmemd_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, \
                                                    int cmp, T *cmp_values) \
    { return shmemdi_test_all(ivars, nelems, status, cmp, (const T *)cmp_values, (T)0); } \
    SHMEMDI_INLINE size_t shmemd_##N##_test_any_vector(T *ivars, size_t nelems, \
                                                       const int *status, int cmp, T *cmp_values) \
    { return shmemdi_test_some(ivars, nelems, (size_t *)0, status, cmp, (const T *)cmp_values, (T)0, 1); } \
    SHMEMDI_INLINE size_t shmemd_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, \
                                                        const int *status, int cmp, \
                                                        T *cmp_values) \
    { return shmemdi_test_some(ivars, nelems, indices, status, cmp, (const T *)cmp_values, (T)0, 0); }
SHMEMI_P2P_TYPES(SHMEMDI_P2P)
#undef SHMEMDI_P2P

/* ---- teams ---- */

/* The team in slot team, if this PE is a member of it; else 0 (the error
 * recorded). */
SHMEMDI_INLINE const shmemd_team_t_ *shmemdi_team(shmemd_team_t team, int rtn)
{
    const shmemd_team_t_ *t;
    if ((unsigned)team >= (unsigned)shmemd_state_c.teams_max ||
        (t = &shmemd_state_c.teams[team])->n_pes <= 0 || t->my_pe < 0) {
        shmemdi_error(rtn, SHMEMD_ERR_BAD_TEAM, team, 0);
        return 0;
    }
    return t;
}
SHMEMDI_INLINE int shmemd_team_my_pe(shmemd_team_t team)
{
    return ((unsigned)team < (unsigned)shmemd_state_c.teams_max)
               ? shmemd_state_c.teams[team].my_pe : -1;
}
SHMEMDI_INLINE int shmemd_team_n_pes(shmemd_team_t team)
{
    return ((unsigned)team < (unsigned)shmemd_state_c.teams_max &&
            shmemd_state_c.teams[team].n_pes > 0)
               ? shmemd_state_c.teams[team].n_pes : -1;
}
/* A team as the collectives and barriers read it: its size, this PE's
 * index and its members' PEs (0 for the world: member j is PE j), held in
 * registers.  The world's come from the state in constant memory, with no
 * load of global memory (each went to L2 at a kernel's start, one after
 * the other: the team, then its members). */
struct shmemdi_tm {
    int n_pes, my_pe;
    const int *pes;
    __device__ __forceinline__ int pe(int j) const { return pes ? pes[j] : j; }
};
/* *tm for team, if this PE is a member of it: 1; else 0 (the error
 * recorded). */
SHMEMDI_INLINE int shmemdi_team_of(shmemd_team_t team, int rtn, shmemdi_tm *tm)
{
    if (team == SHMEMD_TEAM_WORLD) {
        tm->n_pes = shmemd_state_c.n_pes;
        tm->my_pe = shmemd_state_c.my_pe;
        tm->pes = 0;
        return 1;
    }
    const shmemd_team_t_ *t = shmemdi_team(team, rtn);
    if (!t)
        return 0;
    tm->n_pes = t->n_pes;
    tm->my_pe = t->my_pe;
    tm->pes = t->pes;
    return 1;
}
/* PE src_pe of src_team in dest_team, or -1. */
SHMEMDI_INLINE int shmemd_team_translate_pe(shmemd_team_t src_team, int src_pe,
                                            shmemd_team_t dest_team)
{
    if ((unsigned)src_team >= (unsigned)shmemd_state_c.teams_max ||
        (unsigned)dest_team >= (unsigned)shmemd_state_c.teams_max)
        return -1;
    const shmemd_team_t_ *s = &shmemd_state_c.teams[src_team], *d = &shmemd_state_c.teams[dest_team];
    if (src_pe < 0 || src_pe >= s->n_pes || d->n_pes <= 0)
        return -1;
    int w = s->pes[src_pe];
    for (int i = 0; i < d->n_pes; i++)
        if (d->pes[i] == w)
            return i;
    return -1;
}

/* ---- barriers ---- */

/* Round k's partner, member (me + d) mod n (d < n, no division): its PE
 * and its word k through the mapping (*w 0 when the proxy reaches it);
 * -1 when neither (the error recorded).  The world team's words come from
 * the state where it holds them (bar_world). */
SHMEMDI_INLINE int shmemdi_bar_target(shmemd_team_t team, unsigned long long *mine, int k, int me,
                                      int d, int n, const int *pes, int *pe,
                                      unsigned long long **w)
{
    int j = me + d < n ? me + d : me + d - n, px = 0;
    *pe = pes ? pes[j] : j;
    if (team == SHMEMD_TEAM_WORLD && k < SHMEMD_BAR_WORLD && (*w = shmemd_state_c.bar_world[k]))
        return 0;
    *w = (unsigned long long *)shmemdi_peer_px(mine + k, 8, *pe, SHMEMD_RTN_BARRIER, &px);
    return *w || px ? 0 : -1;
}

/* Waits until *p is at least e, polling with acquire loads at GPU scope
 * (the load that sees e is the acquire: no second load after it),
 * SHMEMDI_POLLS between two steps of the back-off. */
SHMEMDI_INLINE void shmemdi_wait_ge_gpu(const unsigned long long *p, unsigned long long e)
{
    shmemdi_backoff b = { 0 };
    for (;; b.pause(SHMEMDI_POLLS))
#pragma unroll
        for (int i = 0; i < SHMEMDI_POLLS; i++)
            if (shmemdi_ld_acq_gpu(p) >= e)
                return;
}
/* The world team's synchronization where sync_gpu holds (every PE mapped,
 * on this GPU, no proxy) and the state holds every round's partner's word
 * (bar_world): the rounds of shmemdi_sync_team below with nothing looked
 * up, round 0's add before the epoch's load (a release waits for the
 * loads before it too), the epoch's store after the polls (before them it
 * delayed them: 0.76 us a barrier of 2 PEs on one H200 against 0.62), and
 * the polls acquire loads.  Written apart: the same rounds inside the
 * general routine below took 0.81 us, alone 0.69 (a plain round trip
 * 0.58); the general routine's rounds at GPU scope (other teams) are the
 * same steps. */
SHMEMDI_INLINE void shmemdi_sync_world_gpu(void)
{
    unsigned long long *ep = shmemd_state_c.bar_epoch, *mine = shmemd_state_c.bar, e;
    int n = shmemd_state_c.n_pes;
    if (n > 1)
        shmemdi_red_rel_gpu(shmemd_state_c.bar_world[0]);
    e = *ep + 1;
    for (int d = 1, k = 0; d < n; d <<= 1, k++) {
        if (k)
            shmemdi_red_rel_gpu(shmemd_state_c.bar_world[k]);
        shmemdi_wait_ge_gpu(mine + k, e);
    }
    *ep = e;
}
/* One thread's synchronization of the team: a dissemination over
 * ceil(log2 n) rounds; in round k a member raises word k of member
 * (me + 2^k) mod n to the team's new epoch e and waits until its own word
 * k holds e, ending with an acquire.  A member's word k is raised only by
 * its round-k partner, once a synchronization, so after the team's e-th
 * it holds e on every member: the raise is an add of 1 where the state
 * says every PE is mapped and runs on this GPU (sync_gpu: a release at GPU
 * scope, which needs no epoch, so the epoch's load travels beside it),
 * else a store of e after a system fence (with quiet, the quiet's: a
 * release, so every store the thread made before, and with quiet the
 * proxy's requests, complete, is seen by whoever sees the epoch) or a
 * release store in the later rounds (which pass on what the member
 * acquired in the rounds before), and to a member reached through the
 * proxy an AMO SET request of e, after every request before it.  Epochs
 * only grow; a team's slot starts from zero again when the team is
 * destroyed (shmemi_devapi_slot_clear).  The world team (slot 0) is read
 * from the state in constant memory, its partners' words too (bar_world).
 * Out of line (inline, it doubled the compile time of a kernel of every
 * collective), so its registers are saved on the stack, whose reloads
 * after the acquire go to L2 (on one H200 a barrier of 2 PEs took 1.49 us
 * so, 1.18 inline): the world team's rounds at GPU scope, the common case
 * of PEs sharing a GPU, are shmemdi_sync_world_gpu above, inline.  0,
 * or -1 when the team is unknown or a member is not mapped and no proxy
 * runs (the error recorded; the others then wait until the host ends the
 * job). */
SHMEMDI_NOINLINE int shmemdi_sync_team(shmemd_team_t team, int quiet)
{
    shmemdi_tm tm;
    if (!shmemdi_team_of(team, SHMEMD_RTN_BARRIER, &tm))
        return -1;
    int n = tm.n_pes, me = tm.my_pe;
    const int *pes = tm.pes;
    unsigned long long *ep = shmemd_state_c.bar_epoch + team, e;
    unsigned long long *mine = shmemd_state_c.bar + (size_t)team * SHMEMD_BAR_ROUNDS;
    int pe = 0, gpu = shmemd_state_c.sync_gpu;
    unsigned long long *w = 0;
    if (n > 1 && shmemdi_bar_target(team, mine, 0, me, 1, n, pes, &pe, &w))
        return -1;
    if (gpu) {
        /* Round 0's add before the epoch's load, the epoch's store after
         * the polls (shmemdi_sync_world_gpu says why; no proxy runs, so
         * the partner is mapped). */
        if (n > 1)
            shmemdi_red_rel_gpu(w);
        e = *ep + 1;
    } else {
        e = *ep + 1;
        if (quiet)
            shmemdi_quiet();
        else
            __threadfence_system();
        *ep = e;
    }
    for (int d = 1, k = 0; d < n; d <<= 1, k++) {
        if (gpu) {
            if (k)
                shmemdi_red_rel_gpu(w);
        } else if (w) {
            if (k)
                shmemdi_st_rel(w, e);
            else
                shmemdi_st_rlx(w, e);
        } else if (shmemdi_px_post(SHMEMD_PX_AMO, SHMEMD_AMO_SET, SHMEMD_RTN_BARRIER, pe,
                                   (unsigned long long)(uintptr_t)(mine + k), 0, 8, e,
                                   0) == SHMEMDI_PX_NONE) {
            return -1;
        }
        /* The next round's partner while this one's store travels. */
        if (2 * d < n && shmemdi_bar_target(team, mine, k + 1, me, 2 * d, n, pes, &pe, &w))
            return -1;
        if (gpu) {
            shmemdi_wait_ge_gpu(mine + k, e);
        } else {
            (void)shmemdi_wait((const unsigned long long *)(mine + k), SHMEM_CMP_GE, e);
        }
    }
    if (gpu)
        *ep = e;
    return 0;
}
template <int S> SHMEMDI_INLINE void shmemdi_sync_scoped(shmemd_team_t team, int quiet)
{
    shmemdi_scope_sync<S>();
    if (shmemdi_tid<S>() == 0) {
        if (team == SHMEMD_TEAM_WORLD && shmemd_state_c.sync_gpu &&
            shmemd_state_c.n_pes <= (1 << SHMEMD_BAR_WORLD))
            shmemdi_sync_world_gpu();
        else
            (void)shmemdi_sync_team(team, quiet);
    }
    shmemdi_scope_sync<S>();
}
SHMEMDI_SCOPED(shmemd_barrier_all, (void), shmemdi_sync_scoped, (SHMEMD_TEAM_WORLD, 1))
SHMEMDI_SCOPED(shmemd_sync_all, (void), shmemdi_sync_scoped, (SHMEMD_TEAM_WORLD, 0))
SHMEMDI_SCOPED(shmemd_barrier, (shmemd_team_t team), shmemdi_sync_scoped, (team, 1))
SHMEMDI_SCOPED(shmemd_team_sync, (shmemd_team_t team), shmemdi_sync_scoped, (team, 0))

#endif
