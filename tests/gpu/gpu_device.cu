/*
 * gpu_device: the device API (docs/device.md) from kernels, on PEs that
 * map each other's device heaps (one GPU shared, or GPUs with peer
 * access), every check on every PE:
 *
 *  1. a ring of puts and gets by one thread, a warp and every block of a
 *     grid, 1 byte to 64 MiB; p and g; iput and iget;
 *  2. AMOs under contention: every thread of every PE adds to PE 0's
 *     words (fetch_add, add, fetch_inc, a compare_swap loop, xor, or):
 *     exact totals, and the values fetch_add returned are all different
 *     (their sum over the job is 0 + 1 + ... + T-1);
 *  3. signal ordering: a block's 1 MiB put with signal, and the receiver,
 *     once the signal is seen, finds every byte (20 rounds, acknowledged);
 *  4. a loop of device barriers (GPU_DEVICE_ITERS, default 100000; a p to
 *     the next PE checked after each);
 *  5. every wait_until form and the tests;
 *  6. the collectives (broadcast, fcollect, alltoall, reduce with sum, min,
 *     max, xor and in place across the scratch's chunks, reducescatter)
 *     on SHMEMD_TEAM_WORLD and on a team of the even PEs, against the
 *     answer computed on the host; and 500 rounds of small reductions and
 *     reducescatters back to back, each checked in the kernel;
 *  7. errors: an address outside the device heap, reported by
 *     shmemx_device_check naming the routine; and the collective launch's
 *     refusal of a grid that cannot be resident.
 * In a job where some PE is not mapped (FABSHMEM_DIRECT=0, virtual nodes)
 * the same checks run through the proxy (docs/device.md, "The proxy"),
 * with the big sizes shorter (64 MiB by the blocks only), fewer AMO
 * updates (the compare_swap loop retries a round trip each), and fewer
 * barriers (GPU_DEVICE_PX_ITERS, default 1000); a put from shared
 * memory is refused (SHMEMD_ERR_NOT_GLOBAL); and an error the proxy
 * records beside one of the kernel's is one report (the kernel's first,
 * both counted).  Without a proxy
 * (FABSHMEM_PROXY=0) it checks instead that a kernel's put to such a PE
 * is refused and reported.  Exits 77 when the PEs have no device heap.
 */
#include <shmem.h>
#include <shmemx.h>
#include <fabshmem/shmem_device.cuh>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>

static int me, npes;
static int proxy; /* some peer is not mapped: the routines go through the proxy */
static int trace; /* GPU_DEVICE_TRACE: each step on stderr before it runs */
#define DEVTEST_NAME "gpu_device"
#include "gpu_devtest.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__host__ __device__ static unsigned char pat(unsigned seed, size_t i)
{
    return (unsigned char)((seed * 2654435761u + (unsigned)i * 40503u + (unsigned)(i >> 16)) >> 7);
}
__global__ void k_fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] = pat(seed, i);
}
/* The first byte that differs, in *bad (initialized to ~0). */
__global__ void k_check(const unsigned char *p, size_t n, unsigned seed, unsigned long long *bad)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        if (p[i] != pat(seed, i))
            atomicMin(bad, (unsigned long long)i);
}
__global__ void k_barrier(void) { shmemd_barrier_all(); }

/* scope 0: one thread; 1: warp 0 of block 0; 2: every block a slice. */
__global__ void k_move(char *dst, const char *src, size_t n, int pe, int scope, int get)
{
    if (scope == 0) {
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            if (get)
                shmemd_getmem(dst, src, n, pe);
            else
                shmemd_putmem_nbi(dst, src, n, pe);
        }
    } else if (scope == 1) {
        if (blockIdx.x == 0 && threadIdx.x < 32) {
            if (get)
                shmemd_getmem_warp(dst, src, n, pe);
            else
                shmemd_putmem_warp(dst, src, n, pe);
        }
    } else {
        size_t slice = (n + gridDim.x - 1) / gridDim.x, lo = blockIdx.x * slice;
        size_t len = lo >= n ? 0 : (n - lo < slice ? n - lo : slice);
        if (get)
            shmemd_getmem_nbi_block(dst + lo, src + lo, len, pe);
        else
            shmemd_putmem_block(dst + lo, src + lo, len, pe);
    }
    shmemd_quiet();
}

static unsigned long long *bad_d;
static void expect_pattern(const char *what, const void *p, size_t n, unsigned seed)
{
    unsigned long long bad = ~0ull;
    CK(cudaMemcpy(bad_d, &bad, sizeof(bad), cudaMemcpyHostToDevice));
    k_check<<<132, 256>>>((const unsigned char *)p, n, seed, bad_d);
    CK(cudaMemcpy(&bad, bad_d, sizeof(bad), cudaMemcpyDeviceToHost));
    if (bad != ~0ull)
        DIE("%s, %zu bytes: wrong byte at %llu", what, n, bad);
}

static void test_ring(char *a, char *b, int next, int prev)
{
    static const size_t sizes[] = { 1, 7, 4099, (1 << 20) + 5, (size_t)64 << 20 };
    static const char *scope_name[] = { "thread", "warp", "block" };
    char what[64];
    for (int s = 0; s < 3; s++)
        for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            size_t n = sizes[k];
            if (proxy && s < 2 && n > ((size_t)2 << 20))
                continue; /* one request of 64 MiB: once, by the blocks */
            unsigned seed = (unsigned)(me * 7919 + s * 31 + k);
            STEP("ring: put and get by a %s of %zu bytes", scope_name[s], n);
            k_fill<<<132, 256>>>((unsigned char *)a, n, seed);
            k_barrier<<<1, 1>>>();
            /* put a (mine) into next's b; get prev's a into my b + n... */
            k_move<<<s == 2 ? 64 : 1, s == 0 ? 1 : 256>>>(b, a, n, next, s, 0);
            k_barrier<<<1, 1>>>();
            CK(cudaDeviceSynchronize());
            snprintf(what, sizeof(what), "put by a %s", scope_name[s]);
            expect_pattern(what, b, n, (unsigned)(prev * 7919 + s * 31 + k));
            k_move<<<s == 2 ? 64 : 1, s == 0 ? 1 : 256>>>(b, a, n, prev, s, 1);
            k_barrier<<<1, 1>>>();
            CK(cudaDeviceSynchronize());
            snprintf(what, sizeof(what), "get by a %s", scope_name[s]);
            expect_pattern(what, b, n, (unsigned)(prev * 7919 + s * 31 + k));
        }
}

