/*
 * mem_reg: memory the application allocated itself (shmemx_mem.h).
 *
 *  - Local buffers: a registered malloc buffer is the source of puts and
 *    the destination of gets (blocking and nbi) with every PE; overlapping
 *    or symmetric ranges and unknown addresses are refused with non-zero;
 *    unregister and unregister_all release them.
 *  - Symmetric buffers: every PE registers a malloc buffer and an mmap
 *    buffer; puts, gets, put_signal with a wait on a registered signal
 *    word, atomics, broadcast, fcollect and a sum reduction on registered
 *    buffers are checked by value on every PE; shmem_ptr and
 *    shmem_addr_accessible follow the registration.
 *  - Refusals (NULL on every PE, nothing registered): lengths that differ,
 *    unknown flags, a heap address, the seventeenth buffer; unregister with
 *    a wrong length fails on every PE and keeps the buffer.
 *  - Load/store access (shared_buffers): for each kind of allocation
 *    (memfd, memfd whose descriptor was closed, shm_open, a file, System
 *    V, MAP_SHARED|MAP_ANONYMOUS, a hugetlb memfd where the machine has
 *    huge pages; malloc, MAP_PRIVATE anonymous and of a file, a range that
 *    spans a memfd and a private mapping) and for a mix (PE 0 malloc, the
 *    others memfd): the PEs of a node map each other's copies exactly when
 *    every copy on the node can be shared and the node's PEs map each
 *    other's heaps (the heap is the oracle of the direct path; the kinds
 *    that need /proc/PID/map_files count when this process can open its
 *    own).  Then shmem_ptr and shmem_team_ptr give every node peer's copy,
 *    stores through them are seen by the owner, shmemx_buffer_load_store
 *    says SHMEMX_SUCCESS; otherwise NULL and SHMEMX_ERROR_NOT_SUPPORTED.
 *    Either way puts and gets from every PE land and a counter that every
 *    PE increments on every PE ends at the exact count (node peers' CPU
 *    atomics and other virtual nodes' AMOs agree).  SHMEMX_BUFFER_LOAD_STORE
 *    registers exactly when every node can map; after unregister (and
 *    unregister_symmetric_all) shmem_ptr is NULL and this process maps no
 *    peer's memfd any more, after shmem_finalize too.
 */
#define _GNU_SOURCE
#include "common.h"
#include <shmemx.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#define LEN 4096 /* longs */

/* AMOs work unless the job asked for a provider's own atomics where it
 * has none (FABSHMEM_OFI_AMO=native on shm or net). */
static int amo_ok(void)
{
    return test_npes == 1 || !test_prov_no_amo();
}

static void local_buffers(long *heap)
{
    int me = test_me, n = test_npes, next = (me + 1) % n, prev = (me + n - 1) % n, i;
    long *a = malloc(LEN * sizeof(long)), *b = malloc(LEN * sizeof(long));
    long *c = malloc(64 * sizeof(long));

    TEST_ASSERT(a && b && c, "malloc failed");
    TEST_ASSERT(shmemx_buffer_register(a, LEN * sizeof(long)) == 0, "register a");
    TEST_ASSERT(shmemx_buffer_register(b, LEN * sizeof(long)) == 0, "register b");
    TEST_ASSERT(shmemx_buffer_register(c, 64 * sizeof(long)) == 0, "register c");
    /* Refusals. */
    TEST_ASSERT(shmemx_buffer_register(a + 10, 16) == SHMEMX_ERROR_INVALID_VALUE,
                "an overlapping range was accepted");
    TEST_ASSERT(shmemx_buffer_register(heap, 64) == SHMEMX_ERROR_INVALID_VALUE,
                "a heap range was accepted");
    TEST_ASSERT(shmemx_buffer_register(NULL, 64) == SHMEMX_ERROR_INVALID_VALUE,
                "NULL was accepted");
    TEST_ASSERT(shmemx_buffer_register(c, 0) == SHMEMX_ERROR_INVALID_VALUE,
                "length 0 was accepted");
    TEST_ASSERT(shmemx_buffer_unregister(a + 1) == SHMEMX_ERROR_INVALID_VALUE,
                "unregister of an inner address worked");

    for (i = 0; i < LEN; i++)
        a[i] = test_val(me, (size_t)i, 31);
    shmem_barrier_all();
    shmem_long_put(heap, a, LEN, next);
    shmem_long_put_nbi(heap + LEN, a, 64, next);
    shmem_quiet();
    shmem_barrier_all();
    for (i = 0; i < LEN; i++)
        TEST_CHECK("put from a registered buffer", i, test_val(prev, (size_t)i, 31), heap[i]);
    memset(b, 0, LEN * sizeof(long));
    shmem_long_get(b, heap, LEN, next);
    for (i = 0; i < LEN; i++)
        TEST_CHECK("get into a registered buffer", i, test_val(me, (size_t)i, 31), b[i]);
    memset(c, 0, 64 * sizeof(long));
    shmem_long_get_nbi(c, heap + LEN, 64, prev);
    shmem_quiet();
    for (i = 0; i < 64; i++)
        TEST_CHECK("get_nbi into a registered buffer", i,
                   test_val((prev + n - 1) % n, (size_t)i, 31), c[i]);
    shmem_barrier_all();

    TEST_ASSERT(shmemx_buffer_unregister(a) == 0, "unregister a");
    TEST_ASSERT(shmemx_buffer_unregister(a) == SHMEMX_ERROR_INVALID_VALUE,
                "a second unregister of a worked");
    shmemx_buffer_unregister_all();
    TEST_ASSERT(shmemx_buffer_unregister(b) == SHMEMX_ERROR_INVALID_VALUE,
                "b is still registered after unregister_all");
    /* The range is free again. */
    TEST_ASSERT(shmemx_buffer_register(a + 10, 16) == 0, "register after unregister");
    TEST_ASSERT(shmemx_buffer_unregister(a + 10) == 0, "unregister a + 10");
    free(a);
    free(b);
    free(c);
}

