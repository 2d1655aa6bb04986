/*
 * The device API's kernels of the Python binding's GPU check
 * (tests/python/gpu_check.py loads them with fabshmem.core.device.RawModule,
 * CuPy compiling them with NVRTC); tests/device/nvrtc.sh compiles them with
 * NVRTC in make check, where no GPU runs them.
 */
#include <fabshmem/shmem_device.cuh>

/* A ring of p: each PE stores its number + 1000 into the next PE's dst. */
extern "C" __global__ void ring_p(int *dst)
{
    int me = shmemd_my_pe(), n = shmemd_n_pes();
    if (threadIdx.x == 0 && blockIdx.x == 0)
        shmemd_int_p(dst, me + 1000, (me + 1) % n);
}

/* One block puts n bytes of src into pe's dst. */
extern "C" __global__ void put_block(char *dst, const char *src, unsigned long long n, int pe)
{
    shmemd_putmem_block(dst, src, (size_t)n, pe);
    shmemd_quiet();
}

/* Every thread adds 1 to PE 0's counter; fetched[i] is what thread i saw. */
extern "C" __global__ void fetch_add(int *ctr, int *fetched)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    fetched[i] = shmemd_int_atomic_fetch_add(ctr, 1, 0);
}

/* iters rounds of: thread 0 stores round r into the next PE's slot[r],
 * barrier_all in the kernel, then checks that its own slot[r] holds r
 * (the previous PE stored it before its barrier); bad counts the misses. */
extern "C" __global__ void barrier_loop(int *slot, int iters, int *bad)
{
    int me = shmemd_my_pe(), n = shmemd_n_pes();
    for (int r = 0; r < iters; r++) {
        if (threadIdx.x == 0)
            shmemd_int_p(slot + r, r + 1, (me + 1) % n);
        shmemd_barrier_all_block();
        if (threadIdx.x == 0 && __ldcg(slot + r) != r + 1)
            atomicAdd(bad, 1);
    }
}

/* dst = the sum over team of src (n floats), by one block; rc: the
 * routine's status. */
extern "C" __global__ void sum_reduce(int team, float *dst, const float *src,
                                      unsigned long long n, int *rc)
{
    int r = shmemd_float_sum_reduce_block(team, dst, src, (size_t)n);
    if (threadIdx.x == 0)
        *rc = r;
}

/* put_signal then signal_wait_until: each PE puts n ints to the next with
 * the signal, waits for its own, and copies what arrived to out. */
extern "C" __global__ void put_signal_ring(int *dst, const int *src, unsigned long long n,
                                           uint64_t *sig, int *out)
{
    int me = shmemd_my_pe(), npes = shmemd_n_pes();
    shmemd_putmem_signal_block(dst, src, (size_t)n * sizeof(int), sig, 1, SHMEM_SIGNAL_ADD,
                               (me + 1) % npes);
    if (threadIdx.x == 0)
        shmemd_signal_wait_until(sig, SHMEM_CMP_GE, 1);
    __syncthreads();
    for (unsigned long long i = threadIdx.x; i < n; i += blockDim.x)
        out[i] = __ldcg(dst + i);
}

/* One p to pe at addr: the error paths (an address outside the device
 * heap, a PE this GPU does not map). */
extern "C" __global__ void p_at(int *addr, int pe)
{
    shmemd_int_p(addr, 7, pe);
}