__global__ void __launch_bounds__(256)
k_pg(int *dst, const int *src, int *got, int n, int next, int prev, int me)
{
    int i = threadIdx.x;
    if (i < n)
        shmemd_int_p(dst + i, me * 1000 + i, next);
    __syncthreads();
    if (i == 0)
        shmemd_barrier_all();
    __syncthreads();
    if (i < n)
        got[i] = shmemd_int_g(src + i, prev);
    __syncthreads();
    if (i == 0) {
        shmemd_int_iput(dst + 256, src, 2, 1, 50, next);
        shmemd_int_iget(got + 256, src + 1, 1, 2, 50, prev);
        shmemd_barrier_all();
    }
}
static void test_pg(int *ia, int *ib, int next, int prev)
{
    int host[512], got[512], *got_d;
    for (int i = 0; i < 512; i++)
        host[i] = me * 100000 + i;
    CK(cudaMalloc(&got_d, sizeof(got)));
    CK(cudaMemcpy(ib, host, sizeof(host), cudaMemcpyHostToDevice)); /* ib: the source */
    CK(cudaMemset(ia, 0xff, sizeof(host)));
    k_barrier<<<1, 1>>>();
    k_pg<<<1, 256>>>(ia, ib, got_d, 200, next, prev, me);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(host, ia, sizeof(host), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(got, got_d, sizeof(got), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 200; i++) {
        if (host[i] != prev * 1000 + i)
            DIE("shmemd_int_p from PE %d: element %d is %d", prev, i, host[i]);
        if (got[i] != prev * 100000 + i)
            DIE("shmemd_int_g of PE %d: element %d is %d", prev, i, got[i]);
    }
    for (int k = 0; k < 100; k++) {
        int want = k % 2 == 0 ? prev * 100000 + k / 2 : -1;
        if (host[256 + k] != want)
            DIE("shmemd_int_iput from PE %d: element %d is %d, expected %d", prev, 256 + k,
                 host[256 + k], want);
    }
    for (int k = 0; k < 50; k++)
        if (got[256 + k] != prev * 100000 + 1 + 2 * k)
            DIE("shmemd_int_iget of PE %d: element %d is %d", prev, k, got[256 + k]);
    CK(cudaFree(got_d));
}

/* Every thread: iters rounds on PE 0's words. */
struct amo_words {
    int i_fadd;
    long l_add;
    unsigned long long u_finc;
    int i_cswap;
    uint64_t x_xor;
    uint64_t o_or;
    double d_set;
};
__global__ void k_amo(amo_words *w, unsigned long long *fetched_sum, int me, int iters)
{
    unsigned long long sum = 0;
    for (int k = 0; k < iters; k++) {
        sum += (unsigned long long)shmemd_int_atomic_fetch_add(&w->i_fadd, 1, 0);
        shmemd_long_atomic_add(&w->l_add, 2, 0);
        (void)shmemd_ulonglong_atomic_fetch_inc(&w->u_finc, 0);
        int old = shmemd_int_atomic_fetch(&w->i_cswap, 0), seen;
        while ((seen = shmemd_int_atomic_compare_swap(&w->i_cswap, old, old + 1, 0)) != old)
            old = seen;
        shmemd_uint64_atomic_xor(&w->x_xor, 1, 0);
    }
    shmemd_uint64_atomic_or(&w->o_or, 1ull << (me % 64), 0);
    shmemd_double_atomic_set(&w->d_set, 0.5, 0);
    atomicAdd(fetched_sum, sum);
}
static void test_amo(amo_words *w, long long *host_sym)
{
    /* Through the proxy every update is a request, and each retry of the
     * compare_swap loop a round trip: fewer threads and rounds. */
    const int blocks = proxy ? 2 : 8, threads = proxy ? 32 : 128, iters = proxy ? 4 : 64;
    unsigned long long T = (unsigned long long)npes * blocks * threads * iters, mine;
    unsigned long long *sum_d;
    CK(cudaMalloc(&sum_d, 8));
    CK(cudaMemset(sum_d, 0, 8));
    CK(cudaMemset(w, 0, sizeof(*w)));
    k_barrier<<<1, 1>>>();
    k_amo<<<blocks, threads>>>(w, sum_d, me, iters);
    k_barrier<<<1, 1>>>();
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&mine, sum_d, 8, cudaMemcpyDeviceToHost));
    host_sym[0] = (long long)mine;
    shmem_barrier_all();
    shmem_longlong_sum_reduce(SHMEM_TEAM_WORLD, host_sym + 1, host_sym, 1);
    if ((unsigned long long)host_sym[1] != T * (T - 1) / 2)
        DIE("fetch_add: the values fetched sum to %llu over the job, not %llu: an update was "
             "lost or repeated", (unsigned long long)host_sym[1], T * (T - 1) / 2);
    if (me == 0) {
        amo_words h;
        CK(cudaMemcpy(&h, w, sizeof(h), cudaMemcpyDeviceToHost));
        unsigned long long all = npes >= 64 ? ~0ull : (1ull << npes) - 1;
        if ((unsigned long long)h.i_fadd != T || (unsigned long long)h.l_add != 2 * T ||
            h.u_finc != T || (unsigned long long)h.i_cswap != T || h.x_xor != (T & 1) ||
            h.o_or != all || h.d_set != 0.5)
            DIE("AMOs under contention (%llu updates of each word): fetch_add %d, add %ld, "
                 "fetch_inc %llu, compare_swap %d, xor %llu, or %#llx, set %g", T, h.i_fadd,
                 h.l_add, h.u_finc, h.i_cswap, (unsigned long long)h.x_xor,
                 (unsigned long long)h.o_or, h.d_set);
    }
    CK(cudaFree(sum_d));
}

