/*
 * globals: symmetric global and static variables (the executable's data
 * segment), which node peers map like the heap unless FABSHMEM_MAP_DATA=0.
 *
 *   - initialized data survives shmem_init (the data segment is moved into
 *     shared memory there) and a peer reads it;
 *   - puts and gets of every PE to its neighbours' globals, by value;
 *   - shmem_ptr on a global: non-NULL exactly where it is for the heap
 *     (with FABSHMEM_MAP_DATA=0: only to self), and a store through it
 *     reaches the owner;
 *   - fetch-add and compare-swap from every PE on globals of PE 0 and of
 *     the last PE: the fetched tickets are distinct and the totals exact
 *     (one path for all AMOs on a word, whatever the mapping);
 *   - a lock in a static long guards a get-increment-put counter;
 *   - a child made by fork() gets private globals: what it writes does not
 *     reach the parent, and the parent's globals still take peers' puts;
 *   - the bounds of the symmetric data: the first word of .data
 *     (__data_start) and the last bytes of .bss (before _end) take puts and
 *     gets, while the program's RELRO and its .got.plt (the table of
 *     library function addresses, writable under partial RELRO) are not
 *     symmetric: shmem_addr_accessible says 0 for them.
 */
#define _GNU_SOURCE
#include "common.h"
#include <link.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 32
#define K 200

static long ginit = 12345;            /* .data */
static long garr[N];                  /* .bss */
static long gtickets[2];
static long gswapped[2];
static long glock, gcount;
static int gcheck[4096];              /* more than one page of .bss */

/* The glibc start files' first word of .data, and the linker's end of .bss. */
extern int __data_start;
extern char _end[];

/* The last slot of the executable's .got.plt and the last word of its
 * RELRO (0 where it has none), from its program headers. */
struct off_limits {
    uintptr_t gotplt_last, relro_last;
};

static int off_limits_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct off_limits *o = arg;
    const ElfW(Dyn) *dyn = NULL;
    uintptr_t pltgot = 0, relsz = 0;
    int i;

    (void)size;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO)
            o->relro_last = info->dlpi_addr + ph->p_vaddr + ph->p_memsz - sizeof(long);
        else if (ph->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
    }
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_PLTGOT)
            pltgot = dyn->d_un.d_ptr;
        else if (dyn->d_tag == DT_PLTRELSZ)
            relsz = dyn->d_un.d_val;
    }
    /* Relocated in place by glibc, or as linked. */
    if (pltgot && pltgot < info->dlpi_addr)
        pltgot += info->dlpi_addr;
    if (pltgot && relsz)
        o->gotplt_last = pltgot + (2 + relsz / sizeof(ElfW(Rela))) * sizeof(void *);
    return 1; /* the executable only */
}

/* The first and last bytes of .data and .bss take puts and gets from the
 * neighbours; RELRO and .got.plt are not symmetric. */
static void check_bounds(int me, int right, int left)
{
    /* Through an integer: the compiler knows nothing of what is below _end. */
    volatile uintptr_t end = (uintptr_t)_end;
    struct off_limits o = { 0, 0 };
    char *last = (char *)(end - sizeof(long));
    char save[sizeof(long)], got[sizeof(long)], want[sizeof(long)];
    int saved_first = __data_start, i;

    dl_iterate_phdr(off_limits_cb, &o);
    if (o.gotplt_last)
        TEST_ASSERT(!shmem_addr_accessible((void *)o.gotplt_last, right),
                    "the last slot of .got.plt (%p) is symmetric", (void *)o.gotplt_last);
    if (o.relro_last)
        TEST_ASSERT(!shmem_addr_accessible((void *)o.relro_last, right),
                    "the last word of RELRO (%p) is symmetric", (void *)o.relro_last);
    TEST_ASSERT(shmem_addr_accessible(&__data_start, right), "the first word of .data is not "
                "symmetric");
    TEST_ASSERT(shmem_addr_accessible((void *)(end - 1), right), "the last byte of .bss is not "
                "symmetric");

    /* Under AddressSanitizer the last bytes of .bss are its redzone, which
     * no program may touch: the transfers there are left out. */
#if defined(__SANITIZE_ADDRESS__)
    (void)last;
    (void)save;
    (void)got;
    (void)want;
    (void)left;
    (void)saved_first;
    return;
#endif
    /* The first word of .data: a put from the left neighbour, a get from
     * the right one; then back as it was. */
    memcpy(save, last, sizeof(save));
    shmem_barrier_all();
    shmem_int_p(&__data_start, 4000 + me, right);
    for (i = 0; i < (int)sizeof(want); i++)
        want[i] = (char)(0x40 + me + i);
    shmem_putmem(last, want, sizeof(want), right);
    shmem_barrier_all();
    TEST_CHECK("put to the first word of .data", 0, 4000 + left, __data_start);
    for (i = 0; i < (int)sizeof(want); i++)
        TEST_CHECK("put to the last bytes of .bss", i, 0x40 + left + i, last[i]);
    TEST_CHECK("get of the first word of .data", 0, 4000 + me, shmem_int_g(&__data_start, right));
    shmem_getmem(got, last, sizeof(got), right);
    for (i = 0; i < (int)sizeof(got); i++)
        TEST_CHECK("get of the last bytes of .bss", i, 0x40 + me + i, got[i]);
    shmem_barrier_all();
    __data_start = saved_first;
    memcpy(last, save, sizeof(save));
    shmem_barrier_all();
}

