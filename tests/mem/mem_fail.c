/*
 * mem_fail: the failures of the memory routines, checked on every PE, and
 * that the heap and the job keep working after each.
 *
 *  - A heap that cannot hold the block (the default error mode): shmem_malloc,
 *    shmem_calloc, shmem_align, shmem_malloc_with_hints and shmem_realloc
 *    of 1 TiB return NULL on every PE (with a warning), realloc's block
 *    keeps its contents, and then blocks that fit are symmetric and
 *    carry puts, checked by value on every PE.
 *  - SHMEMX_ERRORS_RETURN mode: each bad call returns (NULL, or its
 *    status) with the class and the message that shmemx_error_get reads,
 *    prints nothing, and leaves the heap and the job working: shmem_free
 *    and shmem_realloc of a pointer that is not a block (INVALID_VALUE),
 *    shmem_align with an alignment that is not a power of two or is too
 *    large (INVALID_VALUE), a calloc whose size overflows (INVALID_VALUE),
 *    a malloc larger than the heap (OUT_OF_MEMORY), sizes that differ
 *    between PEs under FABSHMEM_CHECKS=1 (SYMMETRY on every PE), and the
 *    buffer registrations with bad arguments: NULL, overlaps, unknown
 *    flags, a PE that passes NULL alone (INVALID_VALUE there, SYMMETRY on
 *    the others), lengths that differ (SYMMETRY), an address that is not
 *    registered.
 *
 * FABSHMEM_CHECKS is set to 1 unless the environment says otherwise.
 */
#include "common.h"
#include <shmemx.h>
#include <stdint.h>
#include <unistd.h>

#define HUGE_BYTES ((size_t)1 << 40)

static int salt_counter;

/* Every PE writes n longs into p on the next PE; each checks what its
 * predecessor wrote. */
static void check_symmetric(const char *what, long *p, size_t n)
{
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes;
    int salt = ++salt_counter;
    size_t i;

    shmem_barrier_all();
    for (i = 0; i < n; i++)
        shmem_long_p(&p[i], test_val(test_me, i, salt), next);
    shmem_barrier_all();
    for (i = 0; i < n; i++)
        TEST_CHECK(what, i, test_val(prev, i, salt), p[i]);
    shmem_barrier_all();
}

/* How many PEs saw cond (a sum over the world). */
static int count_pes(int cond)
{
    static long in, out;

    in = cond;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &out, &in, 1);
    return (int)out;
}

/* A block that fits, used by value: the heap still works. */
static void heap_works(const char *after)
{
    char what[160];
    long *p = shmem_malloc(512 * sizeof(long));

    snprintf(what, sizeof(what), "a block that fits, after %s", after);
    TEST_ASSERT(p != NULL, "%s: shmem_malloc(4096) returned NULL", what);
    check_symmetric(what, p, 512);
    shmem_free(p);
}

/* The default error mode: a heap that cannot hold the block is NULL on
 * every PE, and the job goes on. */
static void heap_full(void)
{
    long *keep = shmem_malloc(64 * sizeof(long));
    void *p;
    size_t i;

    TEST_ASSERT(keep != NULL, "shmem_malloc(512) returned NULL");
    for (i = 0; i < 64; i++)
        keep[i] = test_val(test_me, i, 99);
    p = shmem_malloc(HUGE_BYTES);
    TEST_CHECK("PEs whose shmem_malloc(1 TiB) returned NULL", 0, test_npes, count_pes(!p));
    heap_works("shmem_malloc(1 TiB)");
    p = shmem_calloc(HUGE_BYTES / 8, 8);
    TEST_CHECK("PEs whose shmem_calloc(2^37, 8) returned NULL", 0, test_npes, count_pes(!p));
    p = shmem_align(4096, HUGE_BYTES);
    TEST_CHECK("PEs whose shmem_align(4096, 1 TiB) returned NULL", 0, test_npes, count_pes(!p));
    p = shmem_malloc_with_hints(HUGE_BYTES, SHMEM_MALLOC_ATOMICS_REMOTE);
    TEST_CHECK("PEs whose shmem_malloc_with_hints(1 TiB) returned NULL", 0, test_npes,
               count_pes(!p));
    p = shmem_realloc(keep, HUGE_BYTES);
    TEST_CHECK("PEs whose shmem_realloc(1 TiB) returned NULL", 0, test_npes, count_pes(!p));
    for (i = 0; i < 64; i++)
        TEST_CHECK("the block kept by a failed shmem_realloc", i, test_val(test_me, i, 99),
                   keep[i]);
    check_symmetric("the block kept by a failed shmem_realloc", keep, 64);
    heap_works("the five allocations of 1 TiB");
    shmem_free(keep);
}