static void symmetric_buffers(long *heap)
{
    int me = test_me, n = test_npes, next = (me + 1) % n, prev = (me + n - 1) % n, i, k;
    size_t bytes = LEN * sizeof(long);
    long *m = malloc(bytes);
    long *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    long *got = malloc(bytes);
    uint64_t *sig;

    TEST_ASSERT(m && p != MAP_FAILED && got, "allocation failed");
    memset(m, 0, bytes);
    memset(p, 0, bytes);
    TEST_ASSERT(!shmem_addr_accessible(m, next), "an unregistered buffer is accessible");
    TEST_ASSERT(shmemx_buffer_register_symmetric(m, bytes, 0) == m, "register_symmetric m");
    TEST_ASSERT(shmemx_buffer_register_symmetric(p, bytes, 0) == p, "register_symmetric p");
    TEST_ASSERT(shmem_addr_accessible(m + 5, next) && shmem_addr_accessible(p, prev),
                "a registered buffer is not accessible");
    TEST_ASSERT(shmem_ptr(m, me) == m, "shmem_ptr of my own registered buffer");
    if (n > 1)
        TEST_ASSERT(shmem_ptr(m, next) == NULL, "shmem_ptr of a peer's private buffer");
    sig = (uint64_t *)(p + LEN - 1);

    /* RMA into the next PE's malloc buffer, from the heap and from p. */
    for (i = 0; i < LEN / 2; i++)
        p[i] = test_val(me, (size_t)i, 41);
    shmem_barrier_all();
    shmem_long_put(m, p, LEN / 2, next);
    shmem_long_p(m + LEN / 2, 1000 + me, next);
    shmem_long_iput(m + LEN / 2 + 2, p, 2, 1, 8, next);
    shmem_quiet();
    shmem_barrier_all();
    for (i = 0; i < LEN / 2; i++)
        TEST_CHECK("put into a symmetric malloc buffer", i, test_val(prev, (size_t)i, 41), m[i]);
    TEST_CHECK("p into a symmetric buffer", 0, 1000 + prev, m[LEN / 2]);
    for (i = 0; i < 8; i++)
        TEST_CHECK("iput into a symmetric buffer", i, test_val(prev, (size_t)i, 41),
                   m[LEN / 2 + 2 + 2 * i]);
    memset(got, 0, bytes);
    shmem_long_get(got, m, LEN / 2, prev);
    for (i = 0; i < LEN / 2; i++)
        TEST_CHECK("get from a symmetric buffer", i,
                   test_val((prev + n - 1) % n, (size_t)i, 41), got[i]);
    shmem_barrier_all();

    /* put_signal into the mmap buffer, signal word in it too. */
    for (k = 1; k <= 3; k++) {
        for (i = 0; i < 64; i++)
            got[i] = test_val(me, (size_t)i, 50 + k);
        shmem_long_put_signal(p + LEN / 2, got, 64, sig, (uint64_t)k, SHMEM_SIGNAL_SET, next);
        shmem_uint64_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)k);
        for (i = 0; i < 64; i++)
            TEST_CHECK("put_signal into a symmetric buffer", i, test_val(prev, (size_t)i, 50 + k),
                       p[LEN / 2 + i]);
        shmem_barrier_all();
    }

    /* Atomics. */
    if (amo_ok()) {
        m[0] = 0;
        shmem_barrier_all();
        for (k = 0; k < n; k++)
            shmem_long_atomic_add(m, me + 1, k);
        shmem_quiet();
        shmem_barrier_all();
        TEST_CHECK("atomic_add on a symmetric buffer", 0, (long)n * (n + 1) / 2, m[0]);
        TEST_CHECK("atomic_fetch on a symmetric buffer", 0, (long)n * (n + 1) / 2,
                   shmem_long_atomic_fetch(m, next));
        shmem_barrier_all();
    } else {
        test_note("note: atomics on registered buffers skipped (the provider's own atomics "
                  "were asked for and it has none)");
    }

    /* Collectives on registered buffers. */
    for (i = 0; i < 256; i++)
        p[i] = test_val(me, (size_t)i, 60);
    shmem_barrier_all();
    TEST_ASSERT(shmem_long_broadcast(SHMEM_TEAM_WORLD, m, p, 256, n - 1) == 0, "broadcast");
    for (i = 0; i < 256; i++)
        TEST_CHECK("broadcast into a symmetric buffer", i, test_val(n - 1, (size_t)i, 60), m[i]);
    shmem_barrier_all();
    TEST_ASSERT(shmem_long_fcollect(SHMEM_TEAM_WORLD, m, p, 16) == 0, "fcollect");
    for (k = 0; k < n; k++)
        for (i = 0; i < 16; i++)
            TEST_CHECK("fcollect into a symmetric buffer", k * 16 + i,
                       test_val(k, (size_t)i, 60), m[k * 16 + i]);
    shmem_barrier_all();
    TEST_ASSERT(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, m, p, 256) == 0, "sum_reduce");
    for (i = 0; i < 256; i++) {
        long e = 0;
        for (k = 0; k < n; k++)
            e += test_val(k, (size_t)i, 60);
        TEST_CHECK("sum_reduce into a symmetric buffer", i, e, m[i]);
    }
    shmem_barrier_all();

    /* Refusals: NULL on every PE, nothing registered. */
    {
        long *q = malloc(bytes + 64);
        TEST_ASSERT(q, "malloc");
        if (n > 1)
            TEST_ASSERT(shmemx_buffer_register_symmetric(q, me == 0 ? bytes + 64 : bytes, 0) ==
                            NULL, "lengths that differ were accepted");
        TEST_ASSERT(!shmem_addr_accessible(q, next), "a refused buffer is accessible");
        TEST_ASSERT(shmemx_buffer_register_symmetric(q, bytes, 2) == NULL, "flags 2 accepted");
        if (n > 1)
            TEST_ASSERT(shmemx_buffer_register_symmetric(q, bytes, me == 0 ? 0 :
                                                         SHMEMX_BUFFER_LOAD_STORE) == NULL,
                        "flags that differ were accepted");
        TEST_ASSERT(shmemx_buffer_register_symmetric(heap, 64, 0) == NULL,
                    "a heap range was accepted");
        TEST_ASSERT(shmemx_buffer_register_symmetric(m + 8, 64, 0) == NULL,
                    "an overlapping range was accepted");
        free(q);
    }
    /* The most there can be: 16 (two are in use). */
    {
        long *many[16];
        for (k = 0; k < 14; k++) {
            many[k] = malloc(64);
            TEST_ASSERT(shmemx_buffer_register_symmetric(many[k], 64, 0) == many[k],
                        "registration %d of 16", k + 3);
        }
        many[14] = malloc(64);
        TEST_ASSERT(shmemx_buffer_register_symmetric(many[14], 64, 0) == NULL,
                    "a seventeenth registration was accepted");
        for (k = 0; k < 14; k++) {
            TEST_ASSERT(shmemx_buffer_unregister_symmetric(many[k], 64) == 0, "unregister %d",
                        k);
            free(many[k]);
        }
        free(many[14]);
    }
    TEST_ASSERT(shmemx_buffer_unregister_symmetric(m, me == 0 ? bytes - 8 : bytes) ==
                    (me == 0 || test_npes == 1 ? SHMEMX_ERROR_INVALID_VALUE
                                               : SHMEMX_ERROR_SYMMETRY),
                "unregister with a wrong length worked, or returned the wrong code");
    TEST_ASSERT(shmem_addr_accessible(m, next), "m went away after a failed unregister");
    TEST_ASSERT(shmemx_buffer_unregister_symmetric(m, bytes) == 0, "unregister m");
    TEST_ASSERT(!shmem_addr_accessible(m, next), "m is accessible after unregister");

    /* Re-register m (the slot is reused) and move new values. */
    TEST_ASSERT(shmemx_buffer_register_symmetric(m, bytes, 0) == m, "register m again");
    shmem_long_p(m + 3, 7000 + me, next);
    shmem_barrier_all();
    TEST_CHECK("p after re-registration", 0, 7000 + prev, m[3]);
    shmem_barrier_all();
    TEST_ASSERT(shmemx_buffer_unregister_symmetric(m, bytes) == 0, "unregister m again");
    TEST_ASSERT(shmemx_buffer_unregister_symmetric(p, bytes) == 0, "unregister p");
    free(m);
    munmap(p, bytes);
    free(got);
    (void)heap;
}

