/* fabshmem extensions: teams (included by shmemx.h). */
#ifndef FABSHMEMX_TEAM_H
#define FABSHMEMX_TEAM_H

/* The PEs of my node (virtual nodes included), and one PE per node: the PEs
 * whose index within their node equals mine. */
SHMEM_API extern shmem_team_t SHMEMX_TEAM_NODE;
SHMEM_API extern shmem_team_t SHMEMX_TEAM_SAME_MYPE_NODE;

/* The CPU counterparts of NVSHMEM's GPU locality teams: the PEs of my node
 * that share my NUMA domain, and one leader per (node, NUMA domain): the
 * lowest PE of each.  A PE's domain comes from its CPU affinity (hwloc):
 * the lowest domain whose CPUs the affinity meets, so a PE bound within a
 * domain is in it and unbound PEs are all in the first (domain 0 without
 * hwloc).  On a PE that is not a leader,
 * shmem_team_my_pe(SHMEMX_TEAM_NUMA_LEADERS) is -1. */
SHMEM_API extern shmem_team_t SHMEMX_TEAM_SAME_NUMA;
SHMEM_API extern shmem_team_t SHMEMX_TEAM_NUMA_LEADERS;

/* NVSHMEM's GPU teams: the PEs of my node that use my GPU (the same CUDA
 * device UUID), and one leader per GPU: the lowest PE that uses it.  A PE
 * that has brought up no GPU (none in the machine, a CPU program under
 * FABSHMEM_CUDA=auto, FABSHMEM_CUDA=0) counts as the only user of a GPU of
 * its own: its SHMEMX_TEAM_SAME_GPU is itself alone, and it is a leader.
 * Without GPUs, then, SAME_GPU is {me} and GPU_LEADERS is every PE.  On a
 * PE that is not a leader, shmem_team_my_pe(SHMEMX_TEAM_GPU_LEADERS) is -1. */
SHMEM_API extern shmem_team_t SHMEMX_TEAM_SAME_GPU;
SHMEM_API extern shmem_team_t SHMEMX_TEAM_GPU_LEADERS;

/* A team from any set of PEs (NVSHMEM's nvshmemx_team_get_uniqueid and
 * nvshmemx_team_init): one PE makes an id and hands it to the members any
 * way it likes; each member (and only they) calls shmemx_team_init with the
 * team size and its index in the team, which orders the team.  The PE that
 * made the id need not be a member, but it keeps the rendezvous, so it must
 * stay initialized until the members return.  A team from an id may hold
 * any number of PEs up to the whole job.  An id is in use from
 * shmemx_team_get_uniqueid until every member has returned from
 * shmemx_team_init with it (so an id must be used); a PE may have
 * FABSHMEM_TEAM_UIDS (64) ids in use at once, and shmemx_team_get_uniqueid
 * returns SHMEMX_ERROR_OUT_OF_MEMORY (with a message) while all are.
 * shmemx_team_init returns SHMEMX_SUCCESS, or SHMEMX_ERROR_OUT_OF_MEMORY
 * (team SHMEM_TEAM_INVALID) when no team slot is free on every member. */
typedef struct {
    char internal[32];
} shmemx_team_uniqueid_t;
SHMEM_API int shmemx_team_get_uniqueid(shmemx_team_uniqueid_t *uid);
SHMEM_API int shmemx_team_init(shmem_team_t *team, shmem_team_config_t *config, long config_mask,
                               int npes, int pe_idx_in_team, const shmemx_team_uniqueid_t *uid);

#endif
