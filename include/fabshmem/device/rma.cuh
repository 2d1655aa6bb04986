/*
 * Device API: queries, shmemd_ptr and RMA (p, g, put, get, their _nbi,
 * _warp and _block forms, iput, iget) (docs/device.md): loads and stores
 * through the mapping for the PEs this GPU maps, requests to the proxy
 * (proxy.cuh) for the others.  Included by <fabshmem/shmem_device.cuh>.
 */
#ifndef FABSHMEM_DEVICE_RMA_CUH
#define FABSHMEM_DEVICE_RMA_CUH

#include <fabshmem/device/base.cuh>
#include <fabshmem/device/proxy.cuh>

SHMEMDI_INLINE int shmemd_my_pe(void) { return shmemd_state_c.my_pe; }
SHMEMDI_INLINE int shmemd_n_pes(void) { return shmemd_state_c.n_pes; }

/* The address at which PE pe's copy of dest is mapped here, or 0 when this
 * GPU does not map it (no error: as shmem_ptr). */
SHMEMDI_INLINE void *shmemd_ptr(const void *dest, int pe)
{
    unsigned long long off = (unsigned long long)((const char *)dest - shmemd_state_c.heap_base);
    if ((unsigned)pe >= (unsigned)shmemd_state_c.n_pes || off >= shmemd_state_c.heap_size ||
        !shmemdi_peer_base(pe))
        return 0;
    return shmemdi_peer_base(pe) + off;
}

/* To a mapped peer, blocking and non-blocking puts are the same stores:
 * both return when the source may be reused (its loads done); the data is
 * visible at the target after shmemd_quiet (or a barrier, or a signal's
 * release).  To a peer reached through the proxy, the scope's first thread
 * posts one request for the whole buffer; a blocking put (wait) returns
 * when it is complete at the target (the proxy reads the source
 * meanwhile), a non-blocking one at once (the source is not to be changed
 * before a quiet).  Gets alike: a blocking get returns with the data. */
template <int S>
SHMEMDI_INLINE void shmemdi_put(void *dest, const void *src, size_t n, int pe, int rtn, int wait)
{
    int px = 0;
    char *r = shmemdi_peer_px(dest, n, pe, rtn, &px);
    if (r)
        shmemdi_copy(r, (const char *)src, n, shmemdi_tid<S>(), shmemdi_nth<S>());
    else if (px)
        shmemdi_px_rma<S>(SHMEMD_PX_PUT, dest, src, n, pe, rtn, wait);
    shmemdi_scope_sync<S>();
}
template <int S>
SHMEMDI_INLINE void shmemdi_get(void *dest, const void *src, size_t n, int pe, int rtn, int wait)
{
    int px = 0;
    const char *r = shmemdi_peer_px(src, n, pe, rtn, &px);
    if (r)
        shmemdi_copy((char *)dest, r, n, shmemdi_tid<S>(), shmemdi_nth<S>());
    else if (px)
        shmemdi_px_rma<S>(SHMEMD_PX_GET, src, dest, n, pe, rtn, wait);
    shmemdi_scope_sync<S>();
}
/* The elements of iput and iget: to a mapped peer, the mapping of dest
 * (or src) with its last element checked; through the proxy, *px set. */
template <typename T>
SHMEMDI_INLINE T *shmemdi_strided(const T *p, ptrdiff_t st, size_t n, int pe, int rtn, int *px)
{
    int last_px = 0;
    T *r = (T *)shmemdi_peer_px(p, 0, pe, rtn, px);
    if (!r && !*px)
        return 0;
    if (!shmemdi_peer_px(p + (ptrdiff_t)(n - 1) * st, sizeof(T), pe, rtn, &last_px) && !last_px) {
        *px = 0;
        return 0;
    }
    return r;
}
template <typename T>
SHMEMDI_INLINE void shmemdi_iput(T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst, size_t n,
                                 int pe)
{
    int px = 0;
    T *r = n ? shmemdi_strided(dest, dst, n, pe, SHMEMD_RTN_IPUT, &px) : (T *)0;
    if (px)
        shmemdi_px_iput(dest, src, dst, sst, n, pe);
    if (!r)
        return;
    for (size_t i = 0; i < n; i++)
        r[(ptrdiff_t)i * dst] = src[(ptrdiff_t)i * sst];
}
template <typename T>
SHMEMDI_INLINE void shmemdi_iget(T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst, size_t n,
                                 int pe)
{
    int px = 0;
    const T *r = n ? shmemdi_strided(src, sst, n, pe, SHMEMD_RTN_IGET, &px) : (const T *)0;
    if (px)
        shmemdi_px_iget(dest, src, dst, sst, n, pe);
    if (!r)
        return;
    for (size_t i = 0; i < n; i++)
        dest[(ptrdiff_t)i * dst] = shmemdi_load_cg(r + (ptrdiff_t)i * sst);
}