/* ---- load/store access: which allocations node peers map ---- */

enum { K_MEMFD, K_MEMFD_OFFSET, K_MEMFD_CLOSED, K_SHM_OPEN, K_FILE, K_SYSV, K_ANON_SHARED,
       K_HUGETLB, K_MALLOC, K_PRIVATE, K_FILE_PRIVATE, K_SPANS, NKINDS };
static const char *const kind_names[NKINDS] = {
    "memfd", "memfd, mapped from its second page, buffer 24 bytes in",
    "memfd with its descriptor closed", "shm_open", "a file in TMPDIR", "System V",
    "MAP_SHARED|MAP_ANONYMOUS", "hugetlb memfd", "malloc", "MAP_PRIVATE|MAP_ANONYMOUS",
    "MAP_PRIVATE of a file", "memfd beside a private mapping"
};

#define SBYTES (64 * 1024)
#define ROUNDS 25
#define HEAVY 2000

struct tbuf {
    int kind;
    long *p;       /* registered */
    size_t bytes;
    char *map;     /* mapped (munmap), or NULL: p */
    size_t maplen;
    int fd;        /* kept open, or -1 */
    int shmid;     /* System V, or -1 */
    char path[256]; /* to unlink, or "" */
};

/* The memfds carry the PE's number ("memreg-PE"), so that a process can
 * tell node peers' from its own in /proc/self/maps. */
