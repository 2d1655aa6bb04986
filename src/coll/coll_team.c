/*
 * What the collectives keep on a team (struct shmemi_coll_team, coll.h):
 * attached at the first collective, freed by the team layer through the
 * team's coll_free when the team's members go.
 */
#include "coll/coll.h"
#include <stdlib.h>

static void coll_team_free(struct shmemi_team *t)
{
    struct shmemi_coll_team *c = t->coll;

    if (!c)
        return;
    shmemi_coll_hier_free(c->hier);
    free(c);
}

struct shmemi_coll_team *shmemi_coll_attach(struct shmemi_team *t)
{
    struct shmemi_coll_team *c = calloc(1, sizeof(*c));

    if (!c)
        shmemi_fatal("collective: out of memory for the state of a team of %d PEs", t->n_pes);
    t->coll = c;
    t->coll_free = coll_team_free;
    return c;
}
