/*
 * Compiles a kernel that calls every routine of the device API once, for
 * every type of its families (tests/gpu/Makefile.include: make check
 * builds it with nvcc in a CUDA build, so that no routine of the header
 * rots where no GPU runs it).  Nothing runs.
 *
 * make check compiles it in four parts, with -DDEVICE_ALL_PART=1 to 4
 * into tests/device/device_all_1.o to _4.o, so that make -j runs the
 * nvccs side by side: whole, the file took one nvcc 15 minutes on a core
 * of a 2-core machine, nearly all of it in the 134 reduction kernels
 * (4.4-4.7 s each, cicc and ptxas about equally) and the 23 RMA ones
 * (2.7 s); the 53 others take 6 s together.  A part is a set of whole
 * families (the table at the end) chosen so that each takes about 3
 * minutes (2.8-3.3 measured): one bitwise and one min/max/sum operator
 * of the reductions in parts 1 to 3, prod and every other family in
 * part 4.  Without DEVICE_ALL_PART it compiles whole.
 * tests/device/device_all.sh checks that each part holds its kernels.
 */
#include <fabshmem/shmem_device.cuh>

#ifdef DEVICE_ALL_PART
#if DEVICE_ALL_PART < 1 || DEVICE_ALL_PART > 4
#error "DEVICE_ALL_PART is 1, 2, 3 or 4"
#endif
#define PART(K) (DEVICE_ALL_PART == (K))
#else
#define PART(K) 1
#endif

#define SCOPES3(F, ARGS) F ARGS; F##_warp ARGS; F##_block ARGS
/* One small kernel per type and family (one kernel of everything takes
 * the compiler many minutes and gigabytes). */
#define KERNEL(NAME) __global__ void NAME(char *heap, int pe, shmemd_team_t team)
#define LOCALS \
    size_t n = 4, idx[4]; \
    int status[4] = { 0 }; \
    uint64_t *sig = (uint64_t *)heap; \
    (void)idx; (void)status[0]; (void)sig; (void)team;
#define MISC \
    KERNEL(k_misc) \
    { \
        LOCALS \
        (void)shmemd_ptr(heap, pe); \
        (void)shmemd_my_pe(); \
        (void)shmemd_n_pes(); \
        (void)shmemd_team_my_pe(team); \
        (void)shmemd_team_n_pes(team); \
        (void)shmemd_team_translate_pe(team, 0, SHMEMD_TEAM_WORLD); \
        shmemd_signal_op(sig, 1, SHMEM_SIGNAL_SET, pe); \
        (void)shmemd_signal_fetch(sig); \
        (void)shmemd_signal_wait_until(sig, SHMEM_CMP_EQ, 1); \
        shmemd_fence(); \
        shmemd_quiet(); \
        SCOPES3(shmemd_barrier_all, ()); \
        SCOPES3(shmemd_sync_all, ()); \
        SCOPES3(shmemd_barrier, (team)); \
        SCOPES3(shmemd_team_sync, (team)); \
        SCOPES3(shmemd_putmem, (heap, heap + 64, n, pe)); \
        SCOPES3(shmemd_getmem_nbi, (heap, heap + 64, n, pe)); \
        SCOPES3(shmemd_putmem_signal_nbi, (heap, heap + 64, n, sig, 1, SHMEM_SIGNAL_ADD, pe)); \
        SCOPES3(shmemd_broadcastmem, (team, heap, heap + 64, n, 0)); \
        SCOPES3(shmemd_fcollectmem, (team, heap, heap + 64, n)); \
        SCOPES3(shmemd_alltoallmem, (team, heap, heap + 64, n)); \
    }
