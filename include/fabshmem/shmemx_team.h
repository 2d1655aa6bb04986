/* fabshmem extensions: teams (included by shmemx.h). */
#ifndef FABSHMEMX_TEAM_H
#define FABSHMEMX_TEAM_H

/* The PEs of my node (virtual nodes included), and one PE per node: the PEs
 * whose index within their node equals mine. */
SHMEM_API extern shmem_team_t SHMEMX_TEAM_NODE;
SHMEM_API extern shmem_team_t SHMEMX_TEAM_SAME_MYPE_NODE;

#endif