/* 3: rounds of a 1 MiB put with signal to next, checked by next once it
 * sees the signal, acknowledged to the sender. */
#define SIG_BYTES ((size_t)1 << 20)
__global__ void __launch_bounds__(512)
k_signal(unsigned char *in, unsigned char *out, uint64_t *sig, uint64_t *ack, int rounds, int me,
         int next, int prev, unsigned long long *bad)
{
    for (int r = 1; r <= rounds; r++) {
        for (size_t i = threadIdx.x; i < SIG_BYTES; i += blockDim.x)
            out[i] = pat((unsigned)(me * 131 + r), i);
        __syncthreads();
        shmemd_putmem_signal_nbi_block(in, out, SIG_BYTES, sig, (uint64_t)r, SHMEM_SIGNAL_SET, next);
        if (threadIdx.x == 0)
            shmemd_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)r);
        __syncthreads();
        for (size_t i = threadIdx.x; i < SIG_BYTES; i += blockDim.x)
            if (in[i] != pat((unsigned)(prev * 131 + r), i))
                atomicMin(bad, (unsigned long long)r << 32 | (unsigned)i);
        __syncthreads();
        if (threadIdx.x == 0) {
            shmemd_signal_op(ack, 1, SHMEM_SIGNAL_ADD, prev);
            shmemd_signal_wait_until(ack, SHMEM_CMP_GE, (uint64_t)r);
        }
        __syncthreads();
    }
}

__global__ void k_barrier_loop(int *slots, long iters, int next, int prev, unsigned long long *bad)
{
    for (long i = 1; i <= iters; i++) {
        shmemd_int_p(&slots[i & 1], (int)i, next);
        shmemd_barrier_all();
        if (slots[i & 1] != (int)i)
            atomicMin(bad, (unsigned long long)i);
        shmemd_sync_all();
    }
}

__global__ void k_waits(long long *iv, int next, unsigned long long *bad)
{
    int status[8] = { 0 };
    long long vals[8];
    size_t idx[8];
    /* A: all eight to 1 */
    for (int i = 0; i < 8; i++)
        shmemd_longlong_p(iv + i, 1, next);
    shmemd_longlong_wait_until(iv, SHMEM_CMP_EQ, 1);
    shmemd_longlong_wait_until_all(iv, 8, 0, SHMEM_CMP_EQ, 1);
    if (!shmemd_longlong_test_all(iv, 8, 0, SHMEM_CMP_EQ, 1))
        atomicMin(bad, 1ull);
    shmemd_barrier_all();
    /* B: word 3 to 2: any finds 3 */
    shmemd_longlong_p(iv + 3, 2, next);
    if (shmemd_longlong_wait_until_any(iv, 8, 0, SHMEM_CMP_EQ, 2) != 3)
        atomicMin(bad, 2ull);
    shmemd_barrier_all();
    /* C: word 5 to 2, 3 excluded: some finds exactly 5 */
    shmemd_longlong_p(iv + 5, 2, next);
    status[3] = 1;
    if (shmemd_longlong_wait_until_some(iv, 8, idx, status, SHMEM_CMP_EQ, 2) != 1 || idx[0] != 5)
        atomicMin(bad, 3ull);
    if (shmemd_longlong_test_any(iv, 8, status, SHMEM_CMP_EQ, 2) != 5 ||
        shmemd_longlong_test_some(iv, 8, idx, 0, SHMEM_CMP_EQ, 2) != 2)
        atomicMin(bad, 4ull);
    status[3] = 0;
    shmemd_barrier_all();
    /* D: vectors: word i to 10 + i */
    for (int i = 0; i < 8; i++) {
        vals[i] = 10 + i;
        shmemd_longlong_p(iv + i, 10 + i, next);
    }
    shmemd_longlong_wait_until_all_vector(iv, 8, 0, SHMEM_CMP_EQ, vals);
    if (shmemd_longlong_wait_until_any_vector(iv, 8, 0, SHMEM_CMP_EQ, vals) != 0 ||
        shmemd_longlong_wait_until_some_vector(iv, 8, idx, 0, SHMEM_CMP_GE, vals) != 8 ||
        !shmemd_longlong_test_all_vector(iv, 8, 0, SHMEM_CMP_EQ, vals) ||
        shmemd_longlong_test_any_vector(iv, 8, 0, SHMEM_CMP_GT, vals) != (size_t)-1 ||
        shmemd_longlong_test_some_vector(iv, 8, idx, 0, SHMEM_CMP_LE, vals) != 8 ||
        !shmemd_longlong_test(iv + 7, SHMEM_CMP_EQ, 17))
        atomicMin(bad, 5ull);
    shmemd_barrier_all();
}

