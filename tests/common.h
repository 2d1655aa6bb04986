/*
 * Shared helpers of the multi-PE test programs of `make check`.
 *
 * The programs use only the standard OpenSHMEM API of shmem.h.  Routines
 * that are new in OpenSHMEM 1.6 are compiled only when FABSHMEM_TESTS_16 is
 * defined (the Makefile does), so that the rest can be checked against an
 * OpenSHMEM 1.4 library such as the one of Open MPI.
 *
 * Every check runs on every PE.  The first mismatch prints one line naming
 * the test, what was checked, the PE, the index, the expected and the
 * received value, and ends the whole job with shmem_global_exit(1).
 */
#ifndef FABSHMEM_TESTS_COMMON_H
#define FABSHMEM_TESTS_COMMON_H

#include <shmem.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* The exit status that the automake test harness reads as "skipped". */
#define TEST_SKIP 77

/*
 * The 24 standard RMA types of OpenSHMEM 1.6: X(TYPE, TYPENAME).  The
 * unsigned and fixed-size ones (and size_t) are also the bitwise types of
 * the reductions, and with the signed ones part of their min/max types
 * (tests/reduce_common.h).
 */
#define TEST_UNSIGNED_FIXED_TYPES(X)                                       \
    X(unsigned char, uchar)                                                \
    X(unsigned short, ushort)                                              \
    X(unsigned int, uint)                                                  \
    X(unsigned long, ulong)                                                \
    X(unsigned long long, ulonglong)                                       \
    X(int8_t, int8)                                                        \
    X(int16_t, int16)                                                      \
    X(int32_t, int32)                                                      \
    X(int64_t, int64)                                                      \
    X(uint8_t, uint8)                                                      \
    X(uint16_t, uint16)                                                    \
    X(uint32_t, uint32)                                                    \
    X(uint64_t, uint64)                                                    \
    X(size_t, size)
#define TEST_SIGNED_INT_TYPES(X)                                           \
    X(char, char)                                                          \
    X(signed char, schar)                                                  \
    X(short, short)                                                        \
    X(int, int)                                                            \
    X(long, long)                                                          \
    X(long long, longlong)
#define TEST_RMA_TYPES(X)                                                  \
    X(float, float)                                                        \
    X(double, double)                                                      \
    X(long double, longdouble)                                             \
    TEST_SIGNED_INT_TYPES(X)                                               \
    TEST_UNSIGNED_FIXED_TYPES(X)                                           \
    X(ptrdiff_t, ptrdiff)

/* The SIZE forms: X(bits, bytes). */
#define TEST_RMA_SIZES(X) X(8, 1) X(16, 2) X(32, 4) X(64, 8) X(128, 16)

static const char *test_name = "test";
static int test_me = -1;
static int test_npes = 0;

/*
 * The value that PE pe stores at index i in round salt.  It lies in 1..97,
 * so every type holds it exactly and it never equals the zero fill.
 */
static inline long long test_val(int pe, size_t i, int salt)
{
    return (long long)(((unsigned long long)pe * 37u + i * 11u +
                        (unsigned long long)salt * 5u) % 97u) + 1;
}

/* Print a failure line and end the whole job. */
static inline void test_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static inline void test_fail(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "FAIL %s: PE %d: ", test_name, test_me);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    fflush(stderr);
    fflush(stdout);
    shmem_global_exit(1);
    exit(1);
}

