/*
 * The library's own GPU kernels (docs/gpu.md, "Collectives on device
 * buffers"): built to PTX by nvcc at build time, embedded in the library as
 * a string (src/core/cuda_kern_ptx.c, generated) and loaded through the
 * driver (cuModuleLoadData) the first time one is needed, so that the
 * library stays unlinked from CUDA.
 *
 * shmemi_sum_<t>(d, s, n, count): d[i] = s.p[0][i] + ... + s.p[n-1][i] for
 * i < count, the sources being this PE's and its peers' buffers mapped
 * here (one-shot: every PE reads every source).  Integers add as unsigned
 * (two's complement wrap-around), as the host kernels do.
 */
#include <stddef.h>

#define SHMEMI_KERN_MAXSRC 8

struct shmemi_srcs {
    const void *p[SHMEMI_KERN_MAXSRC];
};

template <typename T>
__device__ static void sum_k(T *d, const shmemi_srcs &s, int n, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        T acc = ((const T *)s.p[0])[i];
        for (int j = 1; j < n; j++)
            acc += ((const T *)s.p[j])[i];
        d[i] = acc;
    }
}

extern "C" __global__ void shmemi_sum_f32(float *d, shmemi_srcs s, int n, size_t count)
{
    sum_k(d, s, n, count);
}
extern "C" __global__ void shmemi_sum_f64(double *d, shmemi_srcs s, int n, size_t count)
{
    sum_k(d, s, n, count);
}
extern "C" __global__ void shmemi_sum_u32(unsigned *d, shmemi_srcs s, int n, size_t count)
{
    sum_k(d, s, n, count);
}
extern "C" __global__ void shmemi_sum_u64(unsigned long long *d, shmemi_srcs s, int n,
                                          size_t count)
{
    sum_k(d, s, n, count);
}

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
