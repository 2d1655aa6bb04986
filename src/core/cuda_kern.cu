/*
 * The library's own GPU kernels (docs/gpu.md, "Collectives on device
 * buffers"): built to PTX by nvcc at build time, embedded in the library as
 * a string (src/core/cuda_kern_ptx.c, generated) and loaded through the
 * driver (cuModuleLoadData) the first time one is needed, so that the
 * library stays unlinked from CUDA.
 *
 * shmemi_red_<op>_<t>(d, s, n, count): d[i] = s.p[0][i] op ... op
 * s.p[n-1][i] for i < count, the sources being this PE's and its peers'
 * buffers mapped here (one-shot: every PE reads every source), op one of
 * sum, prod, and, or, xor, max, min and t the element: u8 to u64 (the
 * integers of each width for sum, prod and the bitwise operations, which
 * do not depend on the sign: they compute as unsigned, two's complement
 * wrap-around, as the host kernels of src/coll/coll_reduce_kern.c do), s8
 * to s64 (max and min of signed integers), f32, f64 (sum, prod, max, min:
 * max is "x > y ? x : y" as on the host) and c32, c64 (float and double
 * complex: sum and prod).  Long double has no GPU type and no kernel.  The
 * names are the table of src/core/cuda_kern.c (kern_suffix).
 */
#include <stddef.h>

#define SHMEMI_KERN_MAXSRC 8

struct shmemi_srcs {
    const void *p[SHMEMI_KERN_MAXSRC];
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

/* The one-shot reduction: a grid-stride loop over the elements, each
 * thread combining the n sources of its element in member order. */
template <typename T, typename Op>
__device__ static void red_k(T *d, const shmemi_srcs &s, int n, size_t count)
{
    Op op;

    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        T acc = ((const T *)s.p[0])[i];
        for (int j = 1; j < n; j++)
            acc = op(acc, ((const T *)s.p[j])[i]);
        d[i] = acc;
    }
}

/* The kernel shmemi_red_<OP>_<SFX> over elements of type T. */
#define SHMEMI_RED(OP, SFX, T) \
    extern "C" __global__ void shmemi_red_##OP##_##SFX(T *d, shmemi_srcs s, int n, \
                                                       size_t count) \
    { \
        red_k<T, shmemi_op_##OP>(d, s, n, count); \
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

/* ---- the kernels of work on CUDA streams (src/core/cuda_stream.c) ----
 * shmemi_sig_add: *p += v, one thread, a system-scope atomic (p may be a
 * peer's word mapped over NVLink): SHMEM_SIGNAL_ADD on a stream.
 * shmemi_wait_<t>: one thread that waits until *p compares true with v
 * (cmp: SHMEM_CMP_EQ 0, NE 1, GT 2, GE 3, LT 4, LE 5), napping between
 * loads: the comparisons that the stream's own wait (cuStreamWaitValue64)
 * does not make. */
extern "C" __global__ void shmemi_sig_add(unsigned long long *p, unsigned long long v)
{
    atomicAdd_system(p, v);
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

/* shmemi_putsig: the put with signal of a CUDA stream for small sizes (one
 * block): the n bytes from s to d (d a mapped peer's), then, once every
 * thread's stores are fenced at system scope, the signal: *sig = v (op 0,
 * SET) or *sig += v (op 1, ADD). */
extern "C" __global__ void shmemi_putsig(unsigned char *d, const unsigned char *s, size_t n,
                                         unsigned long long *sig, unsigned long long v, int op)
{
    size_t i;

    if ((((size_t)d | (size_t)s | n) & 15) == 0) {
        for (i = threadIdx.x; i < n / 16; i += blockDim.x)
            ((uint4 *)d)[i] = ((const uint4 *)s)[i];
    } else {
        for (i = threadIdx.x; i < n; i += blockDim.x)
            d[i] = s[i];
    }
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence_system();
        if (op == 0)
            *(volatile unsigned long long *)sig = v;
        else
            atomicAdd_system(sig, v);
    }
}
