/*
 * Unit tests of the core's slow paths over the mock transport of
 * tests/unit/mock_tp.c: PE 0 of a 2-PE job, with PE 1's heap mapped (the
 * direct path on) or not (off), so that each test checks what the core
 * handed to the transport (op, PE, segment, offset, length, operand) and
 * the values that landed.
 *
 *  - RMA: with the direct path on, a put and a get to PE 1 are copies and
 *    the transport sees nothing; off, they are one transport put (put_nbi
 *    for nbi) and get at the heap offset, the context is marked dirty, and
 *    the next quiet quiets the transport once (a second one, with nothing
 *    outstanding, does not); a put to self is a copy; a strided get is one
 *    get_nbi a block and one quiet;
 *  - AMOs: with heap atomics on the CPU and PE 1 mapped no call; off, the
 *    fetch-add goes to the transport (to self too: the atomicity rule) and
 *    returns the old value; a provider without atomics is refused, naming
 *    it;
 *  - AMOs and signals on GPU memory of the device heap (a host buffer in
 *    its place, no GPU): never the transport; this PE's and a mapped
 *    peer's words go to the GPU (the CUDA layer's refusal, naming the
 *    routine and the reason), an unmapped peer's to its staging thread;
 *    misaligned words, PEs out of range and SHMEM_CTX_INVALID refused
 *    naming the routine; signal_op, put_signal and signal_fetch on a
 *    device word go to the GPU, without provider atomics too;
 *  - put with signal, direct path off: one transport put_signal where the
 *    transport's AMOs are CPU atomics; where it answers -ENOTSUP, a put, a
 *    fence and an atomic; without atomics a SET is a put, a fence and an
 *    8-byte put, an ADD is refused before anything moves; a failed fence
 *    is the routine's error;
 *  - a transport that fails: the put, get and atomic return the class of
 *    the errno (EIO: SHMEMX_ERROR_TRANSPORT, ENOMEM: OUT_OF_MEMORY) with a
 *    message naming the routine, the operation and the PE;
 *  - shmemi_quiet_all: it quiets the default context and every live one,
 *    each of them even after one failed, and returns the failure marked as
 *    ending the job in SHMEMX_ERRORS_ABORT mode;
 *  - unregistering a buffer whose quiet fails: in SHMEMX_ERRORS_RETURN
 *    mode shmemx_buffer_unregister returns SHMEMX_ERROR_TRANSPORT and
 *    shmemx_buffer_unregister_all returns with it in shmemx_error_get, the
 *    buffer still registered (no buf_dereg) until a quiet succeeds; in
 *    SHMEMX_ERRORS_ABORT mode (a child process) the job ends with
 *    SHMEMI_EXIT_FATAL as before.
 */
#include "core/amo.h"
#include "core/rma.h"
#include "core/dev.h"
#include "core/signal.h"
#include "core/sync.h"
#include "mem/mem.h"
#include "tests/unit/mock_tp.h"
#include <shmemx.h>
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#define HEAP (64 * 1024)

static char *heap0, *heap1;
static char *peer_map[2], *peer_none[2];

static int setup(void **state)
{
    if (mock_job(2, HEAP))
        return -1;
    heap0 = mock_heap[0];
    heap1 = mock_heap[1];
    peer_map[0] = heap0;
    peer_map[1] = heap1;
    shmemi_g.env.progress_thread = 1; /* an empty quiet does not poll */
    return 0;
}

static int teardown(void **state)
{
    mock_job_end();
    return 0;
}

/* Before each test: the direct path on (direct) or off, nothing recorded,
 * nothing outstanding, the default error mode. */
static void start(int direct)
{
    shmemi_g.peer_heap = direct ? peer_map : peer_none;
    shmemi_amo_cpu = direct;
    mock_tp.caps = SHMEMT_CAP_RMA | SHMEMT_CAP_ATOMIC | SHMEMT_CAP_THREADS;
    mock_reset();
    atomic_store(&shmemi_g.tp_dirty, 0);
    shmemi_err_clear();
    shmemi_err_mode_set(SHMEMX_ERRORS_ABORT);
}