/* 6: the collectives, by one block. */
__global__ void __launch_bounds__(512)
k_coll(shmemd_team_t team, int *ibuf, int *idst, long *lsrc, long *ldst, double *dsrc,
       double *ddst, uint64_t *usrc, uint64_t *udst, int *ip, size_t nip, int root, int *rc)
{
    int r = 0;
    r |= shmemd_int_broadcast_block(team, idst, ibuf, 1000, root);
    r |= shmemd_long_fcollect_block(team, ldst, lsrc, 100);
    r |= shmemd_int_alltoall_block(team, idst + 1000, ibuf, 64);
    r |= shmemd_double_sum_reduce_block(team, ddst, dsrc, 10000);
    r |= shmemd_int_max_reduce_block(team, idst + 100000, ibuf, 5000);
    r |= shmemd_uint64_xor_reduce_block(team, udst, usrc, 3000);
    r |= shmemd_int_sum_reduce_block(team, ip, ip, nip); /* in place, several chunks */
    r |= shmemd_int_sum_reducescatter_block(team, idst + 200000, ibuf, 1000);
    /* misaligned: source and destination 4 bytes past a 16-byte boundary
     * (the ends one element at a time, the middle in 16-byte words), and
     * at different offsets from it (one element at a time throughout) */
    r |= shmemd_int_sum_reduce_block(team, idst + 300001, ibuf + 1, 4001);
    r |= shmemd_int_min_reduce_block(team, idst + 310002, ibuf + 1, 3001);
    /* past the flagged words' 16 KiB, misaligned the same way: the pushes */
    r |= shmemd_int_sum_reduce_block(team, idst + 320001, ibuf + 1, 6001);
    if (threadIdx.x == 0)
        shmemd_long_sum_reduce(team, ldst + 10000, lsrc, 7); /* one thread */
    __syncthreads();
    /* one pass of whole aligned chunks by one thread and by a warp (the
     * flagged words' straight line) */
    if (threadIdx.x == 0)
        r |= shmemd_long_sum_reduce(team, ldst + 10100, lsrc, 4);
    __syncthreads();
    if (threadIdx.x < 32)
        r |= shmemd_int_sum_reduce_warp(team, idst + 330000, ibuf, 64);
    __syncthreads();
    if (threadIdx.x == 0)
        *rc = r;
}
/* 6b: small reductions back to back (the push areas, docs/device.md): each
 * round rewrites the source at once after the last reduction returned and
 * checks its result, with no other synchronization between the rounds, so
 * that a half of the push area reused too early, or a source read after
 * the reduction returned, shows as a wrong element.  Sizes cycle through
 * 1 to 12000 ints (the three ways: flagged words up to 4096, one
 * synchronization, two), every third round in place, every fourth by a warp, with 2- and
 * 8-byte elements too, and a reducescatter each round.  bad[0] counts wrong elements, bad[1] the
 * first (round << 20 | element). */
__device__ int pval(int j, int it, int i) { return j * 1000 + it * 7 + i % 97; }
__global__ void __launch_bounds__(512)
k_push(shmemd_team_t team, int tn, int tme, int *src, int *dst, int rounds, unsigned *bad)
{
    const int sizes[8] = { 1, 7, 64, 1000, 2049, 4096, 5000, 12000 };
    for (int it = 0; it < rounds; it++) {
        int n = sizes[it % 8], inplace = it % 3 == 0, warp = it % 4 == 1;
        int *d = inplace ? src : dst;
        for (int i = threadIdx.x; i < n * tn; i += blockDim.x)
            src[i] = pval(tme, it, i);
        __syncthreads();
        int r;
        if (warp) {
            r = 0;
            if (threadIdx.x < 32)
                r = shmemd_int_sum_reduce_warp(team, d, src, n);
        } else {
            r = shmemd_int_sum_reduce_block(team, d, src, n);
        }
        __syncthreads();
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            int want = 1000 * tn * (tn - 1) / 2 + tn * (it * 7 + i % 97);
            if (r || d[i] != want)
                if (atomicAdd(bad, 1u) == 0)
                    bad[1] = (unsigned)it << 20 | (unsigned)i;
        }
        __syncthreads();
        /* the same with 2- and 8-byte elements (4 and 1 in each 8 data
         * bytes of the smallest reductions' flagged words) */
        short *ss = (short *)(src + 30000), *sd = (short *)(dst + 30000);
        double *ds = (double *)(src + 50000), *dd = (double *)(dst + 50000);
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            ss[i] = (short)(tme + it % 50 + i % 7);
            ds[i] = tme * 0.5 + it + i;
        }
        __syncthreads();
        r = shmemd_short_sum_reduce_block(team, sd, ss, n);
        r |= shmemd_double_max_reduce_block(team, dd, ds, n);
        for (int i = threadIdx.x; i < n; i += blockDim.x)
            if (r || sd[i] != (short)(tn * (tn - 1) / 2 + tn * (it % 50 + i % 7)) ||
                dd[i] != (tn - 1) * 0.5 + it + i)
                if (atomicAdd(bad, 1u) == 0)
                    bad[1] = (unsigned)it << 20 | (unsigned)i | 1u << 18;
        __syncthreads();
        /* reducescatter: member m gets block m of n of every source */
        for (int i = threadIdx.x; i < n * tn; i += blockDim.x)
            src[i] = pval(tme, it + 1, i);
        __syncthreads();
        r = shmemd_int_sum_reducescatter_block(team, dst, src, n);
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            int k = tme * n + i;
            int want = 1000 * tn * (tn - 1) / 2 + tn * ((it + 1) * 7 + k % 97);
            if (r || dst[i] != want)
                if (atomicAdd(bad, 1u) == 0)
                    bad[1] = (unsigned)it << 20 | (unsigned)i | 1u << 19;
        }
        __syncthreads();
    }
}
/* 6c: a team slot used again: rounds of a small reduction (flagged
 * words) and a barrier on team, each round's sources new (salt), checked;
 * bad[0] counts wrong elements. */
__global__ void __launch_bounds__(512)
k_team_rounds(shmemd_team_t team, int tn, int tme, int *src, int *dst, int rounds, int salt,
              unsigned *bad)
{
    for (int r = 0; r < rounds; r++) {
        for (int i = threadIdx.x; i < 1000; i += blockDim.x)
            src[i] = pval(tme, salt * 100 + r, i);
        __syncthreads();
        int rc = shmemd_int_sum_reduce_block(team, dst, src, 1000);
        for (int i = threadIdx.x; i < 1000; i += blockDim.x)
            if (rc || dst[i] != 1000 * tn * (tn - 1) / 2 + tn * ((salt * 100 + r) * 7 + i % 97))
                atomicAdd(bad, 1u);
        shmemd_barrier_block(team);
    }
}
__global__ void k_team_barriers(shmemd_team_t team, int n)
{
    for (int i = 0; i < n; i++)
        shmemd_barrier(team);
}
static int ival(int pe, int i) { return pe * 7 + i % 1013 - 500; }

