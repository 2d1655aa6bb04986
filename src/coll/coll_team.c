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

int shmemi_coll_attach(struct shmemi_team *t)
{
    struct shmemi_coll_team *c = calloc(1, sizeof(*c));
    void *none = NULL;
    int rc;

    if (!c)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "collective: out of memory for the "
                                "state of a team of %d PEs", t->n_pes);
    if ((rc = shmemi_coll_hier_make(t, &c->hier))) {
        free(c);
        return rc;
    }
    /* Two threads may meet here on a predefined team (a stream's worker
     * and the application): the first one's state stays. */
    t->coll_free = coll_team_free;
    if (!__atomic_compare_exchange_n(&t->coll, &none, c, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        shmemi_coll_hier_free(c->hier);
        free(c);
    }
    return 0;
}
