/*
 * What the device API's GPU tests (gpu_device.cu, gpu_types.cu) share:
 * STEP (each step on stderr before it runs, when the program's trace is
 * set), DIE (a failure of the program itself: the message, then exit 1)
 * and CK (a CUDA runtime call that must succeed).  The program defines
 * DEVTEST_NAME (its name in the messages) and the ints me and trace
 * before including it.
 */
#ifndef FABSHMEM_TESTS_GPU_DEVTEST_H
#define FABSHMEM_TESTS_GPU_DEVTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define STEP(...) \
    do { \
        if (trace) { \
            fprintf(stderr, DEVTEST_NAME ": PE %d: step: ", me); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
        } \
    } while (0)
#define DIE(...) \
    do { \
        fprintf(stderr, DEVTEST_NAME ": PE %d: FAIL: ", me); \
        fprintf(stderr, __VA_ARGS__); \
        fputc('\n', stderr); \
        exit(1); \
    } while (0)
#define CK(x) \
    do { \
        cudaError_t e_ = (x); \
        if (e_ != cudaSuccess) \
            DIE("%s: %s", #x, cudaGetErrorString(e_)); \
    } while (0)

#endif