/* ---- SHMEMX_ERRORS_RETURN mode ---- */

static FILE *quiet_file;
static int quiet_saved = -1;

/* Sends this process's stderr to a file until quiet_end, which checks
 * that nothing came. */
static void quiet_begin(void)
{
    fflush(stderr);
    quiet_file = tmpfile();
    TEST_ASSERT(quiet_file != NULL, "tmpfile failed");
    quiet_saved = dup(2);
    TEST_ASSERT(quiet_saved >= 0 && dup2(fileno(quiet_file), 2) == 2, "dup2 failed");
}

static void quiet_end(const char *what)
{
    long len;
    char head[200] = "";

    fflush(stderr);
    dup2(quiet_saved, 2);
    close(quiet_saved);
    fseek(quiet_file, 0, SEEK_END);
    len = ftell(quiet_file);
    rewind(quiet_file);
    if (len > 0 && !fgets(head, sizeof(head), quiet_file))
        head[0] = '\0';
    fclose(quiet_file);
    TEST_ASSERT(len == 0, "%s printed %ld bytes in SHMEMX_ERRORS_RETURN mode: %s", what, len,
                head);
}

/* After a refused call (returned_ok: it returned what a refusal returns):
 * nothing was printed, and the calling thread's last error is class want
 * with a message that holds part1 and part2 (NULL: nothing more). */
static void expect_err(const char *what, int returned_ok, int want, const char *part1,
                       const char *part2)
{
    char msg[1024];
    int got = shmemx_error_get(msg, sizeof(msg));

    quiet_end(what);
    TEST_ASSERT(returned_ok, "%s did not return what a refusal returns (class %d: %s)", what,
                got, msg);
    TEST_ASSERT(got == want, "%s: class %d (%s), expected %d (%s); message \"%s\"", what, got,
                shmemx_strerror(got), want, shmemx_strerror(want), msg);
    TEST_ASSERT(strstr(msg, part1) && (!part2 || strstr(msg, part2)),
                "%s: the message \"%s\" lacks \"%s\"%s%s", what, msg, part1,
                part2 ? "\" or \"" : "", part2 ? part2 : "");
    shmemx_error_clear();
    quiet_begin();
}

/* A call that returns a pointer (NULL when refused) or a status (want). */
#define EXPECT_NULL(call, want, p1, p2) expect_err(#call, (call) == NULL, (want), (p1), (p2))
#define EXPECT_RC(call, want, p1, p2) expect_err(#call, (call) == (want), (want), (p1), (p2))

static void alloc_returns(void)
{
    long local[4], *blk = shmem_malloc(16 * sizeof(long));
    int checks = 0;
    const char *c = getenv("FABSHMEM_CHECKS");

    TEST_ASSERT(blk != NULL, "shmem_malloc(128) returned NULL");
    checks = c && (!strcmp(c, "1") || !strcasecmp(c, "yes") || !strcasecmp(c, "on"));
    quiet_begin();
    shmem_free(local);
    expect_err("shmem_free(a stack address)", 1, SHMEMX_ERROR_INVALID_VALUE, "shmem_free: ptr",
               "is not a block of the symmetric heap");
    shmem_free(blk + 1);
    expect_err("shmem_free(inside a block)", 1, SHMEMX_ERROR_INVALID_VALUE, "shmem_free: ptr",
               "is not a block of the symmetric heap");
    EXPECT_NULL(shmem_realloc(local, 64), SHMEMX_ERROR_INVALID_VALUE, "shmem_realloc: ptr",
                "not returned by shmem_malloc");
    EXPECT_NULL(shmem_align(3, 64), SHMEMX_ERROR_INVALID_VALUE,
                "shmem_align: alignment 3 is not a power of two", NULL);
    EXPECT_NULL(shmem_align(0, 64), SHMEMX_ERROR_INVALID_VALUE,
                "shmem_align: alignment 0 is not a power of two", NULL);
    EXPECT_NULL(shmem_align((size_t)1 << 31, 64), SHMEMX_ERROR_INVALID_VALUE,
                "shmem_align: alignment 2147483648", "larger than the largest supported");
    EXPECT_NULL(shmem_calloc(SIZE_MAX / 2, 4), SHMEMX_ERROR_INVALID_VALUE, "shmem_calloc: count",
                "overflows size_t");
    EXPECT_NULL(shmem_malloc(HUGE_BYTES), SHMEMX_ERROR_OUT_OF_MEMORY,
                "shmem_malloc: cannot allocate 1099511627776 bytes", "SHMEM_SYMMETRIC_SIZE");
    EXPECT_NULL(shmem_calloc(HUGE_BYTES, 1), SHMEMX_ERROR_OUT_OF_MEMORY,
                "shmem_calloc: cannot allocate", "SHMEM_SYMMETRIC_SIZE");
    EXPECT_NULL(shmem_realloc(blk, HUGE_BYTES), SHMEMX_ERROR_OUT_OF_MEMORY,
                "shmem_realloc: cannot allocate", "SHMEM_SYMMETRIC_SIZE");
    if (checks && test_npes > 1)
        EXPECT_NULL(shmem_malloc(test_me == 0 ? 64 : 128), SHMEMX_ERROR_SYMMETRY,
                    "shmem_malloc: size differs between PEs", "collective arguments must agree");
    quiet_end("the allocations' refusals");
    /* blk survived its failed realloc and shmem_free(blk + 1). */
    check_symmetric("a block after the refused calls", blk, 16);
    heap_works("the refused calls in SHMEMX_ERRORS_RETURN mode");
    shmem_free(blk);
}

