/*
 * The mock transport of the unit tests (mock_tp.h).
 */
#include "base/state.h"
#include "tests/unit/mock_tp.h"
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

char *mock_heap[MOCK_NPES];
size_t mock_heap_len;
mock_rec_t mock_recs[MOCK_RECS];
int mock_nrec;
int mock_fail[MOCK_NOPS];
unsigned mock_ignore;

void mock_reset(void)
{
    mock_nrec = 0;
    memset(mock_fail, 0, sizeof(mock_fail));
}

static char *peer_none[MOCK_NPES];

int mock_job(int n, size_t len)
{
    char *no_env[] = { NULL };
    int pe;

    if (n < 1 || n > MOCK_NPES || shmemi_env_parse(no_env, &shmemi_g.env))
        return -1;
    for (pe = 0; pe < n; pe++) {
        if (!(mock_heap[pe] = aligned_alloc(4096, len)))
            return -1;
        memset(mock_heap[pe], 0, len);
    }
    mock_heap_len = len;
    shmemi_g.my_pe = 0;
    shmemi_g.n_pes = n;
    shmemi_g.heap_base = mock_heap[0];
    shmemi_g.heap_size = len;
    shmemi_g.peer_heap = peer_none;
    shmemi_g.tp = &mock_tp;
    atomic_store(&shmemi_g.state, SHMEMI_STATE_INITIALIZED);
    mock_reset();
    return 0;
}

void mock_job_end(void)
{
    int pe;

    shmemi_g.tp = NULL;
    for (pe = 0; pe < MOCK_NPES; pe++) {
        free(mock_heap[pe]);
        mock_heap[pe] = NULL;
    }
}

int mock_count(int op)
{
    int i, n = 0;

    for (i = 0; i < mock_nrec; i++)
        n += mock_recs[i].op == op;
    return n;
}

/* Records a call of op and returns what it should return. */
static int record(mock_rec_t r)
{
    r.rc = mock_fail[r.op];
    if (mock_ignore & 1u << r.op)
        return r.rc;
    assert_true(mock_nrec < MOCK_RECS);
    mock_recs[mock_nrec++] = r;
    return r.rc;
}

/* PE pe's bytes [off, off + len) of segment seg: the heap is all there is. */
static char *at(int pe, int seg, uint64_t off, uint64_t len)
{
    assert_int_equal(seg, SHMEMT_SEG_HEAP);
    assert_true(pe >= 0 && pe < MOCK_NPES && mock_heap[pe]);
    assert_true(off + len <= mock_heap_len);
    return mock_heap[pe] + off;
}

static int put(shmemt_t *t, int op, int pe, int seg, uint64_t off, const void *src, size_t len)
{
    int rc = record((mock_rec_t){ .t = t, .op = op, .pe = pe, .seg = seg, .off = off, .len = len });

    if (!rc)
        memcpy(at(pe, seg, off, len), src, len);
    return rc;
}

static int get(shmemt_t *t, int op, int pe, int seg, uint64_t off, void *dst, size_t len)
{
    int rc = record((mock_rec_t){ .t = t, .op = op, .pe = pe, .seg = seg, .off = off, .len = len });

    if (!rc)
        memcpy(dst, at(pe, seg, off, len), len);
    return rc;
}

static int m_put(shmemt_t *t, int pe, int seg, uint64_t off, const void *src, size_t len)
{
    return put(t, MOCK_PUT, pe, seg, off, src, len);
}

static int m_put_nbi(shmemt_t *t, int pe, int seg, uint64_t off, const void *src, size_t len)
{
    return put(t, MOCK_PUT_NBI, pe, seg, off, src, len);
}

static int m_get(shmemt_t *t, int pe, int seg, uint64_t off, void *dst, size_t len)
{
    return get(t, MOCK_GET, pe, seg, off, dst, len);
}

static int m_get_nbi(shmemt_t *t, int pe, int seg, uint64_t off, void *dst, size_t len)
{
    return get(t, MOCK_GET_NBI, pe, seg, off, dst, len);
}

static int m_quiet(shmemt_t *t)
{
    return record((mock_rec_t){ .t = t, .op = MOCK_QUIET, .pe = -1 });
}

static int m_pe_quiet(shmemt_t *t, const int *pes, int npes)
{
    return record((mock_rec_t){ .t = t, .op = MOCK_PE_QUIET, .pe = npes ? pes[0] : -1,
                                .len = (uint64_t)npes });
}

static int m_fence(shmemt_t *t)
{
    return record((mock_rec_t){ .t = t, .op = MOCK_FENCE, .pe = -1 });
}

static int m_progress(shmemt_t *t)
{
    return 0;
}

