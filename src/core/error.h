/*
 * Logging and errors.
 */
#ifndef SHMEMI_ERROR_H
#define SHMEMI_ERROR_H

#include "core/base.h"

/* ---- logging and errors ---- */
enum { SHMEMI_LOG_ERR = 0, SHMEMI_LOG_WARN = 1, SHMEMI_LOG_INFO = 2, SHMEMI_LOG_DEBUG = 3 };
extern int shmemi_log_level;
void shmemi_log_emit(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define shmemi_log(level, ...) \
    do { if ((level) <= shmemi_log_level) shmemi_log_emit((level), __VA_ARGS__); } while (0)
#define shmemi_debug(...) shmemi_log(SHMEMI_LOG_DEBUG, __VA_ARGS__)
#define shmemi_warn(...)  shmemi_log(SHMEMI_LOG_WARN, __VA_ARGS__)
/* The SHMEMX_ERROR_* class of an errno value (either sign; 0 gives
 * SHMEMX_SUCCESS); dflt for the values no class claims. */
int shmemi_status_from_errno(int err, int dflt);
/* A user error: prints "rtn: message" with the PE and ends the job with a
 * non-zero status (global abort through the bootstrap).  Never returns. */
void shmemi_user_error(const char *rtn, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn, cold));
/* An internal failure (a provider call failed): same exit. */
void shmemi_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn, cold));
/* What the calling thread is doing on the application's behalf (a stream's
 * worker: the *_on_stream routine of the item it executes), appended to
 * every message the thread logs; NULL clears it. */
void shmemi_log_context(const char *what);

#endif