static int memfd_named(unsigned int flags)
{
    char name[64];

    snprintf(name, sizeof(name), "memreg-%d", test_me);
    return memfd_create(name, flags);
}

static void *map_fd(int fd, size_t len, int flags)
{
    if (fd < 0 || ftruncate(fd, (off_t)len) != 0)
        return MAP_FAILED;
    return mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);
}

static void tbuf_release(struct tbuf *b)
{
    if (b->p) {
        if (b->kind == K_MALLOC)
            free(b->p);
        else if (b->kind == K_SYSV)
            shmdt(b->p);
        else
            munmap(b->map ? b->map : (char *)b->p, b->maplen);
    }
    if (b->fd >= 0)
        close(b->fd);
    if (b->path[0] && b->kind == K_SHM_OPEN)
        shm_unlink(b->path);
    else if (b->path[0])
        unlink(b->path);
    memset(b, 0, sizeof(*b));
    b->fd = b->shmid = -1;
}

/* A buffer of kind: 0, or -1 when this machine cannot make one. */
static int tbuf_alloc(int kind, struct tbuf *b)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const char *dir = getenv("TMPDIR");
    void *p = MAP_FAILED;
    int fd = -1;

    memset(b, 0, sizeof(*b));
    b->kind = kind;
    b->fd = b->shmid = -1;
    b->bytes = b->maplen = SBYTES;
    switch (kind) {
    case K_MEMFD:
    case K_MEMFD_CLOSED:
        fd = memfd_named(0);
        p = map_fd(fd, SBYTES, MAP_SHARED);
        break;
    case K_MEMFD_OFFSET:
        /* File offset page + 24: node peers map from an offset, and the
         * buffer sits 24 bytes into their mapping. */
        b->maplen = SBYTES + page;
        fd = memfd_named(0);
        if (fd >= 0 && ftruncate(fd, (off_t)(SBYTES + 2 * page)) == 0)
            b->map = mmap(NULL, b->maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)page);
        p = b->map && b->map != MAP_FAILED ? b->map + 24 : MAP_FAILED;
        if (p == MAP_FAILED)
            b->map = NULL;
        break;
    case K_HUGETLB:
        b->bytes = b->maplen = (size_t)2 << 20;
        fd = memfd_named(MFD_HUGETLB);
        p = map_fd(fd, b->maplen, MAP_SHARED);
        break;
    case K_SHM_OPEN:
        snprintf(b->path, sizeof(b->path), "/memreg-test-%d-%d", (int)getpid(), kind);
        fd = shm_open(b->path, O_CREAT | O_EXCL | O_RDWR, 0600);
        p = map_fd(fd, SBYTES, MAP_SHARED);
        break;
    case K_FILE:
    case K_FILE_PRIVATE:
        snprintf(b->path, sizeof(b->path), "%s/memreg-test-%d-%d", dir ? dir : "/tmp",
                 (int)getpid(), kind);
        fd = open(b->path, O_CREAT | O_EXCL | O_RDWR, 0600);
        p = map_fd(fd, SBYTES, kind == K_FILE ? MAP_SHARED : MAP_PRIVATE);
        break;
    case K_SYSV:
        b->shmid = shmget(IPC_PRIVATE, SBYTES, IPC_CREAT | 0600);
        if (b->shmid < 0)
            return -1;
        p = shmat(b->shmid, NULL, 0);
        /* Gone when the last process detaches, even if the job dies. */
        shmctl(b->shmid, IPC_RMID, NULL);
        if (p == (void *)-1)
            p = MAP_FAILED;
        break;
    case K_ANON_SHARED:
        p = mmap(NULL, SBYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        break;
    case K_MALLOC:
        p = malloc(SBYTES);
        if (!p)
            return -1;
        break;
    case K_PRIVATE:
        p = mmap(NULL, SBYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        break;
    case K_SPANS:
        /* Two pages: a memfd page, then a private one. */
        b->bytes = b->maplen = 2 * page;
        p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        fd = memfd_named(0);
        if (p != MAP_FAILED && (fd < 0 || ftruncate(fd, (off_t)page) != 0 ||
                                mmap(p, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                                     0) == MAP_FAILED)) {
            munmap(p, 2 * page);
            p = MAP_FAILED;
        }
        break;
    }
    if (fd >= 0 && (kind == K_MEMFD || kind == K_MEMFD_OFFSET || kind == K_HUGETLB))
        b->fd = fd;
    else if (fd >= 0)
        close(fd);
    if (kind == K_FILE_PRIVATE && b->path[0]) {
        unlink(b->path);
        b->path[0] = '\0';
    }
    if (p == MAP_FAILED) {
        tbuf_release(b);
        return -1;
    }
    b->p = p;
    return 0;
}