int main(void)
{
    int me, n, right, left, pe, i, provider_amo = 1;
    long *heap, v;
    const char *md = getenv("FABSHMEM_MAP_DATA");
    int map_data = !(md && !strcmp(md, "0"));

    test_init("globals");
    me = test_me;
    n = test_npes;
    right = (me + 1) % n;
    left = (me - 1 + n) % n;
    heap = shmem_malloc(sizeof(long));
    TEST_ASSERT(heap != NULL, "shmem_malloc");

    /* Initialized data is intact, here and at a peer. */
    TEST_CHECK("initialized global after init", 0, 12345, ginit);
    TEST_CHECK("initialized global read from the right neighbour", 0, 12345,
               shmem_long_g(&ginit, right));
    shmem_barrier_all();

    /* Puts and gets to the neighbours' globals. */
    for (i = 0; i < N; i++)
        v = me * 1000L + i, shmem_long_p(&garr[i], v, right);
    gcheck[4095] = me;
    shmem_barrier_all();
    for (i = 0; i < N; i++)
        TEST_CHECK("put to a global", i, left * 1000L + i, garr[i]);
    TEST_CHECK("get of the last page of .bss", 0, right, shmem_int_g(&gcheck[4095], right));
    {
        long got[N];
        shmem_long_get(got, garr, N, right);
        for (i = 0; i < N; i++)
            TEST_CHECK("get from a global", i, me * 1000L + i, got[i]);
    }
    shmem_barrier_all();

    /* shmem_ptr: globals are mapped where the heap is. */
    for (pe = 0; pe < n; pe++) {
        long *qh = shmem_ptr(heap, pe), *qg = shmem_ptr(&garr[1], pe);
        if (pe == me) {
            TEST_ASSERT(qg == &garr[1], "shmem_ptr(global, my PE) is not the global");
        } else if (map_data) {
            TEST_ASSERT((qh == NULL) == (qg == NULL),
                        "shmem_ptr to PE %d: heap %s but global %s", pe, qh ? "mapped" : "not",
                        qg ? "mapped" : "not");
        } else {
            TEST_ASSERT(qg == NULL, "FABSHMEM_MAP_DATA=0 but shmem_ptr(global, %d) is mapped", pe);
        }
    }
    {
        long *q = shmem_ptr(&garr[2], right);
        if (q && right != me)
            *q = -7 - me;
        shmem_barrier_all();
        if (shmem_ptr(&garr[2], left) && left != me)
            TEST_CHECK("store through shmem_ptr(global)", 2, -7L - left, garr[2]);
    }
    shmem_barrier_all();

    /* AMOs on globals: a provider without usable atomics of its own
     * (test_prov_no_amo) matters only when the globals are not mapped by
     * all. */
    if (n > 1 && test_prov_no_amo()) {
        int all = 1;
        for (pe = 0; pe < n; pe++)
            all &= shmem_ptr(&gtickets[0], pe) != NULL;
        provider_amo = all;
        /* Every PE must take the same branch. */
        static int none;
        if (!all)
            shmem_int_p(&none, 1, 0);
        shmem_barrier_all();
        provider_amo = !shmem_int_g(&none, 0);
        shmem_barrier_all();
    }
    if (provider_amo) {
        static long seen[K * 64];
        static long mine[K];
        int dup = 0;

        TEST_ASSERT(n <= 64, "this test handles at most 64 PEs");
        for (i = 0; i < K; i++)
            mine[i] = shmem_long_atomic_fetch_add(&gtickets[0], 1, 0);
        for (i = 0; i < K; i++) {
            long old;
            do {
                old = shmem_long_atomic_fetch(&gswapped[1], n - 1);
            } while (shmem_long_atomic_compare_swap(&gswapped[1], old, old + 1, n - 1) != old);
        }
        shmem_barrier_all();
        if (me == 0) {
            TEST_CHECK("fetch_add on a global: total", 0, (long)n * K, gtickets[0]);
            shmem_long_put(seen, mine, K, 0);
            for (pe = 1; pe < n; pe++) {
                shmem_long_get(seen + (size_t)pe * K, mine, K, pe);
            }
        }
        if (me == n - 1)
            TEST_CHECK("compare_swap on a global: total", 0, (long)n * K, gswapped[1]);
        shmem_barrier_all();
        if (me == 0) {
            /* Every ticket 0 .. n*K-1 exactly once. */
            static char hit[K * 64];
            for (i = 0; i < n * K; i++) {
                if (seen[i] < 0 || seen[i] >= (long)n * K || hit[seen[i]]++)
                    dup++;
            }
            TEST_ASSERT(dup == 0, "fetch_add on a global: %d tickets repeated or out of range", dup);
        }
        shmem_barrier_all();

        /* A lock in a static long. */
        for (i = 0; i < K; i++) {
            shmem_set_lock(&glock);
            v = shmem_long_g(&gcount, 0);
            shmem_long_p(&gcount, v + 1, 0);
            shmem_clear_lock(&glock);
        }
        shmem_barrier_all();
        if (me == 0)
            TEST_CHECK("lock in a static: counter", 0, (long)n * K, gcount);
    }
    shmem_barrier_all();

    /* fork: the child's globals are its own. */
    {
        pid_t pid;
        int status = 0;

        garr[5] = 555;
        pid = fork();
        if (pid == 0) {
            garr[5] = -1;
            garr[6] = -1;
            _exit(garr[5] == -1 ? 0 : 3);
        }
        TEST_ASSERT(pid > 0, "fork failed");
        waitpid(pid, &status, 0);
        TEST_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed (%d)", status);
        TEST_CHECK("a forked child's store stays in the child", 5, 555, garr[5]);
        shmem_barrier_all();
        shmem_long_p(&garr[6], 600 + me, right);
        shmem_barrier_all();
        TEST_CHECK("put to a global after a fork", 6, 600L + left, garr[6]);
    }

    check_bounds(me, right, left);
    shmem_barrier_all();
    shmem_free(heap);
    return test_finish();
}
