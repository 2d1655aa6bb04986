/*
 * err_coll CASE: bad input to teams, contexts and collectives.  Each case
 * must end the job with a non-zero status and a message naming the
 * routine and the argument (tests/init/errors.sh checks the text):
 *   root     shmem_broadcastmem with PE_root = the team's size
 *   algo     FABSHMEM_BCAST_ALGO set to an unknown name (errors.sh sets
 *            it): shmem_init fails, naming the variable (a broadcast
 *            would follow)
 *   redsym   shmem_long_sum_reduce with a dest that is not symmetric
 *   teampe   shmem_ctx_putmem on a team context to a PE outside the team
 *   alltoalls shmem_alltoallsmem with a stride of 0
 *   ctxenv   FABSHMEM_CTX_ENDPOINTS=-1 (errors.sh sets it): shmem_init fails
 */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    static long dst[64], src[64];
    long stack_dst[64];
    shmem_team_t half = SHMEM_TEAM_INVALID;
    shmem_ctx_t ctx;
    int n;

    shmem_init();
    n = shmem_n_pes();
    shmem_barrier_all();
    if (!strcmp(c, "root")) {
        shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, sizeof(src), n);
    } else if (!strcmp(c, "algo")) {
        shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, sizeof(src), 0);
    } else if (!strcmp(c, "redsym")) {
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, stack_dst, src, 64);
    } else if (!strcmp(c, "teampe")) {
        /* The first half of the PEs (at least one). */
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n > 1 ? n / 2 : 1, NULL, 0, &half);
        if (half != SHMEM_TEAM_INVALID && shmem_team_create_ctx(half, 0, &ctx) == 0)
            shmem_ctx_putmem(ctx, dst, src, 8, shmem_team_n_pes(half));
        shmem_barrier_all();
    } else if (!strcmp(c, "alltoalls")) {
        shmem_alltoallsmem(SHMEM_TEAM_WORLD, dst, src, 0, 1, 8);
    }
    shmem_barrier_all();
    printf("err_coll %s: PE %d: the bad call returned\n", c, shmem_my_pe());
    shmem_finalize();
    return 0;
}