/* Whether this process can open its own mapping of p through
 * /proc/self/map_files (CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE): node
 * peers with the same rights can then open it too. */
static int map_files_ok(const void *p)
{
    char line[4096], path[96];
    unsigned long lo, hi;
    FILE *f = fopen("/proc/self/maps", "r");
    int ok = 0, fd;

    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && (uintptr_t)p >= lo && (uintptr_t)p < hi) {
            snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", lo, hi);
            fd = open(path, O_RDWR);
            ok = fd >= 0;
            if (fd >= 0)
                close(fd);
            break;
        }
    if (f)
        fclose(f);
    return ok;
}

/* Whether another process can map this PE's buffer, as far as the test
 * can tell without the library. */
static int tbuf_shareable(const struct tbuf *b)
{
    switch (b->kind) {
    case K_MEMFD:
    case K_MEMFD_OFFSET:
    case K_SHM_OPEN:
    case K_FILE:
    case K_SYSV:
    case K_HUGETLB:
        return 1;
    case K_MEMFD_CLOSED:
    case K_ANON_SHARED:
        return map_files_ok(b->p);
    default:
        return 0;
    }
}

/* How many mappings of node peers' memfds ("memfd:memreg-PE") this
 * process has. */
static int peer_memfds_mapped(void)
{
    char line[4096], *m;
    FILE *f = fopen("/proc/self/maps", "r");
    int n = 0;

    while (f && fgets(line, sizeof(line), f))
        if ((m = strstr(line, "/memfd:memreg-")) != NULL && atoi(m + 14) != test_me)
            n++;
    if (f)
        fclose(f);
    return n;
}

static int in_my_node(int pe)
{
    return shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEMX_TEAM_NODE) >= 0;
}

/* Whether the PEs of my node should map each other's copies: none but me
 * on the node, or they map each other's heaps (the direct path) and every
 * PE pe of the node has a copy that can be shared (ok[pe]). */
static int node_expects(const int *ok, const long *heap)
{
    int i, m = shmem_team_n_pes(SHMEMX_TEAM_NODE);

    if (m == 1)
        return 1;
    for (i = 0; i < m; i++) {
        int pe = shmem_team_translate_pe(SHMEMX_TEAM_NODE, i, SHMEM_TEAM_WORLD);
        if (!ok[pe] || (pe != test_me && !shmem_ptr(heap, pe)))
            return 0;
    }
    return 1;
}

/* Whether AMOs on a registered buffer can work: always, unless the job
 * asked for the provider's own atomics where it has none
 * (FABSHMEM_OFI_AMO=native on shm); then only where every PE maps every
 * PE's copy (all: every node maps, and one node holds every PE), since
 * AMOs are CPU atomics there and nowhere else (the atomicity rule). */
static int buffer_amo(int all)
{
    return !test_prov_no_amo() || (all && shmem_team_n_pes(SHMEMX_TEAM_NODE) == test_npes);
}

/* 1 when every PE's node expects to map (flag SHMEMX_BUFFER_LOAD_STORE). */
static int all_nodes_expect(int mine)
{
    static int src, dst;

    src = mine;
    shmem_barrier_all();
    TEST_ASSERT(shmem_int_min_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1) == 0, "min_reduce");
    return dst;
}

/* Checks the registered buffer b (nl longs on every PE); mapped: whether
 * the PEs of this node map each other's copies; amo: whether AMOs on it
 * can work (buffer_amo). */
