/*
 * gpu_heap: the device heap (docs/gpu.md), checked on every PE.
 *
 *  - Without a device heap (a build without CUDA, no GPU, no driver):
 *    shmem_malloc_with_hints(size, SHMEMX_MALLOC_DEVICE) behaves as
 *    shmem_malloc (OpenSHMEM 1.6 on hints): host memory on every PE, no
 *    error recorded, which a put to the next PE reaches; the host heap
 *    keeps working, and the program exits 77 (skipped).  A GPU that the
 *    CUDA runtime sees without a device heap is a failure.
 *  - With one: device blocks are symmetric (the same offsets on every PE,
 *    after frees too), shmem_addr_accessible says yes for every PE,
 *    shmem_ptr gives this PE's own block and each node peer's mapped copy
 *    exactly for the members of SHMEM_TEAM_SHARED (NULL for the others), a
 *    kernel of each PE stores into every peer's copy it maps, and each
 *    owner checks what every mapping peer stored; shmem_realloc keeps a
 *    device block's contents; a block larger than the device heap is NULL
 *    with SHMEMX_ERROR_OUT_OF_MEMORY on every PE; a put to a PE out of
 *    range is refused naming the routine; broadcast, fcollect and alltoall
 *    on device buffers over SHMEM_TEAM_SHARED and SHMEM_TEAM_WORLD (whose
 *    PEs may not map each other: the core's RMA then moves the data)
 *    deliver every byte, and the float sum and the long sum in place give
 *    every element; the strided alltoall and a host source with a device
 *    dest are refused (the other reductions and reduce-scatter:
 *    gpu_reduce); SHMEMX_TEAM_SAME_GPU holds
 *    exactly the PEs of my node on my device and SHMEMX_TEAM_GPU_LEADERS
 *    the lowest PE of each (node, device), and a sum over each works.
 *
 * `gpu_heap --cuda-required` (with FABSHMEM_CUDA=1, one PE): shmem_init
 * fails with SHMEMX_ERROR_NOT_SUPPORTED naming FABSHMEM_CUDA when the PE
 * has no GPU, and succeeds with a device heap when it has one.
 *
 * `gpu_heap --cuda-required-noheap` (it sets FABSHMEM_CUDA=1 and
 * FABSHMEM_DEVICE_HEAP_SIZE=0 itself; on a GPU): a job that asked for GPUs
 * has no device heap, and there shmem_malloc_with_hints refuses
 * SHMEMX_MALLOC_DEVICE (and ~SHMEM_MALLOC_ATOMICS_REMOTE, which has it) on
 * every PE with SHMEMX_ERROR_NOT_SUPPORTED naming the routine, the hint
 * and FABSHMEM_CUDA, while other hints still give host memory.
 */
#include "common.h"
#include <shmemx.h>
#include "gpu/gpu_kern.h"

static int ngpu;

static void expect_error(int code, const char *what, int want, const char *m1, const char *m2)
{
    char msg[1024];
    int got = shmemx_error_get(msg, sizeof(msg));

    TEST_ASSERT(got == want, "%s: error code %d (%s), expected %d (%s); message: %s", what, got,
                shmemx_strerror(got), want, shmemx_strerror(want), msg);
    TEST_ASSERT(strstr(msg, m1) && (!m2 || strstr(msg, m2)), "%s: the message does not name "
                "%s%s%s: %s", what, m1, m2 ? " and " : "", m2 ? m2 : "", msg);
    shmemx_error_clear();
}

/* The host heap works: a put to the next PE, checked there. */
static void host_heap_works(void)
{
    long *h = shmem_malloc(16 * sizeof(long));
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes, i;

    TEST_ASSERT(h != NULL, "shmem_malloc of 128 bytes returned NULL");
    for (i = 0; i < 16; i++)
        shmem_long_p(&h[i], test_val(test_me, (size_t)i, 1), next);
    shmem_barrier_all();
    for (i = 0; i < 16; i++)
        TEST_CHECK("host heap put", i, test_val(prev, (size_t)i, 1), h[i]);
    shmem_barrier_all();
    shmem_free(h);
}

