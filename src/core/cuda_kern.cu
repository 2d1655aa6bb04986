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