static void exercise(long *b, size_t nl, int mapped, int amo, int heavy, const char *what,
                     const struct tbuf *tb)
{
    int me = test_me, n = test_npes, m = shmem_team_n_pes(SHMEMX_TEAM_NODE), i, j, pe, k, rc;
    long *cnt = b + 2 * n, *v = malloc((size_t)n * sizeof(long));

    /* Layout: [0, n) stores, [n, 2n) puts, 2n counter, 2n + 1 signal,
     * [2n + 2, 2n + 6) put with signal, then 16 sources and 16 n
     * collective results. */
    long *src = b + 2 * n + 8, *dst = src + 16, e;
    uint64_t *sig = (uint64_t *)(b + 2 * n + 1);

    TEST_ASSERT(v && nl >= (size_t)(2 * n + 8 + 16 + 16 * n), "%s: buffer too small", what);
    memset(b, 0, nl * sizeof(long));
    shmem_barrier_all();
    for (pe = 0; pe < n; pe++) {
        long *q = shmem_ptr(b, pe), *q2 = shmem_ptr(b + nl - 1, pe);

        if (pe == me)
            TEST_ASSERT(q == b, "%s: shmem_ptr of my own copy is %p, not %p", what, (void *)q,
                        (void *)b);
        else if (mapped && in_my_node(pe))
            TEST_ASSERT(q != NULL, "%s: shmem_ptr of node peer %d's copy is NULL", what, pe);
        else
            TEST_ASSERT(q == NULL, "%s: shmem_ptr of PE %d's copy is %p (%s)", what, pe, (void *)q,
                        mapped ? "not a node peer" : "node peers do not map this buffer");
        TEST_ASSERT(q ? q2 == q + nl - 1 : q2 == NULL,
                    "%s: shmem_ptr of PE %d's last word is %p, its first %p", what, pe,
                    (void *)q2, (void *)q);
    }
    for (i = 0; i < m; i++) {
        pe = shmem_team_translate_pe(SHMEMX_TEAM_NODE, i, SHMEM_TEAM_WORLD);
        TEST_ASSERT(shmem_team_ptr(SHMEMX_TEAM_NODE, b, i) == shmem_ptr(b, pe),
                    "%s: shmem_team_ptr of node member %d differs from shmem_ptr of PE %d", what,
                    i, pe);
    }
    rc = shmemx_buffer_load_store(b + nl - 1);
    TEST_ASSERT(rc == (mapped ? SHMEMX_SUCCESS : SHMEMX_ERROR_NOT_SUPPORTED),
                "%s: shmemx_buffer_load_store returned %d (%s), expected %s", what, rc,
                shmemx_strerror(rc), mapped ? "success" : "not supported");
    if (tb && tb->kind == K_SYSV && mapped) {
        struct shmid_ds ds;
        TEST_ASSERT(shmctl(tb->shmid, IPC_STAT, &ds) == 0 && ds.shm_nattch == (shmatt_t)m,
                    "%s: %lu attachments of my segment, expected one per node PE (%d)", what,
                    (unsigned long)ds.shm_nattch, m);
    }

    /* Stores through the pointers, seen by the owner, and back (the
     * barriers are on every PE: nodes may differ in mapped). */
    for (i = 0; mapped && i < m; i++) {
        pe = shmem_team_translate_pe(SHMEMX_TEAM_NODE, i, SHMEM_TEAM_WORLD);
        ((volatile long *)shmem_ptr(b, pe))[me] = test_val(me, (size_t)pe, 71);
    }
    shmem_barrier_all();
    for (i = 0; mapped && i < m; i++) {
        pe = shmem_team_translate_pe(SHMEMX_TEAM_NODE, i, SHMEM_TEAM_WORLD);
        TEST_CHECK("a store through shmem_ptr, seen by the owner", pe,
                   test_val(pe, (size_t)me, 71), b[pe]);
    }
    shmem_barrier_all();
    b[me] = test_val(me, 0, 72);
    shmem_barrier_all();
    for (i = 0; mapped && i < m; i++) {
        pe = shmem_team_translate_pe(SHMEMX_TEAM_NODE, i, SHMEM_TEAM_WORLD);
        TEST_CHECK("the owner's store, loaded through shmem_ptr", pe, test_val(pe, 0, 72),
                   ((volatile long *)shmem_ptr(b, pe))[pe]);
    }
    shmem_barrier_all();

    /* Puts and gets between every pair of PEs. */
    for (j = 0; j < n; j++) {
        pe = (me + j) % n;
        shmem_long_p(b + n + me, test_val(me, (size_t)pe, 73), pe);
    }
    shmem_barrier_all();
    for (pe = 0; pe < n; pe++)
        TEST_CHECK("a put into a registered buffer", pe, test_val(pe, (size_t)me, 73), b[n + pe]);
    for (j = 0; j < n; j++) {
        pe = (me + j) % n;
        shmem_long_get(v, b + n, (size_t)n, pe);
        for (k = 0; k < n; k++)
            TEST_CHECK("a get from a registered buffer", k, test_val(k, (size_t)pe, 73), v[k]);
    }

    /* A counter on every PE that every PE increments: the exact count
     * whichever path each increment takes. */
    if (amo) {
        for (k = 0; k < ROUNDS; k++)
            for (j = 0; j < n; j++) {
                pe = (me + j) % n;
                (void)shmem_long_atomic_fetch_inc(cnt, pe);
                shmem_long_atomic_add(cnt, 1, pe);
            }
        shmem_quiet();
        shmem_barrier_all();
        TEST_CHECK("a contended counter in a registered buffer", me, 2L * ROUNDS * n,
                   __atomic_load_n(cnt, __ATOMIC_ACQUIRE));
        TEST_CHECK("a contended counter, fetched by the next PE", (me + 1) % n, 2L * ROUNDS * n,
                   shmem_long_atomic_fetch(cnt, (me + 1) % n));
    }
    shmem_barrier_all();

    /* Heavy contention on one word of PE 0: every PE increments until all
     * have done HEAVY, so the PEs whose increments are CPU atomics keep
     * going while the others' arrive through the provider; the word ends
     * at the sum of everyone's count. */
    if (heavy && amo) {
        static long mine, total, rounds, done; /* done: a global, not the word under test */
        long *hc = b + 2 * n + 6;

        rounds++;
        for (mine = 0; mine < 100 * HEAVY;) {
            shmem_long_atomic_inc(hc, 0);
            if (++mine == HEAVY)
                shmem_long_atomic_inc(&done, 0);
            if (mine >= HEAVY && mine % 64 == 0 && shmem_long_atomic_fetch(&done, 0) >= n * rounds)
                break;
        }
        shmem_quiet();
        shmem_barrier_all();
        TEST_ASSERT(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total, &mine, 1) == 0, "sum_reduce");
        TEST_CHECK("a counter of PE 0 that every PE hammers", 0, total,
                   shmem_long_atomic_fetch(hc, 0));
    }

    /* Put with signal to the next PE, data and signal word in the buffer. */
    for (i = 0; i < 16; i++)
        src[i] = test_val(me, (size_t)i, 74);
    shmem_barrier_all();
    shmem_long_put_signal(b + 2 * n + 2, src, 4, sig, 1, SHMEM_SIGNAL_SET, (me + 1) % n);
    shmem_uint64_wait_until(sig, SHMEM_CMP_EQ, 1);
    for (i = 0; i < 4; i++)
        TEST_CHECK("put with signal into a registered buffer", i,
                   test_val((me + n - 1) % n, (size_t)i, 74), b[2 * n + 2 + i]);

    /* Collectives between registered buffers. */
    shmem_barrier_all();
    TEST_ASSERT(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 16, n - 1) == 0, "broadcast");
    for (i = 0; i < 16; i++)
        TEST_CHECK("broadcast between registered buffers", i, test_val(n - 1, (size_t)i, 74),
                   dst[i]);
    shmem_barrier_all();
    TEST_ASSERT(shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, 16) == 0, "fcollect");
    for (k = 0; k < n; k++)
        for (i = 0; i < 16; i++)
            TEST_CHECK("fcollect between registered buffers", k * 16 + i,
                       test_val(k, (size_t)i, 74), dst[k * 16 + i]);
    shmem_barrier_all();
    TEST_ASSERT(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 16) == 0, "sum_reduce");
    for (i = 0; i < 16; i++) {
        for (e = 0, k = 0; k < n; k++)
            e += test_val(k, (size_t)i, 74);
        TEST_CHECK("sum_reduce between registered buffers", i, e, dst[i]);
    }
    shmem_barrier_all();
    free(v);
}

