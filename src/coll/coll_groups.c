/*
 * The node groups of a team (struct shmemi_coll_hier, coll.h), on which
 * the hierarchical collectives stand: members grouped by (virtual) node,
 * each group in team order and led by its first member, with the runs of
 * consecutive team indices of each group.  Made when the collectives
 * attach to a team.
 */
#include "coll/coll.h"
#include <stdlib.h>

/* NULL or partly allocated too. */
void shmemi_coll_hier_free(struct shmemi_coll_hier *h)
{
    if (!h)
        return;
    free(h->gfirst);
    free(h->mem);
    free(h->group_of);
    free(h->lead);
    free(h->rfirst);
    free(h->rs);
    free(h->re);
    free(h);
}

void shmemi_coll_hier_group(struct shmemi_coll_hier *h, const int *node, int n, int nnodes,
                            int me, int *work)
{
    int *gid = work, *fill = work + nnodes, i, g, nr;

    /* Group ids in the order of the groups' first members. */
    for (i = 0; i < nnodes; i++)
        gid[i] = -1;
    for (i = 0; i <= n; i++)
        fill[i] = 0;
    h->ng = 0;
    for (i = 0; i < n; i++) {
        int nd = node[i];
        if (gid[nd] < 0)
            gid[nd] = h->ng++;
        h->group_of[i] = gid[nd];
        fill[gid[nd] + 1]++;
    }
    /* Members of each group in team order (a counting sort). */
    for (g = 0; g < h->ng; g++)
        fill[g + 1] += fill[g];
    for (g = 0; g <= h->ng; g++)
        h->gfirst[g] = fill[g];
    for (i = 0; i < n; i++)
        h->mem[fill[h->group_of[i]]++] = i;
    for (g = 0; g < h->ng; g++)
        h->lead[g] = h->mem[h->gfirst[g]];
    /* Runs of consecutive team indices within each group. */
    for (g = 0, nr = 0; g < h->ng; g++) {
        h->rfirst[g] = nr;
        for (i = h->gfirst[g]; i < h->gfirst[g + 1]; i++) {
            if (i > h->gfirst[g] && h->mem[i] == h->re[nr - 1]) {
                h->re[nr - 1]++;
                continue;
            }
            h->rs[nr] = h->mem[i];
            h->re[nr++] = h->mem[i] + 1;
        }
    }
    h->rfirst[h->ng] = nr;
    h->my_group = h->group_of[me];
    h->ok = h->ng > 1 && h->ng < n;
}

struct shmemi_coll_hier *shmemi_coll_hier_alloc(int n)
{
    struct shmemi_coll_hier *h = calloc(1, sizeof(*h));

    if (!h)
        return NULL;
    h->gfirst = malloc(sizeof(int) * (size_t)(n + 1));
    h->mem = malloc(sizeof(int) * (size_t)n);
    h->group_of = malloc(sizeof(int) * (size_t)n);
    h->lead = malloc(sizeof(int) * (size_t)n);
    h->rfirst = malloc(sizeof(int) * (size_t)(n + 1));
    h->rs = malloc(sizeof(int) * (size_t)n);
    h->re = malloc(sizeof(int) * (size_t)n);
    if (!h->gfirst || !h->mem || !h->group_of || !h->lead || !h->rfirst || !h->rs || !h->re) {
        shmemi_coll_hier_free(h);
        return NULL;
    }
    return h;
}

int shmemi_coll_hier_make(struct shmemi_team *t, struct shmemi_coll_hier **h_p)
{
    int n = t->n_pes, nn = shmemi_g.n_nodes > 0 ? shmemi_g.n_nodes : 1, i, *work;
    struct shmemi_coll_hier *h;

    *h_p = NULL;
    if (t->all_mapped || !shmemi_g.env.direct || n < 3)
        return 0;
    h = shmemi_coll_hier_alloc(n);
    work = malloc(sizeof(int) * ((size_t)nn + (size_t)n + 1 + (size_t)n));
    if (!h || !work) {
        shmemi_coll_hier_free(h);
        free(work);
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "collective: out of memory for the "
                                "node groups of a team of %d PEs", n);
    }
    /* The node of each member, then the grouping's work space. */
    for (i = 0; i < n; i++)
        work[i] = shmemi_g.node_of[t->pes[i]];
    shmemi_coll_hier_group(h, work, n, nn, t->my_pe, work + n);
    free(work);
    /* The node-local phases read the group's slots through the mapping. */
    for (i = h->gfirst[h->my_group]; h->ok && i < h->gfirst[h->my_group + 1]; i++)
        if (!shmemi_g.peer_heap[t->pes[h->mem[i]]]) {
            int pe = t->pes[h->mem[i]];
            shmemi_coll_hier_free(h);
            return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "collective: PE %d shares node %d "
                                    "with PE %d but does not map its heap, which the "
                                    "hierarchical collectives need; set FABSHMEM_DIRECT=0",
                                    shmemi_g.my_pe, shmemi_g.node_of[shmemi_g.my_pe], pe);
        }
    *h_p = h;
    return 0;
}

