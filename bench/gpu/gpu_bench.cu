/*
 * The CUDA side of the GPU benchmarks (gpu_bench.h): peer copies of the
 * CUDA runtime between two GPUs.
 */
#include "gpu_bench.h"
#include <chrono>
#include <cuda_runtime.h>

static void *peer_buf;
static int peer_dev = -1;
static cudaStream_t peer_st;

extern "C" int gb_peer_setup(int src_dev, int dst_dev, size_t max)
{
    cudaError_t e;

    if ((e = cudaSetDevice(dst_dev)) != cudaSuccess || (e = cudaMalloc(&peer_buf, max)) != cudaSuccess)
        return (int)e;
    if ((e = cudaSetDevice(src_dev)) != cudaSuccess)
        return (int)e;
    e = cudaDeviceEnablePeerAccess(dst_dev, 0);
    if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
        return (int)e;
    cudaGetLastError();
    peer_dev = dst_dev;
    return (int)cudaStreamCreateWithFlags(&peer_st, cudaStreamNonBlocking);
}

extern "C" int gb_peer_copy(const void *src, int src_dev, size_t n, int iters, int async,
                            double *sec_p)
{
    cudaError_t e = cudaSuccess;
    cudaEvent_t a, b;
    float ms = 0;

    if (!async) {
        auto t0 = std::chrono::steady_clock::now();
        /* A copy between two devices returns before it is done: wait for
         * each, as a blocking put does. */
        for (int i = 0; i < iters && e == cudaSuccess; i++)
            if ((e = cudaMemcpyPeer(peer_buf, peer_dev, src, src_dev, n)) == cudaSuccess)
                e = cudaStreamSynchronize(0);
        *sec_p = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return (int)e;
    }
    if ((e = cudaEventCreate(&a)) != cudaSuccess || (e = cudaEventCreate(&b)) != cudaSuccess)
        return (int)e;
    cudaEventRecord(a, peer_st);
    for (int i = 0; i < iters && e == cudaSuccess; i++)
        e = cudaMemcpyPeerAsync(peer_buf, peer_dev, src, src_dev, n, peer_st);
    cudaEventRecord(b, peer_st);
    if (e == cudaSuccess)
        e = cudaEventSynchronize(b);
    cudaEventElapsedTime(&ms, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    *sec_p = ms * 1e-3;
    return (int)e;
}

extern "C" void gb_peer_free(void)
{
    if (peer_buf)
        cudaFree(peer_buf);
    if (peer_st)
        cudaStreamDestroy(peer_st);
    peer_buf = NULL;
}

extern "C" const char *gb_error(int code)
{
    return cudaGetErrorString((cudaError_t)code);
}