static int no_device_heap(void)
{
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes, i;
    char msg[1024];
    long *p;

    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    shmemx_error_clear();
    p = shmem_malloc_with_hints(16 * sizeof(long), SHMEMX_MALLOC_DEVICE);
    msg[0] = '\0';
    i = shmemx_error_get(msg, sizeof(msg));
    TEST_ASSERT(p != NULL && i == SHMEMX_SUCCESS, "shmem_malloc_with_hints(128, "
                "SHMEMX_MALLOC_DEVICE) without a device heap returned %p, code %d: %s", (void *)p,
                i, msg);
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    /* Host memory, which the CPU reads: a put from the previous PE. */
    for (i = 0; i < 16; i++)
        shmem_long_p(&p[i], test_val(test_me, (size_t)i, 2), next);
    shmem_barrier_all();
    for (i = 0; i < 16; i++)
        TEST_CHECK("put into the SHMEMX_MALLOC_DEVICE block (host memory)", i,
                   test_val(prev, (size_t)i, 2), p[i]);
    shmem_barrier_all();
    shmem_free(p);
    host_heap_works();
    TEST_ASSERT(ngpu == 0, "the CUDA runtime sees %d GPU(s), but the PE has no device heap (run "
                "with SHMEM_INFO=1 for the reason)", ngpu);
    shmem_barrier_all();
    test_note("SKIP: no device heap (no GPU, or a build without CUDA); SHMEMX_MALLOC_DEVICE "
              "as shmem_malloc passed");
    shmem_finalize();
    return TEST_SKIP;
}

/* Device blocks of several sizes: the same offsets on every PE (read
 * from PE 0's record), after a free in the middle too. */
static void check_symmetry(void)
{
    static const size_t sizes[] = { 1, 100, 4096, 1 << 20, 3, 65536 + 7 };
    enum { NB = sizeof(sizes) / sizeof(sizes[0]) };
    long *offs = shmem_malloc(2 * NB * sizeof(long)), mine[2 * NB], theirs[2 * NB];
    char *b[NB];
    int i;

    for (i = 0; i < NB; i++) {
        b[i] = shmem_malloc_with_hints(sizes[i], SHMEMX_MALLOC_DEVICE);
        TEST_ASSERT(b[i] != NULL, "device block %d of %zu bytes is NULL", i, sizes[i]);
        TEST_ASSERT(((uintptr_t)b[i] & 255) == 0, "device block %p is not aligned to 256", b[i]);
        mine[i] = (long)(b[i] - b[0]);
    }
    shmem_free(b[2]);
    b[2] = shmem_malloc_with_hints(sizes[2] / 2, SHMEMX_MALLOC_DEVICE);
    for (i = 0; i < NB; i++)
        mine[NB + i] = (long)(b[i] - b[0]);
    memcpy(offs, mine, sizeof(mine));
    shmem_barrier_all();
    shmem_getmem(theirs, offs, sizeof(theirs), 0);
    for (i = 0; i < 2 * NB; i++)
        TEST_CHECK("device block offset (PE 0's)", i, theirs[i], mine[i]);
    for (i = 0; i < test_npes; i++)
        TEST_ASSERT(shmem_addr_accessible(b[1], i), "shmem_addr_accessible(device block, %d) "
                    "is 0", i);
    shmem_barrier_all();
    for (i = NB - 1; i >= 0; i--)
        shmem_free(b[i]);
    shmem_free(offs);
}

/* shmem_ptr of a device object: this PE's own, and a node peer's mapped
 * copy exactly for the members of TEAM_SHARED.  Each PE's kernel stores
 * into its slot of every copy it maps; each owner checks every slot. */
