/*
 * mem: the symmetric memory routines.  malloc, calloc (zeroed even where
 * freed dirty memory is reused), align (the alignment is honored), realloc
 * (data kept when growing and shrinking; the new block is symmetric), free,
 * size 0 returns NULL, malloc_with_hints (1.6), the deprecated shmalloc,
 * shfree, shrealloc and shmemalign, many alloc/free cycles and a 64 MiB
 * block whose last byte a peer writes.
 */
#include "common.h"

static int salt_counter;

/*
 * Symmetry check: every PE writes n ints into block p of the next PE, at
 * the same (symmetric) address; each checks what its predecessor wrote.
 */
static void check_symmetric(const char *what, int *p, size_t n)
{
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
    int salt = ++salt_counter, v[16];
    size_t k, pos[3];

    if (n == 0)
        return;
    pos[0] = 0;
    pos[1] = n / 2;
    pos[2] = n - 1;
    shmem_barrier_all();
    for (k = 0; k < 3; k++) {
        v[k] = (int)test_val(test_me, pos[k], salt);
        shmem_int_p(&p[pos[k]], v[k], next);
    }
    shmem_barrier_all();
    for (k = 0; k < 3; k++)
        if (p[pos[k]] != test_val(prev, pos[k], salt))
            test_fail("%s: put from PE %d into the block: index %zu: expected %lld, got %d",
                      what, prev, pos[k], test_val(prev, pos[k], salt), p[pos[k]]);
    shmem_barrier_all();
}

static void check_values(const char *what, const int *p, size_t n, int salt)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (p[i] != (int)test_val(test_me, i, salt))
            test_fail("%s: data not kept: index %zu: expected %lld, got %d", what, i,
                      test_val(test_me, i, salt), p[i]);
}

static void fill_values(int *p, size_t n, int salt)
{
    size_t i;

    for (i = 0; i < n; i++)
        p[i] = (int)test_val(test_me, i, salt);
}

static void test_malloc_calloc(void)
{
    size_t sizes[] = { 1, 8, 100, 4096, 100000, 1 << 22 };
    size_t z, i;

    for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        size_t n = sizes[z];
        int *p = shmem_malloc(n * sizeof(int)), *q;
        unsigned char *c;

        TEST_ASSERT(p != NULL, "shmem_malloc(%zu) returned NULL", n * sizeof(int));
        check_symmetric("shmem_malloc", p, n);
        memset(p, 0xff, n * sizeof(int));
        shmem_free(p);
        /* The freed, dirty space is likely reused: calloc must clear it. */
        c = shmem_calloc(n, sizeof(int));
        TEST_ASSERT(c != NULL, "shmem_calloc(%zu, %zu) returned NULL", n, sizeof(int));
        for (i = 0; i < n * sizeof(int); i++)
            if (c[i] != 0)
                test_fail("shmem_calloc(%zu, %zu): byte %zu: expected 0, got %d", n,
                          sizeof(int), i, c[i]);
        q = (int *)(void *)c;
        check_symmetric("shmem_calloc", q, n);
        shmem_free(c);
    }
    /*
     * Size 0 returns NULL (Open MPI 4.1 returns a pointer, so the check is
     * compiled for fabshmem only); free(NULL) does nothing.
     */
#ifdef FABSHMEM_TESTS_16
    TEST_ASSERT(shmem_malloc(0) == NULL, "shmem_malloc(0): expected NULL");
    TEST_ASSERT(shmem_calloc(0, 8) == NULL, "shmem_calloc(0, 8): expected NULL");
    TEST_ASSERT(shmem_calloc(8, 0) == NULL, "shmem_calloc(8, 0): expected NULL");
    TEST_ASSERT(shmem_align(64, 0) == NULL, "shmem_align(64, 0): expected NULL");
#endif
    shmem_free(NULL);
    test_note("malloc, calloc, size 0, free(NULL) checked");
}

static void test_align(void)
{
    size_t aligns[] = { 1, 8, 16, 64, 256, 4096, 65536, 1 << 21 };
    size_t a;

    for (a = 0; a < sizeof(aligns) / sizeof(aligns[0]); a++) {
        /* An odd-sized block in front shifts the allocator's position. */
        void *pad = shmem_malloc(24);
        int *p = shmem_align(aligns[a], 1000 * sizeof(int));

        TEST_ASSERT(p != NULL, "shmem_align(%zu, %zu) returned NULL", aligns[a], 1000 * sizeof(int));
        TEST_ASSERT((uintptr_t)p % aligns[a] == 0, "shmem_align(%zu): address %p is not aligned",
                    aligns[a], (void *)p);
        check_symmetric("shmem_align", p, 1000);
        shmem_free(p);
        shmem_free(pad);
    }
    test_note("align checked");
}