static void test_coll(shmem_team_t team_h, shmemd_team_t team, char *heap)
{
    int tn = shmem_team_n_pes(team_h), tme = shmem_team_my_pe(team_h), root = 1 % tn;
    size_t nip = 100000;
    int *ibuf = (int *)heap, *idst = ibuf + 400000, *ip = idst + 400000, *rc_d;
    long *lsrc = (long *)(ip + nip), *ldst = lsrc + 100;
    double *dsrc = (double *)(ldst + 20000), *ddst = dsrc + 10000;
    uint64_t *usrc = (uint64_t *)(ddst + 10000), *udst = usrc + 3000;
    int *hi = (int *)malloc(sizeof(int) * 400000), rc;
    long hl[100];
    double *hd = (double *)malloc(sizeof(double) * 10000);
    uint64_t *hu = (uint64_t *)malloc(sizeof(uint64_t) * 3000);
    int *hp = (int *)malloc(sizeof(int) * nip);

    for (int i = 0; i < 100000; i++)
        hi[i] = ival(tme, i);
    for (int i = 0; i < 100; i++)
        hl[i] = (long)tme * 1000000 + i;
    for (int i = 0; i < 10000; i++)
        hd[i] = tme + i * 0.25;
    for (int i = 0; i < 3000; i++)
        hu[i] = (uint64_t)(tme + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)i;
    for (size_t i = 0; i < nip; i++)
        hp[i] = (int)(i % 977) + tme;
    CK(cudaMemcpy(ibuf, hi, sizeof(int) * 100000, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(lsrc, hl, sizeof(hl), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dsrc, hd, sizeof(double) * 10000, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(usrc, hu, sizeof(uint64_t) * 3000, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ip, hp, sizeof(int) * nip, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&rc_d, sizeof(int)));
    k_coll<<<1, 512>>>(team, ibuf, idst, lsrc, ldst, dsrc, ddst, usrc, udst, ip, nip, root, rc_d);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&rc, rc_d, sizeof(int), cudaMemcpyDeviceToHost));
    if (rc)
        DIE("a device collective on team %d returned %d", team, rc);
    CK(cudaMemcpy(hi, idst, sizeof(int) * 400000, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 1000; i++)
        if (hi[i] != ival(root, i))
            DIE("broadcast (team %d): element %d is %d, expected %d", team, i, hi[i], ival(root, i));
    for (int j = 0; j < tn; j++)
        for (int i = 0; i < 64; i++)
            if (hi[1000 + j * 64 + i] != ival(j, tme * 64 + i))
                DIE("alltoall (team %d): block %d element %d is %d", team, j, i, hi[1000 + j * 64 + i]);
    for (int i = 0; i < 5000; i++) {
        int want = ival(tn - 1, i);
        for (int j = 0; j < tn; j++)
            want = ival(j, i) > want ? ival(j, i) : want;
        if (hi[100000 + i] != want)
            DIE("max_reduce (team %d): element %d is %d, expected %d", team, i, hi[100000 + i], want);
    }
    for (int i = 0; i < 1000; i++) {
        int want = 0;
        for (int j = 0; j < tn; j++)
            want += ival(j, tme * 1000 + i);
        if (hi[200000 + i] != want)
            DIE("sum_reducescatter (team %d): element %d is %d, expected %d", team, i,
                 hi[200000 + i], want);
    }
    for (int i = 0; i < 4001; i++) {
        int want = 0;
        for (int j = 0; j < tn; j++)
            want += ival(j, i + 1);
        if (hi[300001 + i] != want)
            DIE("misaligned sum_reduce (team %d): element %d is %d, expected %d", team, i,
                 hi[300001 + i], want);
    }
    for (int i = 0; i < 3001; i++) {
        int want = ival(0, i + 1);
        for (int j = 1; j < tn; j++)
            want = ival(j, i + 1) < want ? ival(j, i + 1) : want;
        if (hi[310002 + i] != want)
            DIE("misaligned min_reduce (team %d): element %d is %d, expected %d", team, i,
                 hi[310002 + i], want);
    }
    for (int i = 0; i < 6001; i++) {
        int want = 0;
        for (int j = 0; j < tn; j++)
            want += ival(j, i + 1);
        if (hi[320001 + i] != want)
            DIE("misaligned sum_reduce of 6001 (team %d): element %d is %d, expected %d", team,
                i, hi[320001 + i], want);
    }
    long *gl = (long *)malloc(sizeof(long) * 20000);
    CK(cudaMemcpy(gl, ldst, sizeof(long) * 20000, cudaMemcpyDeviceToHost));
    for (int j = 0; j < tn; j++)
        for (int i = 0; i < 100; i++)
            if (gl[j * 100 + i] != (long)j * 1000000 + i)
                DIE("fcollect (team %d): block %d element %d is %ld", team, j, i, gl[j * 100 + i]);
    for (int i = 0; i < 7; i++) {
        long want = 0;
        for (int j = 0; j < tn; j++)
            want += (long)j * 1000000 + i;
        if (gl[10000 + i] != want)
            DIE("long sum_reduce by one thread (team %d): element %d is %ld, expected %ld", team,
                 i, gl[10000 + i], want);
    }
    for (int i = 0; i < 4; i++) {
        long want = 0;
        for (int j = 0; j < tn; j++)
            want += (long)j * 1000000 + i;
        if (gl[10100 + i] != want)
            DIE("long sum_reduce of 4 by one thread (team %d): element %d is %ld, expected %ld",
                team, i, gl[10100 + i], want);
    }
    for (int i = 0; i < 64; i++) {
        int want = 0;
        for (int j = 0; j < tn; j++)
            want += ival(j, i);
        if (hi[330000 + i] != want)
            DIE("int sum_reduce of 64 by a warp (team %d): element %d is %d, expected %d", team,
                i, hi[330000 + i], want);
    }
    CK(cudaMemcpy(hd, ddst, sizeof(double) * 10000, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 10000; i++) {
        double want = 0;
        for (int j = 0; j < tn; j++)
            want += j + i * 0.25;
        if (hd[i] != want)
            DIE("double sum_reduce (team %d): element %d is %g, expected %g", team, i, hd[i], want);
    }
    CK(cudaMemcpy(hu, udst, sizeof(uint64_t) * 3000, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 3000; i++) {
        uint64_t want = 0;
        for (int j = 0; j < tn; j++)
            want ^= (uint64_t)(j + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)i;
        if (hu[i] != want)
            DIE("uint64 xor_reduce (team %d): element %d", team, i);
    }
    CK(cudaMemcpy(hp, ip, sizeof(int) * nip, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < nip; i++) {
        int want = 0;
        for (int j = 0; j < tn; j++)
            want += (int)(i % 977) + j;
        if (hp[i] != want)
            DIE("in-place int sum_reduce (team %d): element %zu is %d, expected %d", team, i,
                 hp[i], want);
    }
    free(hi);
    free(hd);
    free(hu);
    free(hp);
    free(gl);
    CK(cudaFree(rc_d));

    unsigned *bad_d, hb[2];
    CK(cudaMalloc(&bad_d, sizeof(hb)));
    CK(cudaMemset(bad_d, 0, sizeof(hb)));
    shmem_team_sync(team_h);
    k_push<<<1, 512>>>(team, tn, tme, ibuf, idst, 500, bad_d);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hb, bad_d, sizeof(hb), cudaMemcpyDeviceToHost));
    if (hb[0])
        DIE("small reductions back to back (team %d): %u wrong elements, the first in round %u "
            "(%s), element %u", team, hb[0], hb[1] >> 20,
            hb[1] & 1u << 19 ? "reducescatter" : hb[1] & 1u << 18 ? "short sum or double max" : "int sum",
            hb[1] & ((1u << 18) - 1));
    /* The same with blocks of other sizes on other members (96 threads on
     * odd members, 512 on even ones): the flagged words of a 96-thread
     * block take several passes where a 512-thread one takes one, and must
     * not wait in one pass for what the other pushes in a later one. */
    CK(cudaMemset(bad_d, 0, sizeof(hb)));
    STEP("small reductions by blocks of 96 and 512 threads (team %d)", team);
    shmem_team_sync(team_h);
    k_push<<<1, tme % 2 ? 96 : 512>>>(team, tn, tme, ibuf, idst, 100, bad_d);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hb, bad_d, sizeof(hb), cudaMemcpyDeviceToHost));
    CK(cudaFree(bad_d));
    if (hb[0])
        DIE("small reductions by blocks of 96 and 512 threads (team %d): %u wrong elements, the "
            "first in round %u, element %u", team, hb[0], hb[1] >> 20, hb[1] & ((1u << 18) - 1));
}

