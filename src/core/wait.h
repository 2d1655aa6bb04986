/*
 * Point-to-point synchronization: waiting for and testing symmetric
 * variables of this PE (src/core/wait.c), one set of routines per type of
 * fabshmem/types.def's SHMEMI_P2P_TYPES.
 */
#ifndef SHMEMI_WAIT_H
#define SHMEMI_WAIT_H

#include "base/state.h"

/* What a wait or test over a set of variables waits for. */
enum {
    SHMEMI_WAIT_ALL,  /* every variable not excluded; result 1 (test: 1 or 0) */
    SHMEMI_WAIT_ANY,  /* one of them; result its index (test: SIZE_MAX for none) */
    SHMEMI_WAIT_SOME  /* at least one; result how many, their indices in indices */
};

/* The checks of a wait on one symmetric variable of size bytes, aligned
 * to align, that a thread of the library runs later (a stream's enqueue;
 * the wait itself checks cmp and ivar again): the library is initialized,
 * cmp is a comparison, ivar (what names it) is not NULL, is aligned and
 * lies inside a symmetric object. */
int shmemi_wait_check(const void *ivar, size_t size, size_t align, int cmp, const char *what,
                      const char *rtn) SHMEMI_WUR;

/* A wait (block) or test on the bytes at ivars, GPU memory that the CPU
 * cannot load: scan(arg, copy) over a copy of them made by the GPU, again
 * after a backoff step while it returns 0 and block is set (a test drives
 * the provider once).  0, or the class of the error (a failed copy, no
 * memory for it), recorded naming rtn. */
int shmemi_dev_wait(const void *ivars, size_t bytes, int block,
                    int (*scan)(void *arg, const void *copy), void *arg, const char *rtn)
    SHMEMI_WUR;

/* Every routine checks cmp (SHMEM_CMP_*) and the pointers, and returns 0
 * or the class of the error, recorded (base/error.h).
 *   wait_until: waits until *ivar compares to cmp_value by cmp;
 *   test: the same without waiting, *res_p 1 when it does, else 0;
 *   wait_set: the set ivars[0 .. nelems) of kind SHMEMI_WAIT_* (block 0:
 *     a test), element i compared with cmp_values[i * cmp_stride] (stride 0:
 *     one value for all) and excluded where status (may be NULL) is
 *     nonzero; the result in *res_p.  site: where the application called
 *     an any form (the return address of its public routine; NULL for
 *     the others): the any forms return satisfying indices in turn per
 *     call site and ivars (src/core/wait.c). */
#define SHMEMI_WAIT_DECL(TYPE, TN) \
    int shmemi_##TN##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value, const char *rtn) \
        SHMEMI_WUR; \
    int shmemi_##TN##_test(TYPE *ivar, int cmp, TYPE cmp_value, int *res_p, const char *rtn) \
        SHMEMI_WUR; \
    int shmemi_##TN##_wait_set(int kind, int block, TYPE *ivars, size_t nelems, \
                               size_t *indices, const int *status, int cmp, \
                               const TYPE *cmp_values, size_t cmp_stride, size_t *res_p, \
                               const void *site, const char *rtn) SHMEMI_WUR;
SHMEMI_P2P_TYPES(SHMEMI_WAIT_DECL)
#undef SHMEMI_WAIT_DECL

#endif
