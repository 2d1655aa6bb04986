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
#include <shmem.h>
#include <shmemx.h>
#include <fabshmem/device/state.h>

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

/* The last PE whose device heap (heap: an object in it) is not mapped
 * here, or -1 (*unmapped); the device state (*st).  Returns 1 when kernels
 * reach that PE through the proxy. */
static inline int devtest_proxy(const void *heap, int *unmapped, shmemd_state_t *st)
{
    *unmapped = -1;
    for (int pe = 0; pe < shmem_n_pes(); pe++)
        if (!shmem_ptr(heap, pe))
            *unmapped = pe;
    if (shmemx_device_state(st, sizeof(*st)))
        DIE("shmemx_device_state failed");
    return *unmapped >= 0 && st->proxy.slots != 0;
}

#endif