__global__ void k_grid_wait(int *flag)
{
    /* Every block waits for every other: only safe when all are resident. */
    atomicAdd(flag, 1);
    while (atomicAdd(flag, 0) < (int)gridDim.x)
        ;
}
__global__ void k_wait_word(int *word) { shmemd_int_wait_until(word, SHMEM_CMP_EQ, 1); }
/* Blocking gets from pe until one sees 1 or a kernel error is recorded
 * (the proxy stopped: SHMEMD_ERR_PROXY). */
__global__ void k_get_until(int *word, int pe)
{
    while (!shmemd_int_g(word, pe) && !*(volatile unsigned *)&shmemd_state_c.err->count)
        ;
}
__global__ void k_bad_addr(int *p, int pe) { shmemd_int_p(p, 1, pe); }
__global__ void k_put_unmapped(int *p, int pe) { shmemd_int_p(p, 1, pe); }
/* A put whose source is in shared memory: the proxy cannot read it. */
__global__ void k_put_shared(int *p, int pe)
{
    __shared__ int v[4];
    v[threadIdx.x & 3] = 1;
    __syncthreads();
    shmemd_int_put(p, v, 4, pe);
}

/* Two errors at once, one in each record: a put through the proxy whose
 * source is GPU memory outside the device heap (the proxy refuses it, in
 * its record) and a p to a PE out of range (the kernel's record). */
__global__ void k_two_errors(int *p, const int *outside, int un, int bad)
{
    shmemd_int_put(p, outside, 4, un);
    shmemd_int_p(p, 1, bad);
}

static void test_errors(int *sym)
{
    int rc, grid, *flag, *notsym;
    char msg[512];
    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    CK(cudaMalloc(&notsym, 64));
    k_bad_addr<<<1, 1>>>(notsym, (me + 1) % npes);
    CK(cudaDeviceSynchronize());
    rc = shmemx_device_check();
    shmemx_error_get(msg, sizeof(msg));
    if (rc != SHMEMX_ERROR_INVALID_VALUE || !strstr(msg, "shmemd_TYPE_p") ||
        !strstr(msg, "not inside the device heap"))
        DIE("a kernel's p to an address outside the device heap: shmemx_device_check gave %d "
             "(%s)", rc, msg);
    if (shmemx_device_check() != 0)
        DIE("shmemx_device_check did not clear the error it reported");
    k_bad_addr<<<1, 1>>>(sym, npes + 3);
    CK(cudaDeviceSynchronize());
    rc = shmemx_device_check();
    shmemx_error_get(msg, sizeof(msg));
    if (rc != SHMEMX_ERROR_INVALID_VALUE || !strstr(msg, "out of range"))
        DIE("a kernel's p to PE %d: shmemx_device_check gave %d (%s)", npes + 3, rc, msg);
    if (proxy) {
        /* Through the proxy, a put from shared memory is refused. */
        int un = -1;
        for (int pe = 0; pe < npes; pe++)
            if (!shmem_ptr(sym, pe))
                un = pe;
        k_put_shared<<<1, 1>>>(sym, un);
        CK(cudaDeviceSynchronize());
        rc = shmemx_device_check();
        shmemx_error_get(msg, sizeof(msg));
        if (rc == 0 || !strstr(msg, "shmemd_put"))
            DIE("a kernel's put from shared memory to PE %d (through the proxy): "
                 "shmemx_device_check gave %d (%s)", un, rc, msg);
        if (shmemx_device_check() != 0)
            DIE("shmemx_device_check did not clear the error it reported");
        /* The proxy's record and the kernels' apart: one report, the
         * kernels' error first, counting both, and both cleared. */
        CK(cudaMemset(notsym, 0, 64));
        k_two_errors<<<1, 1>>>(sym, notsym, un, npes + 3);
        CK(cudaDeviceSynchronize());
        rc = shmemx_device_check();
        shmemx_error_get(msg, sizeof(msg));
        if (rc != SHMEMX_ERROR_INVALID_VALUE || !strstr(msg, "(2 errors since the last check") ||
            !strstr(msg, "shmemd_TYPE_p") || !strstr(msg, "out of range"))
            DIE("a kernel's put through the proxy from GPU memory outside the heap and p to PE "
                 "%d: shmemx_device_check gave %d (%s)", npes + 3, rc, msg);
        if (shmemx_device_check() != 0)
            DIE("shmemx_device_check did not clear both records");
    }
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    CK(cudaFree(notsym));
    /* The collective launch: the largest grid runs, one more is refused. */
    CK(cudaMalloc(&flag, sizeof(int)));
    CK(cudaMemset(flag, 0, sizeof(int)));
    if (shmemx_collective_launch_query_gridsize((const void *)k_grid_wait, dim3(128), 0, &grid) ||
        grid < 1)
        DIE("shmemx_collective_launch_query_gridsize failed");
    void *args[] = { &flag };
    if (shmemx_collective_launch((const void *)k_grid_wait, dim3(grid), dim3(128), args, 0, 0))
        DIE("shmemx_collective_launch of %d blocks (the largest) failed", grid);
    CK(cudaDeviceSynchronize());
    if (shmemx_collective_launch((const void *)k_grid_wait, dim3(grid + 1), dim3(128), args, 0, 0) != -1)
        DIE("shmemx_collective_launch of %d blocks (one more than fits) was not refused", grid + 1);
    CK(cudaFree(flag));
}

