/*
 * The GPU teams, SHMEMX_TEAM_SAME_GPU and SHMEMX_TEAM_GPU_LEADERS, as
 * NVSHMEM defines them: the PEs of my node that use my GPU, and one
 * leader per GPU (the lowest PE that uses it).  Each PE's GPU is
 * shmemi_g.gpu_of[pe], which init made from the GPUs' UUIDs
 * (src/init/init_dev.c).  A PE that has brought up no GPU (a machine
 * without one, a CPU program under FABSHMEM_CUDA=auto, FABSHMEM_CUDA=0)
 * counts as the only user of a GPU of its own: SAME_GPU is that PE alone
 * and it leads it, so without GPUs SAME_GPU is {me} and GPU_LEADERS is
 * every PE (docs/gpu.md).
 */
#include "team/team.h"
#include <stdlib.h>

static struct shmemi_team team_same_gpu_s, team_gpu_leaders_s;
SHMEM_API shmem_team_t SHMEMX_TEAM_SAME_GPU = &team_same_gpu_s;
SHMEM_API shmem_team_t SHMEMX_TEAM_GPU_LEADERS = &team_gpu_leaders_s;

/* PE pe's GPU: the lowest PE of its node on the same GPU, or pe. */
static int gpu_of(int pe)
{
    return shmemi_g.gpu_of ? shmemi_g.gpu_of[pe] : pe;
}

int shmemi_teams_gpu_init(void)
{
    int n = shmemi_g.n_pes, mine = gpu_of(shmemi_g.my_pe), *list, k = 0, pe, ret;

    list = calloc((size_t)n, sizeof(int));
    if (!list)
        return -ENOMEM;
    for (pe = 0; pe < n; pe++)
        if (gpu_of(pe) == mine)
            list[k++] = pe;
    ret = shmemi_team_predef_set(&team_same_gpu_s, SHMEMI_SLOT_SAME_GPU, list, k);
    /* The leaders: the PEs that name their GPU (gpu_of(pe) == pe). */
    for (k = 0, pe = 0; !ret && pe < n; pe++)
        if (gpu_of(pe) == pe)
            list[k++] = pe;
    if (!ret)
        ret = shmemi_team_predef_set(&team_gpu_leaders_s, SHMEMI_SLOT_GPU_LEADERS, list, k);
    free(list);
    return ret;
}

void shmemi_teams_gpu_fini(void)
{
    shmemi_team_free_members(&team_same_gpu_s);
    shmemi_team_free_members(&team_gpu_leaders_s);
}
