/*
 * bench_median: the median of a small array of timings (sorted in place),
 * shared by the host benchmarks (common.h) and the GPU ones
 * (gpu/gpu_devbench.h, whose NVSHMEM build has no <shmem.h>).
 */
#ifndef FABSHMEM_BENCH_MEDIAN_H
#define FABSHMEM_BENCH_MEDIAN_H

static inline double bench_median(double *v, int n)
{
    for (int i = 1; i < n; i++) {
        double x = v[i];
        int j = i - 1;

        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
