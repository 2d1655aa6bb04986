/*
 * Distributed locks over a symmetric long (src/core/lock.c).
 */
#ifndef SHMEMI_LOCK_H
#define SHMEMI_LOCK_H

#include "base/state.h"

/* Each checks the lock (an aligned long of a symmetric object, and
 * atomics to reach it) before it touches it, and returns 0 or the class
 * of the error, recorded (base/error.h).
 *   set_lock: waits until this PE holds the lock;
 *   test_lock: takes the lock if it is free: *busy_p 0 when it did, 1
 *     when another PE holds it (the value shmem_test_lock returns);
 *   clear_lock: completes this PE's operations (a quiet) and hands the
 *     lock to the next PE in line, or frees it; a lock this PE does not
 *     hold is an error. */
int shmemi_set_lock(long *lock, const char *rtn) SHMEMI_WUR;
int shmemi_test_lock(long *lock, int *busy_p, const char *rtn) SHMEMI_WUR;
int shmemi_clear_lock(long *lock, const char *rtn) SHMEMI_WUR;

#endif