static void test_realloc(void)
{
    int *p, *keep;
    int salt = ++salt_counter;

    p = shmem_malloc(100 * sizeof(int));
    TEST_ASSERT(p != NULL, "shmem_malloc(400) returned NULL");
    fill_values(p, 100, salt);
    /* A block after it forces a grow to move. */
    keep = shmem_malloc(64);
    shmem_barrier_all();
    p = shmem_realloc(p, 200000 * sizeof(int));
    TEST_ASSERT(p != NULL, "shmem_realloc(grow to %zu) returned NULL", 200000 * sizeof(int));
    check_values("shmem_realloc (grow)", p, 100, salt);
    check_symmetric("shmem_realloc (grow)", p, 200000);
    fill_values(p, 200000, salt);
    shmem_barrier_all();
    p = shmem_realloc(p, 10 * sizeof(int));
    TEST_ASSERT(p != NULL, "shmem_realloc(shrink to %zu) returned NULL", 10 * sizeof(int));
    check_values("shmem_realloc (shrink)", p, 10, salt);
    check_symmetric("shmem_realloc (shrink)", p, 10);
    /* Grow again in place (probably) and keep the data. */
    fill_values(p, 10, salt);
    p = shmem_realloc(p, 50 * sizeof(int));
    TEST_ASSERT(p != NULL, "shmem_realloc(regrow) returned NULL");
    check_values("shmem_realloc (regrow)", p, 10, salt);
    check_symmetric("shmem_realloc (regrow)", p, 50);
    shmem_free(p);
    /* realloc(NULL, n) allocates. */
    p = shmem_realloc(NULL, 32 * sizeof(int));
    TEST_ASSERT(p != NULL, "shmem_realloc(NULL, 128) returned NULL");
    check_symmetric("shmem_realloc(NULL, n)", p, 32);
    shmem_free(p);
    shmem_free(keep);
    test_note("realloc checked");
}

static void test_deprecated(void)
{
    int salt = ++salt_counter;
    int *p = shmalloc(64 * sizeof(int)), *a;

    TEST_ASSERT(p != NULL, "shmalloc(256) returned NULL");
    check_symmetric("shmalloc", p, 64);
    fill_values(p, 64, salt);
    shmem_barrier_all();
    p = shrealloc(p, 5000 * sizeof(int));
    TEST_ASSERT(p != NULL, "shrealloc(20000) returned NULL");
    check_values("shrealloc", p, 64, salt);
    check_symmetric("shrealloc", p, 5000);
    a = shmemalign(256, 100 * sizeof(int));
    TEST_ASSERT(a != NULL && (uintptr_t)a % 256 == 0, "shmemalign(256, 400): %p", (void *)a);
    check_symmetric("shmemalign", a, 100);
    shfree(a);
    shfree(p);
    test_note("shmalloc, shrealloc, shmemalign, shfree checked");
}

static void test_hints(void)
{
#ifdef FABSHMEM_TESTS_16
    long hints[] = { 0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                     SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE };
    size_t h;

    for (h = 0; h < sizeof(hints) / sizeof(hints[0]); h++) {
        int *p = shmem_malloc_with_hints(1000 * sizeof(int), hints[h]);

        TEST_ASSERT(p != NULL, "shmem_malloc_with_hints(4000, %ld) returned NULL", hints[h]);
        check_symmetric("shmem_malloc_with_hints", p, 1000);
        shmem_free(p);
    }
    TEST_ASSERT(shmem_malloc_with_hints(0, 0) == NULL, "shmem_malloc_with_hints(0, 0): expected NULL");
    test_note("malloc_with_hints checked");
#endif
}

static void test_cycles(void)
{
    enum { SLOTS = 16, CYCLES = 600 };
    int *slot[SLOTS] = { 0 };
    size_t sz[SLOTS] = { 0 };
    unsigned seed = 12345; /* The same sequence on every PE: the calls are collective. */
    int c, k;

    for (c = 0; c < CYCLES; c++) {
        seed = seed * 1103515245u + 12345u;
        k = (int)((seed >> 16) % SLOTS);
        if (slot[k]) {
            /* The block must still hold what this PE wrote into it. */
            if (slot[k][0] != (int)sz[k] || slot[k][sz[k] - 1] != (int)k)
                test_fail("alloc/free cycle %d: block %d of %zu ints lost its data "
                          "(got %d, %d)", c, k, sz[k], slot[k][0], slot[k][sz[k] - 1]);
            shmem_free(slot[k]);
            slot[k] = NULL;
        } else {
            sz[k] = 2 + ((seed >> 8) % 5000);
            slot[k] = shmem_malloc(sz[k] * sizeof(int));
            TEST_ASSERT(slot[k] != NULL, "cycle %d: shmem_malloc(%zu) returned NULL", c,
                        sz[k] * sizeof(int));
            if (c % 50 == 0)
                check_symmetric("shmem_malloc (cycles)", slot[k], sz[k]);
            slot[k][0] = (int)sz[k];
            slot[k][sz[k] - 1] = k;
        }
    }
    for (k = 0; k < SLOTS; k++)
        shmem_free(slot[k]);
    test_note("%d alloc/free cycles checked", CYCLES);
}

static void test_large(void)
{
    size_t n = (size_t)64 << 20;
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
    unsigned char *p = shmem_malloc(n), v;

    TEST_ASSERT(p != NULL, "shmem_malloc(64 MiB) returned NULL");
    p[n - 1] = 0;
    p[0] = 0;
    shmem_barrier_all();
    v = (unsigned char)(test_me + 1);
    shmem_putmem(p + n - 1, &v, 1, next);
    shmem_char_p((char *)p, (char)(test_me + 1), next);
    shmem_barrier_all();
    TEST_ASSERT(p[n - 1] == (unsigned char)(prev + 1),
                "64 MiB block: last byte: expected %d (from PE %d), got %d", prev + 1, prev, p[n - 1]);
    TEST_ASSERT(p[0] == (unsigned char)(prev + 1),
                "64 MiB block: first byte: expected %d (from PE %d), got %d", prev + 1, prev, p[0]);
    shmem_free(p);
    test_note("64 MiB allocation checked");
}

int main(void)
{
    test_init("mem");
    test_malloc_calloc();
    test_align();
    test_realloc();
    test_deprecated();
    test_hints();
    test_cycles();
    test_large();
    return test_finish();
}
