/*
 * Collective launch (docs/device.md): a kernel whose blocks wait for each
 * other or for other PEs' kernels must have every block resident at once;
 * a cooperative launch guarantees it, after the occupancy check says the
 * grid fits.
 */
#include <fabshmem/shmem_device.cuh>
#include <stdio.h>

extern "C" int shmemx_collective_launch_query_gridsize(const void *func, dim3 block,
                                                       size_t shared_mem, int *grid_p)
{
    int dev, per_sm = 0, sms = 0;
    cudaError_t e;

    if (!grid_p || !func)
        return -1;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
             &per_sm, func, (int)(block.x * block.y * block.z), shared_mem)) != cudaSuccess) {
        fprintf(stderr, "fabshmem: shmemx_collective_launch_query_gridsize: %s\n",
                cudaGetErrorString(e));
        return -1;
    }
    *grid_p = per_sm * sms;
    return 0;
}

extern "C" int shmemx_collective_launch(const void *func, dim3 grid, dim3 block, void **args,
                                        size_t shared_mem, cudaStream_t stream)
{
    int most, dev, coop = 0;
    unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
    cudaError_t e;

    if (shmemx_collective_launch_query_gridsize(func, block, shared_mem, &most))
        return -1;
    if (cudaGetDevice(&dev) == cudaSuccess)
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
    if (!coop) {
        fprintf(stderr, "fabshmem: shmemx_collective_launch: the GPU cannot launch cooperative "
                "kernels (cudaDevAttrCooperativeLaunch is 0)\n");
        return -1;
    }
    if (blocks == 0 || blocks > (unsigned long long)most) {
        fprintf(stderr, "fabshmem: shmemx_collective_launch: grid of %llu blocks of %u threads "
                "(%zu bytes of shared memory) cannot be resident at once on this GPU: at most "
                "%d (shmemx_collective_launch_query_gridsize)\n", blocks,
                block.x * block.y * block.z, shared_mem, most);
        return -1;
    }
    if ((e = cudaLaunchCooperativeKernel(func, grid, block, args, shared_mem, stream)) !=
        cudaSuccess) {
        fprintf(stderr, "fabshmem: shmemx_collective_launch: cudaLaunchCooperativeKernel: %s\n",
                cudaGetErrorString(e));
        return -1;
    }
    return 0;
}
