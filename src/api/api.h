/*
 * What the public routines of src/api share beyond the API part of
 * base/error.h (shmemi_api_check, shmemi_api_fail, shmemi_api_status).
 */
#ifndef SHMEMI_API_H
#define SHMEMI_API_H

#include "core/shmemi.h"
#include <pshmem.h>

/* For a routine that returns a status: 0 when the library is initialized;
 * otherwise the class, after what a call before shmem_init means in every
 * routine (SHMEMX_ERRORS_ABORT: the message and the end of the job;
 * SHMEMX_ERRORS_RETURN: nothing, the caller returns the class). */
static inline int shmemi_api_init_check(const char *rtn)
{
    int rc = shmemi_check_init(rtn);

    if (SHMEMI_UNLIKELY(rc))
        shmemi_api_fail(rc);
    return rc;
}

/* For a routine that returns a pointer: p when rc is 0, else NULL.  A
 * failure recorded as a warning is the NULL that the standard gives (a
 * symmetric heap that cannot hold a block): printed in
 * SHMEMX_ERRORS_ABORT mode, and the program goes on; any other failure
 * goes to shmemi_api_fail. */
static inline void *shmemi_api_ptr(int rc, void *p)
{
    if (SHMEMI_LIKELY(rc == 0))
        return p;
    if (shmemi_err_last()->level == SHMEMI_LOG_WARN)
        shmemi_api_status(rc);
    else
        shmemi_api_fail(rc);
    return NULL;
}

/* For the *_on_stream and shmemx_stream_* routines (src/stream/stream.h):
 * work that a stream refused is the stream's (its next sync reports it;
 * the calling thread's record is clear) and rc is returned as it is; a
 * failure before the work reached a stream (not initialized, a handle
 * that is not a stream: the record is set) is the caller's, as in any
 * routine (SHMEMX_ERRORS_ABORT: the message and the end of the job). */
static inline int shmemi_api_stream(int rc)
{
    if (SHMEMI_UNLIKELY(rc) && shmemi_err_last()->code != SHMEMX_SUCCESS)
        shmemi_api_fail(rc);
    return rc;
}

/* What a failed shmem_init (or start_pes, rtn) means: in
 * SHMEMX_ERRORS_ABORT mode the reason and the end of the job; in
 * SHMEMX_ERRORS_RETURN mode nothing (shmemx_error_get tells). */
void shmemi_api_init_fail(int rc, const char *rtn);

#endif
