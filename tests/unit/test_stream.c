/*
 * Unit tests of a stream's queue, checks and executor below the PE level:
 * PE 0 of a 2-PE job whose peer is not mapped, over the mock transport of
 * tests/unit/mock_tp.c (it records every operation and delivers puts and
 * gets into an in-memory copy of PE 1's heap).  The stream is made by hand with a
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
#include "tests/unit/mock_tp.h"
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#define HEAP (64 * 1024)

static char *heap0, *heap1;

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
    if (mock_job(2, HEAP))
        return -1;
    heap0 = mock_heap[0];
    heap1 = mock_heap[1];
    mock_tp.caps = SHMEMT_CAP_RMA | SHMEMT_CAP_THREADS;
    shmemi_g.env.progress_thread = 1;
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
    mock_job_end();
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

static int kernel_saw = -1;
static void kernel(void *arg)
{
    kernel_saw = mock_nrec; /* the transport's calls before it */
}

static void test_executor_order(void **state)
{
    long src[3] = { 11, 12, 13 }, got = 0, *dest = (long *)heap0 + 16;
    const char *rtn = "shmemx_long_put_on_stream";
    int want[] = { MOCK_PUT_NBI, MOCK_PUT_NBI, MOCK_PUT_NBI, MOCK_QUIET, MOCK_GET, MOCK_PUT_NBI,
                   MOCK_QUIET };
    long v = 99;

    mock_reset();
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
    assert_int_equal(mock_nrec, (int)(sizeof(want) / sizeof(want[0])));
    for (int i = 0; i < mock_nrec; i++) {
        assert_int_equal(mock_recs[i].op, want[i]);
        assert_int_equal(mock_recs[i].rc, 0);
        if (mock_recs[i].op != MOCK_QUIET) {
            assert_int_equal(mock_recs[i].pe, 1);
            assert_int_equal(mock_recs[i].len, sizeof(long));
        }
    }
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
    mock_reset();
    mock_fail[MOCK_PUT] = mock_fail[MOCK_PUT_NBI] = -EIO;
    assert_int_equal(shmemi_stream_rma(&st, 1, dest, &src, 1, sizeof(long), 1,
                                       "shmemx_long_put_on_stream"), 0);
    run_queue();
    mock_reset();
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
