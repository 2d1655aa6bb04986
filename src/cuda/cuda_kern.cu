/*
 * The library's own GPU kernels (docs/gpu.md, "Collectives on device
 * buffers"): built to PTX by nvcc at build time, embedded in the library as
 * a string (src/cuda/cuda_kern_ptx.c, generated) and loaded through the
 * driver (cuModuleLoadData) the first time one is needed, so that the
 * library stays unlinked from CUDA.
 *
 * shmemi_red_<op>_<t>(d, s, nd, n, lo, hi): for lo <= i < hi,
 * d.p[0][i] = ... = d.p[nd - 1][i] = s.p[0][i] op ... op s.p[n - 1][i],
 * the sources being this PE's and its peers' buffers mapped here and the
 * destinations this PE's (one-shot: nd 1, every element; every PE reads
 * every source) or every member's (reduce-scatter + all-gather in one
 * kernel: this PE's slice [lo, hi) of every source, stored into every
 * member's dest), op one of
 * sum, prod, and, or, xor, max, min and t the element: u8 to u64 (the
 * integers of each width for sum, prod and the bitwise operations, which
 * do not depend on the sign: they compute as unsigned, two's complement
 * wrap-around, as the host kernels of src/coll/coll_reduce_kern.c do), s8
 * to s64 (max and min of signed integers), f32, f64 (sum, prod, max, min:
 * max is "x > y ? x : y" as on the host) and c32, c64 (float and double
 * complex: sum and prod).  Long double has no GPU type and no kernel.  The
 * names are the table of src/cuda/cuda_kern.c (kern_suffix).
 * shmemi_redf_<op>_<t>(d, s, n, count, f) is the same reduction with the
 * two synchronizations of the team on either side done by the kernel
 * itself (the small reductions on CUDA streams, src/coll/
 * coll_dev_stream.c): one launch instead of four stream operations.
 */
#include <stddef.h>
#include <stdint.h>
#include "fabshmem/device/proxy.h"

/* The most members of a reduction (SHMEMI_CUDA_RED_MAXSRC of
 * src/cuda/cuda.h). */
#define SHMEMI_KERN_MAXSRC 32

struct shmemi_srcs {
    const void *p[SHMEMI_KERN_MAXSRC];
};
struct shmemi_dsts {
    void *p[SHMEMI_KERN_MAXSRC];
};

/* The complex types, laid out as C's float _Complex and double _Complex
 * (real part first, the alignment of the part). */
struct shmemi_c32 {
    float re, im;
};
struct shmemi_c64 {
    double re, im;
};

/* The operations, each a function object over any element type.  The
 * product multiplies by 1u first, so that 8- and 16-bit integers compute
 * in unsigned int (not int, which could overflow) and wrap when cast back;
 * the complex types have their own sum and product below. */
struct shmemi_op_sum {
    template <typename T> __device__ T operator()(T x, T y) const { return (T)(x + y); }
};
struct shmemi_op_prod {
    template <typename T> __device__ T operator()(T x, T y) const { return (T)(x * 1u * y); }
};
struct shmemi_op_and {
    template <typename T> __device__ T operator()(T x, T y) const { return (T)(x & y); }
};
struct shmemi_op_or {
    template <typename T> __device__ T operator()(T x, T y) const { return (T)(x | y); }
};
struct shmemi_op_xor {
    template <typename T> __device__ T operator()(T x, T y) const { return (T)(x ^ y); }
};
struct shmemi_op_max {
    template <typename T> __device__ T operator()(T x, T y) const { return x > y ? x : y; }
};
struct shmemi_op_min {
    template <typename T> __device__ T operator()(T x, T y) const { return x < y ? x : y; }
};

template <>
__device__ shmemi_c32 shmemi_op_sum::operator()(shmemi_c32 x, shmemi_c32 y) const
{
    return { x.re + y.re, x.im + y.im };
}
template <>
__device__ shmemi_c64 shmemi_op_sum::operator()(shmemi_c64 x, shmemi_c64 y) const
{
    return { x.re + y.re, x.im + y.im };
}
template <>
__device__ shmemi_c32 shmemi_op_prod::operator()(shmemi_c32 x, shmemi_c32 y) const
{
    return { x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re };
}
template <>
__device__ shmemi_c64 shmemi_op_prod::operator()(shmemi_c64 x, shmemi_c64 y) const
{
    return { x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re };
}

