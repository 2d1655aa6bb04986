/*
 * The proxy's ring (include/fabshmem/device/proxy.h): nslots requests
 * and the control words in pinned host memory that the GPU reads and
 * writes through UVA (the proxy polls it without a copy), and the tail in
 * GPU memory, where kernels take tickets with atomicAdd (an atomic on
 * host memory across PCIe would cost each producer a round trip).  In a
 * job without a GPU (FABSHMEM_PROXY=1: CPU producers, the tests) all
 * three are ordinary host memory.
 */
#include "proxy/proxy_int.h"
#include "core/dev.h"
#include "cuda/cuda.h"
#include <stdlib.h>
#include <string.h>

int shmemi_proxy_ring_alloc(shmemi_proxy_t *x, unsigned nslots, int gpu, const char *rtn)
{
    size_t slots = sizeof(shmemd_proxy_req_t) * nslots;
    size_t ctl = sizeof(uint64_t) * SHMEMD_PX_CTL_WORDS;
    char *p;

    x->pinned = gpu;
    if (gpu) {
        p = shmemi_cuda_host_alloc(slots + ctl, rtn);
        if (!p)
            return shmemi_err_last()->code;
        x->pub.tail = shmemi_cuda_dev_alloc(sizeof(uint64_t), rtn);
        if (!x->pub.tail) {
            shmemi_cuda_host_free(p);
            return shmemi_err_last()->code;
        }
        x->pub.flags = shmemi_g.dheap_remote == SHMEMI_DEV_REMOTE_HMEM ? SHMEMD_PXF_HMEM
                       : shmemi_g.dheap_remote == SHMEMI_DEV_REMOTE_STAGED ? SHMEMD_PXF_STAGED
                                                                           : 0;
    } else {
        /* One block, the slots on their own lines. */
        if (posix_memalign((void **)&p, 64, slots + ctl + 64))
            return shmemi_err(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "out of memory for the proxy's "
                              "ring of %u requests", nslots);
        memset(p, 0, slots + ctl + 64);
        x->pub.tail = (unsigned long long *)(p + slots + ctl);
        x->pub.flags = 0;
    }
    x->pub.slots = (shmemd_proxy_req_t *)p;
    x->pub.ctl = (unsigned long long *)(p + slots);
    x->pub.nslots = nslots;
    return 0;
}

void shmemi_proxy_ring_free(shmemi_proxy_t *x)
{
    if (!x->pub.slots)
        return;
    if (x->pinned) {
        shmemi_cuda_dev_free(x->pub.tail);
        shmemi_cuda_host_free(x->pub.slots);
    } else {
        free(x->pub.slots);
    }
    memset(&x->pub, 0, sizeof(x->pub));
}