/* The atomic op on the size-byte word w (4 or 8). */
#define MOCK_AMO(T, w, aop, operand, compare, fetch)                          \
    do {                                                                      \
        T *w_ = (T *)(w), v_ = *(const T *)(operand), old_ = *w_;             \
        switch (aop) {                                                        \
        case SHMEMT_AOP_SET: *w_ = v_; break;                                 \
        case SHMEMT_AOP_FETCH: break;                                         \
        case SHMEMT_AOP_SWAP: *w_ = v_; break;                                \
        case SHMEMT_AOP_CSWAP: if (old_ == *(const T *)(compare)) *w_ = v_; break; \
        case SHMEMT_AOP_ADD: *w_ = old_ + v_; break;                          \
        case SHMEMT_AOP_AND: *w_ = old_ & v_; break;                          \
        case SHMEMT_AOP_OR: *w_ = old_ | v_; break;                           \
        case SHMEMT_AOP_XOR: *w_ = old_ ^ v_; break;                          \
        default: fail_msg("unknown atomic op %d", aop);                       \
        }                                                                     \
        if (fetch)                                                            \
            *(T *)(fetch) = old_;                                             \
    } while (0)

static int m_atomic(shmemt_t *t, int pe, int seg, uint64_t off, int aop, const void *operand,
                    const void *compare, void *fetch, size_t size)
{
    uint64_t v = size == 8 ? *(const uint64_t *)operand : *(const uint32_t *)operand;
    int rc = record((mock_rec_t){ .t = t, .op = MOCK_ATOMIC, .pe = pe, .seg = seg, .off = off,
                                  .len = size, .value = v, .aop = aop });
    char *w;

    if (rc)
        return rc;
    assert_true(size == 4 || size == 8);
    w = at(pe, seg, off, size);
    if (size == 8)
        MOCK_AMO(uint64_t, w, aop, operand, compare, fetch);
    else
        MOCK_AMO(uint32_t, w, aop, operand, compare, fetch);
    return 0;
}

static int m_signal(shmemt_t *t, int pe, int seg, uint64_t off, uint64_t value)
{
    int rc = record((mock_rec_t){ .t = t, .op = MOCK_SIGNAL, .pe = pe, .seg = seg, .sig_off = off,
                                  .value = value });

    if (!rc)
        memcpy(at(pe, seg, off, sizeof(value)), &value, sizeof(value));
    return rc;
}

static int m_put_signal(shmemt_t *t, int pe, int seg, uint64_t off, const void *src, size_t len,
                        int sig_seg, uint64_t sig_off, uint64_t signal, int sig_op)
{
    int rc = record((mock_rec_t){ .t = t, .op = MOCK_PUT_SIGNAL, .pe = pe, .seg = seg, .off = off,
                                  .len = len, .sig_off = sig_off, .value = signal,
                                  .aop = sig_op });
    uint64_t *w;

    if (rc)
        return rc;
    memcpy(at(pe, seg, off, len), src, len);
    w = (uint64_t *)at(pe, sig_seg, sig_off, sizeof(*w));
    *w = sig_op == SHMEMT_AOP_ADD ? *w + signal : signal;
    return 0;
}

static int m_buf_reg(shmemt_t *t, void *base, size_t len, void **handle_p)
{
    int rc = record((mock_rec_t){ .t = t, .op = MOCK_BUF_REG, .pe = -1, .off = (uintptr_t)base,
                                  .len = len });

    if (!rc)
        *handle_p = base;
    return rc;
}

static void m_buf_dereg(shmemt_t *t, void *handle)
{
    record((mock_rec_t){ .t = t, .op = MOCK_BUF_DEREG, .pe = -1, .off = (uintptr_t)handle });
}

static void m_fini(shmemt_t *t)
{
}

static int m_ctx_create(shmemt_t *t, long options, shmemt_t **child_p)
{
    int rc = record((mock_rec_t){ .t = t, .op = MOCK_CTX_CREATE, .pe = -1,
                                  .value = (uint64_t)options });
    shmemt_t *child;

    if (rc)
        return rc;
    child = malloc(sizeof(*child));
    assert_non_null(child);
    *child = *t;
    *child_p = child;
    return 0;
}

static void m_ctx_destroy(shmemt_t *child)
{
    record((mock_rec_t){ .t = child, .op = MOCK_CTX_DESTROY, .pe = -1 });
    free(child);
}

static const shmemt_ops_t mock_ops = {
    .put = m_put, .put_nbi = m_put_nbi, .get = m_get, .get_nbi = m_get_nbi, .quiet = m_quiet,
    .pe_quiet = m_pe_quiet, .fence = m_fence, .progress = m_progress, .atomic = m_atomic,
    .signal = m_signal, .put_signal = m_put_signal, .buf_reg = m_buf_reg,
    .buf_dereg = m_buf_dereg, .fini = m_fini, .ctx_create = m_ctx_create,
    .ctx_destroy = m_ctx_destroy,
};

shmemt_t mock_tp = { .ops = &mock_ops, .prov_name = "mock",
                     .caps = SHMEMT_CAP_RMA | SHMEMT_CAP_ATOMIC | SHMEMT_CAP_AMO_CPU |
                             SHMEMT_CAP_THREADS };
