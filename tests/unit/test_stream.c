/*
 * Unit tests of a stream's queue, checks and executor below the PE level:
 * PE 0 of a 2-PE job whose peer is not mapped, over a mock transport (an
 * ops table that records every operation and delivers puts and gets into
 * an in-memory copy of PE 1's heap).  The stream is made by hand with a
 * kind that runs nothing by itself: the test takes the queued items,
 * hands them to the executor (shmemi_stream_run) and retires them, so no
 * thread is involved.
 *
 *  - refused work: the core's checks refuse a PE out of range, a
 *    non-symmetric dest, an overflowing count and an overflowing stride;
 *    the refusal becomes the stream's error (the first, the others
 *    counted), the caller's record is cleared, nothing is queued;
 *  - the executor: puts stream out non-blocking and one quiet completes
 *    them before the next item that is not a put (a get, a kernel) and at
 *    the end of the batch; p carries its value in the item; the data
 *    lands in the peer's heap and a get reads it back;
 *  - a put the transport fails becomes the stream's error
 *    (SHMEMX_ERROR_TRANSPORT, naming the on-stream routine), and the
 *    stream goes on.
 */
#include "stream/stream_int.h"
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#define HEAP (64 * 1024)

enum { OP_PUT, OP_PUT_NBI, OP_GET, OP_QUIET, OP_KERNEL };

static int ops[256], nops;
static char *heap0, *heap1;
static char *peer_none[2];
static int fail_puts;

static void record(int op)
{
    assert_true(nops < (int)(sizeof(ops) / sizeof(ops[0])));
    ops[nops++] = op;
}

/* ---- the mock transport: PE 1's heap is heap1 ---- */

static int m_put(shmemt_t *t, int pe, int seg, uint64_t off, const void *src, size_t len)
{
    assert_int_equal(pe, 1);
    assert_int_equal(seg, SHMEMT_SEG_HEAP);
    assert_true(off + len <= HEAP);
    if (fail_puts)
        return -EIO;
    memcpy(heap1 + off, src, len);
    record(OP_PUT);
    return 0;
}

static int m_put_nbi(shmemt_t *t, int pe, int seg, uint64_t off, const void *src, size_t len)
{
    int ret = m_put(t, pe, seg, off, src, len);

    if (!ret)
        ops[nops - 1] = OP_PUT_NBI;
    return ret;
}

static int m_get(shmemt_t *t, int pe, int seg, uint64_t off, void *dst, size_t len)
{
    assert_int_equal(pe, 1);
    memcpy(dst, heap1 + off, len);
    record(OP_GET);
    return 0;
}

static int m_quiet(shmemt_t *t)
{
    record(OP_QUIET);
    return 0;
}

static int m_zero(shmemt_t *t) { return 0; }

static const shmemt_ops_t mock_ops = {
    .put = m_put, .put_nbi = m_put_nbi, .get = m_get, .get_nbi = m_get, .quiet = m_quiet,
    .fence = m_zero, .progress = m_zero,
};
static shmemt_t mock = { .ops = &mock_ops, .prov_name = "mock",
                         .caps = SHMEMT_CAP_RMA | SHMEMT_CAP_THREADS };

/* ---- the stream, run by the test ---- */

static void k_wake(struct shmemx_stream *s) {}
static const struct shmemi_stream_kind manual = { .name = "manual", .wake = k_wake };
static struct shmemx_stream st;

/* Runs everything queued, as a worker would. */
static void run_queue(void)
{
    shmemi_work_t w[64];
    size_t n;

    pthread_mutex_lock(&st.lock);
    n = shmemi_stream_take(&st, w, 64);
    pthread_mutex_unlock(&st.lock);
    shmemi_stream_run(&st, w, n);
    pthread_mutex_lock(&st.lock);
    shmemi_stream_retire(&st, n);
    pthread_mutex_unlock(&st.lock);
}

static void forget_error(void)
{
    st.error[0] = '\0';
    st.error_code = 0;
    st.errors_after = 0;
}

static int setup(void **state)
{
    char *no_env[] = { NULL };

    if (shmemi_env_parse(no_env, &shmemi_g.env))
        return -1;
    heap0 = aligned_alloc(4096, HEAP);
    heap1 = aligned_alloc(4096, HEAP);
    if (!heap0 || !heap1)
        return -1;
    memset(heap0, 0, HEAP);
    memset(heap1, 0, HEAP);
    shmemi_g.my_pe = 0;
    shmemi_g.n_pes = 2;
    shmemi_g.heap_base = heap0;
    shmemi_g.heap_size = HEAP;
    shmemi_g.peer_heap = peer_none;
    shmemi_g.tp = &mock;
    shmemi_g.env.progress_thread = 1;
    atomic_store(&shmemi_g.state, SHMEMI_STATE_INITIALIZED);
    pthread_mutex_init(&st.lock, NULL);
    pthread_cond_init(&st.done, NULL);
    st.kind = &manual;
    st.ctx = SHMEM_CTX_DEFAULT;
    st.cap = 4; /* grows */
    st.ring = malloc(st.cap * sizeof(*st.ring));
    st.wake_at = UINT64_MAX;
    st.magic = SHMEMI_STREAM_MAGIC;
    return st.ring ? 0 : -1;
}