static void expect_rec(int i, int op, int pe, uint64_t off, uint64_t len)
{
    assert_true(i < mock_nrec);
    assert_int_equal(mock_recs[i].op, op);
    assert_int_equal(mock_recs[i].pe, pe);
    assert_int_equal(mock_recs[i].seg, SHMEMT_SEG_HEAP);
    assert_int_equal(mock_recs[i].off, off);
    assert_int_equal(mock_recs[i].len, len);
}

static void test_rma_direct(void **state)
{
    long src[2] = { 7, 8 }, got[2] = { 0, 0 }, *dest = (long *)heap0 + 10;

    start(1);
    assert_int_equal(shmemi_put_w(SHMEM_CTX_DEFAULT, dest, src, sizeof(src), 1, 0, "t"), 0);
    assert_int_equal(((long *)heap1)[10], 7);
    assert_int_equal(((long *)heap1)[11], 8);
    assert_int_equal(shmemi_get_w(SHMEM_CTX_DEFAULT, got, dest, sizeof(got), 1, 0, "t"), 0);
    assert_int_equal(got[1], 8);
    assert_int_equal(mock_nrec, 0);
    assert_int_equal(atomic_load(&shmemi_g.tp_dirty), 0);
}

static void test_rma_slow(void **state)
{
    long src[2] = { 21, 22 }, got[2] = { 0, 0 }, v = 5, *dest = (long *)heap0 + 20;
    uint64_t off = 20 * sizeof(long);

    start(0);
    assert_int_equal(shmemi_put_w(SHMEM_CTX_DEFAULT, dest, src, sizeof(src), 1, 0, "t"), 0);
    expect_rec(0, MOCK_PUT, 1, off, sizeof(src));
    assert_int_equal(((long *)heap1)[21], 22);
    assert_int_not_equal(atomic_load(&shmemi_g.tp_dirty), 0);
    assert_int_equal(shmemi_put_w(SHMEM_CTX_DEFAULT, dest + 2, &v, sizeof(v), 1, 1, "t"), 0);
    expect_rec(1, MOCK_PUT_NBI, 1, off + 2 * sizeof(long), sizeof(long));
    assert_int_equal(shmemi_get_w(SHMEM_CTX_DEFAULT, got, dest, sizeof(got), 1, 0, "t"), 0);
    expect_rec(2, MOCK_GET, 1, off, sizeof(got));
    assert_int_equal(got[0], 21);
    /* To self: a copy, whatever the direct path. */
    assert_int_equal(shmemi_put_w(SHMEM_CTX_DEFAULT, dest, &v, sizeof(v), 0, 0, "t"), 0);
    assert_int_equal(*dest, 5);
    assert_int_equal(mock_nrec, 3);
    /* One transport quiet for what is outstanding, none for nothing. */
    assert_int_equal(shmemi_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet"), 0);
    assert_int_equal(mock_count(MOCK_QUIET), 1);
    assert_int_equal(atomic_load(&shmemi_g.tp_dirty), 0);
    assert_int_equal(shmemi_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet"), 0);
    assert_int_equal(mock_count(MOCK_QUIET), 1);
}

static void test_strided_get_slow(void **state)
{
    long *src = (long *)heap0 + 40, dest[3] = { 0, 0, 0 };

    start(0);
    for (int i = 0; i < 6; i++)
        ((long *)heap1)[40 + i] = 100 + i;
    /* Blocks of one element, every other one of the source. */
    assert_int_equal(shmemi_iget(SHMEM_CTX_DEFAULT, dest, src, 1, 2, 1, 3, sizeof(long), 1,
                                 "shmem_long_iget"), 0);
    assert_int_equal(mock_nrec, 4);
    for (int i = 0; i < 3; i++) {
        expect_rec(i, MOCK_GET_NBI, 1, (40 + 2 * (uint64_t)i) * sizeof(long), sizeof(long));
        assert_int_equal(dest[i], 100 + 2 * i);
    }
    assert_int_equal(mock_recs[3].op, MOCK_QUIET);
}

static void test_amo(void **state)
{
    long *w = (long *)heap0 + 60, one = 1, old = -1;

    /* Direct: a CPU atomic on the mapped word. */
    start(1);
    ((long *)heap1)[60] = 41;
    assert_int_equal(shmemi_amo_w(SHMEM_CTX_DEFAULT, w, SHMEMT_AOP_ADD, &one, NULL, &old,
                                  sizeof(long), 1, 0, "shmem_long_atomic_fetch_add"), 0);
    assert_int_equal(old, 41);
    assert_int_equal(((long *)heap1)[60], 42);
    assert_int_equal(mock_nrec, 0);
    /* Off: the transport, to self too. */
    start(0);
    *w = 10;
    for (int pe = 1; pe >= 0; pe--) {
        assert_int_equal(shmemi_amo_w(SHMEM_CTX_DEFAULT, w, SHMEMT_AOP_ADD, &one, NULL, &old,
                                      sizeof(long), pe, 0, "shmem_long_atomic_fetch_add"), 0);
        assert_int_equal(old, pe ? 42 : 10);
        expect_rec(1 - pe, MOCK_ATOMIC, pe, 60 * sizeof(long), sizeof(long));
        assert_int_equal(mock_recs[1 - pe].aop, SHMEMT_AOP_ADD);
        assert_int_equal(mock_recs[1 - pe].value, 1);
    }
    assert_int_equal(((long *)heap1)[60], 43);
    assert_int_equal(*w, 11);
    /* A provider without atomics. */
    mock_tp.caps &= ~SHMEMT_CAP_ATOMIC;
    assert_int_equal(shmemi_amo_w(SHMEM_CTX_DEFAULT, w, SHMEMT_AOP_ADD, &one, NULL, NULL,
                                  sizeof(long), 1, 0, "shmem_long_atomic_add"),
                     SHMEMX_ERROR_NOT_SUPPORTED);
    assert_non_null(strstr(shmemi_err_last()->msg,
                           "shmem_long_atomic_add: the provider mock has no atomics"));
    assert_int_equal(mock_nrec, 2);
}

/* AMOs and signals on GPU memory of the device heap (a host buffer stands
 * for it; no GPU, so the CUDA layer refuses with its reason): this PE's
 * word and a mapped peer's go to the GPU's kernel, an unmapped peer's to
 * its staging thread (none here: the internal refusal naming staging),
 * never to the transport, with or without provider atomics; bad words,
 * PEs and contexts are refused naming the routine. */
static void test_amo_gpu_words(void **state)
{
    static char dev0[4096] __attribute__((aligned(256))), dev1[4096] __attribute__((aligned(256)));
    char *mapped[2] = { dev0, dev1 }, *unmapped[2] = { dev0, NULL };
    uint64_t *w = (uint64_t *)(void *)(dev0 + 64), one = 1, old = 0;
    const char *why = "no GPU in this unit test";
    int pe;

    start(0);
    shmemi_g.dheap_base = dev0;
    shmemi_g.dheap_size = sizeof(dev0);
    shmemi_g.peer_dheap = mapped;
    shmemi_cuda.on = 0;
    snprintf(shmemi_cuda.why, sizeof(shmemi_cuda.why), "%s", why);
    for (pe = 0; pe < 2; pe++) {
        assert_int_equal(shmemi_amo_w(SHMEM_CTX_DEFAULT, w, SHMEMT_AOP_ADD, &one, NULL, &old,
                                      sizeof(*w), pe, 0, "shmem_uint64_atomic_fetch_add"),
                         SHMEMX_ERROR_NOT_SUPPORTED);
        assert_non_null(strstr(shmemi_err_last()->msg, "shmem_uint64_atomic_fetch_add"));
        assert_non_null(strstr(shmemi_err_last()->msg, why));
        shmemi_err_clear();
    }
    /* The 4-byte and float forms take the same path. */
    assert_int_equal(shmemi_amo_w(SHMEM_CTX_DEFAULT, (char *)w + 4, SHMEMT_AOP_SWAP, &one, NULL,
                                  &old, 4, 1, 0, "shmem_float_atomic_swap"),
                     SHMEMX_ERROR_NOT_SUPPORTED);
    assert_non_null(strstr(shmemi_err_last()->msg, why));
    /* Refusals. */
    assert_int_equal(shmemi_amo_w(SHMEM_CTX_DEFAULT, (char *)w + 4, SHMEMT_AOP_ADD, &one, NULL,
                                  NULL, sizeof(*w), 1, 0, "shmem_uint64_atomic_add"),
                     SHMEMX_ERROR_INVALID_VALUE);
    assert_non_null(strstr(shmemi_err_last()->msg,
                           "shmem_uint64_atomic_add: dest 0x"));
    assert_non_null(strstr(shmemi_err_last()->msg, "is not aligned to 8 bytes"));
    assert_int_equal(shmemi_amo_w(SHMEM_CTX_DEFAULT, w, SHMEMT_AOP_FETCH, NULL, NULL, &old,
                                  sizeof(*w), 2, 0, "shmem_uint64_atomic_fetch"),
                     SHMEMX_ERROR_INVALID_VALUE);
    assert_non_null(strstr(shmemi_err_last()->msg, "shmem_uint64_atomic_fetch: pe 2 is out of "
                           "range"));
    assert_int_equal(shmemi_amo_w(SHMEM_CTX_INVALID, w, SHMEMT_AOP_ADD, &one, NULL, NULL,
                                  sizeof(*w), 1, 0, "shmem_ctx_uint64_atomic_add"),
                     SHMEMX_ERROR_INVALID_VALUE);
    assert_non_null(strstr(shmemi_err_last()->msg, "SHMEM_CTX_INVALID"));
    /* An unmapped peer: its staging thread. */
    shmemi_g.peer_dheap = unmapped;
    assert_int_equal(shmemi_amo_w(SHMEM_CTX_DEFAULT, w, SHMEMT_AOP_ADD, &one, NULL, &old,
                                  sizeof(*w), 1, 0, "shmem_uint64_atomic_fetch_add"),
                     SHMEMX_ERROR_INTERNAL);
    assert_non_null(strstr(shmemi_err_last()->msg, "shmem_uint64_atomic_fetch_add: internal: no "
                           "staging service"));
    /* Signals: a device word is taken (ADD without provider atomics too)
     * and updated by the GPU; shmem_signal_fetch loads it with the GPU. */
    shmemi_g.peer_dheap = mapped;
    mock_tp.caps &= ~SHMEMT_CAP_ATOMIC;
    assert_int_equal(shmemi_signal_op(SHMEM_CTX_DEFAULT, w, 1, SHMEM_SIGNAL_ADD, 1,
                                      "shmem_signal_add"), SHMEMX_ERROR_NOT_SUPPORTED);
    assert_non_null(strstr(shmemi_err_last()->msg, why));
    assert_int_equal(shmemi_put_signal(SHMEM_CTX_DEFAULT, NULL, NULL, 0, 1, w, 1, SHMEM_SIGNAL_SET,
                                       1, 0, "shmem_putmem_signal"), SHMEMX_ERROR_NOT_SUPPORTED);
    assert_non_null(strstr(shmemi_err_last()->msg, why));
    assert_int_equal(shmemi_signal_fetch(w, &old, "shmem_signal_fetch"),
                     SHMEMX_ERROR_NOT_SUPPORTED);
    assert_non_null(strstr(shmemi_err_last()->msg, "shmem_signal_fetch"));
    assert_int_equal(shmemi_signal_op(SHMEM_CTX_DEFAULT, (uint64_t *)(void *)(dev0 + 4), 1,
                                      SHMEM_SIGNAL_SET, 1, "shmem_signal_set"),
                     SHMEMX_ERROR_INVALID_VALUE);
    assert_non_null(strstr(shmemi_err_last()->msg, "shmem_signal_set: sig_addr 0x"));
    assert_non_null(strstr(shmemi_err_last()->msg, "is not an aligned 8-byte word"));
    assert_int_equal(mock_nrec, 0);
    shmemi_g.dheap_base = NULL;
    shmemi_g.dheap_size = 0;
    shmemi_g.peer_dheap = NULL;
}

/* The op of each record, in order. */
static void expect_ops(const int *ops, int n)
{
    assert_int_equal(mock_nrec, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(mock_recs[i].op, ops[i]);
}

static void test_put_signal_slow(void **state)
{
    long src[2] = { 31, 32 }, *dest = (long *)heap0 + 140;
    uint64_t *sig = (uint64_t *)heap0 + 150, *sig1 = (uint64_t *)heap1 + 150;
    const char *rtn = "shmem_long_put_signal";
    const int fallback[] = { MOCK_PUT_SIGNAL, MOCK_PUT, MOCK_FENCE, MOCK_ATOMIC };
    const int no_atomics[] = { MOCK_PUT, MOCK_FENCE, MOCK_PUT };

    /* One operation where the transport's AMOs are CPU atomics. */
    start(0);
    mock_tp.caps |= SHMEMT_CAP_AMO_CPU;
    *sig1 = 5;
    assert_int_equal(shmemi_put_signal(SHMEM_CTX_DEFAULT, dest, src, 2, sizeof(long), sig, 2,
                                       SHMEM_SIGNAL_ADD, 1, 0, rtn), 0);
    assert_int_equal(mock_nrec, 1);
    expect_rec(0, MOCK_PUT_SIGNAL, 1, 140 * sizeof(long), sizeof(src));
    assert_int_equal(mock_recs[0].sig_off, 150 * sizeof(uint64_t));
    assert_int_equal(mock_recs[0].value, 2);
    assert_int_equal(mock_recs[0].aop, SHMEMT_AOP_ADD);
    assert_int_equal(((long *)heap1)[141], 32);
    assert_int_equal(*sig1, 7);
    assert_int_not_equal(atomic_load(&shmemi_g.tp_dirty), 0);
    /* The transport cannot: a put, a fence and the atomic. */
    mock_reset();
    mock_fail[MOCK_PUT_SIGNAL] = -ENOTSUP;
    src[0] = 41;
    assert_int_equal(shmemi_put_signal(SHMEM_CTX_DEFAULT, dest, src, 2, sizeof(long), sig, 9,
                                       SHMEM_SIGNAL_SET, 1, 0, rtn), 0);
    expect_ops(fallback, 4);
    expect_rec(1, MOCK_PUT, 1, 140 * sizeof(long), sizeof(src));
    assert_int_equal(mock_recs[3].aop, SHMEMT_AOP_SET);
    assert_int_equal(((long *)heap1)[140], 41);
    assert_int_equal(*sig1, 9);
    /* No atomics: a SET is an 8-byte put after the fence, an ADD refused. */
    start(0);
    mock_tp.caps &= ~SHMEMT_CAP_ATOMIC;
    assert_int_equal(shmemi_put_signal(SHMEM_CTX_DEFAULT, dest, src, 2, sizeof(long), sig, 11,
                                       SHMEM_SIGNAL_SET, 1, 0, rtn), 0);
    expect_ops(no_atomics, 3);
    expect_rec(2, MOCK_PUT, 1, 150 * sizeof(uint64_t), sizeof(uint64_t));
    assert_int_equal(*sig1, 11);
    mock_reset();
    assert_int_equal(shmemi_put_signal(SHMEM_CTX_DEFAULT, dest, src, 2, sizeof(long), sig, 1,
                                       SHMEM_SIGNAL_ADD, 1, 0, rtn), SHMEMX_ERROR_NOT_SUPPORTED);
    assert_non_null(strstr(shmemi_err_last()->msg, "shmem_long_put_signal: provider mock has no "
                                                   "atomics: SHMEM_SIGNAL_ADD needs them"));
    assert_int_equal(mock_nrec, 0);
    /* A fence that fails: the signal does not go. */
    start(0);
    mock_fail[MOCK_FENCE] = -EIO;
    *sig1 = 0;
    assert_int_equal(shmemi_put_signal(SHMEM_CTX_DEFAULT, dest, src, 2, sizeof(long), sig, 3,
                                       SHMEM_SIGNAL_SET, 1, 0, rtn), SHMEMX_ERROR_TRANSPORT);
    assert_non_null(strstr(shmemi_err_last()->msg, "shmem_long_put_signal: ordering the data "
                                                   "before the signal failed"));
    assert_int_equal(mock_count(MOCK_ATOMIC), 0);
    assert_int_equal(*sig1, 0);
}

static void test_transport_errors(void **state)
{
    long v = 3, *dest = (long *)heap0 + 80, one = 1;

    start(0);
    mock_fail[MOCK_PUT] = -EIO;
    assert_int_equal(shmemi_put_w(SHMEM_CTX_DEFAULT, dest, &v, sizeof(v), 1, 0, "shmem_long_put"),
                     SHMEMX_ERROR_TRANSPORT);
    assert_non_null(strstr(shmemi_err_last()->msg, "shmem_long_put: put of 8 bytes to PE 1 "
                                                   "failed: Input/output error"));
    assert_int_equal(mock_recs[0].rc, -EIO);
    assert_int_equal(((long *)heap1)[80], 0); /* nothing moved */
    mock_fail[MOCK_GET] = -ENOMEM;
    assert_int_equal(shmemi_get_w(SHMEM_CTX_DEFAULT, &v, dest, sizeof(v), 1, 0, "shmem_long_get"),
                     SHMEMX_ERROR_OUT_OF_MEMORY);
    assert_non_null(strstr(shmemi_err_last()->msg, "shmem_long_get: get of 8 bytes from PE 1"));
    assert_int_equal(v, 3);
    mock_fail[MOCK_ATOMIC] = -EIO;
    assert_int_equal(shmemi_amo_w(SHMEM_CTX_DEFAULT, dest, SHMEMT_AOP_ADD, &one, NULL, NULL,
                                  sizeof(long), 1, 0, "shmem_long_atomic_add"),
                     SHMEMX_ERROR_TRANSPORT);
    assert_non_null(strstr(shmemi_err_last()->msg, "shmem_long_atomic_add: atomic on PE 1 failed"));
    assert_int_equal(mock_nrec, 3);
    /* A quiet that fails, through the public routine in the return mode. */
    mock_fail[MOCK_QUIET] = -EIO;
    shmemi_err_mode_set(SHMEMX_ERRORS_RETURN);
    shmem_quiet();
    assert_int_equal(shmemx_error_get(NULL, 0), SHMEMX_ERROR_TRANSPORT);
    assert_non_null(strstr(shmemi_err_last()->msg, "shmem_quiet: completing outstanding "
                                                   "operations failed"));
    assert_int_equal(mock_count(MOCK_QUIET), 1);
}

static void test_quiet_all(void **state)
{
    shmem_ctx_t ctx;
    long v = 9, *dest = (long *)heap0 + 100;
    shmemt_t *child;

    start(0);
    assert_int_equal(shmemi_ctx_create(0, NULL, 2, NULL, &ctx, "shmem_ctx_create"), 0);
    assert_int_equal(shmemi_put_w(ctx, dest, &v, sizeof(v), 1, 0, "t"), 0);
    assert_int_equal(mock_recs[0].op, MOCK_CTX_CREATE);
    child = mock_recs[1].t;
    assert_ptr_not_equal(child, &mock_tp);
    assert_int_equal(shmemi_put_w(SHMEM_CTX_DEFAULT, dest, &v, sizeof(v), 1, 0, "t"), 0);
    assert_ptr_equal(mock_recs[2].t, &mock_tp);
    /* Both quieted, though the first failed; the failure ends the job in
     * the abort mode (for a routine that returns a status too). */
    mock_reset();
    mock_fail[MOCK_QUIET] = -EIO;
    assert_int_equal(shmemi_quiet_all("shmem_finalize"), SHMEMX_ERROR_TRANSPORT);
    assert_int_equal(mock_nrec, 2);
    assert_ptr_equal(mock_recs[0].t, &mock_tp);
    assert_ptr_equal(mock_recs[1].t, child);
    assert_non_null(strstr(shmemi_err_last()->msg, "shmem_finalize: completing outstanding "
                                                   "operations failed: Input/output error"));
    assert_int_equal(shmemi_err_last()->ends, 1);
    /* Nothing outstanding: nothing to quiet, no failure. */
    mock_reset();
    shmemi_err_clear();
    assert_int_equal(shmemi_quiet_all("shmem_finalize"), 0);
    assert_int_equal(mock_count(MOCK_QUIET), 0);
    assert_int_equal(shmemi_err_last()->code, SHMEMX_SUCCESS);
    assert_int_equal(shmemi_ctx_destroy(ctx, "shmem_ctx_destroy"), 0);
}

/* A registered buffer, used as the source of a put that is outstanding. */
static void buffer_in_use(long *buf)
{
    long *dest = (long *)heap0 + 120;

    assert_int_equal(shmemx_buffer_register(buf, 4 * sizeof(long)), 0);
    assert_int_equal(mock_count(MOCK_BUF_REG), 1);
    assert_int_equal(shmemi_put_w(SHMEM_CTX_DEFAULT, dest, buf, sizeof(long), 1, 1, "t"), 0);
}

static void test_unregister_quiet_failure(void **state)
{
    static long buf[4] = { 1, 2, 3, 4 };
    char msg[256];
    int n;

    start(0);
    buffer_in_use(buf);
    mock_fail[MOCK_QUIET] = -EIO;
    shmemi_err_mode_set(SHMEMX_ERRORS_RETURN);
    assert_int_equal(shmemx_buffer_unregister(buf), SHMEMX_ERROR_TRANSPORT);
    assert_int_equal(shmemx_error_get(msg, sizeof(msg)), SHMEMX_ERROR_TRANSPORT);
    assert_non_null(strstr(msg, "shmemx_buffer_unregister: completing outstanding operations "
                                "failed"));
    assert_int_equal(mock_count(MOCK_BUF_DEREG), 0);
    /* Still registered: registering it again overlaps it. */
    assert_int_equal(shmemx_buffer_register(buf, sizeof(long)), SHMEMX_ERROR_INVALID_VALUE);
    /* The same for all of them. */
    assert_int_equal(shmemi_put_w(SHMEM_CTX_DEFAULT, (long *)heap0 + 121, buf, sizeof(long), 1, 1,
                                  "t"), 0);
    shmemx_error_clear();
    shmemx_buffer_unregister_all();
    assert_int_equal(shmemx_error_get(msg, sizeof(msg)), SHMEMX_ERROR_TRANSPORT);
    assert_non_null(strstr(msg, "shmemx_buffer_unregister_all: completing outstanding"));
    assert_int_equal(mock_count(MOCK_BUF_DEREG), 0);
    /* Once the quiet succeeds, it goes. */
    mock_fail[MOCK_QUIET] = 0;
    assert_int_equal(shmemi_put_w(SHMEM_CTX_DEFAULT, (long *)heap0 + 122, buf, sizeof(long), 1, 1,
                                  "t"), 0);
    n = mock_count(MOCK_QUIET);
    assert_int_equal(shmemx_buffer_unregister(buf), 0);
    assert_int_equal(mock_count(MOCK_QUIET), n + 1);
    assert_int_equal(mock_count(MOCK_BUF_DEREG), 1);
    assert_ptr_equal((void *)(uintptr_t)mock_recs[mock_nrec - 1].off, buf);
    assert_int_equal(((long *)heap1)[122], 1);
}

static void test_unregister_quiet_failure_abort(void **state)
{
    static long buf[4];
    int status;
    pid_t pid;

    start(0);
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        buffer_in_use(buf);
        mock_fail[MOCK_QUIET] = -EIO;
        shmemx_buffer_unregister(buf); /* ends the job */
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), SHMEMI_EXIT_FATAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rma_direct),
        cmocka_unit_test(test_rma_slow),
        cmocka_unit_test(test_strided_get_slow),
        cmocka_unit_test(test_amo),
        cmocka_unit_test(test_amo_gpu_words),
        cmocka_unit_test(test_put_signal_slow),
        cmocka_unit_test(test_transport_errors),
        cmocka_unit_test(test_quiet_all),
        cmocka_unit_test(test_unregister_quiet_failure),
        cmocka_unit_test(test_unregister_quiet_failure_abort),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
