/*
 * Between the device heap (dheap.c) and the registered GPU memory that
 * lives in its window (dheap_ext.c): what both need of the CUDA driver.
 * Only these two files include it.
 */
#ifndef SHMEMI_DHEAP_INT_H
#define SHMEMI_DHEAP_INT_H

#include "cuda/cuda_drv.h"

#ifdef HAVE_CUDA
/* Maps size bytes of allocation h from byte offset on at va (reserved by
 * the caller) with read and write access for this PE's device.  0, or the
 * failing call's result with its name in *what_p (nothing stays mapped). */
CUresult shmemi_dheap_map_at(CUdeviceptr va, size_t size, size_t offset,
                             CUmemGenericAllocationHandle h, const char **what_p);
#endif

/* [n_pes]: each PE's process id (for the descriptors' passing), or NULL
 * before the node peers' heaps were mapped. */
const int *shmemi_dheap_pids(void);

#endif
