/*
 * Device API: queries, shmemd_ptr and RMA (p, g, put, get, their _nbi,
 * _warp and _block forms, iput, iget) for the PEs this GPU maps
 * (docs/device.md).  Included by <fabshmem/shmem_device.cuh>.
 */
#ifndef FABSHMEM_DEVICE_RMA_CUH
#define FABSHMEM_DEVICE_RMA_CUH

#include <fabshmem/device/base.cuh>

SHMEMDI_INLINE int shmemd_my_pe(void) { return shmemd_state_c.my_pe; }
SHMEMDI_INLINE int shmemd_n_pes(void) { return shmemd_state_c.n_pes; }

/* The address at which PE pe's copy of dest is mapped here, or 0 when this
 * GPU does not map it (no error: as shmem_ptr). */
SHMEMDI_INLINE void *shmemd_ptr(const void *dest, int pe)
{
    unsigned long long off = (unsigned long long)((const char *)dest - shmemd_state_c.heap_base);
    if ((unsigned)pe >= (unsigned)shmemd_state_c.n_pes || off >= shmemd_state_c.heap_size ||
        !shmemd_state_c.peer_base[pe])
        return 0;
    return shmemd_state_c.peer_base[pe] + off;
}

/* Blocking and non-blocking puts are the same stores here: both return
 * when the source may be reused (its loads done); the data is visible at
 * the target after shmemd_quiet (or a barrier, or a signal's release). */
template <int S>
SHMEMDI_INLINE void shmemdi_put(void *dest, const void *src, size_t n, int pe, int rtn)
{
    char *r = shmemdi_peer_n(dest, n, pe, rtn);
    if (r)
        shmemdi_copy(r, (const char *)src, n, shmemdi_tid<S>(), shmemdi_nth<S>());
    shmemdi_scope_sync<S>();
}
template <int S>
SHMEMDI_INLINE void shmemdi_get(void *dest, const void *src, size_t n, int pe, int rtn)
{
    const char *r = shmemdi_peer_n(src, n, pe, rtn);
    if (r)
        shmemdi_copy((char *)dest, r, n, shmemdi_tid<S>(), shmemdi_nth<S>());
    shmemdi_scope_sync<S>();
}
template <typename T>
SHMEMDI_INLINE void shmemdi_iput(T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst, size_t n,
                                 int pe)
{
    if (!n)
        return;
    char *r = shmemdi_peer(dest, pe, SHMEMD_RTN_IPUT);
    if (!r || !shmemdi_peer_n(dest + (ptrdiff_t)(n - 1) * dst, sizeof(T), pe, SHMEMD_RTN_IPUT))
        return;
    for (size_t i = 0; i < n; i++)
        ((T *)r)[(ptrdiff_t)i * dst] = src[(ptrdiff_t)i * sst];
}
template <typename T>
SHMEMDI_INLINE void shmemdi_iget(T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst, size_t n,
                                 int pe)
{
    if (!n)
        return;
    const char *r = shmemdi_peer(src, pe, SHMEMD_RTN_IGET);
    if (!r || !shmemdi_peer_n(src + (ptrdiff_t)(n - 1) * sst, sizeof(T), pe, SHMEMD_RTN_IGET))
        return;
    for (size_t i = 0; i < n; i++)
        dest[(ptrdiff_t)i * dst] = shmemdi_load_cg((const T *)r + (ptrdiff_t)i * sst);
}