static void check_ptr_kernels(void)
{
    const size_t n = 4096;
    uint64_t *buf = shmem_malloc_with_hints(n * sizeof(uint64_t) * (size_t)test_npes,
                                            SHMEMX_MALLOC_DEVICE);
    uint64_t *host = malloc(n * sizeof(uint64_t) * (size_t)test_npes);
    int pe, rc, mapped = 0;
    size_t i;

    TEST_ASSERT(buf && host, "allocation failed");
    TEST_ASSERT(shmem_ptr(buf, test_me) == buf, "shmem_ptr(device block, me) is %p, not %p",
                shmem_ptr(buf, test_me), (void *)buf);
    rc = gpu_store_u64(buf, n * (size_t)test_npes, 0);
    TEST_ASSERT(rc == 0, "kernel on this PE's device block: %s", gpu_error(rc));
    shmem_barrier_all();
    for (pe = 0; pe < test_npes; pe++) {
        uint64_t *p = shmem_ptr(buf, pe);
        int shared = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0;

        TEST_ASSERT((p != NULL) == shared, "shmem_ptr(device block, %d) is %p but PE %d is %sin "
                    "SHMEM_TEAM_SHARED", pe, (void *)p, pe, shared ? "" : "not ");
        if (!p)
            continue;
        mapped += pe != test_me;
        rc = gpu_store_u64(p + (size_t)test_me * n, n, ((uint64_t)test_me << 40) +
                                                             ((uint64_t)pe << 20));
        TEST_ASSERT(rc == 0, "kernel storing into PE %d's device block at %p: %s", pe, (void *)p,
                    gpu_error(rc));
    }
    shmem_barrier_all();
    rc = gpu_copy(host, buf, n * sizeof(uint64_t) * (size_t)test_npes);
    TEST_ASSERT(rc == 0, "cudaMemcpy from the device block: %s", gpu_error(rc));
    for (pe = 0; pe < test_npes; pe++) {
        int by = shmem_ptr(buf, pe) != NULL; /* pe maps this PE's block too */
        for (i = 0; i < n; i++) {
            uint64_t want = by ? ((uint64_t)pe << 40) + ((uint64_t)test_me << 20) + i
                               : (uint64_t)pe * n + i;
            if (host[(size_t)pe * n + i] != want)
                test_fail("the slot of PE %d (%s) in this PE's device block: index %zu: "
                          "expected %llu, got %llu", pe, by ? "stored by its kernel" : "not mapped",
                          i, (unsigned long long)want,
                          (unsigned long long)host[(size_t)pe * n + i]);
        }
    }
    test_note("shmem_ptr and kernels: PE 0 maps %d peer(s)' device heaps", mapped);
    shmem_barrier_all();
    shmem_free(buf);
    free(host);
}

/* The sum reductions on device buffers of team: float into another
 * block, long in place; every element checked on the host (h holds at
 * least SUMN longs). */
enum { SUMN = 300 };
static void check_sum_team(shmem_team_t team, const char *name, float *fs, float *fd, long *ls,
                           unsigned char *h)
{
    int n = shmem_team_n_pes(team), i, j, rc;
    float *hf = (float *)h;
    long *hl = (long *)h, want = 0;

    for (i = 0; i < SUMN; i++)
        hf[i] = (float)(test_me + 1) + (float)i;
    TEST_ASSERT(gpu_copy(fs, hf, SUMN * sizeof(float)) == 0, "gpu_copy");
    rc = shmem_float_sum_reduce(team, fd, fs, SUMN);
    TEST_ASSERT(rc == 0, "shmem_float_sum_reduce on device buffers over %s: %d", name, rc);
    TEST_ASSERT(gpu_copy(hf, fd, SUMN * sizeof(float)) == 0, "gpu_copy");
    for (j = 0; j < n; j++)
        want += shmem_team_translate_pe(team, j, SHMEM_TEAM_WORLD) + 1;
    for (i = 0; i < SUMN; i++)
        TEST_ASSERT(hf[i] == (float)want + (float)n * (float)i, "float sum over %s: element %d "
                    "is %g, expected %g", name, i, hf[i], (double)want + (double)n * i);
    for (i = 0; i < SUMN; i++)
        hl[i] = (long)(test_me + 1) * 1000000000L + i;
    TEST_ASSERT(gpu_copy(ls, hl, SUMN * sizeof(long)) == 0, "gpu_copy");
    rc = shmem_long_sum_reduce(team, ls, ls, SUMN);
    TEST_ASSERT(rc == 0, "shmem_long_sum_reduce in place on device buffers over %s: %d", name,
                rc);
    TEST_ASSERT(gpu_copy(hl, ls, SUMN * sizeof(long)) == 0, "gpu_copy");
    for (i = 0; i < SUMN; i++)
        TEST_ASSERT(hl[i] == want * 1000000000L + (long)n * i, "long sum in place over %s: "
                    "element %d is %ld", name, i, hl[i]);
}

/* The collectives on device buffers over SHMEM_TEAM_SHARED (its PEs map
 * each other's device heaps), and over SHMEM_TEAM_WORLD when that is the
 * same: broadcast, fcollect and alltoall, every byte checked. */