/* The reduction of elements [lo, hi) into nd destinations: a
 * grid-stride loop, each thread combining the n sources of its elements
 * in member order, four elements a round so that their loads (over
 * NVLink, most of them) are in flight together. */
template <typename T, typename Op>
__device__ static void red_k(const shmemi_dsts &d, int nd, const shmemi_srcs &s, int n,
                             size_t lo, size_t hi)
{
    Op op;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = lo + blockIdx.x * (size_t)blockDim.x + threadIdx.x;

    for (; i + 3 * stride < hi; i += 4 * stride) {
        T a[4], b[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            a[u] = ((const T *)s.p[0])[i + u * stride];
        for (int j = 1; j < n; j++) {
#pragma unroll
            for (int u = 0; u < 4; u++)
                b[u] = ((const T *)s.p[j])[i + u * stride];
#pragma unroll
            for (int u = 0; u < 4; u++)
                a[u] = op(a[u], b[u]);
        }
        for (int k = 0; k < nd; k++)
#pragma unroll
            for (int u = 0; u < 4; u++)
                ((T *)d.p[k])[i + u * stride] = a[u];
    }
    for (; i < hi; i += stride) {
        T acc = ((const T *)s.p[0])[i];
        for (int j = 1; j < n; j++)
            acc = op(acc, ((const T *)s.p[j])[i]);
        for (int k = 0; k < nd; k++)
            ((T *)d.p[k])[i] = acc;
    }
}

/* The synchronizations of the fused reduction (shmemi_redf_*), laid out
 * as struct shmemi_cuda_fsync of src/cuda/cuda_kern.c: mine is this PE's
 * words of the team (word j written by member j), peer[j] the address of
 * this PE's word in member j's words, mapped here (peer[me] unused), k1
 * and k2 the epochs of the two synchronizations, counter a word of this
 * PE's device, 0 between kernels, that counts the blocks done. */
struct shmemi_fsync {
    unsigned long long *mine;
    unsigned long long *peer[SHMEMI_KERN_MAXSRC];
    int me;
    unsigned long long k1, k2;
    unsigned int *counter;
};

/* Stores k into this PE's word on every other member, after a fence that
 * orders everything this GPU wrote before it (system scope). */
__device__ static void fsync_post(const shmemi_fsync &f, int n, unsigned long long k)
{
    __threadfence_system();
    for (int j = 0; j < n; j++)
        if (j != f.me)
            *(volatile unsigned long long *)f.peer[j] = k;
}

/* Waits until every other member's word here is at least k, napping
 * between loads, then fences so that what the members wrote before their
 * stores is seen by the loads that follow. */
__device__ static void fsync_wait(const shmemi_fsync &f, int n, unsigned long long k)
{
    for (int j = 0; j < n; j++)
        if (j != f.me)
            while (*(volatile unsigned long long *)&f.mine[j] < k)
                __nanosleep(100);
    __threadfence_system();
}

/* The fused reduction (docs/gpu.md, "CUDA streams"): the synchronization
 * before (block 0 posts k1; every block waits for the members' k1 before
 * it reads their sources), the one-shot reduction, and the
 * synchronization after: every block counts itself done on the counter,
 * and the last one, when every read of the peers' sources is over, resets
 * the counter, posts k2 and waits for the members' k2, so that the kernel
 * ends only when every member has read this PE's source.  Every block
 * must be resident at once (the launcher keeps the grid small): block 0
 * of each member must run while the others spin. */
template <typename T, typename Op>
__device__ static void redf_k(T *d, const shmemi_srcs &s, int n, size_t count,
                              const shmemi_fsync &f)
{
    if (threadIdx.x == 0) {
        if (blockIdx.x == 0)
            fsync_post(f, n, f.k1);
        fsync_wait(f, n, f.k1);
    }
    __syncthreads();
    {
        shmemi_dsts dd;
        dd.p[0] = d;
        red_k<T, Op>(dd, 1, s, n, 0, count);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence_system();
        if (atomicAdd(f.counter, 1u) == gridDim.x - 1) {
            *(volatile unsigned int *)f.counter = 0;
            fsync_post(f, n, f.k2);
            fsync_wait(f, n, f.k2);
        }
    }
}

/* The kernels shmemi_red_<OP>_<SFX> and shmemi_redf_<OP>_<SFX> (fused)
 * over elements of type T. */
#define SHMEMI_RED(OP, SFX, T) \
    extern "C" __global__ void shmemi_red_##OP##_##SFX(shmemi_dsts d, shmemi_srcs s, int nd, \
                                                       int n, size_t lo, size_t hi) \
    { \
        red_k<T, shmemi_op_##OP>(d, nd, s, n, lo, hi); \
    } \
    extern "C" __global__ void shmemi_redf_##OP##_##SFX(T *d, shmemi_srcs s, int n, \
                                                        size_t count, shmemi_fsync f) \
    { \
        redf_k<T, shmemi_op_##OP>(d, s, n, count, f); \
    }

