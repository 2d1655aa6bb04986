/*
 * What a failure of a team collective means for its caller (the API's
 * decision, base/error.h): a team that is not a valid team of this PE (a
 * PE outside a split) is an ordinary case of the team routines, returned
 * without a message (SHMEMX_ERROR_INVALID_VALUE, recorded for
 * shmemx_error_get); every other failure (bad arguments, the transport)
 * ends the job in SHMEMX_ERRORS_ABORT mode, as it always did, and is
 * returned in SHMEMX_ERRORS_RETURN mode.  A handle of a destroyed team is
 * returned like an invalid one, with its message printed (in the default
 * mode): using it is a bug of the program.
 */
#ifndef SHMEMI_API_COLL_STATUS_H
#define SHMEMI_API_COLL_STATUS_H

#include "coll/coll.h"

static inline int shmemi_api_coll_status(int rc, shmem_team_t team)
{
    if (SHMEMI_UNLIKELY(rc) && (rc == SHMEMX_ERROR_INVALID_STATE || shmemi_team_ok(team)))
        shmemi_api_fail(rc);
    else if (SHMEMI_UNLIKELY(rc) && shmemi_team_destroyed(team))
        return shmemi_api_status(rc);
    return rc;
}

#endif
