/*
 * Distributed locks: shmem_set_lock, shmem_test_lock, shmem_clear_lock,
 * wrappers over the core (core/lock.h, src/core/lock.c).
 */
#include "api/api.h"

void pshmem_set_lock(long *lock)
{
    shmemi_api_check(shmemi_set_lock(lock, "shmem_set_lock"));
}
SHMEMI_ALIAS(shmem_set_lock)

/* A failed test returns 1, as for a lock held elsewhere: the caller did
 * not get it (SHMEMX_ERRORS_RETURN). */
int pshmem_test_lock(long *lock)
{
    int busy = 1;
    int rc = shmemi_test_lock(lock, &busy, "shmem_test_lock");

    if (SHMEMI_UNLIKELY(rc)) {
        shmemi_api_fail(rc);
        return 1;
    }
    return busy;
}
SHMEMI_ALIAS(shmem_test_lock)

void pshmem_clear_lock(long *lock)
{
    shmemi_api_check(shmemi_clear_lock(lock, "shmem_clear_lock"));
}
SHMEMI_ALIAS(shmem_clear_lock)