static int teardown(void **state)
{
    free(st.ring);
    free(heap0);
    free(heap1);
    shmemi_g.tp = NULL;
    return 0;
}

/* ---- the tests ---- */

static void test_refusals(void **state)
{
    long src[4] = { 1, 2, 3, 4 }, *dest = (long *)heap0;
    const char *rtn = "shmemx_long_put_on_stream";

    forget_error();
    assert_int_equal(shmemi_stream_rma(&st, 1, dest, src, 1, sizeof(long), 5, rtn),
                     SHMEMX_ERROR_INVALID_VALUE);
    assert_int_equal(shmemi_err_last()->code, SHMEMX_SUCCESS);
    assert_non_null(strstr(st.error, "shmemx_long_put_on_stream: pe 5 is out of range"));
    assert_int_equal(shmemi_stream_rma(&st, 1, src, src, 1, sizeof(long), 1, rtn),
                     SHMEMX_ERROR_INVALID_VALUE);
    assert_int_equal(shmemi_stream_rma(&st, 1, dest, src, SIZE_MAX / 4, sizeof(long), 1, rtn),
                     SHMEMX_ERROR_INVALID_VALUE);
    assert_int_equal(shmemi_stream_strided(&st, 1, dest, src, PTRDIFF_MAX / 2, 1, 3,
                                           sizeof(long), 1, "shmemx_long_iput_on_stream"),
                     SHMEMX_ERROR_INVALID_VALUE);
    assert_int_equal(shmemi_err_last()->code, SHMEMX_SUCCESS);
    assert_int_equal(st.errors_after, 3);
    assert_int_equal(st.error_code, SHMEMX_ERROR_INVALID_VALUE);
    assert_int_equal(st.count, 0);
    /* A handle that is not a stream is the caller's error. */
    assert_int_equal(shmemi_stream_rma((shmemx_stream_t)src, 1, dest, src, 1, 8, 1, rtn),
                     SHMEMX_ERROR_INVALID_VALUE);
    assert_non_null(strstr(shmemi_err_last()->msg, "is not a stream"));
    shmemi_err_clear();
    forget_error();
}

static int kernel_saw;
static void kernel(void *arg)
{
    kernel_saw = nops;
    record(OP_KERNEL);
}

static void test_executor_order(void **state)
{
    long src[3] = { 11, 12, 13 }, got = 0, *dest = (long *)heap0 + 16;
    const char *rtn = "shmemx_long_put_on_stream";
    int want[] = { OP_PUT_NBI, OP_PUT_NBI, OP_PUT_NBI, OP_QUIET, OP_GET, OP_KERNEL, OP_PUT_NBI,
                   OP_QUIET };
    long v = 99;

    nops = 0;
    for (int i = 0; i < 3; i++)
        assert_int_equal(shmemi_stream_rma(&st, 1, dest + i, &src[i], 1, sizeof(long), 1, rtn),
                         0);
    assert_int_equal(shmemi_stream_rma(&st, 0, &got, dest + 1, 1, sizeof(long), 1,
                                       "shmemx_long_get_on_stream"), 0);
    assert_int_equal(shmemi_stream_launch(&st, kernel, NULL, "shmemx_launch_on_stream"), 0);
    assert_int_equal(shmemi_stream_p(&st, dest + 3, &v, sizeof(long), 1,
                                     "shmemx_long_p_on_stream"), 0);
    assert_int_equal(st.count, 6); /* the ring grew from 4 */
    v = -1; /* p copied its value */
    run_queue();
    assert_int_equal(st.count, 0);
    assert_int_equal(st.executed, st.enqueued);
    assert_int_equal(nops, (int)(sizeof(want) / sizeof(want[0])));
    for (int i = 0; i < nops; i++)
        assert_int_equal(ops[i], want[i]);
    assert_int_equal(kernel_saw, 5);
    for (int i = 0; i < 3; i++)
        assert_int_equal(((long *)heap1)[16 + i], src[i]);
    assert_int_equal(((long *)heap1)[19], 99);
    assert_int_equal(got, 12);
    assert_int_equal(st.error[0], '\0');
}

static void test_transport_failure(void **state)
{
    long src = 5, *dest = (long *)heap0 + 32;

    forget_error();
    fail_puts = 1;
    assert_int_equal(shmemi_stream_rma(&st, 1, dest, &src, 1, sizeof(long), 1,
                                       "shmemx_long_put_on_stream"), 0);
    run_queue();
    fail_puts = 0;
    assert_int_equal(st.error_code, SHMEMX_ERROR_TRANSPORT);
    assert_non_null(strstr(st.error, "shmemx_long_put_on_stream: put of 8 bytes to PE 1"));
    assert_int_equal(shmemi_err_last()->code, SHMEMX_SUCCESS);
    /* The stream goes on. */
    forget_error();
    assert_int_equal(shmemi_stream_rma(&st, 1, dest, &src, 1, sizeof(long), 1,
                                       "shmemx_long_put_on_stream"), 0);
    run_queue();
    assert_int_equal(st.error[0], '\0');
    assert_int_equal(((long *)heap1)[32], 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_executor_order),
        cmocka_unit_test(test_transport_failure),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
