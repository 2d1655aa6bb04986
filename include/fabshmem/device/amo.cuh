/*
 * Device API: the atomic memory operations (docs/device.md): on the PEs
 * this GPU maps, system-scope atomics on the peer's word, so that a
 * kernel's AMOs are atomic with every other GPU's and with the host's on
 * mapped memory; on the others, SHMEMD_PX_AMO requests to the proxy
 * (proxy.cuh), which the host carries out with its own AMOs (the fetching
 * ones wait for the old value).  Included by <fabshmem/shmem_device.cuh>.
 */
#ifndef FABSHMEM_DEVICE_AMO_CUH
#define FABSHMEM_DEVICE_AMO_CUH

#include <fabshmem/device/base.cuh>
#include <fabshmem/device/proxy.cuh>

/* The word of PE pe that an AMO on dest touches, or 0 (error recorded,
 * or *px set when the proxy carries it). */
template <typename T> SHMEMDI_INLINE typename shmemdi_word<sizeof(T)>::t *shmemdi_amo_word(
    const T *dest, int pe, int *px)
{
    return (typename shmemdi_word<sizeof(T)>::t *)shmemdi_peer_px(dest, sizeof(T), pe,
                                                                  SHMEMD_RTN_AMO, px);
}

enum { SHMEMDI_AMO_ADD, SHMEMDI_AMO_AND, SHMEMDI_AMO_OR, SHMEMDI_AMO_XOR, SHMEMDI_AMO_SWAP };

/* The proxy's SHMEMD_AMO_* of op, fetching or not (swap not fetching:
 * set). */
SHMEMDI_INLINE int shmemdi_px_amo_of(int op, int fetch)
{
    switch (op) {
    case SHMEMDI_AMO_ADD: return fetch ? SHMEMD_AMO_FETCH_ADD : SHMEMD_AMO_ADD;
    case SHMEMDI_AMO_AND: return fetch ? SHMEMD_AMO_FETCH_AND : SHMEMD_AMO_AND;
    case SHMEMDI_AMO_OR: return fetch ? SHMEMD_AMO_FETCH_OR : SHMEMD_AMO_OR;
    case SHMEMDI_AMO_XOR: return fetch ? SHMEMD_AMO_FETCH_XOR : SHMEMD_AMO_XOR;
    default: return fetch ? SHMEMD_AMO_SWAP : SHMEMD_AMO_SET;
    }
}

/* op on PE pe's dest; fetch: the caller uses the old value (through the
 * proxy, only a fetching AMO waits for it). */
template <typename T> SHMEMDI_INLINE T shmemdi_amo(int op, T *dest, T value, int pe, int fetch)
{
    typedef typename shmemdi_word<sizeof(T)>::t W;
    int px = 0;
    W *w = shmemdi_amo_word(dest, pe, &px), v = shmemdi_bits<W>(value), r;
    if (!w)
        return px ? shmemdi_from_bits<T>((W)shmemdi_px_amo(shmemdi_px_amo_of(op, fetch), dest,
                                                           (int)sizeof(T), v, 0, pe,
                                                           SHMEMD_RTN_AMO))
                  : (T)0;
    switch (op) {
    case SHMEMDI_AMO_ADD: r = shmemdi_a_add(w, v); break;
    case SHMEMDI_AMO_AND: r = shmemdi_a_and(w, v); break;
    case SHMEMDI_AMO_OR: r = shmemdi_a_or(w, v); break;
    case SHMEMDI_AMO_XOR: r = shmemdi_a_xor(w, v); break;
    default: r = shmemdi_a_exch(w, v); break;
    }
    return shmemdi_from_bits<T>(r);
}
template <typename T> SHMEMDI_INLINE T shmemdi_amo_fetch(const T *src, int pe)
{
    typedef typename shmemdi_word<sizeof(T)>::t W;
    int px = 0;
    W *w = shmemdi_amo_word(src, pe, &px);
    if (w)
        return shmemdi_from_bits<T>(shmemdi_ld_acq(w));
    return px ? shmemdi_from_bits<T>((W)shmemdi_px_amo(SHMEMD_AMO_FETCH, src, (int)sizeof(T), 0,
                                                       0, pe, SHMEMD_RTN_AMO))
              : (T)0;
}
template <typename T> SHMEMDI_INLINE T shmemdi_amo_cswap(T *dest, T cond, T value, int pe)
{
    typedef typename shmemdi_word<sizeof(T)>::t W;
    int px = 0;
    W *w = shmemdi_amo_word(dest, pe, &px);
    if (w)
        return shmemdi_from_bits<T>(shmemdi_a_cas(w, shmemdi_bits<W>(cond), shmemdi_bits<W>(value)));
    return px ? shmemdi_from_bits<T>((W)shmemdi_px_amo(SHMEMD_AMO_CSWAP, dest, (int)sizeof(T),
                                                       shmemdi_bits<W>(value),
                                                       shmemdi_bits<W>(cond), pe, SHMEMD_RTN_AMO))
              : (T)0;
}