/* Print a message from PE 0 only. */
static inline void test_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void test_note(const char *fmt, ...)
{
    va_list ap;

    if (test_me != 0)
        return;
    printf("%s: ", test_name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

/* Check one value; the values of all types are compared as long double. */
#define TEST_CHECK(what, idx, expected, got)                                \
    do {                                                                    \
        long double e_ = (long double)(expected);                           \
        long double g_ = (long double)(got);                                \
        if (e_ != g_)                                                       \
            test_fail("%s: index %zu: expected %.0Lf, got %.0Lf", (what),   \
                      (size_t)(idx), e_, g_);                               \
    } while (0)

/* Check a condition that has no index. */
#define TEST_ASSERT(cond, ...)                                              \
    do {                                                                    \
        if (!(cond))                                                        \
            test_fail(__VA_ARGS__);                                         \
    } while (0)

/* The library's messages of a stretch of the program: test_stderr_capture
 * sends file descriptor 2 to a new file of this PE (unlinked at once),
 * test_stderr_release puts it back and returns what was written (malloc'd;
 * free it).  Check values after the release: a failure line written in
 * between would go to the file. */
static int test_stderr_fd = -1, test_stderr_file = -1;
static inline void test_stderr_capture(void)
{
    char path[] = "/tmp/fabshmem-stderr-XXXXXX";

    test_stderr_file = mkstemp(path);
    TEST_ASSERT(test_stderr_file >= 0, "mkstemp %s failed", path);
    unlink(path);
    fflush(stderr);
    test_stderr_fd = dup(2);
    TEST_ASSERT(test_stderr_fd >= 0 && dup2(test_stderr_file, 2) == 2, "dup2 failed");
}
static inline char *test_stderr_release(void)
{
    off_t n;
    char *text;

    fflush(stderr);
    dup2(test_stderr_fd, 2);
    close(test_stderr_fd);
    n = lseek(test_stderr_file, 0, SEEK_END);
    text = (char *)calloc(1, (size_t)n + 1);
    TEST_ASSERT(n >= 0 && text != NULL && pread(test_stderr_file, text, (size_t)n, 0) == n,
                "reading the captured stderr failed");
    close(test_stderr_file);
    return text;
}

/* 1 when SHMEM_DEBUG asks for the library's debug messages. */
static inline int test_debug_on(void)
{
    static const char *const yes[] = { "1", "yes", "on", "true", "y" };
    const char *d = getenv("SHMEM_DEBUG");
    size_t i;

    for (i = 0; d && i < sizeof(yes) / sizeof(yes[0]); i++)
        if (!strcasecmp(d, yes[i]))
            return 1;
    return 0;
}

/* Initialize the library and the globals above. */
static inline void test_init(const char *name)
{
    test_name = name;
    shmem_init();
    test_me = shmem_my_pe();
    test_npes = shmem_n_pes();
}

/* Seconds of a monotonic clock. */
static inline double test_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* 1 when AMOs that go through the provider cannot work: the job asked
 * for the provider's own atomics (FABSHMEM_OFI_AMO=native) instead of
 * fabshmem's active messages, which every provider with messages can
 * carry, and the provider has none that work: shm's are off (libfabric
 * 1.17 bug) unless FABSHMEM_OFI_SHM_ATOMICS=1, and net (libfabric 1.17's
 * native tcp RDM provider) lists FI_ATOMIC but supports no operation. */
static inline int test_prov_no_amo(void)
{
    static const char *const yes[] = { "1", "yes", "on", "true", "y" };
    const char *prov = getenv("FABSHMEM_PROVIDER"), *m = getenv("FABSHMEM_OFI_AMO");
    const char *shm_amo = getenv("FABSHMEM_OFI_SHM_ATOMICS");
    size_t i;

    if (!prov || !m || (strcmp(m, "native") && strcmp(m, "0")))
        return 0;
    if (!strcmp(prov, "net"))
        return 1;
    /* FABSHMEM_OFI_SHM_ATOMICS is a boolean as the library reads them. */
    for (i = 0; shm_amo && i < sizeof(yes) / sizeof(yes[0]); i++)
        if (!strcasecmp(shm_amo, yes[i]))
            return 0;
    return !strcmp(prov, "shm");
}

/* 1 when some AMO of this job must go through such a provider because
 * not every PE is mapped: the direct path is off or the PEs form virtual
 * nodes. */
static inline int test_amo_unavailable(void)
{
    const char *direct = getenv("FABSHMEM_DIRECT");
    const char *ppn = getenv("FABSHMEM_PES_PER_NODE");

    if (!test_prov_no_amo() || test_npes < 2)
        return 0;
    return (direct && strcmp(direct, "0") == 0) || (ppn && atol(ppn) > 0);
}

/* The start of the mapping that holds p, from /proc/self/maps; 0 if none
 * (the attack tests: where a registration of p's memory could start). */
static inline uintptr_t test_mapping_start(const void *p)
{
    FILE *f = fopen("/proc/self/maps", "r");
    unsigned long lo, hi;
    char line[512];
    uintptr_t found = 0;

    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && (uintptr_t)p >= lo && (uintptr_t)p < hi)
            found = lo;
    if (f)
        fclose(f);
    return found;
}

/* The finishing line and the end of the job; every PE gets here. */
static inline int test_finish(void)
{
    shmem_barrier_all();
    test_note("PASS (%d PEs)", test_npes);
    shmem_finalize();
    return 0;
}

#endif
