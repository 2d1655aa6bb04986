/*
 * The device API's base (docs/device.md): the state kernels read, address
 * translation to a peer's mapping, the error record, scopes (thread, warp,
 * block), system-scope loads, stores and atomics by width, and the copy
 * loop.  Internal names start with shmemdi_; included by
 * <fabshmem/shmem_device.cuh>.
 */
#ifndef FABSHMEM_DEVICE_BASE_CUH
#define FABSHMEM_DEVICE_BASE_CUH

#ifdef __CUDACC_RTC__
/* NVRTC has no C library headers: the fixed-width types of Linux's LP64. */
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef unsigned long size_t;
typedef long ptrdiff_t;
typedef unsigned long uintptr_t;
#else
#include <stddef.h>
#include <stdint.h>
#include <shmem.h>
#endif

#include <fabshmem/device/state.h>
#include <fabshmem/types.def>

#ifdef __CUDACC_RTC__
/* The values of <shmem.h>, which NVRTC does not compile. */
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1
enum { SHMEM_CMP_EQ = 0, SHMEM_CMP_NE = 1, SHMEM_CMP_GT = 2, SHMEM_CMP_GE = 3,
       SHMEM_CMP_LT = 4, SHMEM_CMP_LE = 5 };
#endif

/* A team in device code: its slot (the same on every member).  The
 * predefined teams have fixed slots; shmemx_team_device (host) gives any
 * other team's. */
typedef int shmemd_team_t;
#define SHMEMD_TEAM_WORLD 0
#define SHMEMD_TEAM_SHARED 1
#define SHMEMD_TEAM_NODE 2
#define SHMEMD_TEAM_INVALID (-1)

/* The state: a copy in constant memory.  With relocatable device code
 * (nvcc -rdc=true and the device library libfabshmem_device.a, whose one
 * file defines SHMEMD_STATE_HERE) there is one per program, which the
 * library fills at shmem_init.  A file compiled whole (nvcc without -rdc)
 * has its own, which shmemx_device_load() (host code of that file) fills;
 * a module of NVRTC (CuPy's RawModule) has one named shmemd_state_c,
 * which fabshmem.core.device fills from shmemx_device_state. */
#if defined(__CUDACC_RTC__)
extern "C" {
__constant__ shmemd_state_t shmemd_state_c;
}
#elif defined(__CUDACC_RDC__) && defined(SHMEMD_STATE_HERE)
extern "C" {
__constant__ shmemd_state_t shmemd_state_c;
}
#elif defined(__CUDACC_RDC__)
extern "C" __constant__ shmemd_state_t shmemd_state_c;
/* Host code: a reference that makes the linker take the device library's
 * object with the state and the code that fills it at shmem_init. */
extern "C" int shmemdi_device_linked;
static __attribute__((used)) int *const shmemdi_device_link_ref = &shmemdi_device_linked;
#else
/* Whole-program compilation: this file's own copy, which
 * shmemx_device_load (below, host code of this file) fills. */
static __constant__ shmemd_state_t shmemd_state_c;
#endif

#define SHMEMDI_INLINE static __device__ __forceinline__
#define SHMEMDI_NOINLINE static __device__ __noinline__

/* ---- errors ---- */

/* Records the first error of the kernels (the host reports it). */
SHMEMDI_NOINLINE void shmemdi_error(int routine, int what, int pe, const void *addr)
{
    volatile shmemd_err_t *e = shmemd_state_c.err;
    if (!e)
        return;
    unsigned int n = atomicAdd(shmemd_state_c.err_claim, 1u);
    if (n == 0) {
        e->routine = routine;
        e->what = what;
        e->pe = pe;
        e->addr = (unsigned long long)(uintptr_t)addr;
        __threadfence_system();
    }
    /* The count after the first error's fields (the host's sign that they
     * are there): the first stores 1, a later one its number once the
     * first has stored (else the first's 1 stands: a count at least). */
    if (n == 0 || e->count != 0)
        e->count = n + 1;
    __threadfence_system();
}

/* ---- addresses ---- */

