// nvshmem_barrier.cu: NVSHMEM's side of the on-stream barrier of
// bench/gpu/gpu_stream_bench (docs/gpu.md, "Running on a GPU host"), which the NVSHMEM
// anchor (../shared/gpu-anchor) does not measure: nvshmemx_barrier_all_on_stream
// between 2 GPUs, 2000 calls on one stream timed with CUDA events.  Built and
// run on the GPU host by bench/gpu/run_stream.sh against the Python
// environment's NVSHMEM (unique-id bootstrap, mpirun only to spawn).  Prints
// "nvshmem_barrier_on_stream_us VALUE" on PE 0.
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

int main(int argc, char **argv)
{
    const char *idf = argc > 1 ? argv[1] : "nvshmem_barrier.id";
    int rank = atoi(getenv("OMPI_COMM_WORLD_RANK")), n = atoi(getenv("OMPI_COMM_WORLD_SIZE"));
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    cudaStream_t st;
    cudaEvent_t a, b;
    float ms;
    int iters = 2000;

    CK(cudaSetDevice(rank));
    if (rank == 0) {
        char tmp[512];
        snprintf(tmp, sizeof tmp, "%s.tmp", idf);
        nvshmemx_get_uniqueid(&id);
        FILE *f = fopen(tmp, "wb");
        fwrite(&id, sizeof id, 1, f);
        fclose(f);
        rename(tmp, idf);
    } else {
        FILE *f;
        while (!(f = fopen(idf, "rb")))
            usleep(10000);
        if (fread(&id, sizeof id, 1, f) != 1)
            return 1;
        fclose(f);
    }
    nvshmemx_set_attr_uniqueid_args(rank, n, &id, &attr);
    nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
    CK(cudaStreamCreate(&st));
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 20; i++)
        nvshmemx_barrier_all_on_stream(st);
    CK(cudaStreamSynchronize(st));
    nvshmem_barrier_all();
    CK(cudaEventRecord(a, st));
    for (int i = 0; i < iters; i++)
        nvshmemx_barrier_all_on_stream(st);
    CK(cudaEventRecord(b, st));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    if (nvshmem_my_pe() == 0)
        printf("nvshmem_barrier_on_stream_us %.2f\n", ms * 1e3 / iters);
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
}