#define SHMEMDI_RMA_TYPED(T, N) \
    SHMEMDI_INLINE void shmemd_##N##_p(T *dest, T value, int pe) \
    { \
        T *r = (T *)shmemdi_peer_n(dest, sizeof(T), pe, SHMEMD_RTN_P); \
        if (r) \
            *(volatile T *)r = value; \
    } \
    SHMEMDI_INLINE T shmemd_##N##_g(const T *src, int pe) \
    { \
        const T *r = (const T *)shmemdi_peer_n(src, sizeof(T), pe, SHMEMD_RTN_G); \
        return r ? shmemdi_load_cg(r) : (T)0; \
    } \
    SHMEMDI_SCOPED(shmemd_##N##_put, (T *dest, const T *src, size_t nelems, int pe), \
                   shmemdi_put, (dest, src, nelems * sizeof(T), pe, SHMEMD_RTN_PUT)) \
    SHMEMDI_SCOPED(shmemd_##N##_put_nbi, (T *dest, const T *src, size_t nelems, int pe), \
                   shmemdi_put, (dest, src, nelems * sizeof(T), pe, SHMEMD_RTN_PUT)) \
    SHMEMDI_SCOPED(shmemd_##N##_get, (T *dest, const T *src, size_t nelems, int pe), \
                   shmemdi_get, (dest, src, nelems * sizeof(T), pe, SHMEMD_RTN_GET)) \
    SHMEMDI_SCOPED(shmemd_##N##_get_nbi, (T *dest, const T *src, size_t nelems, int pe), \
                   shmemdi_get, (dest, src, nelems * sizeof(T), pe, SHMEMD_RTN_GET)) \
    SHMEMDI_INLINE void shmemd_##N##_iput(T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst, \
                                          size_t nelems, int pe) \
    { shmemdi_iput(dest, src, dst, sst, nelems, pe); } \
    SHMEMDI_INLINE void shmemd_##N##_iget(T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst, \
                                          size_t nelems, int pe) \
    { shmemdi_iget(dest, src, dst, sst, nelems, pe); }
SHMEMI_RMA_DEVICE_TYPES(SHMEMDI_RMA_TYPED)
#undef SHMEMDI_RMA_TYPED

SHMEMDI_SCOPED(shmemd_putmem, (void *dest, const void *src, size_t nbytes, int pe),
               shmemdi_put, (dest, src, nbytes, pe, SHMEMD_RTN_PUT))
SHMEMDI_SCOPED(shmemd_putmem_nbi, (void *dest, const void *src, size_t nbytes, int pe),
               shmemdi_put, (dest, src, nbytes, pe, SHMEMD_RTN_PUT))
SHMEMDI_SCOPED(shmemd_getmem, (void *dest, const void *src, size_t nbytes, int pe),
               shmemdi_get, (dest, src, nbytes, pe, SHMEMD_RTN_GET))
SHMEMDI_SCOPED(shmemd_getmem_nbi, (void *dest, const void *src, size_t nbytes, int pe),
               shmemdi_get, (dest, src, nbytes, pe, SHMEMD_RTN_GET))

/* The sized forms: shmemd_put32 and so on (elements of BITS bits). */
template <int B> struct shmemdi_sized;
template <> struct shmemdi_sized<8> { typedef unsigned char t; };
template <> struct shmemdi_sized<16> { typedef unsigned short t; };
template <> struct shmemdi_sized<32> { typedef unsigned int t; };
template <> struct shmemdi_sized<64> { typedef unsigned long long t; };
template <> struct shmemdi_sized<128> { typedef shmemdi_b128 t; };
#define SHMEMDI_RMA_SIZED(B) \
    SHMEMDI_SCOPED(shmemd_put##B, (void *dest, const void *src, size_t nelems, int pe), \
                   shmemdi_put, (dest, src, nelems * (B / 8), pe, SHMEMD_RTN_PUT)) \
    SHMEMDI_SCOPED(shmemd_put##B##_nbi, (void *dest, const void *src, size_t nelems, int pe), \
                   shmemdi_put, (dest, src, nelems * (B / 8), pe, SHMEMD_RTN_PUT)) \
    SHMEMDI_SCOPED(shmemd_get##B, (void *dest, const void *src, size_t nelems, int pe), \
                   shmemdi_get, (dest, src, nelems * (B / 8), pe, SHMEMD_RTN_GET)) \
    SHMEMDI_SCOPED(shmemd_get##B##_nbi, (void *dest, const void *src, size_t nelems, int pe), \
                   shmemdi_get, (dest, src, nelems * (B / 8), pe, SHMEMD_RTN_GET)) \
    SHMEMDI_INLINE void shmemd_iput##B(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, \
                                       size_t nelems, int pe) \
    { \
        typedef shmemdi_sized<B>::t W; \
        shmemdi_iput((W *)dest, (const W *)src, dst, sst, nelems, pe); \
    } \
    SHMEMDI_INLINE void shmemd_iget##B(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, \
                                       size_t nelems, int pe) \
    { \
        typedef shmemdi_sized<B>::t W; \
        shmemdi_iget((W *)dest, (const W *)src, dst, sst, nelems, pe); \
    }
SHMEMI_RMA_SIZES(SHMEMDI_RMA_SIZED)
#undef SHMEMDI_RMA_SIZED

#endif