static void registration_returns(void)
{
    size_t len = 8192;
    long *buf = malloc(len), *blk = shmem_malloc(64), *sym;
    char local[64];

    TEST_ASSERT(buf && blk, "malloc or shmem_malloc failed");
    quiet_begin();
    EXPECT_RC(shmemx_buffer_register(NULL, 64), SHMEMX_ERROR_INVALID_VALUE,
              "shmemx_buffer_register: addr is NULL", NULL);
    EXPECT_RC(shmemx_buffer_register(local, 0), SHMEMX_ERROR_INVALID_VALUE,
              "shmemx_buffer_register: length is 0", NULL);
    EXPECT_RC(shmemx_buffer_register(blk, 64), SHMEMX_ERROR_INVALID_VALUE,
              "shmemx_buffer_register: addr", "overlaps the symmetric heap");
    EXPECT_RC(shmemx_buffer_unregister(local), SHMEMX_ERROR_INVALID_VALUE,
              "shmemx_buffer_unregister: addr", "is not the address of a registered buffer");
    EXPECT_NULL(shmemx_buffer_register_symmetric(buf, len, 0x40), SHMEMX_ERROR_INVALID_VALUE,
                "shmemx_buffer_register_symmetric: flags 64", "SHMEMX_BUFFER_LOAD_STORE");
    if (test_npes > 1) {
        EXPECT_NULL(shmemx_buffer_register_symmetric(test_me == 0 ? NULL : buf, len, 0),
                    test_me == 0 ? SHMEMX_ERROR_INVALID_VALUE : SHMEMX_ERROR_SYMMETRY,
                    test_me == 0 ? "shmemx_buffer_register_symmetric: addr is NULL"
                                 : "shmemx_buffer_register_symmetric: PE 0 could not register",
                    NULL);
        EXPECT_NULL(shmemx_buffer_register_symmetric(buf, test_me == 0 ? len / 2 : len, 0),
                    SHMEMX_ERROR_SYMMETRY, "shmemx_buffer_register_symmetric: PE",
                    "every PE must pass the same length");
    }
    EXPECT_RC(shmemx_buffer_load_store(buf), SHMEMX_ERROR_INVALID_VALUE,
              "shmemx_buffer_load_store: addr", "is not inside a buffer registered");
    EXPECT_RC(shmemx_buffer_unregister_symmetric(buf, len), SHMEMX_ERROR_INVALID_VALUE,
              "shmemx_buffer_unregister_symmetric: addr", "is not a buffer registered");
    quiet_end("the registrations' refusals");
    /* Nothing was registered: the same buffer registers now and carries
     * puts. */
    sym = shmemx_buffer_register_symmetric(buf, len, 0);
    TEST_ASSERT(sym == buf, "shmemx_buffer_register_symmetric after the refusals failed");
    check_symmetric("a symmetric buffer registered after the refusals", sym, len / sizeof(long));
    TEST_ASSERT(shmemx_buffer_unregister_symmetric(buf, len) == SHMEMX_SUCCESS,
                "shmemx_buffer_unregister_symmetric failed");
    shmem_free(blk);
    free(buf);
}

int main(void)
{
    setenv("FABSHMEM_CHECKS", "1", 0);
    test_init("mem_fail");
    heap_full();
    TEST_ASSERT(shmemx_set_error_mode(SHMEMX_ERRORS_RETURN) == SHMEMX_ERRORS_ABORT,
                "the error mode was not SHMEMX_ERRORS_ABORT");
    alloc_returns();
    registration_returns();
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    heap_works("SHMEMX_ERRORS_RETURN mode");
    return test_finish();
}
