/*
 * The NUMA teams, SHMEMX_TEAM_SAME_NUMA and SHMEMX_TEAM_NUMA_LEADERS, made
 * by shmemi_teams_init from every PE's NUMA domain (its CPU affinity, or
 * FABSHMEM_NUMA_DOMAINS).
 */
#include "team/team.h"
#include <stdlib.h>
#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

static struct shmemi_team team_same_numa_s, team_numa_leaders_s;
SHMEM_API shmem_team_t SHMEMX_TEAM_SAME_NUMA = &team_same_numa_s;
SHMEM_API shmem_team_t SHMEMX_TEAM_NUMA_LEADERS = &team_numa_leaders_s;

/* The NUMA domain of this PE, from its CPU affinity (not from the CPU it
 * last ran on, which moves with the scheduler for a PE that is not bound):
 * the lowest (hwloc logical index) NUMA node whose CPUs meet the PE's
 * affinity.  A PE bound within one domain is in that domain; a PE whose
 * affinity spans several (not bound, e.g. mpirun --bind-to none) is in the
 * lowest of them, so the unbound PEs of a host form one SAME_NUMA team.
 * Domain 0 without hwloc or when hwloc cannot tell. */
static int my_numa_domain(void)
{
    int dom = 0;
#ifdef HAVE_HWLOC
    hwloc_topology_t topo;
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();

    if (!cpus)
        return 0;
    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0 &&
            hwloc_get_cpubind(topo, cpus, HWLOC_CPUBIND_PROCESS) == 0) {
            hwloc_obj_t numa = NULL;
            while ((numa = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, numa)))
                if (numa->cpuset && hwloc_bitmap_intersects(numa->cpuset, cpus)) {
                    dom = (int)numa->logical_index;
                    break;
                }
        }
        hwloc_topology_destroy(topo);
    }
    hwloc_bitmap_free(cpus);
#endif
    return dom;
}

/* FABSHMEM_NUMA_DOMAINS=k (developers): k domains made up by cutting the
 * PEs of each node, in PE order, into k groups of consecutive node-local
 * ranks (node-local rank r of s PEs is in domain r * k / s), so that the
 * NUMA teams have several domains on any machine. */
static int fake_numa_domain(long k)
{
    int me = shmemi_g.my_pe, rank = 0, size = 0;

    for (int pe = 0; pe < shmemi_g.n_pes; pe++)
        if (shmemi_g.node_of[pe] == shmemi_g.node_of[me]) {
            rank += pe < me;
            size++;
        }
    return (int)((long long)rank * k / size);
}

int shmemi_teams_numa_init(void)
{
    int n = shmemi_g.n_pes, me = shmemi_g.my_pe, mine, *dom, *list, k = 0, ret;
    long fake = shmemi_g.env.numa_domains;

    mine = fake ? fake_numa_domain(fake) : my_numa_domain();
    shmemi_debug("NUMA domain %d (%s)", mine, fake ? "FABSHMEM_NUMA_DOMAINS" : "affinity");
    dom = malloc(sizeof(int) * n);
    list = malloc(sizeof(int) * n);
    if (!dom || !list) {
        free(dom);
        free(list);
        return -ENOMEM;
    }
    ret = shmemi_g.boot->allgather(shmemi_g.boot, &mine, dom, sizeof(int));
    if (ret)
        goto out;
    for (int pe = 0; pe < n; pe++)
        if (shmemi_g.node_of[pe] == shmemi_g.node_of[me] && dom[pe] == dom[me])
            list[k++] = pe;
    if ((ret = shmemi_team_predef_set(&team_same_numa_s, SHMEMI_SLOT_NUMA, list, k)))
        goto out;
    /* Leaders: the lowest PE of each (node, domain). */
    k = 0;
    for (int pe = 0; pe < n; pe++) {
        int first = 1;
        for (int q = 0; q < pe && first; q++)
            if (shmemi_g.node_of[q] == shmemi_g.node_of[pe] && dom[q] == dom[pe])
                first = 0;
        if (first)
            list[k++] = pe;
    }
    ret = shmemi_team_predef_set(&team_numa_leaders_s, SHMEMI_SLOT_NUMA_LEADERS, list, k);
out:
    free(dom);
    free(list);
    return ret;
}

void shmemi_teams_numa_fini(void)
{
    shmemi_team_free_members(&team_same_numa_s);
    shmemi_team_free_members(&team_numa_leaders_s);
}
