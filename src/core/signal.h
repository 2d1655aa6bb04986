/*
 * Signals: put with signal, the signal update alone, fetching and waiting
 * on a signal word (src/core/signal.c).
 */
#ifndef SHMEMI_SIGNAL_H
#define SHMEMI_SIGNAL_H

#include "core/amo.h"

/* ---- signals ----
 * Every routine returns 0 or the class of the error, recorded
 * (base/error.h); pe is a PE of ctx, sig_op SHMEM_SIGNAL_SET or
 * SHMEM_SIGNAL_ADD. */

/* Puts nelems elements of elsize bytes from source to dest on pe, then
 * updates the signal word sig_addr there with signal by sig_op: whoever
 * sees the signal sees the data (nbi: source may be reused only after the
 * next quiet).  Every argument is checked before anything moves. */
int shmemi_put_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                      size_t elsize, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                      int nbi, const char *rtn) SHMEMI_WUR;
/* The checks of a signal update without the update, for a caller that
 * makes it later (a stream's enqueue): the library is initialized, sig_op
 * is one, ctx is not SHMEM_CTX_INVALID, sig_addr is an aligned word of a
 * symmetric object, pe (a PE of ctx) is in range, and an ADD has atomics
 * to go to. */
int shmemi_signal_check(shmem_ctx_t ctx, const uint64_t *sig_addr, int sig_op, int pe,
                        const char *rtn) SHMEMI_WUR;
/* Updates the signal word sig_addr on pe with signal by sig_op. */
int shmemi_signal_op(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                     const char *rtn) SHMEMI_WUR;
/* The value of this PE's signal word sig_addr into *value_p. */
int shmemi_signal_fetch(const uint64_t *sig_addr, uint64_t *value_p, const char *rtn) SHMEMI_WUR;
/* Waits until this PE's signal word sig_addr compares to cmp_value by cmp
 * (SHMEM_CMP_*); its value then into *value_p. */
int shmemi_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value, uint64_t *value_p,
                             const char *rtn) SHMEMI_WUR;

/* Puts len bytes from src to dest on (world) pe and updates the 8-byte
 * signal word sig there with aop (SHMEMT_AOP_SET or SHMEMT_AOP_ADD) in one
 * operation of transport tp, when its AMOs are applied by the target
 * (SHMEMT_CAP_AMO_CPU) and it can.  *done_p is 1 when the transport took
 * the operation (the caller accounts for it as issued), 0 when the caller
 * must put, fence and signal itself (also for addresses the usual path
 * will name in its error).  Returns 0, or the class of the transport's
 * failure, recorded as rtn's. */
int shmemi_tp_put_signal(shmemt_t *tp, const void *dest, const void *src, size_t len,
                         const volatile uint64_t *sig, uint64_t value, int aop, int pe,
                         int *done_p, const char *rtn) SHMEMI_WUR;

#endif