/* The integers of one width: the sign-blind operations on the unsigned
 * type, max and min on both. */
#define SHMEMI_RED_INT(B, UT, ST) \
    SHMEMI_RED(sum, u##B, UT) SHMEMI_RED(prod, u##B, UT) SHMEMI_RED(and, u##B, UT) \
    SHMEMI_RED(or, u##B, UT) SHMEMI_RED(xor, u##B, UT) \
    SHMEMI_RED(max, u##B, UT) SHMEMI_RED(min, u##B, UT) \
    SHMEMI_RED(max, s##B, ST) SHMEMI_RED(min, s##B, ST)

SHMEMI_RED_INT(8, unsigned char, signed char)
SHMEMI_RED_INT(16, unsigned short, short)
SHMEMI_RED_INT(32, unsigned int, int)
SHMEMI_RED_INT(64, unsigned long long, long long)

SHMEMI_RED(sum, f32, float) SHMEMI_RED(prod, f32, float)
SHMEMI_RED(max, f32, float) SHMEMI_RED(min, f32, float)
SHMEMI_RED(sum, f64, double) SHMEMI_RED(prod, f64, double)
SHMEMI_RED(max, f64, double) SHMEMI_RED(min, f64, double)
SHMEMI_RED(sum, c32, shmemi_c32) SHMEMI_RED(prod, c32, shmemi_c32)
SHMEMI_RED(sum, c64, shmemi_c64) SHMEMI_RED(prod, c64, shmemi_c64)

/* ---- the kernels of work on CUDA streams (src/cuda/cuda_stream.c) ----
 * shmemi_sig_add: *p += v, one thread, a system-scope atomic (p may be a
 * peer's word mapped over NVLink): SHMEM_SIGNAL_ADD on a stream.
 * shmemi_put_sig: a small put with signal in one launch (one block;
 * src/cuda/cuda_kern.c, shmemi_cuda_put_signal_on).
 * shmemi_wait_<t>: one thread that waits until *p compares true with v
 * (cmp: SHMEM_CMP_EQ 0, NE 1, GT 2, GE 3, LT 4, LE 5), napping between
 * loads: the comparisons that the stream's own wait (cuStreamWaitValue64)
 * does not make. */
extern "C" __global__ void shmemi_sig_add(unsigned long long *p, unsigned long long v)
{
    atomicAdd_system(p, v);
}

/* The block's threads copy n bytes from src to dst in units of T: the
 * first n / sizeof(T) units, the bytes after them left to the caller.
 * Both pointers are aligned to T.  Four units a thread a round, so that
 * their loads are in flight together before the stores (over NVLink). */
template <typename T>
__device__ static size_t copy_units(char *__restrict__ dst, const char *__restrict__ src,
                                    size_t n)
{
    const size_t nu = n / sizeof(T), nt = blockDim.x;
    T *d = (T *)dst;
    const T *s = (const T *)src;
    size_t i = threadIdx.x;

    for (; i + 3 * nt < nu; i += 4 * nt) {
        T a[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            a[u] = s[i + u * nt];
#pragma unroll
        for (int u = 0; u < 4; u++)
            d[i + u * nt] = a[u];
    }
    for (; i < nu; i += nt)
        d[i] = s[i];
    return nu * sizeof(T);
}

/* A put with signal on a CUDA stream (one block): the block copies n bytes
 * from src (GPU memory) to dst (a peer's device heap mapped here, or this
 * PE's), 16 or 8 bytes a store where both pointers are aligned to it and
 * bytes for the rest, then one thread fences at system scope and updates
 * the signal word sig (mapped as dst is): *sig = v (add 0,
 * SHMEM_SIGNAL_SET) or *sig += v (add 1, SHMEM_SIGNAL_ADD, a system-scope
 * atomic).  The barrier makes every thread's stores precede the fence
 * (the fence is cumulative: it orders what the thread has seen through
 * the barrier), so a PE that sees the signal sees the data, as the copy
 * and the fenced stream write did in two operations. */
extern "C" __global__ void shmemi_put_sig(char *dst, const char *src, size_t n,
                                          unsigned long long *sig, unsigned long long v, int add)
{
    const uintptr_t a = (uintptr_t)dst | (uintptr_t)src;
    size_t done = 0, i;

    if (!(a & 15))
        done = copy_units<uint4>(dst, src, n);
    else if (!(a & 7))
        done = copy_units<unsigned long long>(dst, src, n);
    for (i = done + threadIdx.x; i < n; i += blockDim.x)
        dst[i] = src[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence_system();
        if (add)
            atomicAdd_system(sig, v);
        else
            *(volatile unsigned long long *)sig = v;
    }
}

template <typename T> __device__ static bool cmp_true(T a, int cmp, T b)
{
    switch (cmp) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a > b;
    case 3: return a >= b;
    case 4: return a < b;
    default: return a <= b;
    }
}

template <typename T> __device__ static void wait_k(const T *p, int cmp, T v)
{
    while (!cmp_true(*(const volatile T *)p, cmp, v))
        __nanosleep(200);
    __threadfence_system();
}

extern "C" __global__ void shmemi_wait_i32(const int *p, int cmp, int v) { wait_k(p, cmp, v); }
extern "C" __global__ void shmemi_wait_u32(const unsigned *p, int cmp, unsigned v)
{
    wait_k(p, cmp, v);
}
extern "C" __global__ void shmemi_wait_i64(const long long *p, int cmp, long long v)
{
    wait_k(p, cmp, v);
}
extern "C" __global__ void shmemi_wait_u64(const unsigned long long *p, int cmp,
                                           unsigned long long v)
{
    wait_k(p, cmp, v);
}

/* ---- atomics on device-heap words for the host API (src/core/dev_amo.c) ----
 * shmemi_amo: one thread applies amo (SHMEMD_AMO_* of
 * include/fabshmem/device/proxy.h) to the width-byte word p (4 or 8: the
 * signed, unsigned and floating types travel as their bits) with value v
 * (and cmp for CSWAP), as a system-scope atomic of the GPU, so that it is
 * atomic against the kernels' own atomics on the word (and against other
 * PEs' GPUs through a mapping), and stores the old value into *old
 * (pinned host memory): every operation returns it, the non-fetching ones
 * too.  FETCH is an atomic load: a volatile load of the aligned word
 * between two system-scope fences.  p is GPU memory of this device or a
 * peer's mapped here. */
template <typename T> __device__ static T amo_k(T *p, int amo, T v, T cmp)
{
    switch (amo) {
    case SHMEMD_AMO_SET:
    case SHMEMD_AMO_SWAP: return atomicExch_system(p, v);
    case SHMEMD_AMO_ADD:
    case SHMEMD_AMO_FETCH_ADD: return atomicAdd_system(p, v);
    case SHMEMD_AMO_AND:
    case SHMEMD_AMO_FETCH_AND: return atomicAnd_system(p, v);
    case SHMEMD_AMO_OR:
    case SHMEMD_AMO_FETCH_OR: return atomicOr_system(p, v);
    case SHMEMD_AMO_XOR:
    case SHMEMD_AMO_FETCH_XOR: return atomicXor_system(p, v);
    case SHMEMD_AMO_CSWAP: return atomicCAS_system(p, cmp, v);
    default: {
        T r;
        __threadfence_system();
        r = *(volatile T *)p;
        __threadfence_system();
        return r;
    }
    }
}

extern "C" __global__ void shmemi_amo(void *p, int amo, int width, unsigned long long v,
                                      unsigned long long cmp, unsigned long long *old)
{
    unsigned long long r;

    if (width == 4)
        r = amo_k((unsigned int *)p, amo, (unsigned int)v, (unsigned int)cmp);
    else
        r = amo_k((unsigned long long *)p, amo, v, cmp);
    __threadfence_system();
    *(volatile unsigned long long *)old = r;
    __threadfence_system();
}
