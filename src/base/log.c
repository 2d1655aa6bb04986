/*
 * Logging, the error record and error exits (the public routines that read
 * and set them are in src/api/shmem_error.c).  Messages are prefixed
 * [host:pid:PE], level-gated before formatting, and name the failing
 * routine or call.
 */
#include "base/state.h"
#include <stdlib.h>
#include <unistd.h>

int shmemi_log_level = SHMEMI_LOG_WARN;
static __thread const char *log_context, *log_thread;

void shmemi_log_context(const char *what)
{
    log_context = what;
}

void shmemi_log_thread(const char *who)
{
    log_thread = who;
}

static void log_vemit(const char *kind, const char *fmt, va_list ap)
{
    char buf[1024];
    int n;

    n = snprintf(buf, sizeof(buf), "[%s:%d:%d] fabshmem %s: ",
                 shmemi_g.hostname[0] ? shmemi_g.hostname : "?", (int)getpid(),
                 shmemi_g.state >= SHMEMI_STATE_BOOTSTRAPPED ? shmemi_g.my_pe : -1, kind);
    if (n < 0 || (size_t)n >= sizeof(buf))
        n = 0;
    vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
    if (log_context) {
        size_t used = strlen(buf);
        snprintf(buf + used, sizeof(buf) - used, " (on a stream, executing %s)", log_context);
    } else if (log_thread) {
        size_t used = strlen(buf);
        snprintf(buf + used, sizeof(buf) - used, " (%s)", log_thread);
    }
    /* One write call so that lines of different PEs do not interleave. */
    size_t len = strlen(buf);
    if (len + 1 < sizeof(buf)) {
        buf[len++] = '\n';
        buf[len] = '\0';
    }
    ssize_t w = write(STDERR_FILENO, buf, len);
    (void)w;
}

void shmemi_log_emit(int level, const char *fmt, ...)
{
    static const char *kinds[] = { "error", "warning", "info", "debug" };
    va_list ap;

    va_start(ap, fmt);
    log_vemit(kinds[level < 0 ? 0 : level > 3 ? 3 : level], fmt, ap);
    va_end(ap);
}

const char *shmemi_strerror(int code)
{
    switch (code) {
    case SHMEMX_SUCCESS: return "success";
    case SHMEMX_ERROR_INVALID_VALUE: return "invalid value: an argument is NULL, out of range or "
                                            "malformed";
    case SHMEMX_ERROR_OUT_OF_MEMORY: return "out of memory or of a bounded resource (team slots, "
                                            "registration slots, endpoints)";
    case SHMEMX_ERROR_NOT_SUPPORTED: return "not supported by this build, provider or machine";
    case SHMEMX_ERROR_SYMMETRY: return "the PEs of a collective call passed arguments that "
                                       "disagree";
    case SHMEMX_ERROR_INVALID_STATE: return "not allowed in the library's present state";
    case SHMEMX_ERROR_BOOTSTRAP: return "the bootstrap (PMIx, unique id or MPI) failed";
    case SHMEMX_ERROR_TRANSPORT: return "the libfabric provider failed an operation";
    case SHMEMX_ERROR_INTERNAL: return "internal error";
    default: return "unknown status code";
    }
}

int shmemi_status_from_errno(int err, int dflt)
{
    switch (err < 0 ? -err : err) {
    case 0: return SHMEMX_SUCCESS;
    case ENOMEM: case ENOSPC: case EAGAIN: case EMFILE: case ENFILE:
        return SHMEMX_ERROR_OUT_OF_MEMORY;
    case EINVAL: case EFAULT: case ERANGE: case EOVERFLOW: case E2BIG: case EBADF:
        return SHMEMX_ERROR_INVALID_VALUE;
    case ENOSYS: case EOPNOTSUPP: case ENODATA: case EPROTONOSUPPORT:
        return SHMEMX_ERROR_NOT_SUPPORTED;
    default: return dflt;
    }
}

static void __attribute__((noreturn)) shmemi_exit_job(int status, const char *msg)
{
    if (shmemi_g.boot && shmemi_g.boot->abort)
        shmemi_g.boot->abort(shmemi_g.boot, status, msg);
    _exit(status);
}

void shmemi_fatal(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_vemit("error", fmt, ap);
    va_end(ap);
    shmemi_exit_job(SHMEMI_EXIT_FATAL, "fabshmem: fatal error");
}

/* ---- the error record of each thread, and the API's use of it ---- */

static __thread shmemi_errrec_t errrec;
static _Atomic int error_mode = SHMEMX_ERRORS_ABORT;