/* Where PE pe's (0 <= pe < n_pes) device heap is mapped here, or 0: from
 * the state in constant memory for the first SHMEMD_PEERS_C PEs. */
SHMEMDI_INLINE char *shmemdi_peer_base(int pe)
{
    return pe < SHMEMD_PEERS_C ? shmemd_state_c.peer_c[pe] : shmemd_state_c.peer_base[pe];
}

/* The offset of p in the device heap, or -1 (and the error recorded). */
SHMEMDI_INLINE long long shmemdi_off(const void *p, int routine)
{
    unsigned long long off = (unsigned long long)((const char *)p - shmemd_state_c.heap_base);
    if (off >= shmemd_state_c.heap_size) {
        shmemdi_error(routine, SHMEMD_ERR_NOT_SYMMETRIC, -1, p);
        return -1;
    }
    return (long long)off;
}

/* Records why PE pe's copy of the n bytes from the symmetric p cannot be
 * reached, in the order of shmemdi_peer_px's checks.  Out of line and
 * returning nothing, so that the way to the store or atomic stays a few
 * instructions with no call on it. */
SHMEMDI_NOINLINE void shmemdi_peer_error(const void *p, size_t n, int pe, int routine)
{
    if ((unsigned)pe >= (unsigned)shmemd_state_c.n_pes) {
        shmemdi_error(routine, SHMEMD_ERR_BAD_PE, pe, p);
        return;
    }
    long long off = shmemdi_off(p, routine);
    if (off < 0)
        return;
    if (n > shmemd_state_c.heap_size - (unsigned long long)off)
        shmemdi_error(routine, SHMEMD_ERR_TOO_LARGE, pe, p);
    else
        shmemdi_error(routine, SHMEMD_ERR_UNMAPPED, pe, p);
}

/* Where PE pe's copy of the n bytes from the symmetric p is mapped here
 * (n 0: p alone is checked), or 0 with the error recorded: a PE out of
 * range, an address outside the device heap, an object running past its
 * end, a peer this GPU does not map.  For the last, when px is given and
 * a proxy runs (state.proxy.slots), *px is set to 1 instead and nothing is
 * recorded: the caller sends the request through the proxy (proxy.cuh).
 * The checks are one combined test, and the error's analysis a call that
 * returns nothing: with the checks one by one, each with its error call,
 * a p ping-pong on one H200 took 1.42x the plain stores' and a fetch_add
 * 0.365 us; so 1.2x and 0.155 us (and the compiler still combines a warp's
 * fetch_adds on one word; it did not when the error path returned the
 * address: 27x fewer a second; docs/device.md). */
SHMEMDI_INLINE char *shmemdi_peer_px(const void *p, size_t n, int pe, int routine, int *px)
{
    unsigned long long off = (unsigned long long)((const char *)p - shmemd_state_c.heap_base);
    unsigned long long size = shmemd_state_c.heap_size;
    int ok = ((unsigned)pe < (unsigned)shmemd_state_c.n_pes) & (off < size) & (n <= size - off);
    /* The state's entry loaded whatever pe is (an index in range of
     * peer_c), so that a loop of calls for one pe loads it once before
     * the loop: under the test of ok, the compiler loaded it after each
     * wait of a p ping-pong, 0.05 us of its 0.34 on one H200. */
    char *near = shmemd_state_c.peer_c[(unsigned)pe % SHMEMD_PEERS_C];
    if (ok & (near != 0) & ((unsigned)pe < SHMEMD_PEERS_C))
        return near + off;
    char *base = !ok || pe < SHMEMD_PEERS_C ? 0 : shmemd_state_c.peer_base[pe];
    if (base)
        return base + off;
    if (ok && px && shmemd_state_c.proxy.slots) {
        *px = 1;
        return 0;
    }
    shmemdi_peer_error(p, n, pe, routine);
    return 0;
}
/* The same without the proxy: a peer not mapped is an error. */
SHMEMDI_INLINE char *shmemdi_peer(const void *p, int pe, int routine)
{
    return shmemdi_peer_px(p, 0, pe, routine, (int *)0);
}
SHMEMDI_INLINE char *shmemdi_peer_n(const void *p, size_t n, int pe, int routine)
{
    return shmemdi_peer_px(p, n, pe, routine, (int *)0);
}