#define SHMEMDI_RMA_TYPED(T, N) \
    SHMEMDI_INLINE void shmemd_##N##_p(T *dest, T value, int pe) \
    { \
        int px = 0; \
        T *r = (T *)shmemdi_peer_px(dest, sizeof(T), pe, SHMEMD_RTN_P, &px); \
        if (r) \
            *(volatile T *)r = value; \
        else if (px) \
            shmemdi_px_p(dest, (shmemdi_u64)shmemdi_bits<shmemdi_word<sizeof(T)>::t>(value), \
                         (int)sizeof(T), pe, SHMEMD_RTN_P); \
    } \
    SHMEMDI_INLINE T shmemd_##N##_g(const T *src, int pe) \
    { \
        int px = 0; \
        const T *r = (const T *)shmemdi_peer_px(src, sizeof(T), pe, SHMEMD_RTN_G, &px); \
        if (r) \
            return shmemdi_load_cg(r); \
        if (px) \
            return shmemdi_from_bits<T>( \
                (shmemdi_word<sizeof(T)>::t)shmemdi_px_g(src, (int)sizeof(T), pe, SHMEMD_RTN_G)); \
        return (T)0; \
    } \
    SHMEMDI_SCOPED(shmemd_##N##_put, (T *dest, const T *src, size_t nelems, int pe), \
                   shmemdi_put, (dest, src, nelems * sizeof(T), pe, SHMEMD_RTN_PUT, 1)) \
    SHMEMDI_SCOPED(shmemd_##N##_put_nbi, (T *dest, const T *src, size_t nelems, int pe), \
                   shmemdi_put, (dest, src, nelems * sizeof(T), pe, SHMEMD_RTN_PUT, 0)) \
    SHMEMDI_SCOPED(shmemd_##N##_get, (T *dest, const T *src, size_t nelems, int pe), \
                   shmemdi_get, (dest, src, nelems * sizeof(T), pe, SHMEMD_RTN_GET, 1)) \
    SHMEMDI_SCOPED(shmemd_##N##_get_nbi, (T *dest, const T *src, size_t nelems, int pe), \
                   shmemdi_get, (dest, src, nelems * sizeof(T), pe, SHMEMD_RTN_GET, 0)) \
    SHMEMDI_INLINE void shmemd_##N##_iput(T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst, \
                                          size_t nelems, int pe) \
    { shmemdi_iput(dest, src, dst, sst, nelems, pe); } \
    SHMEMDI_INLINE void shmemd_##N##_iget(T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst, \
                                          size_t nelems, int pe) \
    { shmemdi_iget(dest, src, dst, sst, nelems, pe); }
SHMEMI_RMA_DEVICE_TYPES(SHMEMDI_RMA_TYPED)
#undef SHMEMDI_RMA_TYPED

SHMEMDI_SCOPED(shmemd_putmem, (void *dest, const void *src, size_t nbytes, int pe),
               shmemdi_put, (dest, src, nbytes, pe, SHMEMD_RTN_PUT, 1))
SHMEMDI_SCOPED(shmemd_putmem_nbi, (void *dest, const void *src, size_t nbytes, int pe),
               shmemdi_put, (dest, src, nbytes, pe, SHMEMD_RTN_PUT, 0))
SHMEMDI_SCOPED(shmemd_getmem, (void *dest, const void *src, size_t nbytes, int pe),
               shmemdi_get, (dest, src, nbytes, pe, SHMEMD_RTN_GET, 1))
SHMEMDI_SCOPED(shmemd_getmem_nbi, (void *dest, const void *src, size_t nbytes, int pe),
               shmemdi_get, (dest, src, nbytes, pe, SHMEMD_RTN_GET, 0))

/* The sized forms: shmemd_put32 and so on (elements of BITS bits). */
template <int B> struct shmemdi_sized;
template <> struct shmemdi_sized<8> { typedef unsigned char t; };
template <> struct shmemdi_sized<16> { typedef unsigned short t; };
template <> struct shmemdi_sized<32> { typedef unsigned int t; };
template <> struct shmemdi_sized<64> { typedef unsigned long long t; };
template <> struct shmemdi_sized<128> { typedef shmemdi_b128 t; };
#define SHMEMDI_RMA_SIZED(B) \
    SHMEMDI_SCOPED(shmemd_put##B, (void *dest, const void *src, size_t nelems, int pe), \
                   shmemdi_put, (dest, src, nelems * (B / 8), pe, SHMEMD_RTN_PUT, 1)) \
    SHMEMDI_SCOPED(shmemd_put##B##_nbi, (void *dest, const void *src, size_t nelems, int pe), \
                   shmemdi_put, (dest, src, nelems * (B / 8), pe, SHMEMD_RTN_PUT, 0)) \
    SHMEMDI_SCOPED(shmemd_get##B, (void *dest, const void *src, size_t nelems, int pe), \
                   shmemdi_get, (dest, src, nelems * (B / 8), pe, SHMEMD_RTN_GET, 1)) \
    SHMEMDI_SCOPED(shmemd_get##B##_nbi, (void *dest, const void *src, size_t nelems, int pe), \
                   shmemdi_get, (dest, src, nelems * (B / 8), pe, SHMEMD_RTN_GET, 0)) \
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