static void check_coll_team(shmem_team_t team, const char *name)
{
    enum { LEN = 3000 };
    int n = shmem_team_n_pes(team), me = shmem_team_my_pe(team), i, rc;
    size_t k;
    char *src = shmem_malloc_with_hints((size_t)LEN * n, SHMEMX_MALLOC_DEVICE);
    char *dst = shmem_malloc_with_hints((size_t)LEN * n, SHMEMX_MALLOC_DEVICE);
    unsigned char *h = malloc((size_t)LEN * n);
    unsigned seed;

    TEST_ASSERT(src && dst && h, "device blocks for the collectives over %s", name);
    rc = gpu_fill(src, (size_t)LEN * n, 300 + test_me);
    TEST_ASSERT(rc == 0, "kernel fill: %s", gpu_error(rc));
    /* Broadcast from the last member. */
    rc = shmem_broadcastmem(team, dst, src, LEN, n - 1);
    TEST_ASSERT(rc == 0, "shmem_broadcastmem on device buffers over %s: %d", name, rc);
    seed = 300 + shmem_team_translate_pe(team, n - 1, SHMEM_TEAM_WORLD);
    TEST_ASSERT(gpu_copy(h, dst, LEN) == 0, "gpu_copy");
    for (k = 0; k < LEN; k++)
        TEST_ASSERT(h[k] == gpu_pattern(seed, k), "broadcast over %s: byte %zu differs", name,
                    k);
    /* fcollect: block i is member i's first LEN bytes. */
    rc = shmem_fcollectmem(team, dst, src, LEN);
    TEST_ASSERT(rc == 0, "shmem_fcollectmem on device buffers over %s: %d", name, rc);
    TEST_ASSERT(gpu_copy(h, dst, (size_t)LEN * n) == 0, "gpu_copy");
    for (i = 0; i < n; i++) {
        seed = 300 + shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD);
        for (k = 0; k < LEN; k++)
            TEST_ASSERT(h[(size_t)i * LEN + k] == gpu_pattern(seed, k), "fcollect over %s: "
                        "block %d byte %zu differs", name, i, k);
    }
    /* alltoall: block j is block me of member j's source. */
    rc = shmem_alltoallmem(team, dst, src, LEN);
    TEST_ASSERT(rc == 0, "shmem_alltoallmem on device buffers over %s: %d", name, rc);
    TEST_ASSERT(gpu_copy(h, dst, (size_t)LEN * n) == 0, "gpu_copy");
    for (i = 0; i < n; i++) {
        seed = 300 + shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD);
        for (k = 0; k < LEN; k++)
            TEST_ASSERT(h[(size_t)i * LEN + k] == gpu_pattern(seed, (size_t)me * LEN + k),
                        "alltoall over %s: block %d byte %zu differs", name, i, k);
    }
    check_sum_team(team, name, (float *)src, (float *)dst, (long *)src, h);
    shmem_barrier_all();
    free(h);
    shmem_free(dst);
    shmem_free(src);
}

/* shmem_realloc of a device block keeps its contents; too large a block
 * is NULL with OUT_OF_MEMORY on every PE; a bad PE is refused, and so are
 * the collectives on device buffers that cannot take them. */
static void check_realloc_and_errors(void)
{
    char *p = shmem_malloc_with_hints(1000, SHMEMX_MALLOC_DEVICE), *q;
    static char *hostbuf;
    long long bad;
    int rc;

    TEST_ASSERT(p != NULL, "device block of 1000 bytes is NULL");
    hostbuf = shmem_malloc(4096);
    TEST_ASSERT(hostbuf != NULL, "shmem_malloc");
    rc = gpu_fill(p, 1000, 77);
    TEST_ASSERT(rc == 0, "kernel fill: %s", gpu_error(rc));
    shmem_barrier_all();
    q = shmem_realloc(p, 300000);
    TEST_ASSERT(q != NULL, "shmem_realloc of a device block to 300000 bytes is NULL");
    TEST_ASSERT(shmem_ptr(q, test_me) == q, "the reallocated block is not in the device heap");
    bad = gpu_find_mismatch(q, 1000, 77);
    TEST_ASSERT(bad == -1, "shmem_realloc lost the contents of the device block at byte %lld",
                bad);
    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    shmemx_error_clear();
    p = shmem_malloc_with_hints((size_t)1 << 50, SHMEMX_MALLOC_DEVICE);
    TEST_ASSERT(p == NULL, "a device block of 1 PiB is %p", (void *)p);
    expect_error(0, "a device block larger than the device heap", SHMEMX_ERROR_OUT_OF_MEMORY,
                 "shmem_malloc_with_hints", "FABSHMEM_DEVICE_HEAP_SIZE");
    shmem_putmem(q, "x", 1, test_npes);
    expect_error(0, "a put to device memory of a PE out of range", SHMEMX_ERROR_INVALID_VALUE,
                 "shmem_putmem", "pe");
    rc = shmem_alltoallsmem(SHMEM_TEAM_SHARED, q + 8192, q, 2, 2, 16);
    TEST_ASSERT(rc != 0, "the strided alltoall on device buffers returned 0");
    expect_error(0, "strided alltoall on device buffers", SHMEMX_ERROR_NOT_SUPPORTED,
                 "shmem_alltoallsmem", "GPU memory");
    rc = shmem_fcollectmem(SHMEM_TEAM_SHARED, q + 4096, hostbuf, 64);
    TEST_ASSERT(rc != 0, "fcollect from host into device memory returned 0");
    expect_error(0, "fcollect between host and device memory", SHMEMX_ERROR_INVALID_VALUE,
                 "shmem_fcollectmem", "device heap");
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    shmem_barrier_all();
    shmem_free(hostbuf);
    shmem_free(q);
}

