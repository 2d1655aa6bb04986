/*
 * Device API: collectives over a team (docs/device.md): broadcast,
 * fcollect, alltoall, reduce and reducescatter, by one thread, a warp or
 * a block.  Each member reads its peers' sources between two
 * synchronizations of the team (the first makes every source ready, the
 * second keeps them until every member has read them): through the
 * mapping for the members this GPU maps, with proxy GETs (the scope's
 * first thread posts them, and waits for them before the second
 * synchronization) for the others, into the destination (broadcast,
 * fcollect, alltoall) or into the second half of this PE's scratch
 * (reductions, which combine a chunk at a time into the first half).  A
 * reduction whose destination overlaps its source computes through the
 * scratch, one chunk per synchronization.  Every routine returns 0, or -1
 * with the error recorded for the host.  Included by
 * <fabshmem/shmem_device.cuh>.
 */
#ifndef FABSHMEM_DEVICE_COLL_CUH
#define FABSHMEM_DEVICE_COLL_CUH

#include <fabshmem/device/sync.cuh>

/* 1 with the team of a collective in *t if every member has the bytes from
 * p in its heap (bytes, or bytes for each member when per_member) and is
 * mapped or reached through the proxy (*px set when one is), else 0.  On
 * the world team where every PE is mapped (world_mapped), the bounds are
 * checked once. */
SHMEMDI_INLINE int shmemdi_coll_team(shmemd_team_t team, const void *p, size_t bytes,
                                     int per_member, int *px, shmemdi_tm *t)
{
    if (!shmemdi_team_of(team, SHMEMD_RTN_COLL, t))
        return 0;
    if (per_member)
        bytes *= (size_t)t->n_pes;
    if (team == SHMEMD_TEAM_WORLD && shmemd_state_c.world_mapped) {
        unsigned long long off = (unsigned long long)((const char *)p - shmemd_state_c.heap_base);
        if (off < shmemd_state_c.heap_size && bytes <= shmemd_state_c.heap_size - off)
            return 1;
        shmemdi_peer_error(p, bytes, t->my_pe, SHMEMD_RTN_COLL);
        return 0;
    }
    for (int j = 0; j < t->n_pes; j++) {
        int via = 0;
        if (!shmemdi_peer_px(p, bytes ? bytes : 1, t->pe(j), SHMEMD_RTN_COLL, &via) && !via)
            return 0;
        *px |= via;
    }
    return 1;
}
/* n bytes of member j's copy of the symmetric src into dest: through the
 * mapping by the threads of scope S, or, for a member reached through the
 * proxy, a GET posted by the scope's first thread and not waited for (the
 * collective's quiet before its next synchronization waits).  dest must be
 * global memory then. */
template <int S>
SHMEMDI_INLINE void shmemdi_coll_pull(const shmemdi_tm *t, void *dest, const void *src,
                                      size_t n, int j)
{
    int pe = t->pe(j);
    const char *base = shmemdi_peer_base(pe);
    if (base)
        shmemdi_copy((char *)dest, base + ((const char *)src - shmemd_state_c.heap_base), n,
                     shmemdi_tid<S>(), shmemdi_nth<S>());
    else if (shmemdi_tid<S>() == 0)
        shmemdi_px_move(SHMEMD_PX_GET, src, dest, n, pe, SHMEMD_RTN_COLL, 0);
}
/* Member j's copy of the symmetric p (checked by shmemdi_coll_team). */
template <typename T>
SHMEMDI_INLINE const T *shmemdi_member(const shmemdi_tm *t, const T *p, int j)
{
    return (const T *)(shmemdi_peer_base(t->pe(j)) +
                       ((const char *)p - shmemd_state_c.heap_base));
}

template <int S, typename T>
SHMEMDI_INLINE int shmemdi_broadcast(shmemd_team_t team, T *dest, const T *src, size_t n, int root)
{
    int px = 0;
    shmemdi_tm tm;
    if (!shmemdi_coll_team(team, src, n * sizeof(T), 0, &px, &tm))
        return -1;
    const shmemdi_tm *t = &tm;
    if (root < 0 || root >= t->n_pes) {
        shmemdi_error(SHMEMD_RTN_COLL, SHMEMD_ERR_BAD_PE, root, src);
        return -1;
    }
    shmemdi_sync_scoped<S>(team, 1);
    if (t->my_pe != root || dest != src)
        shmemdi_coll_pull<S>(t, dest, src, n * sizeof(T), root);
    shmemdi_sync_scoped<S>(team, px);
    return 0;
}
template <int S, typename T>
SHMEMDI_INLINE int shmemdi_fcollect(shmemd_team_t team, T *dest, const T *src, size_t n)
{
    int px = 0;
    shmemdi_tm tm;
    if (!shmemdi_coll_team(team, src, n * sizeof(T), 0, &px, &tm))
        return -1;
    const shmemdi_tm *t = &tm;
    shmemdi_sync_scoped<S>(team, 1);
    for (int j = 0; j < t->n_pes; j++)
        shmemdi_coll_pull<S>(t, dest + (size_t)j * n, src, n * sizeof(T), j);
    shmemdi_sync_scoped<S>(team, px);
    return 0;
}
template <int S, typename T>
SHMEMDI_INLINE int shmemdi_alltoall(shmemd_team_t team, T *dest, const T *src, size_t n)
{
    int px = 0;
    shmemdi_tm tm;
    if (!shmemdi_coll_team(team, src, n * sizeof(T), 1, &px, &tm))
        return -1;
    const shmemdi_tm *t = &tm;
    shmemdi_sync_scoped<S>(team, 1);
    for (int j = 0; j < t->n_pes; j++)
        shmemdi_coll_pull<S>(t, dest + (size_t)j * n, src + (size_t)t->my_pe * n, n * sizeof(T), j);
    shmemdi_sync_scoped<S>(team, px);
    return 0;
}

