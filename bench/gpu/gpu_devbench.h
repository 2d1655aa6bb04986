/*
 * What the device API's benchmarks (gpu_device_bench.cu, gpu_proxy_bench.cu)
 * share: CK, which ends the program with the CUDA runtime's message
 * (DEVBENCH_NAME names the program), now(), a monotonic clock in
 * seconds, and ROUNDS, how many timings a figure is the median of
 * (bench_median, ../median.h).
 */
#ifndef FABSHMEM_BENCH_GPU_DEVBENCH_H
#define FABSHMEM_BENCH_GPU_DEVBENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cuda_runtime.h>
#include "../median.h"

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

#endif
