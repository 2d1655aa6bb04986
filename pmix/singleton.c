/*
 * Singleton bootstrap: a job of one process, used when no launcher started
 * us (or PMIx is not available at all).
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pmix/shmemb.h"

static int singleton_allgather(shmemb_t *b, const void *in, void *out, size_t len)
{
    (void)b;
    if (len)
        memmove(out, in, len);
    return 0;
}

static int singleton_barrier(shmemb_t *b)
{
    (void)b;
    return 0;
}

static void singleton_abort(shmemb_t *b, int status, const char *msg)
{
    (void)b;
    if (msg)
        fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    _exit(status);
}

/* Alone in the job: leaving is exiting. */
static void singleton_leave(shmemb_t *b, int status, const char *msg)
{
    singleton_abort(b, status, msg);
}

static int singleton_fini(shmemb_t *b)
{
    free(b);
    return 0;
}

int shmemb_singleton_init(shmemb_t **b_p)
{
    shmemb_t *b = calloc(1, sizeof(*b));

    if (!b)
        return -ENOMEM;
    b->name = "singleton";
    b->rank = 0;
    b->nranks = 1;
    /* The pid makes the shared-memory names unique among singletons. */
    snprintf(b->job_id, sizeof(b->job_id), "s%ld", (long)getpid());
    b->allgather = singleton_allgather;
    b->barrier = singleton_barrier;
    b->abort = singleton_abort;
    b->leave = singleton_leave;
    b->fini = singleton_fini;
    b->node_peers = NULL; /* One PE: the host-name map is trivial. */
    b->priv = NULL;
    *b_p = b;
    return 0;
}

#ifndef HAVE_PMIX
/* Built without PMIx: no launcher can be reached. */
int shmemb_pmix_init(shmemb_t **b_p)
{
    (void)b_p;
    return -ENOENT;
}
#endif