struct shmemdi_op_sum { template <typename T> static __device__ T f(T a, T b) { return (T)(a + b); } };
struct shmemdi_op_prod { template <typename T> static __device__ T f(T a, T b) { return (T)(a * b); } };
struct shmemdi_op_min { template <typename T> static __device__ T f(T a, T b) { return b < a ? b : a; } };
struct shmemdi_op_max { template <typename T> static __device__ T f(T a, T b) { return b > a ? b : a; } };
struct shmemdi_op_and { template <typename T> static __device__ T f(T a, T b) { return (T)(a & b); } };
struct shmemdi_op_or { template <typename T> static __device__ T f(T a, T b) { return (T)(a | b); } };
struct shmemdi_op_xor { template <typename T> static __device__ T f(T a, T b) { return (T)(a ^ b); } };

/* Where the reductions read member j's elements (index 0 is the first
 * element reduced): its copy of the symmetric source through the mapping
 * (shmemdi_at_peer), or the push area (shmemdi_at_push, below). */
template <typename T> struct shmemdi_at_peer {
    const shmemdi_tm *t;
    const T *src;
    size_t first;
    __device__ __forceinline__ const T *operator()(int j) const { return shmemdi_member(t, src, j) + first; }
};
/* dest[i - lo] = OP over the n members j of at(j)[i], for i in [lo, hi),
 * by the threads of scope S, one element at a time.  M members known at
 * compile time keep their addresses in registers (m; M 0: any number,
 * looked up). */
template <int S, int M, typename OP, typename T, typename AT>
SHMEMDI_INLINE void shmemdi_reduce_s(int n, T *dest, const T *const *m, const AT &at, size_t lo,
                                     size_t hi)
{
    for (size_t i = lo + (size_t)shmemdi_tid<S>(); i < hi; i += (size_t)shmemdi_nth<S>()) {
        T acc;
        if (M > 0) {
            acc = shmemdi_load_nc(m[0] + i);
#pragma unroll
            for (int j = 1; j < M; j++)
                acc = OP::f(acc, shmemdi_load_nc(m[j] + i));
        } else {
            acc = shmemdi_load_nc(at(0) + i);
            for (int j = 1; j < n; j++)
                acc = OP::f(acc, shmemdi_load_nc(at(j) + i));
        }
        dest[i - lo] = acc;
    }
}
/* 16 bytes of elements, loaded and stored as one word. */
template <typename T> struct __align__(16) shmemdi_v16 {
    T e[16 / sizeof(T)];
};
template <typename T> SHMEMDI_INLINE shmemdi_v16<T> shmemdi_load_v16(const T *p)
{
    union {
        int4 w;
        shmemdi_v16<T> v;
    } u;
    u.w = __ldcg((const int4 *)p);
    return u.v;
}
template <typename OP, typename T>
SHMEMDI_INLINE void shmemdi_op_v16(shmemdi_v16<T> &a, const shmemdi_v16<T> &b)
{
#pragma unroll
    for (int k = 0; k < (int)(16 / sizeof(T)); k++)
        a.e[k] = OP::f(a.e[k], b.e[k]);
}
/* The same over [lo, hi): where dest and the sources are equally aligned
 * for 16 bytes and M is known, the middle goes in 16-byte words, U of
 * them a thread in flight from each member (a peer's memory answers a
 * load in about a microsecond over NVLink: one element a thread at a
 * time leaves the link idle), the ends one element at a time. */
