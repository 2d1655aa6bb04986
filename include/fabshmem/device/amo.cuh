/*
 * Device API: the atomic memory operations on the PEs this GPU maps
 * (docs/device.md): system-scope atomics on the peer's word, so that a
 * kernel's AMOs are atomic with every other GPU's and with the host's on
 * mapped memory.  Included by <fabshmem/shmem_device.cuh>.
 */
#ifndef FABSHMEM_DEVICE_AMO_CUH
#define FABSHMEM_DEVICE_AMO_CUH

#include <fabshmem/device/base.cuh>

/* The word of PE pe that an AMO on dest touches, or 0 (error recorded). */
template <typename T> SHMEMDI_INLINE typename shmemdi_word<sizeof(T)>::t *shmemdi_amo_word(
    const T *dest, int pe)
{
    return (typename shmemdi_word<sizeof(T)>::t *)shmemdi_peer_n(dest, sizeof(T), pe,
                                                                 SHMEMD_RTN_AMO);
}

enum { SHMEMDI_AMO_ADD, SHMEMDI_AMO_AND, SHMEMDI_AMO_OR, SHMEMDI_AMO_XOR, SHMEMDI_AMO_SWAP };

template <typename T> SHMEMDI_INLINE T shmemdi_amo(int op, T *dest, T value, int pe)
{
    typedef typename shmemdi_word<sizeof(T)>::t W;
    W *w = shmemdi_amo_word(dest, pe), v = shmemdi_bits<W>(value), r;
    if (!w)
        return (T)0;
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
    W *w = shmemdi_amo_word(src, pe);
    return w ? shmemdi_from_bits<T>(shmemdi_ld_acq(w)) : (T)0;
}
template <typename T> SHMEMDI_INLINE T shmemdi_amo_cswap(T *dest, T cond, T value, int pe)
{
    typedef typename shmemdi_word<sizeof(T)>::t W;
    W *w = shmemdi_amo_word(dest, pe);
    return w ? shmemdi_from_bits<T>(shmemdi_a_cas(w, shmemdi_bits<W>(cond),
                                                  shmemdi_bits<W>(value)))
             : (T)0;
}

/* fetch, set, swap: the extended types (float and double too). */
#define SHMEMDI_AMO_EXTENDED(T, N) \
    SHMEMDI_INLINE T shmemd_##N##_atomic_fetch(const T *source, int pe) \
    { return shmemdi_amo_fetch(source, pe); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_set(T *dest, T value, int pe) \
    { (void)shmemdi_amo(SHMEMDI_AMO_SWAP, dest, value, pe); } \
    SHMEMDI_INLINE T shmemd_##N##_atomic_swap(T *dest, T value, int pe) \
    { return shmemdi_amo(SHMEMDI_AMO_SWAP, dest, value, pe); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe) \
    { *fetch = shmemdi_amo_fetch(source, pe); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) \
    { *fetch = shmemdi_amo(SHMEMDI_AMO_SWAP, dest, value, pe); }
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
    { return shmemdi_amo(SHMEMDI_AMO_ADD, dest, (T)1, pe); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) \
    { *fetch = shmemdi_amo(SHMEMDI_AMO_ADD, dest, (T)1, pe); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_inc(T *dest, int pe) \
    { (void)shmemdi_amo(SHMEMDI_AMO_ADD, dest, (T)1, pe); } \
    SHMEMDI_INLINE T shmemd_##N##_atomic_fetch_add(T *dest, T value, int pe) \
    { return shmemdi_amo(SHMEMDI_AMO_ADD, dest, value, pe); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe) \
    { *fetch = shmemdi_amo(SHMEMDI_AMO_ADD, dest, value, pe); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_add(T *dest, T value, int pe) \
    { (void)shmemdi_amo(SHMEMDI_AMO_ADD, dest, value, pe); }
SHMEMI_AMO_STANDARD_TYPES(SHMEMDI_AMO_STANDARD)
#undef SHMEMDI_AMO_STANDARD

/* and, or, xor and their fetching forms: the bitwise types. */
#define SHMEMDI_AMO_BITWISE_OP(T, N, OPN, OP) \
    SHMEMDI_INLINE T shmemd_##N##_atomic_fetch_##OPN(T *dest, T value, int pe) \
    { return shmemdi_amo(OP, dest, value, pe); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_fetch_##OPN##_nbi(T *fetch, T *dest, T value, int pe) \
    { *fetch = shmemdi_amo(OP, dest, value, pe); } \
    SHMEMDI_INLINE void shmemd_##N##_atomic_##OPN(T *dest, T value, int pe) \
    { (void)shmemdi_amo(OP, dest, value, pe); }
#define SHMEMDI_AMO_BITWISE(T, N) \
    SHMEMDI_AMO_BITWISE_OP(T, N, and, SHMEMDI_AMO_AND) \
    SHMEMDI_AMO_BITWISE_OP(T, N, or, SHMEMDI_AMO_OR) \
    SHMEMDI_AMO_BITWISE_OP(T, N, xor, SHMEMDI_AMO_XOR)
SHMEMI_AMO_BITWISE_TYPES(SHMEMDI_AMO_BITWISE)
#undef SHMEMDI_AMO_BITWISE
#undef SHMEMDI_AMO_BITWISE_OP

#endif