int main(void)
{
    double t0, t1;
    long iters;
    int unmapped = -1;

    int ngpus = 0;
    /* Loads the CUDA driver, so that FABSHMEM_CUDA=auto brings the GPU up
     * at shmem_init (without making a context here). */
    if (cudaGetDeviceCount(&ngpus) != cudaSuccess)
        ngpus = 0;
    shmem_init();
    trace = getenv("GPU_DEVICE_TRACE") != NULL;
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    char *heap = shmemx_cuda_device() < 0 ? NULL
                 : (char *)shmem_malloc_with_hints((size_t)160 << 20, SHMEMX_MALLOC_DEVICE);
    if (!heap) {
        if (me == 0)
            printf("SKIP gpu_device: no device heap\n");
        shmem_finalize();
        return 77;
    }
    long long *host_sym = (long long *)shmem_malloc(64);
    if (getenv("GPU_DEVICE_KILL") && npes >= 2) {
        /* PE 1 dies while PE 0's kernel waits for a word that only PE 1
         * would write (GPU_DEVICE_KILL=proxy: while it gets PE 1's word
         * through the proxy, over and over): the job must end with a
         * message naming PE 1 (the caller, bench/gpu/run_device.sh, checks
         * that, and that the GPU runs the next job). */
        int *word = (int *)heap;
        CK(cudaMemset(word, 0, 4));
        shmem_barrier_all();
        if (me == 1) {
            fprintf(stderr, "gpu_device: PE 1 kills itself while PE 0's kernel waits for it\n");
            raise(SIGKILL);
        }
        if (me == 0 && !strcmp(getenv("GPU_DEVICE_KILL"), "proxy")) {
            k_get_until<<<1, 1>>>(word, 1);
            cudaDeviceSynchronize();
            shmemx_device_check(); /* ends the job, naming PE 1 */
            DIE("the kernel's wait (gets through the proxy) for the dead PE 1 returned "
                 "without an error");
        } else if (me == 0) {
            k_wait_word<<<1, 1>>>(word);
            cudaDeviceSynchronize();
            DIE("the kernel's wait for a word of the dead PE 1 returned");
        }
        shmem_barrier_all();
        return 1;
    }
    CK(cudaMalloc(&bad_d, 8));
    {
        shmemd_state_t st;
        proxy = devtest_proxy(heap, &unmapped, &st);
        /* FABSHMEM_PROXY=auto starts it only where some peer is not mapped
         * (=1 starts it always). */
        const char *px_env = getenv("FABSHMEM_PROXY");
        if (unmapped < 0 && st.proxy.slots && !(px_env && !strcmp(px_env, "1")))
            DIE("every peer is mapped, yet the state has a proxy (%u slots)", st.proxy.nslots);
        if (me == 0 && proxy)
            printf("gpu_device: PE %d is not mapped: through the proxy (%u slots)\n", unmapped,
                   st.proxy.nslots);
    }
    if (proxy)
        iters = getenv("GPU_DEVICE_PX_ITERS") ? atol(getenv("GPU_DEVICE_PX_ITERS")) : 1000;
    else
        iters = getenv("GPU_DEVICE_ITERS") ? atol(getenv("GPU_DEVICE_ITERS")) : 100000;
    if (unmapped >= 0 && !proxy) {
        /* A PE this GPU does not map, and no proxy (FABSHMEM_PROXY=0): a
         * kernel's put to it is refused. */
        char msg[512];
        int rc;
        shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
        k_put_unmapped<<<1, 1>>>((int *)heap, unmapped);
        CK(cudaDeviceSynchronize());
        rc = shmemx_device_check();
        shmemx_error_get(msg, sizeof(msg));
        char want[32];
        snprintf(want, sizeof(want), "to PE %d", unmapped);
        if (rc != SHMEMX_ERROR_NOT_SUPPORTED || !strstr(msg, want) || !strstr(msg, "does not map"))
            DIE("a kernel's p to PE %d, not mapped: shmemx_device_check gave %d (%s)", unmapped,
                 rc, msg);
        shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
        printf("gpu_device: PE %d: PASS: a kernel's put to PE %d (not mapped) refused: %s\n", me,
               unmapped, msg);
        shmem_barrier_all();
        shmem_finalize();
        return 0;
    }
    char *a = heap, *b = heap + ((size_t)64 << 20);
    STEP("ring");
    test_ring(a, b, next, prev);
    STEP("p, g, iput, iget");
    test_pg((int *)a, (int *)b, next, prev);
    STEP("amo");
    test_amo((amo_words *)(heap + ((size_t)128 << 20)), host_sym);
    {
        unsigned char *in = (unsigned char *)a, *out = (unsigned char *)b;
        uint64_t *sig = (uint64_t *)(heap + ((size_t)129 << 20)), *ack = sig + 1;
        unsigned long long bad = ~0ull;
        CK(cudaMemset(sig, 0, 16));
        CK(cudaMemcpy(bad_d, &bad, 8, cudaMemcpyHostToDevice));
        k_barrier<<<1, 1>>>();
        STEP("signal ordering");
        k_signal<<<1, 512>>>(in, out, sig, ack, 20, me, next, prev, bad_d);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(&bad, bad_d, 8, cudaMemcpyDeviceToHost));
        if (bad != ~0ull)
            DIE("signal ordering: round %llu, byte %llu was not there when the signal was seen",
                 bad >> 32, bad & 0xffffffffull);
    }
    {
        int *slots = (int *)(heap + ((size_t)130 << 20));
        unsigned long long bad = ~0ull;
        CK(cudaMemset(slots, 0, 8));
        CK(cudaMemcpy(bad_d, &bad, 8, cudaMemcpyHostToDevice));
        k_barrier<<<1, 1>>>();
        CK(cudaDeviceSynchronize());
        t0 = now();
        STEP("barrier loop");
        k_barrier_loop<<<1, 1>>>(slots, iters, next, prev, bad_d);
        CK(cudaDeviceSynchronize());
        t1 = now();
        CK(cudaMemcpy(&bad, bad_d, 8, cudaMemcpyDeviceToHost));
        if (bad != ~0ull)
            DIE("barrier loop: after barrier %llu the p of PE %d was not there", bad, prev);
        if (me == 0)
            printf("gpu_device: %ld device barriers at %d PEs%s: %.2f us each\n", iters, npes,
                   proxy ? " (proxy)" : "", (t1 - t0) * 1e6 / (double)iters);
    }
    {
        long long *iv = (long long *)(heap + ((size_t)131 << 20));
        unsigned long long bad = ~0ull;
        CK(cudaMemset(iv, 0, 64));
        CK(cudaMemcpy(bad_d, &bad, 8, cudaMemcpyHostToDevice));
        k_barrier<<<1, 1>>>();
        STEP("waits");
        k_waits<<<1, 1>>>(iv, next, bad_d);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(&bad, bad_d, 8, cudaMemcpyDeviceToHost));
        if (bad != ~0ull)
            DIE("wait_until/test forms: phase %llu failed", bad);
    }
    STEP("collectives on the world");
    test_coll(SHMEM_TEAM_WORLD, SHMEMD_TEAM_WORLD, heap + ((size_t)132 << 20));
    {
        shmem_team_t even;
        if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even))
            DIE("shmem_team_split_strided");
        int dt = shmemx_team_device(even);
        if (me % 2 == 0) {
            if (dt < 0)
                DIE("shmemx_team_device of the even PEs' team gave %d", dt);
            test_coll(even, dt, heap + ((size_t)132 << 20));
        } else if (dt != -1) {
            DIE("shmemx_team_device of a team this PE is not in gave %d, not -1", dt);
        }
        shmem_barrier_all();
        shmem_team_destroy(even);
    }
    STEP("a team's slot used again");
    if (npes > 1) {
        /* Team A of every PE does small reductions (their flagged words
         * stay in the slot's push area); team S of PE 0 alone then raises
         * PE 0's barrier epoch of the slot; team B of every PE, in the same
         * slot, must start from zero on every member: without the slot's
         * words cleared at destroy, B's first reduction read A's words and
         * its barrier hung (PE 0 waiting for epoch 6, PE 1 storing 1). */
        shmem_team_t ta, ts, tb;
        int *src = (int *)(heap + ((size_t)150 << 20)), *dst = src + 4096;
        unsigned *bad_t, hb = 0;
        CK(cudaMalloc(&bad_t, sizeof(unsigned)));
        CK(cudaMemset(bad_t, 0, sizeof(unsigned)));
        if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &ta))
            DIE("shmem_team_split_strided (team A)");
        int da = shmemx_team_device(ta);
        k_team_rounds<<<1, 512>>>(da, npes, me, src, dst, 3, 1, bad_t);
        CK(cudaDeviceSynchronize());
        shmem_team_destroy(ta);
        if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &ts))
            DIE("shmem_team_split_strided (team S)");
        if (me == 0) {
            if (shmemx_team_device(ts) != da)
                DIE("team S has device handle %d, not team A's %d: the step needs the slot "
                    "again", shmemx_team_device(ts), da);
            k_team_barriers<<<1, 1>>>(shmemx_team_device(ts), 5);
            CK(cudaDeviceSynchronize());
            shmem_team_destroy(ts);
        }
        if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &tb))
            DIE("shmem_team_split_strided (team B)");
        if (shmemx_team_device(tb) != da)
            DIE("team B has device handle %d, not team A's %d: the step needs the slot again",
                shmemx_team_device(tb), da);
        k_team_rounds<<<1, 512>>>(shmemx_team_device(tb), npes, me, src, dst, 3, 2, bad_t);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(&hb, bad_t, sizeof(unsigned), cudaMemcpyDeviceToHost));
        if (hb)
            DIE("team B in team A's slot: %u wrong elements of its reductions", hb);
        shmem_team_destroy(tb);
        CK(cudaFree(bad_t));
    }
    STEP("errors");
    test_errors((int *)heap);
    shmem_barrier_all();
    printf("gpu_device: PE %d: PASS (%d PEs%s)\n", me, npes, proxy ? ", through the proxy" : "");
    shmem_free(heap);
    shmem_free(host_sym);
    shmem_finalize();
    return 0;
}
