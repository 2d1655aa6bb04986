/*
 * The CUDA side of the GPU benchmarks (gpu_bench.cu, built by nvcc): the
 * copy engine's own peer copies, the floor that fabshmem's puts are
 * measured against.  Every function returns 0 or the CUDA runtime's error
 * code.
 */
#ifndef FABSHMEM_BENCH_GPU_BENCH_H
#define FABSHMEM_BENCH_GPU_BENCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Allocates max bytes on device dst_dev for the peer copies from device
 * src_dev, with peer access enabled from src_dev (the calling thread's
 * device is src_dev again on return). */
int gb_peer_setup(int src_dev, int dst_dev, size_t max);
/* iters peer copies of n bytes from src (GPU memory of src_dev) into the
 * buffer on dst_dev: one cudaMemcpyPeer after the other, each waited for
 * with cudaStreamSynchronize (async 0: cudaMemcpyPeer itself returns
 * before a copy between devices is done), or cudaMemcpyPeerAsync on one stream and one wait at the end
 * (async 1, timed with events as NVSHMEM's anchor does); *sec_p is the
 * time of all of them. */
int gb_peer_copy(const void *src, int src_dev, size_t n, int iters, int async, double *sec_p);
void gb_peer_free(void);
const char *gb_error(int code);

#ifdef __cplusplus
}
#endif

#endif