static int err_record(int code, int level, int exit_status, int ends, const char *rtn,
                      const char *fmt, va_list ap)
{
    int n = 0;

    errrec.code = code ? code : SHMEMX_ERROR_INTERNAL;
    errrec.level = level;
    errrec.exit_status = exit_status;
    errrec.ends = ends;
    if (rtn) {
        n = snprintf(errrec.msg, sizeof(errrec.msg), "%s: ", rtn);
        if (n < 0 || (size_t)n >= sizeof(errrec.msg))
            n = 0;
    }
    vsnprintf(errrec.msg + n, sizeof(errrec.msg) - (size_t)n, fmt, ap);
    return errrec.code;
}

int shmemi_err(int code, const char *rtn, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    code = err_record(code, SHMEMI_LOG_ERR, SHMEMI_EXIT_USER, 0, rtn, fmt, ap);
    va_end(ap);
    return code;
}

int shmemi_err_ends(int code, const char *rtn, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    code = err_record(code, SHMEMI_LOG_ERR, SHMEMI_EXIT_USER, 1, rtn, fmt, ap);
    va_end(ap);
    return code;
}

int shmemi_err_quiet(int code, const char *rtn, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    code = err_record(code, SHMEMI_LOG_DEBUG, SHMEMI_EXIT_USER, 0, rtn, fmt, ap);
    va_end(ap);
    return code;
}

int shmemi_err_warn(int code, const char *rtn, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    code = err_record(code, SHMEMI_LOG_WARN, SHMEMI_EXIT_USER, 0, rtn, fmt, ap);
    va_end(ap);
    return code;
}

int shmemi_err_fatal(int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    code = err_record(code, SHMEMI_LOG_ERR, SHMEMI_EXIT_FATAL, 0, NULL, fmt, ap);
    va_end(ap);
    return code;
}

int shmemi_err_set_ends(int rc)
{
    if (rc && errrec.code != SHMEMX_SUCCESS)
        errrec.ends = 1;
    return rc;
}

const shmemi_errrec_t *shmemi_err_last(void)
{
    return &errrec;
}

void shmemi_err_clear(void)
{
    errrec.code = SHMEMX_SUCCESS;
    errrec.msg[0] = '\0';
}

/* Prints the record as the error or warning it is (a class with no record:
 * a bug of the library, said so); one of shmemi_err_quiet only at debug
 * level. */
static void err_print(int rc)
{
    if (errrec.code == SHMEMX_SUCCESS)
        shmemi_log_emit(SHMEMI_LOG_ERR, "internal error: a routine failed (%s) with no message",
                        shmemi_strerror(rc));
    else if (errrec.level > SHMEMI_LOG_WARN)
        shmemi_log(errrec.level, "%s", errrec.msg);
    else
        shmemi_log_emit(errrec.level, "%s", errrec.msg);
}

void shmemi_err_exit(void)
{
    int fatal = errrec.code != SHMEMX_SUCCESS && errrec.exit_status == SHMEMI_EXIT_FATAL;

    /* A job never ends without a word. */
    if (errrec.level > SHMEMI_LOG_WARN)
        errrec.level = SHMEMI_LOG_ERR;
    err_print(errrec.code);
    shmemi_exit_job(fatal ? SHMEMI_EXIT_FATAL : SHMEMI_EXIT_USER,
                    fatal ? "fabshmem: fatal error" : "fabshmem: invalid argument");
}

int shmemi_api_returns(void)
{
    return atomic_load_explicit(&error_mode, memory_order_relaxed) == SHMEMX_ERRORS_RETURN;
}

void shmemi_api_fail(int rc)
{
    if (shmemi_api_returns())
        return;
    if (errrec.code == SHMEMX_SUCCESS)
        errrec.code = rc;
    shmemi_err_exit();
}

int shmemi_api_status(int rc)
{
    if (!rc || shmemi_api_returns())
        return rc;
    if (errrec.code != SHMEMX_SUCCESS && errrec.ends)
        shmemi_err_exit();
    err_print(rc);
    return rc;
}

/* A call before init ended the job in every routine, those that return a
 * status included (shmemi_err_ends). */
int shmemi_not_initialized(const char *rtn)
{
    int st = atomic_load(&shmemi_g.state);
    return shmemi_err_ends(SHMEMX_ERROR_INVALID_STATE, rtn, "called %s shmem_init",
                      st == SHMEMI_STATE_FINALIZED ? "after shmem_finalize without a new"
                                                   : "before");
}

int shmemi_err_mode_set(int mode)
{
    return atomic_exchange(&error_mode, mode);
}

int shmemi_err_mode(void)
{
    return atomic_load(&error_mode);
}