template <int S, int M, typename OP, typename T, typename AT>
SHMEMDI_INLINE void shmemdi_reduce_m(int n, T *dest, const AT &at, size_t lo, size_t hi)
{
    const T *m[M > 0 ? M : 1];
#pragma unroll
    for (int j = 0; j < M; j++)
        m[j] = at(j);
    const size_t E = 16 / sizeof(T);
    if (M == 0 || 16 % sizeof(T) != 0 || hi - lo < 2 * E || (uintptr_t)dest % sizeof(T) != 0 ||
        (((uintptr_t)(m[0] + lo) ^ (uintptr_t)dest) & 15) != 0) {
        shmemdi_reduce_s<S, M, OP>(n, dest, m, at, lo, hi);
        return;
    }
    const int U = M <= 2 ? 4 : (M <= 4 ? 2 : 1);
    size_t head = ((16 - ((uintptr_t)dest & 15)) & 15) / sizeof(T);
    size_t nv = (hi - lo - head) / E, mid = lo + head, end = mid + nv * E;
    shmemdi_reduce_s<S, M, OP>(n, dest, m, at, lo, mid);
    shmemdi_v16<T> *dv = (shmemdi_v16<T> *)(dest + head);
    size_t nth = (size_t)shmemdi_nth<S>();
    for (size_t k = (size_t)shmemdi_tid<S>(); k < nv; k += U * nth) {
        shmemdi_v16<T> a[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            if (k + u * nth < nv)
                a[u] = shmemdi_load_v16(m[0] + mid + (k + u * nth) * E);
#pragma unroll
        for (int j = 1; j < M; j++)
#pragma unroll
            for (int u = 0; u < U; u++)
                if (k + u * nth < nv)
                    shmemdi_op_v16<OP>(a[u], shmemdi_load_v16(m[j] + mid + (k + u * nth) * E));
#pragma unroll
        for (int u = 0; u < U; u++)
            if (k + u * nth < nv)
                dv[k + u * nth] = a[u];
    }
    shmemdi_reduce_s<S, M, OP>(n, dest + (end - lo), m, at, end, hi);
}
template <int S, typename OP, typename T, typename AT>
SHMEMDI_INLINE void shmemdi_reduce_at(int n, T *dest, const AT &at, size_t lo, size_t hi)
{
    switch (n) {
    case 1: shmemdi_reduce_m<S, 1, OP>(n, dest, at, lo, hi); break;
    case 2: shmemdi_reduce_m<S, 2, OP>(n, dest, at, lo, hi); break;
    case 4: shmemdi_reduce_m<S, 4, OP>(n, dest, at, lo, hi); break;
    case 8: shmemdi_reduce_m<S, 8, OP>(n, dest, at, lo, hi); break;
    default: shmemdi_reduce_m<S, 0, OP>(n, dest, at, lo, hi); break;
    }
}
/* dest[i - lo] = OP over the members of their src[first + i], i in [lo, hi). */
template <int S, typename OP, typename T>
SHMEMDI_INLINE void shmemdi_reduce_range(const shmemdi_tm *t, T *dest, const T *src,
                                         size_t first, size_t lo, size_t hi)
{
    shmemdi_at_peer<T> at = { t, src, first };
    shmemdi_reduce_at<S, OP>(t->n_pes, dest, at, lo, hi);
}
/* The reduction below (shmemdi_reduce) when some member is reached
 * through the proxy: per chunk of half the scratch, the first half
 * accumulates, member by member, what the mapping gives or a proxy GET
 * brings into the second half; the chunk then goes to dest (after a
 * synchronization when dest overlaps the source, which the others read).
 * Out of line. */
template <int S, typename OP, typename T>
SHMEMDI_NOINLINE void shmemdi_reduce_px(shmemd_team_t team, shmemdi_tm tm, T *dest,
                                        const T *src, size_t n, size_t first, int overlap)
{
    const shmemdi_tm *t = &tm;
    size_t chunk = SHMEMD_SCRATCH_BYTES / 2 / sizeof(T);
    T *acc = (T *)shmemd_state_c.scratch, *buf = acc + chunk;
    int tid = shmemdi_tid<S>(), nth = shmemdi_nth<S>();
    for (size_t lo = 0; lo < n; lo += chunk) {
        size_t c = n - lo < chunk ? n - lo : chunk;
        for (int j = 0; j < t->n_pes; j++) {
            const T *m;
            if (shmemdi_peer_base(t->pe(j))) {
                m = shmemdi_member(t, src, j) + first + lo;
            } else {
                shmemdi_coll_pull<S>(t, buf, src + first + lo, c * sizeof(T), j);
                if (tid == 0)
                    shmemdi_px_quiet();
                shmemdi_scope_sync<S>();
                m = buf;
            }
            for (size_t i = (size_t)tid; i < c; i += (size_t)nth)
                acc[i] = j ? OP::f(acc[i], shmemdi_load_nc(m + i)) : shmemdi_load_nc(m + i);
            shmemdi_scope_sync<S>();
        }
        if (overlap)
            shmemdi_sync_scoped<S>(team, 0);
        for (size_t i = (size_t)tid; i < c; i += (size_t)nth)
            dest[lo + i] = acc[i];
        shmemdi_scope_sync<S>();
    }
}
/* The push areas of the small reductions (state.h, SHMEMD_PUSH_BYTES):
 * the first half of the team's, its flagged words (ll) or its plain
 * slots; the half of the team's small reduction number e (coll_seq) is
 * (e & 1) * SHMEMD_PUSH_BYTES on from there.  0 when the team's slot has
 * none or the bytes for every member do not fit.  Nothing here waits for
 * the number's load. */
SHMEMDI_INLINE char *shmemdi_push_area(shmemd_team_t team, const shmemdi_tm *t, int ll,
                                       size_t slot)
{
    if (team >= SHMEMD_PUSH_TEAMS || t->n_pes < 2 || !shmemd_state_c.push ||
        slot * (size_t)t->n_pes > SHMEMD_PUSH_BYTES / 2)
        return 0;
    return shmemd_state_c.push + (size_t)team * 2 * SHMEMD_PUSH_BYTES +
           (ll ? 0 : SHMEMD_PUSH_BYTES / 2);
}
/* The j-th member a member pushes to, from the next one on: the members'
 * stores spread over the peers instead of all going to member 0 first. */
SHMEMDI_INLINE int shmemdi_push_to(const shmemdi_tm *t, int j)
{
    int k = t->my_pe + 1 + j;
    return k < t->n_pes ? k : k - t->n_pes;
}
/* 1 when a member's own n elements of a small reduction (own) can be read
 * where they are after the pushes instead of from a copy in its own slot:
 * they are the destination itself or do not overlap it (the elements a
 * thread reads there are the ones it writes), and they are aligned for
 * 16-byte words as the slots are (align).  Decided by each member for
 * itself: what it pushes to the others is the same either way. */
template <typename T>
SHMEMDI_INLINE int shmemdi_own_in_place(const T *dest, const T *own, size_t n, int align)
{
    return (own == dest || own + n <= dest || dest + n <= own) &&
           (!align || ((uintptr_t)own & 15) == 0);
}
/* Where the pushed reduction reads member j's elements: its slot of this
 * member's push area, or, for this member (me, -1 when it copied its own
 * elements into its slot), its own elements. */
template <typename T> struct shmemdi_at_push {
    const char *area;
    size_t stride;
    int me;
    const T *own;
    __device__ __forceinline__ const T *operator()(int j) const
    {
        return j == me ? own : (const T *)(area + (size_t)j * stride);
    }
};
/* A small reduction over mapped members with one synchronization: each
 * member copies its elements for every other member (its source; under
 * scatter the member's block) into its slot of that member's push area,
 * the synchronization (a barrier: the stores are complete and seen when
 * it returns) follows, and each member reduces the slots of its own area
 * and its own elements into dest.  The area is the half of the team's
 * that the parity of the team's small reduction number names: a member
 * writes a half again only two small reductions later, after whose
 * synchronization (or flagged words) every member has left the one that
 * read it.  Nothing reads a source after the synchronization, so none
 * follows.  0 when it does not apply (the team's slot has no area, the
 * slots do not fit, a member reached through the proxy). */
template <int S, typename T>
SHMEMDI_NOINLINE unsigned long long shmemdi_push_out(shmemd_team_t team, shmemdi_tm tm, T *dest,
                                                     const T *src, size_t n, int scatter)
{
    const shmemdi_tm *t = &tm;
    size_t bytes = n * sizeof(T), stride = (bytes + 15) & ~(size_t)15;
    const char *area = shmemdi_push_area(team, t, 0, stride);
    if (!area)
        return 0;
    unsigned long long e = __ldcg(shmemd_state_c.coll_seq + team) + 1;
    area += (e & 1) * SHMEMD_PUSH_BYTES;
    const T *own = src + (scatter ? (size_t)t->my_pe * n : 0);
    int in_place = shmemdi_own_in_place(dest, own, n, 1);
    size_t off = (size_t)(area - shmemd_state_c.heap_base) + (size_t)t->my_pe * stride;
    int tid = shmemdi_tid<S>(), nth = shmemdi_nth<S>();
    for (int j = 0; j < t->n_pes - in_place; j++) {
        int k = shmemdi_push_to(t, j);
        shmemdi_copy(shmemdi_peer_base(t->pe(k)) + off,
                     (const char *)(src + (scatter ? (size_t)k * n : 0)), bytes, tid, nth);
    }
    return e;
}
template <int S, typename OP, typename T>
SHMEMDI_NOINLINE void shmemdi_push_in(shmemd_team_t team, shmemdi_tm tm, T *dest, const T *src,
                                      size_t n, int scatter, unsigned long long e)
{
    const shmemdi_tm *t = &tm;
    size_t stride = (n * sizeof(T) + 15) & ~(size_t)15;
    const char *area = shmemdi_push_area(team, t, 0, stride) + (e & 1) * SHMEMD_PUSH_BYTES;
    const T *own = src + (scatter ? (size_t)t->my_pe * n : 0);
    int in_place = shmemdi_own_in_place(dest, own, n, 1);
    shmemdi_at_push<T> at = { area, stride, in_place ? t->my_pe : -1, own };
    shmemdi_reduce_at<S, OP>(t->n_pes, dest, at, 0, n);
    if (shmemdi_tid<S>() == 0)
        shmemd_state_c.coll_seq[team] = e;
    shmemdi_scope_sync<S>();
}
/* The pushes (shmemdi_push_out, which returns the team's number e, or 0
 * when they do not apply) and the reduction (shmemdi_push_in) are out of
 * line, the synchronization between them inline: out of line, its
 * acquire sent the reloads of the registers saved around the call to L2
 * (a 64 KiB one-block sum on one H200: 10.0 us against 7.5); inline,
 * the pushes' registers spilled the flagged words' (16 KiB: 3.5 us of
 * kernel against 2.9). */
template <int S, typename OP, typename T>
SHMEMDI_INLINE int shmemdi_reduce_push(shmemd_team_t team, const shmemdi_tm *t, T *dest,
                                       const T *src, size_t n, int scatter)
{
    unsigned long long e = shmemdi_push_out<S>(team, *t, dest, src, n, scatter);
    if (!e)
        return 0;
    shmemdi_sync_scoped<S>(team, 1);
    shmemdi_push_in<S, OP>(team, *t, dest, src, n, scatter, e);
    return 1;
}
/* Chunk c (8 data bytes, zeros past n) of the n elements at s, as two
 * words: one 8-byte load where it is whole and aligned. */
template <typename T> union shmemdi_chunk {
    T e[8 / sizeof(T)];
    unsigned int w[2];
};
template <typename T>
SHMEMDI_INLINE shmemdi_chunk<T> shmemdi_chunk_at(const T *s, size_t c, size_t n)
{
    const int E = 8 / (int)sizeof(T);
    shmemdi_chunk<T> u;
    if (c * E + E <= n && ((uintptr_t)(s + c * E) & 7) == 0) {
        unsigned long long w = *(const unsigned long long *)(s + c * E);
        u.w[0] = (unsigned int)w;
        u.w[1] = (unsigned int)(w >> 32);
        return u;
    }
#pragma unroll
    for (int i = 0; i < E; i++)
        u.e[i] = c * E + i < n ? s[c * E + i] : (T)0;
    return u;
}
/* The elements of chunk c of u into the n elements at d. */
template <typename T>
SHMEMDI_INLINE void shmemdi_chunk_put(T *d, size_t c, size_t n, const shmemdi_chunk<T> &u)
{
    const int E = 8 / (int)sizeof(T);
    if (c * E + E <= n && ((uintptr_t)(d + c * E) & 7) == 0) {
        *(unsigned long long *)(d + c * E) = (unsigned long long)u.w[1] << 32 | u.w[0];
        return;
    }
#pragma unroll
    for (int i = 0; i < E; i++)
        if (c * E + i < n)
            d[c * E + i] = u.e[i];
}
/* The lines a thread of a small reduction keeps in flight. */
#define SHMEMDI_LL_U 4
/* The chunks of pass c0 of the n elements at own into mine. */
template <typename T>
SHMEMDI_INLINE void shmemdi_ll_own(shmemdi_chunk<T> (&mine)[SHMEMDI_LL_U], const T *own, size_t c0,
                                   size_t nth, size_t chunks, size_t n)
{
#pragma unroll
    for (int u = 0; u < SHMEMDI_LL_U; u++)
        if (c0 + u * nth < chunks)
            mine[u] = shmemdi_chunk_at(own, c0 + u * nth, n);
}
/* Where member k's heap is mapped: for the world team of 2, PE k's
 * entry of the state's constant peer_c, read with no branch on k (the
 * load issued before k is known; on one H200 the branch of
 * shmemdi_peer_base took 0.15 us of a 16 KiB one-block sum). */
template <int NP>
SHMEMDI_INLINE char *shmemdi_ll_peer(const shmemdi_tm *t, int k)
{
    if (NP == 2 && SHMEMD_PEERS_C >= 2 && !t->pes)
        return shmemd_state_c.peer_c[k & 1];
    return shmemdi_peer_base(t->pe(k));
}
/* The pushes of pass c0 of a small reduction's flagged words: chunks c0,
 * c0 + nth, ... (U of them, those below chunks) of the elements for each
 * other member (and this member itself when self), as 16-byte lines of
 * two flagged words, into this member's slot (off) of that member's push
 * area.  The chunks are mine's where use_mine says so (and not scatter:
 * the elements of every member are this member's src), else loaded, U loads before their
 * stores (the stores, asm that may touch any memory as far as the
 * compiler knows, would keep each next load behind them). */
template <int NP, typename T>
SHMEMDI_INLINE void shmemdi_ll_push(const shmemdi_tm *t, const T *src, size_t n, int scatter,
                                    int self, int use_mine,
                                    const shmemdi_chunk<T> (&mine)[SHMEMDI_LL_U], size_t c0,
                                    size_t nth, size_t chunks, size_t off,
                                    unsigned long long flag)
{
    const int U = SHMEMDI_LL_U, np = NP ? NP : t->n_pes;
    for (int j = 0; j < np - 1 + self; j++) {
        int k = shmemdi_push_to(t, j);
        const T *s = src + (scatter ? (size_t)k * n : 0);
        shmemdi_w2 *w = (shmemdi_w2 *)(shmemdi_ll_peer<NP>(t, k) + off);
        shmemdi_chunk<T> u[U];
#pragma unroll
        for (int i = 0; i < U; i++)
            if (c0 + i * nth < chunks)
                u[i] = use_mine && !scatter ? mine[i] : shmemdi_chunk_at(s, c0 + i * nth, n);
#pragma unroll
        for (int i = 0; i < U; i++)
            if (c0 + i * nth < chunks)
                shmemdi_st_w2(w + c0 + i * nth, flag | u[i].w[0], flag | u[i].w[1]);
    }
}
/* Pass c0 of a small reduction's flagged words reduced into acc: each
 * member's lines of this member's area (polled until their flags are the
 * reduction's; a line polled again only where one is not there yet), or,
 * for this member, mine where use_mine says so, in the order of the
 * members. */
template <int NP, typename OP, typename T>
SHMEMDI_INLINE void shmemdi_ll_gather(const shmemdi_tm *t, const char *area, size_t slot,
                                      unsigned long long flag, int use_mine,
                                      const shmemdi_chunk<T> (&mine)[SHMEMDI_LL_U], size_t c0,
                                      size_t nth, size_t chunks,
                                      shmemdi_chunk<T> (&acc)[SHMEMDI_LL_U])
{
    const int E = 8 / (int)sizeof(T), U = SHMEMDI_LL_U, np = NP ? NP : t->n_pes;
    for (int j = 0; j < np; j++) {
        shmemdi_chunk<T> v[U];
        if (j == t->my_pe && use_mine) {
#pragma unroll
            for (int u = 0; u < U; u++)
                v[u] = mine[u];
        } else {
            const shmemdi_w2 *w = (const shmemdi_w2 *)(area + (size_t)j * slot) + c0;
            shmemdi_w2 l[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                if (c0 + u * nth < chunks)
                    l[u] = shmemdi_ld_w2(w + u * nth);
#pragma unroll
            for (int u = 0; u < U; u++) {
                if (c0 + u * nth >= chunks)
                    continue;
                shmemdi_backoff bo = { 0 };
                while ((l[u].a & ~0xffffffffull) != flag || (l[u].b & ~0xffffffffull) != flag) {
                    bo.pause();
                    l[u] = shmemdi_ld_w2(w + u * nth);
                }
                v[u].w[0] = (unsigned int)l[u].a;
                v[u].w[1] = (unsigned int)l[u].b;
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            if (j == 0) {
                acc[u] = v[u];
            } else {
#pragma unroll
                for (int i = 0; i < E; i++)
                    acc[u].e[i] = OP::f(acc[u].e[i], v[u].e[i]);
            }
        }
    }
}
/* The same into the chunks of dest. */
template <int NP, typename OP, typename T>
SHMEMDI_INLINE void shmemdi_ll_take(const shmemdi_tm *t, const char *area, size_t slot,
                                    unsigned long long flag, int use_mine,
                                    const shmemdi_chunk<T> (&mine)[SHMEMDI_LL_U],
                                    size_t c0, size_t nth, size_t chunks, T *dest, size_t n)
{
    shmemdi_chunk<T> acc[SHMEMDI_LL_U];
    shmemdi_ll_gather<NP, OP>(t, area, slot, flag, use_mine, mine, c0, nth, chunks, acc);
#pragma unroll
    for (int u = 0; u < SHMEMDI_LL_U; u++)
        if (c0 + u * nth < chunks)
            shmemdi_chunk_put(dest, c0 + u * nth, n, acc[u]);
}
/* The flagged words' common case in one straight line (shmemdi_reduce_ll):
 * a reduce (not a reducescatter), one pass, whole 8-byte chunks (own and
 * dest aligned to 8 bytes, n elements a multiple of 8 bytes), nothing a
 * thread writes into dest read by another.  Each thread loads its chunks
 * before the team's number (whose load waits on the state's constants),
 * pushes them to every other member, and after the scope's
 * synchronization reduces them with the other members' lines in the
 * order of the members (shmemdi_ll_gather).  Without the chunks' and the
 * destination's checks of the general helpers (shmemdi_chunk_at,
 * shmemdi_chunk_put), and with the source's loads ahead of the number's,
 * a 16 KiB one-block float sum's kernel on one H200 took 1.9-2.0 us
 * against 2.3, 4 KiB 1.3-1.4 against 1.5 (the later of 2 PEs, whose
 * partner's lines are there; docs/device.md). */
template <int S, typename OP, int NP, typename T>
SHMEMDI_INLINE void shmemdi_ll_lean(shmemd_team_t team, const shmemdi_tm *t, T *dest,
                                    const T *own, size_t chunks, char *area, size_t slot,
                                    size_t off)
{
    const int U = SHMEMDI_LL_U, np = NP ? NP : t->n_pes;
    const size_t tid = (size_t)shmemdi_tid<S>(), nth = (size_t)shmemdi_nth<S>();
    const unsigned long long *s = (const unsigned long long *)own + tid;
    shmemdi_chunk<T> m[U];
#pragma unroll
    for (int u = 0; u < U; u++)
        if (tid + u * nth < chunks) {
            unsigned long long w = s[u * nth];
            m[u].w[0] = (unsigned int)w;
            m[u].w[1] = (unsigned int)(w >> 32);
        }
    unsigned long long e = __ldcg(shmemd_state_c.coll_seq + team) + 1;
    unsigned long long flag = (unsigned long long)((unsigned)e ? (unsigned)e : 1u) << 32;
    size_t half = (e & 1) * SHMEMD_PUSH_BYTES;
    for (int j = 0; j < np - 1; j++) {
        shmemdi_w2 *w = (shmemdi_w2 *)(shmemdi_ll_peer<NP>(t, shmemdi_push_to(t, j)) + off +
                                       half) + tid;
#pragma unroll
        for (int u = 0; u < U; u++)
            if (tid + u * nth < chunks)
                shmemdi_st_w2(w + u * nth, flag | m[u].w[0], flag | m[u].w[1]);
    }
    shmemdi_scope_sync<S>();
    shmemdi_chunk<T> acc[U];
    shmemdi_ll_gather<NP, OP>(t, area + half, slot, flag, 1, m, tid, nth, chunks, acc);
    unsigned long long *d = (unsigned long long *)dest + tid;
#pragma unroll
    for (int u = 0; u < U; u++)
        if (tid + u * nth < chunks)
            d[u * nth] = (unsigned long long)acc[u].w[1] << 32 | acc[u].w[0];
    if (tid == 0)
        shmemd_state_c.coll_seq[team] = e;
    shmemdi_scope_sync<S>();
}
/* The smallest reductions over mapped members synchronize not at all:
 * each member stores its elements for every other member into its slot
 * of that member's push area as 16-byte lines of two 8-byte words, each 4
 * data bytes and a flag (the team's small reduction number, never 0),
 * each word single-copy atomic at system scope, so a word whose flag is
 * the number carries its data; each member reads the lines of its own
 * area, U lines a thread in flight (their loads issued together, the
 * flags checked after), and reduces them with its own elements, in the
 * order of the members, into dest.  The number names the half of the
 * area, which a member writes again only two small reductions of the team
 * later, when it has had every member's part of the one between (its
 * words, or its synchronization), so every member has read its own.
 *
 * Where nothing a thread writes into dest is read by another thread (dest
 * clear of the whole source, or the source itself outside scatter: a
 * thread writes the chunks it read), each thread pushes its chunks, then
 * reduces the same chunks with its own elements (still in registers when
 * one pass holds them).  Otherwise every pushed chunk is read (a member's
 * own, when dest overlaps them without being them, copied into its own
 * slot) before dest is written.  Either way the scope synchronizes
 * between the pushes and the first wait: a warp waits for lines that
 * the other member's warps push, which may wait for a later warp of this
 * block, and a scheduler that runs a block's warps one at a time until
 * they block at a synchronization (compute-sanitizer's racecheck) would
 * never come back from the first wait (gpu_device hung there without it,
 * and passed in 21 s with it, on two H200 on 11-30).  NP: the members, when known at compile time (2), else 0 (on
 * one H200, 2 PEs, a 16 KiB one-block sum's kernel took 2.9 us with NP 2,
 * 3.5 with the members' count read at run time; docs/device.md).
 * 0 when it does not apply (more than SHMEMD_LL_BYTES, the team's slot
 * has no area, the lines do not fit, elements of more than 8 bytes). */
template <int S, typename OP, int NP, typename T>
SHMEMDI_INLINE int shmemdi_reduce_ll(shmemd_team_t team, const shmemdi_tm *t, T *dest,
                                     const T *src, size_t n, int scatter)
{
    const int E = 8 / (int)sizeof(T), U = SHMEMDI_LL_U;
    if (sizeof(T) > 8 || 8 % sizeof(T) != 0 || n * sizeof(T) > SHMEMD_LL_BYTES)
        return 0;
    size_t chunks = (n + (size_t)E - 1) / (size_t)E, slot = chunks * 16;
    char *area = shmemdi_push_area(team, t, 1, slot);
    if (!area)
        return 0;
    const T *own = src + (scatter ? (size_t)t->my_pe * n : 0);
    size_t total = scatter ? n * (size_t)t->n_pes : n;
    int fused = dest + n <= src || src + total <= dest || (!scatter && dest == src);
    size_t tid = (size_t)shmemdi_tid<S>(), nth = (size_t)shmemdi_nth<S>();
    size_t off = (size_t)(area - shmemd_state_c.heap_base) + (size_t)t->my_pe * slot;
    /* One pass: every thread's chunks in mine at once (the chunks of a
     * thread's pass c0 are c0, c0 + nth, ..., U of them). */
    int one_pass = chunks <= (size_t)U * nth;
    if (!scatter && fused && one_pass && n % (size_t)E == 0 &&
        (((uintptr_t)src | (uintptr_t)dest) & 7) == 0) {
        shmemdi_ll_lean<S, OP, NP>(team, t, dest, own, chunks, area, slot, off);
        return 1;
    }
    unsigned long long e = __ldcg(shmemd_state_c.coll_seq + team) + 1;
    int in_place = fused || shmemdi_own_in_place(dest, own, n, 0);
    shmemdi_chunk<T> mine[U];
    unsigned long long flag = (unsigned long long)((unsigned)e ? (unsigned)e : 1u) << 32;
    size_t half = (e & 1) * SHMEMD_PUSH_BYTES;
    if (fused && one_pass) {
        /* Every chunk of this thread in mine, pushed and taken in one
         * straight line: the loops of the general case below, with
         * branches on what the compiler cannot know, took 0.4 us more
         * of a 16 KiB one-block sum's kernel on one H200 (docs/device.md). */
        shmemdi_ll_own(mine, own, tid, nth, chunks, n);
        shmemdi_ll_push<NP>(t, src, n, scatter, 0, 1, mine, tid, nth, chunks, off + half, flag);
        shmemdi_scope_sync<S>();
        shmemdi_ll_take<NP, OP>(t, area + half, slot, flag, 1, mine, tid, nth, chunks, dest, n);
        if (tid == 0)
            shmemd_state_c.coll_seq[team] = e;
        shmemdi_scope_sync<S>();
        return 1;
    }
    /* Every pass's pushes before any wait: with blocks of other sizes on
     * other members, a thread waiting in one pass for what another
     * member pushes in a later one would wait for itself. */
    for (size_t c0 = tid; c0 < chunks; c0 += U * nth) {
        if (fused)
            shmemdi_ll_own(mine, own, c0, nth, chunks, n);
        shmemdi_ll_push<NP>(t, src, n, scatter, !in_place, fused, mine, c0, nth, chunks,
                            off + half, flag);
    }
    shmemdi_scope_sync<S>();
    for (size_t c0 = tid; c0 < chunks; c0 += U * nth) {
        if (in_place)
            shmemdi_ll_own(mine, own, c0, nth, chunks, n);
        shmemdi_ll_take<NP, OP>(t, area + half, slot, flag, in_place, mine, c0, nth, chunks, dest,
                                n);
    }
    if (tid == 0)
        shmemd_state_c.coll_seq[team] = e;
    shmemdi_scope_sync<S>();
    return 1;
}
/* The world team's smallest reductions where this GPU maps every PE
 * (world_mapped) and there are 2: the checks of shmemdi_coll_team,
 * shmemdi_push_area and shmemdi_reduce_ll's way to shmemdi_ll_lean as one
 * test with no branch between them, then shmemdi_ll_lean.  0 where it
 * does not apply (the general way then checks again, and names what is
 * wrong).  On one H200, 2 PEs, a one-block float sum in a graph loop took
 * 3.01-3.02 us a launch at 16 KiB against 3.08-3.13 through the general
 * checks, 2.22 at 4 KiB against 2.32-2.33 (docs/device.md). */
template <int S, typename OP, typename T>
SHMEMDI_INLINE int shmemdi_ll_world(shmemd_team_t team, T *dest, const T *src, size_t n,
                                    int scatter)
{
    const int E = 8 / (int)sizeof(T);
    static_assert(SHMEMD_LL_BYTES / 8 * 16 * 2 <= SHMEMD_PUSH_BYTES / 2,
                  "the flagged words of 2 members fit in a push area's first half");
    if (sizeof(T) > 8 || 8 % sizeof(T) != 0)
        return 0;
    size_t chunks = n / (size_t)E, bytes = n * sizeof(T);
    unsigned long long off = (unsigned long long)((const char *)src - shmemd_state_c.heap_base);
    unsigned long long size = shmemd_state_c.heap_size;
    /* chunks bounds n, so bytes did not wrap where the test passes. */
    int ok = (team == SHMEMD_TEAM_WORLD) & !scatter & (shmemd_state_c.world_mapped != 0) &
             (shmemd_state_c.n_pes == 2) & (shmemd_state_c.push != 0) & (off < size) &
             (bytes <= size - off) & (bytes <= SHMEMD_LL_BYTES) & (n % (size_t)E == 0) &
             ((((uintptr_t)src | (uintptr_t)dest) & 7) == 0) &
             ((dest + n <= src) | (src + n <= dest) | (dest == src)) &
             (chunks <= (size_t)SHMEMDI_LL_U * (size_t)shmemdi_nth<S>());
    if (!ok)
        return 0;
    shmemdi_tm tm;
    tm.n_pes = 2;
    tm.my_pe = shmemd_state_c.my_pe;
    tm.pes = 0;
    char *area = shmemd_state_c.push;
    size_t slot = chunks * 16;
    shmemdi_ll_lean<S, OP, 2>(team, &tm, dest, src, chunks, area, slot,
                              (size_t)(area - shmemd_state_c.heap_base) + (size_t)tm.my_pe * slot);
    return 1;
}
/* A reduction that neither the flagged words nor the pushes take
 * (shmemdi_reduce). */
template <int S, typename OP, typename T>
SHMEMDI_INLINE int shmemdi_reduce_sync(shmemd_team_t team, shmemdi_tm tm, int px, T *dest,
                                         const T *src, size_t n, int scatter)
{
    const shmemdi_tm *t = &tm;
    size_t first = scatter ? (size_t)t->my_pe * n : 0;
    size_t total = scatter ? n * (size_t)t->n_pes : n;
    shmemdi_sync_scoped<S>(team, 1);
    if (px) {
        int overlap = !(dest + n <= src || src + total <= dest);
        shmemdi_reduce_px<S, OP>(team, tm, dest, src, n, first, overlap);
        if (!overlap)
            shmemdi_sync_scoped<S>(team, 0);
        return 0;
    }
    if (dest + n <= src || src + total <= dest) {
        shmemdi_reduce_range<S, OP>(t, dest, src, first, 0, n);
        shmemdi_sync_scoped<S>(team, 0);
        return 0;
    }
    /* The destination overlaps the source, which the others read: each
     * chunk goes through the scratch, and is written after a
     * synchronization says every member has read it. */
    size_t chunk = SHMEMD_SCRATCH_BYTES / sizeof(T);
    T *scratch = (T *)shmemd_state_c.scratch;
    for (size_t lo = 0; lo < n; lo += chunk) {
        size_t hi = n - lo < chunk ? n : lo + chunk;
        shmemdi_reduce_range<S, OP>(t, scratch, src, first, lo, hi);
        shmemdi_sync_scoped<S>(team, 0);
        for (size_t i = lo + (size_t)shmemdi_tid<S>(); i < hi; i += (size_t)shmemdi_nth<S>())
            dest[i] = scratch[i - lo];
        shmemdi_scope_sync<S>();
    }
    return 0;
}
/* The reduction over the members of their src[first, first + n) into
 * dest[0, n): first 0 (reduce; every src holds n elements), or this
 * member's block of n (scatter: reducescatter; every src holds n for each
 * member).  The pushes' two halves are out of line: inline, they took
 * the flagged words' registers (a 16 KiB one-block sum's kernel on one
 * H200: 3.5 to 4.5 us against 2.9).  The other ways (shmemdi_reduce_sync)
 * are inline: out of line, the reloads of the registers saved around the
 * call went to L2 after its synchronization's acquire (256 KiB: 14.5 us
 * against 12.0). */
template <int S, typename OP, typename T>
SHMEMDI_INLINE int shmemdi_reduce(shmemd_team_t team, T *dest, const T *src, size_t n, int scatter)
{
    if (shmemdi_ll_world<S, OP>(team, dest, src, n, scatter))
        return 0;
    int px = 0;
    shmemdi_tm tm;
    if (!shmemdi_coll_team(team, src, n * sizeof(T), scatter, &px, &tm))
        return -1;
    if (!px && (tm.n_pes == 2 ? shmemdi_reduce_ll<S, OP, 2>(team, &tm, dest, src, n, scatter)
                              : shmemdi_reduce_ll<S, OP, 0>(team, &tm, dest, src, n, scatter)))
        return 0;
    if (!px && shmemdi_reduce_push<S, OP>(team, &tm, dest, src, n, scatter))
        return 0;
    return shmemdi_reduce_sync<S, OP>(team, tm, px, dest, src, n, scatter);
}

#define SHMEMDI_COLL_TYPED(T, N) \
    SHMEMDI_SCOPED_R(int, shmemd_##N##_broadcast, \
                        (shmemd_team_t team, T *dest, const T *src, size_t nelems, int PE_root), \
                        shmemdi_broadcast, (team, dest, src, nelems, PE_root)) \
    SHMEMDI_SCOPED_R(int, shmemd_##N##_fcollect, \
                        (shmemd_team_t team, T *dest, const T *src, size_t nelems), \
                        shmemdi_fcollect, (team, dest, src, nelems)) \
    SHMEMDI_SCOPED_R(int, shmemd_##N##_alltoall, \
                        (shmemd_team_t team, T *dest, const T *src, size_t nelems), \
                        shmemdi_alltoall, (team, dest, src, nelems))
SHMEMI_RMA_DEVICE_TYPES(SHMEMDI_COLL_TYPED)
#undef SHMEMDI_COLL_TYPED
SHMEMDI_SCOPED_R(int, shmemd_broadcastmem,
                    (shmemd_team_t team, void *dest, const void *src, size_t nelems, int PE_root),
                    shmemdi_broadcast, (team, (char *)dest, (const char *)src, nelems, PE_root))
SHMEMDI_SCOPED_R(int, shmemd_fcollectmem, (shmemd_team_t team, void *dest, const void *src, size_t nelems),
                    shmemdi_fcollect, (team, (char *)dest, (const char *)src, nelems))
SHMEMDI_SCOPED_R(int, shmemd_alltoallmem, (shmemd_team_t team, void *dest, const void *src, size_t nelems),
                    shmemdi_alltoall, (team, (char *)dest, (const char *)src, nelems))

/* The reductions of one operation, as scoped routines (all: reduce; scatter:
 * reducescatter). */
template <typename OP> struct shmemdi_reduce_of {
    template <int S, typename T>
    static __device__ int all(shmemd_team_t team, T *d, const T *s, size_t n)
    { return shmemdi_reduce<S, OP>(team, d, s, n, 0); }
    template <int S, typename T>
    static __device__ int scatter(shmemd_team_t team, T *d, const T *s, size_t n)
    { return shmemdi_reduce<S, OP>(team, d, s, n, 1); }
};
#define SHMEMDI_REDUCE_OPS(T, N, OPN, OP) \
    SHMEMDI_SCOPED_R(int, shmemd_##N##_##OPN##_reduce, \
                     (shmemd_team_t team, T *dest, const T *source, size_t nreduce), \
                     shmemdi_reduce_of<OP>::template all, (team, dest, source, nreduce)) \
    SHMEMDI_SCOPED_R(int, shmemd_##N##_##OPN##_reducescatter, \
                     (shmemd_team_t team, T *dest, const T *source, size_t nreduce), \
                     shmemdi_reduce_of<OP>::template scatter, (team, dest, source, nreduce))
#define SHMEMDI_REDUCE_BITWISE(T, N) \
    SHMEMDI_REDUCE_OPS(T, N, and, shmemdi_op_and) \
    SHMEMDI_REDUCE_OPS(T, N, or, shmemdi_op_or) \
    SHMEMDI_REDUCE_OPS(T, N, xor, shmemdi_op_xor)
#define SHMEMDI_REDUCE_ARITH(T, N) \
    SHMEMDI_REDUCE_OPS(T, N, min, shmemdi_op_min) \
    SHMEMDI_REDUCE_OPS(T, N, max, shmemdi_op_max) \
    SHMEMDI_REDUCE_OPS(T, N, sum, shmemdi_op_sum) \
    SHMEMDI_REDUCE_OPS(T, N, prod, shmemdi_op_prod)
SHMEMI_REDUCE_BITWISE_TYPES(SHMEMDI_REDUCE_BITWISE)
SHMEMI_REDUCE_MINMAX_DEVICE_TYPES(SHMEMDI_REDUCE_ARITH)
#undef SHMEMDI_REDUCE_BITWISE
#undef SHMEMDI_REDUCE_ARITH
#undef SHMEMDI_REDUCE_OPS

#endif
