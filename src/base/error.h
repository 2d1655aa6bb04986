/*
 * Logging and errors.
 */
#ifndef SHMEMI_ERROR_H
#define SHMEMI_ERROR_H

#include "base/base.h"

/* ---- logging ---- */
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
/* What the calling thread is doing on the application's behalf (a stream's
 * worker: the *_on_stream routine of the item it executes), appended to
 * every message the thread logs; NULL clears it. */
void shmemi_log_context(const char *what);
/* Which thread of the library the calling thread is, appended to every
 * message it logs outside a stream's work ("in the device API's proxy");
 * NULL clears it. */
void shmemi_log_thread(const char *who);

/* ---- errors ----
 *
 * A core routine checks its arguments and returns 0 (SHMEMX_SUCCESS) or the
 * class of the error (SHMEMX_ERROR_*).  Before it fails it records, for the
 * calling thread, the message that names the routine and the argument and
 * the way the job ends for it (shmemi_err and its kin below); its callers
 * pass the class up unchanged and add nothing.  Transport calls return a
 * negative errno: the core routine that made the call turns it into a
 * class and a message.
 *
 * Only the API layer decides what a failure means (shmemi_api_*): in the
 * default mode (SHMEMX_ERRORS_ABORT) a routine to which the standard gives
 * no error return prints the message and ends the job, one that returns a
 * status prints the message and returns the class; in
 * SHMEMX_ERRORS_RETURN mode (shmemx_set_error_mode, for bindings such as
 * the Python one) every routine returns, having done nothing, and the
 * caller reads the class and the message with shmemx_error_get. */

/* On the core routines that return a status: a caller that drops it is a
 * bug (the compiler says so). */
#define SHMEMI_WUR __attribute__((warn_unused_result))

/* Exit statuses of a job that ends for an error. */
#define SHMEMI_EXIT_USER  255 /* bad input */
#define SHMEMI_EXIT_FATAL 254 /* a failure inside the library or the provider */

/* Records that rtn failed for a bad argument (the message "rtn: ..."; the
 * job ends with SHMEMI_EXIT_USER when the API ends it) and returns code. */
int shmemi_err(int code, const char *rtn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));
/* The same, printed as a warning when the API prints it. */
int shmemi_err_warn(int code, const char *rtn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));
/* The same, for a bad argument after which a routine that returns a
 * status used to end the job (a NULL out-argument, a call before
 * shmem_init): in SHMEMX_ERRORS_ABORT mode shmemi_api_status ends the job
 * for it as shmemi_api_check does. */
int shmemi_err_ends(int code, const char *rtn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));
/* The same, for a failure that is an ordinary outcome which a routine
 * that returns a status reports by its value alone (SHMEM_TEAM_INVALID
 * given by a PE outside a split): shmemi_api_status prints it at debug
 * level only. */
int shmemi_err_quiet(int code, const char *rtn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));
/* Records a failure inside the library or the provider (the message as
 * fmt gives it, naming the routine itself; SHMEMI_EXIT_FATAL) and returns
 * code. */
int shmemi_err_fatal(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), cold));
/* Marks the calling thread's record of the failure rc (a class, 0 for
 * none) as one of shmemi_err_ends: a routine that returns a status ends
 * the job for it in SHMEMX_ERRORS_ABORT mode (shmemi_quiet_all's
 * failures, which ended the job in every routine before routines
 * returned them).  Returns rc. */
int shmemi_err_set_ends(int rc);
/* The record of the calling thread's last failure. */
typedef struct shmemi_errrec {
    int code;        /* SHMEMX_ERROR_*; SHMEMX_SUCCESS: nothing recorded */
    int level;       /* SHMEMI_LOG_ERR, SHMEMI_LOG_WARN or (shmemi_err_quiet)
                      * SHMEMI_LOG_DEBUG */
    int exit_status; /* SHMEMI_EXIT_USER or SHMEMI_EXIT_FATAL */
    int ends;        /* shmemi_err_ends: a status routine ends the job too */
    char msg[1024];
} shmemi_errrec_t;
const shmemi_errrec_t *shmemi_err_last(void);
/* Forgets the calling thread's record. */
void shmemi_err_clear(void);

/* The API layer: what a failure of a core routine (class rc, recorded)
 * means for the caller.  shmemi_api_check is for the routines with no
 * error return: in SHMEMX_ERRORS_ABORT mode it prints the record and ends
 * the job; in SHMEMX_ERRORS_RETURN mode it returns and the caller returns
 * too.  shmemi_api_status is for the routines that return a status: it
 * prints the record in SHMEMX_ERRORS_ABORT mode (ending the job for a
 * record of shmemi_err_ends, printing one of shmemi_err_quiet only at
 * debug level) and returns rc. */
void shmemi_api_fail(int rc) __attribute__((cold));
SHMEMI_INLINE void shmemi_api_check(int rc)
{
    if (SHMEMI_UNLIKELY(rc != 0))
        shmemi_api_fail(rc);
}
int shmemi_api_status(int rc);
/* 1 in SHMEMX_ERRORS_RETURN mode. */
int shmemi_api_returns(void);
/* The error mode (SHMEMX_ERRORS_ABORT or SHMEMX_ERRORS_RETURN): sets it
 * and returns the one before; returns it. */
int shmemi_err_mode_set(int mode);
int shmemi_err_mode(void);
/* The text of a status class (what shmemx_strerror returns). */
const char *shmemi_strerror(int code);
/* Prints the calling thread's record and ends the job as it says,
 * whatever the mode. */
void shmemi_err_exit(void) __attribute__((noreturn, cold));
/* For a caller that has nobody to return a failure to (a thread of the
 * library): ends the job when rc is one. */
static inline void shmemi_must(int rc)
{
    if (SHMEMI_UNLIKELY(rc != 0))
        shmemi_err_exit();
}

/* Ends the job at once with the message (printed as it is), with
 * SHMEMI_EXIT_FATAL, through the bootstrap (a global abort), so no PE is
 * left waiting: for the places that have no caller to return to (threads
 * of the library, the provider's init arguments) and the API layer. */
void shmemi_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn, cold));
#endif
