/*
 * mem_hints: shmem_malloc_with_hints with hints the library cannot use
 * behaves as shmem_malloc (OpenSHMEM 1.6), checked on every PE (issue 31).
 *
 * Without a device heap (no GPU, a build without CUDA, a program that did
 * not load CUDA: the test's case) every hint word gives a block of the
 * host heap: SHMEMX_MALLOC_DEVICE alone, ~SHMEM_MALLOC_ATOMICS_REMOTE and
 * ~0L (every bit, the device's among them, as tests-sos passes), bits that
 * no hint defines, and the defined hints.  Each block is non-NULL with no
 * error recorded, at the same offset from a block of shmem_malloc made
 * just before it on every PE, reachable by every PE (shmem_addr_accessible),
 * and carries data: a put of N longs to the next PE and a get of them back
 * from there, an atomic add from the previous PE and one from the PE
 * itself, all checked by value; a shmem_realloc keeps its contents.
 * stderr stays empty unless SHMEM_DEBUG is set.  The allocations run in
 * SHMEMX_ERRORS_RETURN mode, so that a refusal is reported with its
 * message rather than ending the job.  With a device heap the words with
 * SHMEMX_MALLOC_DEVICE are GPU memory (tests/gpu/gpu_heap), so only the
 * others run here.
 */
#include "common_x.h"

#define N 256

static long words[] = {
    SHMEMX_MALLOC_DEVICE,
    ~SHMEM_MALLOC_ATOMICS_REMOTE,
    ~0L,
    SHMEMX_MALLOC_DEVICE | SHMEM_MALLOC_SIGNAL_REMOTE,
    1L << 20,                                         /* a bit no hint defines */
    (1L << 40) | SHMEM_MALLOC_ATOMICS_REMOTE,
    SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE,
    0,
};
enum { NW = sizeof(words) / sizeof(words[0]) };

/* The data checks of one block p of N + 1 longs (word w). */
static void check_block(long *p, long w, int salt)
{
    int next = (test_me + 1) % test_npes, prev = (test_me + test_npes - 1) % test_npes, pe;
    long src[N], got[N];
    size_t i;

    for (pe = 0; pe < test_npes; pe++)
        TEST_ASSERT(shmem_addr_accessible(p, pe), "hints 0x%lx: block not accessible on PE %d",
                    (unsigned long)w, pe);
    for (i = 0; i < N; i++)
        src[i] = test_val(test_me, i, salt);
    p[N] = 0;
    shmem_barrier_all();
    shmem_long_put(p, src, N, next);
    shmem_long_atomic_add(&p[N], test_me + 1, (test_me + 1) % test_npes);
    shmem_long_atomic_add(&p[N], 1000, test_me);
    shmem_barrier_all();
    for (i = 0; i < N; i++)
        TEST_CHECK("put into the block from the previous PE", i, test_val(prev, i, salt), p[i]);
    TEST_CHECK("atomic adds on the block", N, prev + 1 + 1000, p[N]);
    shmem_long_get(got, p, N, next);
    for (i = 0; i < N; i++)
        TEST_CHECK("get of the next PE's block (what this PE put)", i, test_val(test_me, i, salt),
                   got[i]);
    shmem_barrier_all();
}

int main(void)
{
    long *ref, *p[NW], off[NW], theirs[NW], *offs;
    int i, skipped = 0, dev;
    char *text, msg[512];

    test_init("mem_hints");
    dev = shmemx_cuda_device();
    offs = shmem_malloc(sizeof(off));
    TEST_ASSERT(offs != NULL, "shmem_malloc");
    shmemx_error_clear();

    /* Returning errors (SHMEMX_ERRORS_RETURN) rather than ending the job,
     * so that a refusal is reported below with its message. */
    shmemx_set_error_mode(SHMEMX_ERRORS_RETURN);
    test_stderr_capture();
    for (i = 0; i < NW; i++) {
        p[i] = NULL;
        if (dev >= 0 && (words[i] & SHMEMX_MALLOC_DEVICE))
            continue;
        ref = shmem_malloc(8);
        p[i] = shmem_malloc_with_hints((N + 1) * sizeof(long), words[i]);
        off[i] = ref && p[i] ? (long)((char *)p[i] - (char *)ref) : -1;
        shmem_free(ref);
    }
    text = test_stderr_release();
    shmemx_set_error_mode(SHMEMX_ERRORS_ABORT);
    msg[0] = '\0';
    int code = shmemx_error_get(msg, sizeof(msg));

    if (test_debug_on())
        fputs(text, stderr);
    else
        TEST_ASSERT(text[0] == '\0', "shmem_malloc_with_hints printed on stderr: %.600s", text);
    free(text);
    TEST_ASSERT(code == SHMEMX_SUCCESS, "an allocation failed: code %d: %s", code, msg);
    for (i = 0; i < NW; i++) {
        if (dev >= 0 && (words[i] & SHMEMX_MALLOC_DEVICE)) {
            skipped++;
            continue;
        }
        TEST_ASSERT(p[i] != NULL, "shmem_malloc_with_hints(%zu, 0x%lx) returned NULL",
                    (N + 1) * sizeof(long), (unsigned long)words[i]);
    }
    /* Symmetric: the offset from the block before it is PE 0's. */
    memcpy(offs, off, sizeof(off));
    shmem_barrier_all();
    shmem_getmem(theirs, offs, sizeof(theirs), 0);
    for (i = 0; i < NW; i++)
        TEST_CHECK("offset of the block from shmem_malloc's before it (PE 0's)", i, theirs[i],
                   off[i]);
    for (i = 0; i < NW; i++)
        if (p[i])
            check_block(p[i], words[i], i + 1);
    /* realloc keeps the contents (what the previous PE put). */
    int prev = (test_me + test_npes - 1) % test_npes;
    for (i = 0; i < NW; i++) {
        long *q;
        size_t k;

        if (!p[i])
            continue;
        q = shmem_realloc(p[i], 4 * N * sizeof(long));
        TEST_ASSERT(q != NULL, "shmem_realloc of the block of hints 0x%lx",
                    (unsigned long)words[i]);
        for (k = 0; k < N; k++)
            TEST_CHECK("contents after shmem_realloc", k, test_val(prev, k, i + 1), q[k]);
        shmem_free(q);
    }
    shmem_free(offs);
    test_note("%d hint words gave host blocks that work%s", NW - skipped,
              skipped ? " (the device heap took the words with SHMEMX_MALLOC_DEVICE)" : "");
    return test_finish();
}