#define RMA(T, N) \
    KERNEL(k_rma_##N) \
    { \
        LOCALS \
        T *d = (T *)heap, v = shmemd_##N##_g(d, pe); \
        shmemd_##N##_p(d, v, pe); \
        SCOPES3(shmemd_##N##_put, (d, d + 1, n, pe)); \
        SCOPES3(shmemd_##N##_put_nbi, (d, d + 1, n, pe)); \
        SCOPES3(shmemd_##N##_get, (d, d + 1, n, pe)); \
        SCOPES3(shmemd_##N##_get_nbi, (d, d + 1, n, pe)); \
        SCOPES3(shmemd_##N##_put_signal, (d, d + 1, n, sig, 1, SHMEM_SIGNAL_ADD, pe)); \
        SCOPES3(shmemd_##N##_put_signal_nbi, (d, d + 1, n, sig, 1, SHMEM_SIGNAL_SET, pe)); \
        shmemd_##N##_iput(d, d + 1, 2, 3, n, pe); \
        shmemd_##N##_iget(d, d + 1, 2, 3, n, pe); \
        SCOPES3(shmemd_##N##_broadcast, (team, d, d + 8, n, 0)); \
        SCOPES3(shmemd_##N##_fcollect, (team, d, d + 8, n)); \
        SCOPES3(shmemd_##N##_alltoall, (team, d, d + 8, n)); \
    }
#define SIZED(B) \
    KERNEL(k_sized_##B) \
    { \
    LOCALS \
    SCOPES3(shmemd_put##B, (heap, heap + 64, n, pe)); \
    SCOPES3(shmemd_put##B##_nbi, (heap, heap + 64, n, pe)); \
    SCOPES3(shmemd_get##B, (heap, heap + 64, n, pe)); \
    SCOPES3(shmemd_get##B##_nbi, (heap, heap + 64, n, pe)); \
    SCOPES3(shmemd_put##B##_signal, (heap, heap + 64, n, sig, 1, SHMEM_SIGNAL_ADD, pe)); \
    shmemd_iput##B(heap, heap + 64, 2, 2, n, pe); \
    shmemd_iget##B(heap, heap + 64, 2, 2, n, pe); \
    }
#define EXT(T, N) \
    KERNEL(k_ext_##N) \
    { \
        LOCALS \
        T *d = (T *)heap, f; \
        f = shmemd_##N##_atomic_fetch(d, pe); \
        shmemd_##N##_atomic_set(d, f, pe); \
        f = shmemd_##N##_atomic_swap(d, f, pe); \
        shmemd_##N##_atomic_fetch_nbi(&f, d, pe); \
        shmemd_##N##_atomic_swap_nbi(&f, d, f, pe); \
    }
#define STD(T, N) \
    KERNEL(k_std_##N) \
    { \
        LOCALS \
        T *d = (T *)heap, f; \
        f = shmemd_##N##_atomic_compare_swap(d, 0, 1, pe); \
        shmemd_##N##_atomic_compare_swap_nbi(&f, d, 0, 1, pe); \
        f = shmemd_##N##_atomic_fetch_inc(d, pe); \
        shmemd_##N##_atomic_fetch_inc_nbi(&f, d, pe); \
        shmemd_##N##_atomic_inc(d, pe); \
        f = shmemd_##N##_atomic_fetch_add(d, f, pe); \
        shmemd_##N##_atomic_fetch_add_nbi(&f, d, f, pe); \
        shmemd_##N##_atomic_add(d, f, pe); \
    }
#define BIT(T, N) \
    KERNEL(k_bit_##N) \
    { \
        LOCALS \
        T *d = (T *)heap, f = 0; \
        f = shmemd_##N##_atomic_fetch_and(d, f, pe); \
        shmemd_##N##_atomic_fetch_and_nbi(&f, d, f, pe); \
        shmemd_##N##_atomic_and(d, f, pe); \
        f = shmemd_##N##_atomic_fetch_or(d, f, pe); \
        shmemd_##N##_atomic_fetch_or_nbi(&f, d, f, pe); \
        shmemd_##N##_atomic_or(d, f, pe); \
        f = shmemd_##N##_atomic_fetch_xor(d, f, pe); \
        shmemd_##N##_atomic_fetch_xor_nbi(&f, d, f, pe); \
        shmemd_##N##_atomic_xor(d, f, pe); \
    }
#define P2P(T, N) \
    KERNEL(k_p2p_##N) \
    { \
        LOCALS \
        T *v = (T *)heap, vals[4] = { 0 }; \
        shmemd_##N##_wait_until(v, SHMEM_CMP_GE, 0); \
        shmemd_##N##_wait_until_all(v, n, status, SHMEM_CMP_GE, 0); \
        (void)shmemd_##N##_wait_until_any(v, n, status, SHMEM_CMP_GE, 0); \
        (void)shmemd_##N##_wait_until_some(v, n, idx, status, SHMEM_CMP_GE, 0); \
        shmemd_##N##_wait_until_all_vector(v, n, status, SHMEM_CMP_GE, vals); \
        (void)shmemd_##N##_wait_until_any_vector(v, n, status, SHMEM_CMP_GE, vals); \
        (void)shmemd_##N##_wait_until_some_vector(v, n, idx, status, SHMEM_CMP_GE, vals); \
        (void)shmemd_##N##_test(v, SHMEM_CMP_GE, 0); \
        (void)shmemd_##N##_test_all(v, n, status, SHMEM_CMP_GE, 0); \
        (void)shmemd_##N##_test_any(v, n, status, SHMEM_CMP_GE, 0); \
        (void)shmemd_##N##_test_some(v, n, idx, status, SHMEM_CMP_GE, 0); \
        (void)shmemd_##N##_test_all_vector(v, n, status, SHMEM_CMP_GE, vals); \
        (void)shmemd_##N##_test_any_vector(v, n, status, SHMEM_CMP_GE, vals); \
        (void)shmemd_##N##_test_some_vector(v, n, idx, status, SHMEM_CMP_GE, vals); \
    }
#define RED(T, N, OP) \
    KERNEL(k_red_##N##_##OP) \
    { \
        LOCALS \
        SCOPES3(shmemd_##N##_##OP##_reduce, (team, (T *)heap, (T *)heap + 8, n)); \
        SCOPES3(shmemd_##N##_##OP##_reducescatter, (team, (T *)heap, (T *)heap + 8, n)); \
    }
#define RED_and(T, N) RED(T, N, and)
#define RED_or(T, N) RED(T, N, or)
#define RED_xor(T, N) RED(T, N, xor)
#define RED_min(T, N) RED(T, N, min)
#define RED_max(T, N) RED(T, N, max)
#define RED_sum(T, N) RED(T, N, sum)
#define RED_prod(T, N) RED(T, N, prod)

/* The parts (see the top; device_all.sh names each part's kernels). */
#if PART(1)
SHMEMI_REDUCE_BITWISE_TYPES(RED_and)
SHMEMI_REDUCE_MINMAX_DEVICE_TYPES(RED_min)
#endif
#if PART(2)
SHMEMI_REDUCE_BITWISE_TYPES(RED_or)
SHMEMI_REDUCE_MINMAX_DEVICE_TYPES(RED_max)
#endif
#if PART(3)
SHMEMI_REDUCE_BITWISE_TYPES(RED_xor)
SHMEMI_REDUCE_MINMAX_DEVICE_TYPES(RED_sum)
#endif
#if PART(4)
SHMEMI_REDUCE_MINMAX_DEVICE_TYPES(RED_prod)
MISC
SHMEMI_RMA_DEVICE_TYPES(RMA)
SHMEMI_RMA_SIZES(SIZED)
SHMEMI_AMO_EXTENDED_TYPES(EXT)
SHMEMI_AMO_STANDARD_TYPES(STD)
SHMEMI_AMO_BITWISE_TYPES(BIT)
SHMEMI_P2P_TYPES(P2P)
#endif
