/*
 * fabshmem extensions: status codes (included by shmemx.h), after
 * NVSHMEM's nvshmemx_status.
 *
 * The shmemx_* routines that return an int status, and the OpenSHMEM
 * routines whose specification says "zero on success, nonzero otherwise"
 * (shmem_init_thread, shmem_ctx_create, shmem_team_create_ctx, the team
 * splits, shmem_team_get_config, shmem_ctx_get_team and the team-based
 * collectives), return SHMEMX_SUCCESS or one of the SHMEMX_ERROR_* codes
 * below.  The message printed on stderr at the time names the routine and
 * the argument; shmemx_strerror(code) describes the class of the error.
 *
 * Routines that answer a question keep their documented values:
 * shmemx_init_status, shmemx_stream_query and shmemx_stream_offloaded
 * (-1 for an invalid stream), shmem_team_translate_pe (-1), shmem_test*.
 */
#ifndef FABSHMEMX_ERROR_H
#define FABSHMEMX_ERROR_H

enum shmemx_status_code {
    SHMEMX_SUCCESS = 0,
    /* An argument is NULL, out of range, malformed, or not a symmetric
     * object / registered buffer / live stream where one is needed. */
    SHMEMX_ERROR_INVALID_VALUE = 1,
    /* Memory, or a bounded resource (team slots, registration slots,
     * endpoints), ran out. */
    SHMEMX_ERROR_OUT_OF_MEMORY = 2,
    /* This build, provider or machine cannot do it (an MPI bootstrap in a
     * build without MPI, offload on a provider without triggered
     * operations, ...). */
    SHMEMX_ERROR_NOT_SUPPORTED = 3,
    /* The PEs of a collective call passed arguments that disagree. */
    SHMEMX_ERROR_SYMMETRY = 4,
    /* Not allowed in the library's present state (a process bootstrapped
     * one way asked to join a job another way, ...). */
    SHMEMX_ERROR_INVALID_STATE = 5,
    /* The bootstrap failed: the launcher's PMIx, the unique-id rendezvous
     * (refused, unreachable) or the MPI exchange. */
    SHMEMX_ERROR_BOOTSTRAP = 6,
    /* The libfabric provider failed an operation. */
    SHMEMX_ERROR_TRANSPORT = 7,
    /* A failure inside fabshmem that fits no class above. */
    SHMEMX_ERROR_INTERNAL = 8
};

/* A short description of a status code (a static string; an unknown code
 * gets "unknown status code"). */
SHMEM_API const char *shmemx_strerror(int code);

/*
 * How errors reach the caller.
 *
 * SHMEMX_ERRORS_ABORT (the default) is OpenSHMEM's way: a routine that has
 * no error return (shmem_put, shmem_barrier_all, shmem_malloc, ...) prints
 * a message that names the routine and the argument and ends the whole
 * job; a routine that returns a status prints the message and returns the
 * code.
 *
 * SHMEMX_ERRORS_RETURN is for bindings (the Python one raises exceptions)
 * and programs that recover: no routine prints or ends the job for an
 * error; it returns at once, having done nothing (a routine that returns a
 * value returns 0 or NULL, one that returns a status the code), and the
 * calling thread reads the code and the message with shmemx_error_get.
 * A collective that fails on one PE returns there before it communicates,
 * so the other PEs of the call are left waiting for it: recovering from
 * an error in a collective call is the caller's business.
 *
 * The mode is the process's; it may be set at any time, before shmem_init
 * too (so that a call before init returns SHMEMX_ERROR_INVALID_STATE).
 */
enum shmemx_error_mode {
    SHMEMX_ERRORS_ABORT = 0,
    SHMEMX_ERRORS_RETURN = 1
};
/* Sets the mode; returns the previous one, or -1 (nothing changed) for a
 * mode that is not one of the above. */
SHMEM_API int shmemx_set_error_mode(int mode);
SHMEM_API int shmemx_get_error_mode(void);
/* The code of the last error of the calling thread (SHMEMX_SUCCESS when
 * there was none since shmemx_error_clear; a successful call does not
 * clear it), and when msg is not NULL its message, truncated to len - 1
 * bytes and NUL-terminated ("" when none). */
SHMEM_API int shmemx_error_get(char *msg, size_t len);
/* Forgets the calling thread's last error. */
SHMEM_API void shmemx_error_clear(void);

#endif
