/*
 * What the device API's benchmarks (gpu_device_bench.cu, gpu_proxy_bench.cu)
 * share: CK, which ends the program with the CUDA runtime's message
 * (DEVBENCH_NAME names the program), now(), a monotonic clock in
 * seconds, and median() of a few timings (ROUNDS: how many a figure has).
 */
#ifndef FABSHMEM_BENCH_GPU_DEVBENCH_H
#define FABSHMEM_BENCH_GPU_DEVBENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cuda_runtime.h>

#define CK(x) \
    do { \
        cudaError_t e_ = (x); \
        if (e_ != cudaSuccess) { \
            fprintf(stderr, DEVBENCH_NAME ": %s: %s\n", #x, cudaGetErrorString(e_)); \
            exit(1); \
        } \
    } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define ROUNDS 5

/* The median of n timings (n at most ROUNDS; sorted in place). */
static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