/* After the buffer's unregistration: no pointer, no segment, no mapping
 * of node peers' copies left (a System V segment has its owner alone). */
static void check_gone(const struct tbuf *tb, const char *what)
{
    int pe, left;

    for (pe = 0; pe < test_npes; pe++)
        TEST_ASSERT(shmem_ptr(tb->p, pe) == NULL, "%s: shmem_ptr of PE %d after unregister",
                    what, pe);
    TEST_ASSERT(!shmem_addr_accessible(tb->p, (test_me + 1) % test_npes),
                "%s: accessible after unregister", what);
    left = peer_memfds_mapped();
    TEST_ASSERT(left == 0, "%s: %d mappings of node peers' memfds are left after unregister",
                what, left);
    shmem_barrier_all();
    if (tb->kind == K_SYSV) {
        struct shmid_ds ds;
        TEST_ASSERT(shmctl(tb->shmid, IPC_STAT, &ds) == 0 && ds.shm_nattch == 1,
                    "%s: %lu attachments of my segment after unregister", what,
                    (unsigned long)ds.shm_nattch);
    }
}

/* Registers tb (every PE passes its own, of the same length) without and
 * then with SHMEMX_BUFFER_LOAD_STORE; ok[pe]: whether PE pe's copy can be
 * shared; heavy (the same on every PE): the long contention phase. */
static void shared_round(struct tbuf *tb, const int *ok, const long *heap, int heavy,
                         const char *what)
{
    int me = test_me, n = test_npes, mapped = node_expects(ok, heap), all = all_nodes_expect(mapped);
    size_t nl = tb->bytes / sizeof(long);
    long *p;
    char msg[160];

    snprintf(msg, sizeof(msg), "%s (%s)", what, mapped ? "mapped" : "not mapped");
    p = shmemx_buffer_register_symmetric(tb->p, tb->bytes, 0);
    TEST_ASSERT(p == tb->p, "%s: register_symmetric returned %p", msg, (void *)p);
    exercise(p, nl, mapped, buffer_amo(all), heavy, msg, tb);
    TEST_ASSERT(shmemx_buffer_unregister_symmetric(p, tb->bytes) == 0, "%s: unregister", msg);
    check_gone(tb, msg);

    /* Load/store required: registered on every PE exactly when every
     * node maps. */
    p = shmemx_buffer_register_symmetric(tb->p, tb->bytes, SHMEMX_BUFFER_LOAD_STORE);
    if (all) {
        TEST_ASSERT(p == tb->p, "%s: SHMEMX_BUFFER_LOAD_STORE refused (every node can map)",
                    msg);
        TEST_ASSERT(shmemx_buffer_load_store(p) == SHMEMX_SUCCESS, "%s: load_store", msg);
        for (int pe = 0; pe < n; pe++)
            TEST_ASSERT((shmem_ptr(p, pe) != NULL) == (pe == me || in_my_node(pe)),
                        "%s: shmem_ptr of PE %d with SHMEMX_BUFFER_LOAD_STORE", msg, pe);
        TEST_ASSERT(shmemx_buffer_unregister_symmetric(p, tb->bytes) == 0, "%s: unregister", msg);
    } else {
        TEST_ASSERT(p == NULL, "%s: SHMEMX_BUFFER_LOAD_STORE accepted (some node cannot map)",
                    msg);
    }
    check_gone(tb, msg);
    shmem_barrier_all();
}