/* ---- scopes ---- */

enum { SHMEMDI_THREAD = 0, SHMEMDI_WARP = 1, SHMEMDI_BLOCK = 2 };

template <int S> SHMEMDI_INLINE int shmemdi_tid()
{
    if (S == SHMEMDI_THREAD)
        return 0;
    if (S == SHMEMDI_WARP)
        return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31;
    return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
template <int S> SHMEMDI_INLINE int shmemdi_nth()
{
    if (S == SHMEMDI_THREAD)
        return 1;
    if (S == SHMEMDI_WARP)
        return 32;
    return (int)(blockDim.x * blockDim.y * blockDim.z);
}
template <int S> SHMEMDI_INLINE void shmemdi_scope_sync()
{
    if (S == SHMEMDI_WARP)
        __syncwarp();
    else if (S == SHMEMDI_BLOCK)
        __syncthreads();
}

/* The scoped forms of one routine: NAME (one thread), NAME_warp (every
 * thread of a warp) and NAME_block (every thread of the block), each
 * returning FN<scope> ARGS (RET void or a value). */
#define SHMEMDI_SCOPED_R(RET, NAME, PARAMS, FN, ARGS) \
    SHMEMDI_INLINE RET NAME PARAMS { return FN<SHMEMDI_THREAD> ARGS; } \
    SHMEMDI_INLINE RET NAME##_warp PARAMS { return FN<SHMEMDI_WARP> ARGS; } \
    SHMEMDI_INLINE RET NAME##_block PARAMS { return FN<SHMEMDI_BLOCK> ARGS; }
#define SHMEMDI_SCOPED(NAME, PARAMS, FN, ARGS) SHMEMDI_SCOPED_R(void, NAME, PARAMS, FN, ARGS)

/* A poll that backs off, counted in polls: 256 polls of spinning, then
 * sleeps growing to 1 us (a waiting warp leaves the SM's issue slots to
 * the others).  pause(k) after k polls: a wait that polls SHMEMDI_POLLS
 * times between two pauses does not pay the count at every poll (0.07 us
 * of a device barrier of 0.5 us, up to 0.04 of a p ping-pong's 0.3, on
 * one H200). */
#define SHMEMDI_POLLS 8
struct shmemdi_backoff {
    unsigned n;
    __device__ __forceinline__ void pause(unsigned k = 1)
    {
        if ((n += k) > 256) {
            unsigned ns = n > 1280 ? 1024u : (n - 256u);
            __nanosleep(ns);
        }
    }
};

/* ---- words by width ---- */

template <int N> struct shmemdi_word;
template <> struct shmemdi_word<1> { typedef unsigned char t; };
template <> struct shmemdi_word<2> { typedef unsigned short t; };
template <> struct shmemdi_word<4> { typedef unsigned int t; };
template <> struct shmemdi_word<8> { typedef unsigned long long t; };

template <typename W, typename T> SHMEMDI_INLINE W shmemdi_bits(T v)
{
    union { T t; W w; } u;
    u.w = 0;
    u.t = v;
    return u.w;
}
template <typename T, typename W> SHMEMDI_INLINE T shmemdi_from_bits(W w)
{
    union { T t; W w; } u;
    u.w = w;
    return u.t;
}

/* Loads with acquire semantics at system scope (what a wait polls), and
 * loads that bypass the SM's cache (a peer's memory read after a
 * synchronization). */
SHMEMDI_INLINE unsigned short shmemdi_ld_acq(const unsigned short *p)
{
    unsigned short v;
    asm volatile("ld.acquire.sys.global.b16 %0, [%1];" : "=h"(v) : "l"(p) : "memory");
    return v;
}
SHMEMDI_INLINE unsigned int shmemdi_ld_acq(const unsigned int *p)
{
    unsigned int v;
    asm volatile("ld.acquire.sys.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
SHMEMDI_INLINE unsigned long long shmemdi_ld_acq(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.acquire.sys.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
template <typename T> SHMEMDI_INLINE T shmemdi_load_acquire(const T *p)
{
    typedef typename shmemdi_word<sizeof(T)>::t W;
    return shmemdi_from_bits<T>(shmemdi_ld_acq((const W *)p));
}
template <typename T> SHMEMDI_INLINE T shmemdi_load_cg(const T *p)
{
    typedef typename shmemdi_word<sizeof(T)>::t W;
    return shmemdi_from_bits<T>(*(const volatile W *)p);
}
struct shmemdi_b128 { unsigned long long w[2]; };
SHMEMDI_INLINE shmemdi_b128 shmemdi_load_cg(const shmemdi_b128 *p)
{
    shmemdi_b128 v;
    v.w[0] = *(const volatile unsigned long long *)&p->w[0];
    v.w[1] = *(const volatile unsigned long long *)&p->w[1];
    return v;
}
/* A load past the SM's cache that the compiler may schedule freely (the
 * sources of a collective, read after the synchronization that made them
 * ready). */
template <typename T> SHMEMDI_INLINE T shmemdi_load_nc(const T *p)
{
    typedef typename shmemdi_word<sizeof(T)>::t W;
    return shmemdi_from_bits<T>(__ldcg((const W *)p));
}
/* A store that a peer's wait sees after everything this thread stored
 * before it (release at system scope). */
SHMEMDI_INLINE void shmemdi_st_rel(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.release.sys.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
/* A relaxed store at system scope (after a fence: a release). */
SHMEMDI_INLINE void shmemdi_st_rlx(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.relaxed.sys.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
SHMEMDI_INLINE unsigned long long shmemdi_ld_rlx(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.sys.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

/* The GPU-scope forms of a synchronization's release and acquire, for a
 * job whose mapped peers all run on this GPU (shmemd_state_t.sync_gpu):
 * an add of 1 that releases what the thread stored before, and an
 * acquire load. */
SHMEMDI_INLINE void shmemdi_red_rel_gpu(unsigned long long *p)
{
    asm volatile("red.release.gpu.global.add.u64 [%0], 1;" ::"l"(p) : "memory");
}
SHMEMDI_INLINE unsigned long long shmemdi_ld_acq_gpu(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.acquire.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
/* 16 bytes stored and loaded as one relaxed access at system scope: two
 * 8-byte words, each single-copy atomic (the flagged words of the
 * smallest reductions, each 4 data bytes and a flag), with one
 * instruction where two took twice the issue slots. */
struct __align__(16) shmemdi_w2 { unsigned long long a, b; };
SHMEMDI_INLINE void shmemdi_st_w2(shmemdi_w2 *p, unsigned long long a, unsigned long long b)
{
    asm volatile("st.relaxed.sys.global.v2.b64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b)
                 : "memory");
}
SHMEMDI_INLINE shmemdi_w2 shmemdi_ld_w2(const shmemdi_w2 *p)
{
    shmemdi_w2 v;
    asm volatile("ld.relaxed.sys.global.v2.b64 {%0, %1}, [%2];" : "=l"(v.a), "=l"(v.b) : "l"(p)
                 : "memory");
    return v;
}

/* System-scope atomics on 4- and 8-byte words. */
SHMEMDI_INLINE unsigned int shmemdi_a_add(unsigned int *p, unsigned int v) { return atomicAdd_system(p, v); }
SHMEMDI_INLINE unsigned long long shmemdi_a_add(unsigned long long *p, unsigned long long v) { return atomicAdd_system(p, v); }
SHMEMDI_INLINE unsigned int shmemdi_a_exch(unsigned int *p, unsigned int v) { return atomicExch_system(p, v); }
SHMEMDI_INLINE unsigned long long shmemdi_a_exch(unsigned long long *p, unsigned long long v) { return atomicExch_system(p, v); }
SHMEMDI_INLINE unsigned int shmemdi_a_cas(unsigned int *p, unsigned int c, unsigned int v) { return atomicCAS_system(p, c, v); }
SHMEMDI_INLINE unsigned long long shmemdi_a_cas(unsigned long long *p, unsigned long long c, unsigned long long v) { return atomicCAS_system(p, c, v); }
SHMEMDI_INLINE unsigned int shmemdi_a_and(unsigned int *p, unsigned int v) { return atomicAnd_system(p, v); }
SHMEMDI_INLINE unsigned long long shmemdi_a_and(unsigned long long *p, unsigned long long v) { return atomicAnd_system(p, v); }
SHMEMDI_INLINE unsigned int shmemdi_a_or(unsigned int *p, unsigned int v) { return atomicOr_system(p, v); }
SHMEMDI_INLINE unsigned long long shmemdi_a_or(unsigned long long *p, unsigned long long v) { return atomicOr_system(p, v); }
SHMEMDI_INLINE unsigned int shmemdi_a_xor(unsigned int *p, unsigned int v) { return atomicXor_system(p, v); }
SHMEMDI_INLINE unsigned long long shmemdi_a_xor(unsigned long long *p, unsigned long long v) { return atomicXor_system(p, v); }

/* ---- the copy loop ---- */

/* Copies n bytes in words of W bytes, thread tid of nth, for d and s that
 * are equally misaligned for W: the bytes up to d's first boundary, the
 * words, the bytes after the last; the source read past the SM's cache. */
template <typename V>
SHMEMDI_INLINE void shmemdi_copy_w(char *d, const char *s, size_t n, int tid, int nth)
{
    size_t head = (sizeof(V) - ((uintptr_t)d & (sizeof(V) - 1))) & (sizeof(V) - 1);
    if (head > n)
        head = n;
    for (size_t k = (size_t)tid; k < head; k += (size_t)nth)
        d[k] = (char)__ldcg((const signed char *)s + k);
    size_t w = (n - head) / sizeof(V);
    V *dv = (V *)(d + head);
    const V *sv = (const V *)(s + head);
    /* Four loads before their stores: the stores may alias the source as
     * far as the compiler knows, so a loop of single copies has one load
     * in flight a thread. */
    size_t k = (size_t)tid, st = (size_t)nth;
    for (; k + 3 * st < w; k += 4 * st) {
        V a = __ldcg(sv + k), b = __ldcg(sv + k + st), c = __ldcg(sv + k + 2 * st),
          e = __ldcg(sv + k + 3 * st);
        dv[k] = a;
        dv[k + st] = b;
        dv[k + 2 * st] = c;
        dv[k + 3 * st] = e;
    }
    /* The 1 to 3 words left to this thread, loaded together too: one at a
     * time, each waited for the store before it (a 4 MiB putmem_block by
     * 132 blocks, 7 or 8 words a thread, took 1.05x-1.16x the plain copy
     * kernel over 8 runs on one H200, and 1.02x-1.08x over 4 this way;
     * docs/device.md). */
    if (k < w) {
        int two = k + st < w, three = k + 2 * st < w;
        V a = __ldcg(sv + k), b = a, c = a;
        if (two)
            b = __ldcg(sv + k + st);
        if (three)
            c = __ldcg(sv + k + 2 * st);
        dv[k] = a;
        if (two)
            dv[k + st] = b;
        if (three)
            dv[k + 2 * st] = c;
    }
    for (size_t k = head + w * sizeof(V) + (size_t)tid; k < n; k += (size_t)nth)
        d[k] = (char)__ldcg((const signed char *)s + k);
}
/* Copies n bytes, thread tid of nth: 16-byte words when the two ends are
 * equally misaligned for them, else 8, 4 or single bytes. */
SHMEMDI_INLINE void shmemdi_copy(char *d, const char *s, size_t n, int tid, int nth)
{
    uintptr_t x = (uintptr_t)d ^ (uintptr_t)s;
    if ((x & 15) == 0)
        shmemdi_copy_w<int4>(d, s, n, tid, nth);
    else if ((x & 7) == 0)
        shmemdi_copy_w<long long>(d, s, n, tid, nth);
    else if ((x & 3) == 0)
        shmemdi_copy_w<int>(d, s, n, tid, nth);
    else
        for (size_t k = (size_t)tid; k < n; k += (size_t)nth)
            d[k] = (char)__ldcg((const signed char *)s + k);
}

#endif