/* FABSHMEM_CUDA=1: init fails without a GPU, naming the variable. */
static int cuda_required(void)
{
    char msg[1024];
    int code;

    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    shmem_init();
    code = shmemx_error_get(msg, sizeof(msg));
    if (ngpu == 0) {
        if (code != SHMEMX_ERROR_NOT_SUPPORTED || !strstr(msg, "FABSHMEM_CUDA") ||
            shmemx_init_status() == SHMEMX_STATUS_IS_INITIALIZED) {
            fprintf(stderr, "FAIL gpu_heap --cuda-required: shmem_init without a GPU gave code "
                    "%d, status %d, message: %s\n", code, shmemx_init_status(), msg);
            return 1;
        }
        printf("gpu_heap --cuda-required: shmem_init refused FABSHMEM_CUDA=1 without a GPU: "
               "PASS\n");
        return 0;
    }
    if (code != SHMEMX_SUCCESS || shmemx_cuda_device() < 0) {
        fprintf(stderr, "FAIL gpu_heap --cuda-required: with %d GPU(s): code %d, device %d: %s\n",
                ngpu, code, code ? -1 : shmemx_cuda_device(), msg);
        return 1;
    }
    printf("gpu_heap --cuda-required: device %d: PASS\n", shmemx_cuda_device());
    shmem_finalize();
    return 0;
}

/* FABSHMEM_CUDA=1 with FABSHMEM_DEVICE_HEAP_SIZE=0: the device hint is
 * refused on every PE (the job asked for GPUs), other hints are not. */
static int cuda_required_noheap(void)
{
    static const long refused[] = { SHMEMX_MALLOC_DEVICE, ~SHMEM_MALLOC_ATOMICS_REMOTE };
    long *p;
    size_t i;

    setenv("FABSHMEM_CUDA", "1", 1);
    setenv("FABSHMEM_DEVICE_HEAP_SIZE", "0", 1);
    if (ngpu == 0) /* init fails: --cuda-required checks that */
        return TEST_SKIP;
    test_init("gpu_heap --cuda-required-noheap");
    TEST_CHECK("shmemx_cuda_device with FABSHMEM_DEVICE_HEAP_SIZE=0", 0, -1,
               shmemx_cuda_device());
    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        shmemx_error_clear();
        p = shmem_malloc_with_hints(64, refused[i]);
        TEST_ASSERT(p == NULL, "shmem_malloc_with_hints(64, 0x%lx) in a FABSHMEM_CUDA=1 job "
                    "without a device heap returned %p", (unsigned long)refused[i], (void *)p);
        expect_error(0, "a device block without a device heap, FABSHMEM_CUDA=1",
                     SHMEMX_ERROR_NOT_SUPPORTED, "shmem_malloc_with_hints", "FABSHMEM_CUDA=1");
    }
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    p = shmem_malloc_with_hints(16 * sizeof(long), SHMEM_MALLOC_ATOMICS_REMOTE | (1L << 20));
    TEST_ASSERT(p != NULL, "a host hint word in a FABSHMEM_CUDA=1 job returned NULL");
    shmem_free(p);
    host_heap_works();
    return test_finish();
}