static void shared_buffers(const long *heap)
{
    int me = test_me, n = test_npes, k, pe, avail, mapped, *ok = calloc((size_t)n, sizeof(int));
    static int mine, all;
    struct tbuf tb, fds[3];

    TEST_ASSERT(ok, "calloc");
    for (k = 0; k < NKINDS; k++) {
        mine = tbuf_alloc(k, &tb) == 0;
        shmem_barrier_all();
        TEST_ASSERT(shmem_int_min_reduce(SHMEM_TEAM_WORLD, &all, &mine, 1) == 0, "min_reduce");
        avail = all;
        if (!avail) {
            test_note("note: %s: not available here, skipped", kind_names[k]);
            tbuf_release(&tb);
            continue;
        }
        for (pe = 0; pe < n; pe++)
            ok[pe] = tbuf_shareable(&tb); /* The same kind, the same rights everywhere. */
        shared_round(&tb, ok, heap, k == K_MEMFD || k == K_MALLOC, kind_names[k]);
        test_note("%s: %s", kind_names[k], node_expects(ok, heap) ? "node peers map it"
                                                                 : "through the provider");
        tbuf_release(&tb);
    }

    /* A mix: PE 0 malloc, the others memfd.  PE 0's node goes through the
     * provider, the other nodes map. */
    if (n > 1) {
        TEST_ASSERT(tbuf_alloc(me == 0 ? K_MALLOC : K_MEMFD, &tb) == 0, "allocation");
        for (pe = 0; pe < n; pe++)
            ok[pe] = pe != 0;
        shared_round(&tb, ok, heap, 1, "PE 0 malloc, the others memfd");
        tbuf_release(&tb);
    }

    /* unregister_symmetric_all: two memfds and a malloc buffer. */
    TEST_ASSERT(tbuf_alloc(K_MEMFD, &fds[0]) == 0 && tbuf_alloc(K_MEMFD, &fds[1]) == 0 &&
                tbuf_alloc(K_MALLOC, &fds[2]) == 0, "allocation");
    for (k = 0; k < 3; k++)
        TEST_ASSERT(shmemx_buffer_register_symmetric(fds[k].p, SBYTES, 0) == fds[k].p,
                    "register %d", k);
    for (pe = 0; pe < n; pe++)
        ok[pe] = 1;
    mapped = node_expects(ok, heap);
    exercise(fds[1].p, SBYTES / sizeof(long), mapped, buffer_amo(all_nodes_expect(mapped)), 0,
             "memfd before unregister_all", &fds[1]);
    TEST_ASSERT(shmemx_buffer_unregister_symmetric_all() == 0, "unregister_symmetric_all");
    TEST_ASSERT(shmemx_buffer_load_store(fds[0].p) == SHMEMX_ERROR_INVALID_VALUE,
                "load_store of an unregistered address");
    for (k = 0; k < 3; k++) {
        check_gone(&fds[k], "after unregister_symmetric_all");
        tbuf_release(&fds[k]);
    }
    free(ok);
}

int main(void)
{
    struct tbuf fin;
    long *heap, *l;
    int left;

    test_init("mem_reg");
    heap = shmem_calloc(2 * LEN, sizeof(long));
    TEST_ASSERT(heap, "shmem_calloc");
    local_buffers(heap);
    test_note("local buffers checked");
    symmetric_buffers(heap);
    test_note("symmetric buffers checked");
    shared_buffers(heap);
    test_note("load/store access checked");
    /* Buffers left registered: finalize releases them, and unmaps node
     * peers' copies (they are freed only after that). */
    l = malloc(64);
    TEST_ASSERT(l && shmemx_buffer_register(l, 64) == 0, "register l");
    TEST_ASSERT(tbuf_alloc(K_MEMFD, &fin) == 0 &&
                shmemx_buffer_register_symmetric(fin.p, fin.bytes, 0) == fin.p, "register fin");
    shmem_free(heap);
    shmem_barrier_all();
    shmem_finalize();
    left = peer_memfds_mapped();
    tbuf_release(&fin);
    free(l);
    if (left) {
        fprintf(stderr, "FAIL mem_reg: PE %d: %d mappings of node peers' memfds are left after "
                "shmem_finalize\n", test_me, left);
        return 1;
    }
    if (test_me == 0)
        printf("mem_reg: PASS (%d PEs)\n", test_npes);
    return 0;
}
