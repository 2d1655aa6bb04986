/*
 * Logging and error exits.  Messages are prefixed [host:pid:PE], level-gated
 * before formatting, and name the failing routine or call.
 */
#include "core/shmemi.h"
#include <stdlib.h>
#include <unistd.h>

int shmemi_log_level = SHMEMI_LOG_WARN;
static __thread const char *log_context;

void shmemi_log_context(const char *what)
{
    log_context = what;
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

SHMEM_API const char *shmemx_strerror(int code)
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

void shmemi_user_error(const char *rtn, const char *fmt, ...)
{
    char msg[768];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    shmemi_log_emit(SHMEMI_LOG_ERR, "%s: %s", rtn, msg);
    shmemi_exit_job(255, "fabshmem: invalid argument");
}

void shmemi_fatal(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_vemit("error", fmt, ap);
    va_end(ap);
    shmemi_exit_job(254, "fabshmem: fatal error");
}

void shmemi_not_initialized(const char *rtn)
{
    int st = atomic_load(&shmemi_g.state);
    shmemi_user_error(rtn, "called %s shmem_init", st == SHMEMI_STATE_FINALIZED ?
                      "after shmem_finalize without a new" : "before");
}