/* The GPU teams against every PE's (node, device): the node named by the
 * first world PE of its SHMEMX_TEAM_NODE, the device by its ordinal (the
 * PEs of a node see the same devices here). */
static void check_gpu_teams(void)
{
    int n = test_npes, me = test_me, i, c, list[64];
    int *all = shmem_malloc(2 * sizeof(int) * (size_t)n), *mine = shmem_malloc(2 * sizeof(int));
    long *src = shmem_malloc(sizeof(long)), *dst = shmem_malloc(sizeof(long)), sum;

    TEST_ASSERT(all && mine && src && dst && n <= 64, "shmem_malloc");
    mine[0] = shmem_team_translate_pe(SHMEMX_TEAM_NODE, 0, SHMEM_TEAM_WORLD);
    mine[1] = shmemx_cuda_device();
    shmem_barrier_all();
    TEST_ASSERT(shmem_fcollectmem(SHMEM_TEAM_WORLD, all, mine, 2 * sizeof(int)) == 0, "fcollect");
    for (c = 0, i = 0; i < n; i++)
        if (all[2 * i] == mine[0] && all[2 * i + 1] == mine[1])
            list[c++] = i;
    TEST_CHECK("SAME_GPU size", 0, c, shmem_team_n_pes(SHMEMX_TEAM_SAME_GPU));
    for (i = 0; i < c; i++)
        TEST_CHECK("SAME_GPU member", i, list[i],
                   shmem_team_translate_pe(SHMEMX_TEAM_SAME_GPU, i, SHMEM_TEAM_WORLD));
    *src = me + 1;
    for (sum = 0, i = 0; i < c; i++)
        sum += list[i] + 1;
    TEST_ASSERT(shmem_long_sum_reduce(SHMEMX_TEAM_SAME_GPU, dst, src, 1) == 0, "sum");
    TEST_CHECK("sum over SAME_GPU", 0, sum, *dst);
    /* The leaders: the PEs with no lower PE on their node and device. */
    for (c = 0, i = 0; i < n; i++) {
        int q, first = 1;
        for (q = 0; q < i && first; q++)
            first = all[2 * q] != all[2 * i] || all[2 * q + 1] != all[2 * i + 1];
        if (first)
            list[c++] = i;
    }
    TEST_CHECK("GPU_LEADERS size", 0, c, shmem_team_n_pes(SHMEMX_TEAM_GPU_LEADERS));
    if (shmem_team_my_pe(SHMEMX_TEAM_SAME_GPU) == 0) {
        for (i = 0; i < c; i++)
            TEST_CHECK("GPU_LEADERS member", i, list[i],
                       shmem_team_translate_pe(SHMEMX_TEAM_GPU_LEADERS, i, SHMEM_TEAM_WORLD));
        for (sum = 0, i = 0; i < c; i++)
            sum += list[i] + 1;
        TEST_ASSERT(shmem_long_sum_reduce(SHMEMX_TEAM_GPU_LEADERS, dst, src, 1) == 0, "sum");
        TEST_CHECK("sum over GPU_LEADERS", 0, sum, *dst);
    } else {
        TEST_CHECK("GPU_LEADERS my_pe of a PE that does not lead", 0, -1,
                   shmem_team_my_pe(SHMEMX_TEAM_GPU_LEADERS));
    }
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
    shmem_free(mine);
    shmem_free(all);
}

int main(int argc, char **argv)
{
    ngpu = gpu_count();
    if (argc > 1 && !strcmp(argv[1], "--cuda-required"))
        return cuda_required();
    if (argc > 1 && !strcmp(argv[1], "--cuda-required-noheap"))
        return cuda_required_noheap();
    test_init("gpu_heap");
    if (shmemx_cuda_device() < 0)
        return no_device_heap();
    TEST_ASSERT(gpu_current() == shmemx_cuda_device(), "the CUDA runtime uses device %d, the "
                "device heap is on device %d", gpu_current(), shmemx_cuda_device());
    check_symmetry();
    check_ptr_kernels();
    check_realloc_and_errors();
    check_coll_team(SHMEM_TEAM_SHARED, "SHMEM_TEAM_SHARED");
    /* Where the PEs do not all map each other, through the core's RMA. */
    check_coll_team(SHMEM_TEAM_WORLD, "SHMEM_TEAM_WORLD");
    check_gpu_teams();
    host_heap_works();
    return test_finish();
}
