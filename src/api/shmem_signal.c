/*
 * The signal routines: put with signal (typed, sized, mem; blocking and
 * nbi; ctx forms), signal_fetch, signal_add, signal_set,
 * signal_wait_until and shmemx_signal_op.  One-line wrappers over the core
 * (core/signal.h, src/core/signal.c), the typed families generated from
 * the lists of fabshmem/types.def as in rma_typed.c.
 */
#include "api/api.h"

/* One put-with-signal routine and its ctx_ form. */
#define SHMEMI_UNPAREN(...) __VA_ARGS__
#define SHMEMI_DEF(name, ARGS, nbi, elsize) \
    void pshmem_##name ARGS \
    { \
        shmemi_api_check(shmemi_put_signal(SHMEM_CTX_DEFAULT, dest, source, nelems, elsize, \
                                           sig_addr, signal, sig_op, pe, nbi, \
                                           "shmem_" #name)); \
    } \
    SHMEMI_ALIAS(shmem_##name) \
    void pshmem_ctx_##name(shmem_ctx_t ctx, SHMEMI_UNPAREN ARGS) \
    { \
        shmemi_api_check(shmemi_put_signal(ctx, dest, source, nelems, elsize, sig_addr, signal, \
                                           sig_op, pe, nbi, "shmem_ctx_" #name)); \
    } \
    SHMEMI_ALIAS(shmem_ctx_##name)

#define SHMEMI_A_SIG(T) \
    (T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, \
     int pe)

#define SHMEMI_TYPED(TYPE, TN) \
    SHMEMI_DEF(TN##_put_signal, SHMEMI_A_SIG(TYPE), 0, sizeof(TYPE)) \
    SHMEMI_DEF(TN##_put_signal_nbi, SHMEMI_A_SIG(TYPE), 1, sizeof(TYPE))
#define SHMEMI_SIZED(SIZE) \
    SHMEMI_DEF(put##SIZE##_signal, SHMEMI_A_SIG(void), 0, (SIZE) / 8) \
    SHMEMI_DEF(put##SIZE##_signal_nbi, SHMEMI_A_SIG(void), 1, (SIZE) / 8)

SHMEMI_RMA_TYPES(SHMEMI_TYPED)
SHMEMI_RMA_SIZES(SHMEMI_SIZED)
SHMEMI_DEF(putmem_signal, SHMEMI_A_SIG(void), 0, 1)
SHMEMI_DEF(putmem_signal_nbi, SHMEMI_A_SIG(void), 1, 1)

/* A failed fetch returns 0 (SHMEMX_ERRORS_RETURN). */
uint64_t pshmem_signal_fetch(const uint64_t *sig_addr)
{
    uint64_t v = 0;
    int rc = shmemi_signal_fetch(sig_addr, &v, "shmem_signal_fetch");

    if (SHMEMI_UNLIKELY(rc)) {
        shmemi_api_fail(rc);
        return 0;
    }
    return v;
}
SHMEMI_ALIAS(shmem_signal_fetch)

void pshmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmemi_api_check(shmemi_signal_op(SHMEM_CTX_DEFAULT, sig_addr, signal, SHMEM_SIGNAL_ADD, pe,
                                      "shmem_signal_add"));
}
SHMEMI_ALIAS(shmem_signal_add)

void pshmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmemi_api_check(shmemi_signal_op(ctx, sig_addr, signal, SHMEM_SIGNAL_ADD, pe,
                                      "shmem_ctx_signal_add"));
}
SHMEMI_ALIAS(shmem_ctx_signal_add)

void pshmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmemi_api_check(shmemi_signal_op(SHMEM_CTX_DEFAULT, sig_addr, signal, SHMEM_SIGNAL_SET, pe,
                                      "shmem_signal_set"));
}
SHMEMI_ALIAS(shmem_signal_set)

void pshmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmemi_api_check(shmemi_signal_op(ctx, sig_addr, signal, SHMEM_SIGNAL_SET, pe,
                                      "shmem_ctx_signal_set"));
}
SHMEMI_ALIAS(shmem_ctx_signal_set)

SHMEM_API void shmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    shmemi_api_check(shmemi_signal_op(SHMEM_CTX_DEFAULT, sig_addr, signal, sig_op, pe,
                                      "shmemx_signal_op"));
}

/* A failed wait returns 0 (SHMEMX_ERRORS_RETURN). */
uint64_t pshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    uint64_t v = 0;
    int rc = shmemi_signal_wait_until(sig_addr, cmp, cmp_value, &v, "shmem_signal_wait_until");

    if (SHMEMI_UNLIKELY(rc)) {
        shmemi_api_fail(rc);
        return 0;
    }
    return v;
}
SHMEMI_ALIAS(shmem_signal_wait_until)