/* fetch, set, swap: the extended types (float and double too). */
#define SHMEMDI_AMO_EXTENDED(T, N) \
    SHMEMDI_INLINE T shmemd_##N##_atomic_fetch(const T *source, int pe) \
    { return shmemdi_amo_fetch(source, pe); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_set(T *dest, T value, int pe) \
    { (void)shmemdi_amo(SHMEMDI_AMO_SWAP, dest, value, pe, 0); } \
    SHMEMDI_INLINE T shmemd_##N##_atomic_swap(T *dest, T value, int pe) \
    { return shmemdi_amo(SHMEMDI_AMO_SWAP, dest, value, pe, 1); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe) \
    { *fetch = shmemdi_amo_fetch(source, pe); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) \
    { *fetch = shmemdi_amo(SHMEMDI_AMO_SWAP, dest, value, pe, 1); }
SHMEMI_AMO_EXTENDED_TYPES(SHMEMDI_AMO_EXTENDED)
#undef SHMEMDI_AMO_EXTENDED

/* compare_swap, inc, add and their fetching forms: the standard types. */
#define SHMEMDI_AMO_STANDARD(T, N) \
    SHMEMDI_INLINE T shmemd_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) \
    { return shmemdi_amo_cswap(dest, cond, value, pe); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, \
                                                             int pe) \
    { *fetch = shmemdi_amo_cswap(dest, cond, value, pe); } \
    SHMEMDI_INLINE T shmemd_##N##_atomic_fetch_inc(T *dest, int pe) \
    { return shmemdi_amo(SHMEMDI_AMO_ADD, dest, (T)1, pe, 1); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) \
    { *fetch = shmemdi_amo(SHMEMDI_AMO_ADD, dest, (T)1, pe, 1); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_inc(T *dest, int pe) \
    { (void)shmemdi_amo(SHMEMDI_AMO_ADD, dest, (T)1, pe, 0); } \
    SHMEMDI_INLINE T shmemd_##N##_atomic_fetch_add(T *dest, T value, int pe) \
    { return shmemdi_amo(SHMEMDI_AMO_ADD, dest, value, pe, 1); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe) \
    { *fetch = shmemdi_amo(SHMEMDI_AMO_ADD, dest, value, pe, 1); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_add(T *dest, T value, int pe) \
    { (void)shmemdi_amo(SHMEMDI_AMO_ADD, dest, value, pe, 0); }
SHMEMI_AMO_STANDARD_TYPES(SHMEMDI_AMO_STANDARD)
#undef SHMEMDI_AMO_STANDARD

/* and, or, xor and their fetching forms: the bitwise types. */
#define SHMEMDI_AMO_BITWISE_OP(T, N, OPN, OP) \
    SHMEMDI_INLINE T shmemd_##N##_atomic_fetch_##OPN(T *dest, T value, int pe) \
    { return shmemdi_amo(OP, dest, value, pe, 1); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_fetch_##OPN##_nbi(T *fetch, T *dest, T value, int pe) \
    { *fetch = shmemdi_amo(OP, dest, value, pe, 1); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_##OPN(T *dest, T value, int pe) \
    { (void)shmemdi_amo(OP, dest, value, pe, 0); }
#define SHMEMDI_AMO_BITWISE(T, N) \
    SHMEMDI_AMO_BITWISE_OP(T, N, and, SHMEMDI_AMO_AND) \
    SHMEMDI_AMO_BITWISE_OP(T, N, or, SHMEMDI_AMO_OR) \
    SHMEMDI_AMO_BITWISE_OP(T, N, xor, SHMEMDI_AMO_XOR)
SHMEMI_AMO_BITWISE_TYPES(SHMEMDI_AMO_BITWISE)
#undef SHMEMDI_AMO_BITWISE
#undef SHMEMDI_AMO_BITWISE_OP

#endif
