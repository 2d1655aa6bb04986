/*
 * MPI bootstrap: the PEs are the ranks of an MPI communicator the
 * application hands to shmemx_init_attr (SHMEMX_INIT_WITH_MPI_COMM), which
 * may be a sub-communicator: each communicator then forms its own job.
 *
 * The library does not link MPI: the MPI routines (and Open MPI's
 * predefined objects) are weak references that the application's own MPI
 * resolves.  A program that asks for this bootstrap without MPI gets an
 * error, and programs without MPI load the library as before.
 *
 * This file is built with the MPI headers only (they ship an OpenSHMEM
 * shmem.h of their own, which must not meet ours).
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "pmix/shmemb.h"

#pragma weak MPI_Initialized
#pragma weak MPI_Finalized
#pragma weak MPI_Comm_dup
#pragma weak MPI_Comm_free
#pragma weak MPI_Comm_rank
#pragma weak MPI_Comm_size
#pragma weak MPI_Allgather
#pragma weak MPI_Barrier
#pragma weak MPI_Abort
#pragma weak MPI_Bcast
#pragma weak MPI_Comm_create_keyval
#pragma weak MPI_Comm_free_keyval
#pragma weak MPI_Comm_set_attr
#pragma weak MPI_Comm_delete_attr
#ifdef OPEN_MPI
#pragma weak ompi_mpi_byte
#pragma weak ompi_mpi_char
#pragma weak ompi_mpi_comm_self
#endif

typedef struct mpib {
    shmemb_t pub;
    MPI_Comm comm;
    int comm_live; /* comm is ours to free */
    int keyval;    /* of the attribute on MPI_COMM_SELF, or -1 */
} mpib_t;

/* The bootstrap outlives shmem_finalize (init may come again) and is
 * closed at exit, usually after the application's MPI_Finalize, when our
 * communicator can no longer be freed.  MPI_Finalize first deletes the
 * attributes of MPI_COMM_SELF: the callback of ours frees it then. */
static int mpib_self_delete(MPI_Comm self, int keyval, void *attr, void *extra)
{
    mpib_t *m = attr;

    (void)self;
    (void)extra;
    if (m->comm_live) {
        m->comm_live = 0;
        MPI_Comm_free(&m->comm);
    }
    /* The keyval goes once its last attribute (this one) is deleted. */
    MPI_Comm_free_keyval(&keyval);
    m->keyval = -1;
    return MPI_SUCCESS;
}

static int mpib_self_copy(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old;
    (void)keyval;
    (void)extra;
    (void)in;
    (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

static int mpib_allgather(shmemb_t *b, const void *in, void *out, size_t len)
{
    mpib_t *m = (mpib_t *)b;

    if (len > (size_t)1 << 30)
        return -EMSGSIZE;
    return MPI_Allgather(in, (int)len, MPI_BYTE, out, (int)len, MPI_BYTE, m->comm) == MPI_SUCCESS
               ? 0 : -EIO;
}

static int mpib_barrier(shmemb_t *b)
{
    return MPI_Barrier(((mpib_t *)b)->comm) == MPI_SUCCESS ? 0 : -EIO;
}

static void mpib_abort(shmemb_t *b, int status, const char *msg)
{
    if (msg)
        fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    MPI_Abort(((mpib_t *)b)->comm, status ? status : 1);
    _exit(status ? status : 1);
}

/* MPI_Abort's status becomes the job's (mpirun's); this process keeps its
 * own where MPI_Abort returns. */
static void mpib_leave(shmemb_t *b, int status, const char *msg)
{
    if (msg)
        fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    MPI_Abort(((mpib_t *)b)->comm, SHMEMB_EXIT_LEFT);
    _exit(status);
}

static int mpib_fini(shmemb_t *b)
{
    mpib_t *m = (mpib_t *)b;
    int fin = 1;

    /* The application may have finalized MPI already (at exit): then the
     * attribute's callback freed the communicator. */
    if (MPI_Finalized(&fin) == MPI_SUCCESS && !fin) {
        if (m->keyval >= 0)
            MPI_Comm_delete_attr(MPI_COMM_SELF, m->keyval); /* frees comm and keyval */
        if (m->comm_live)
            MPI_Comm_free(&m->comm);
    }
    free(m);
    return 0;
}

int shmemb_mpi_init(void *comm_p, shmemb_t **b_p)
{
    mpib_t *m;
    int init = 0, rank, size;
    struct { long pid; char host[56]; } id;

    shmemb_error_clear();
    if (!MPI_Initialized || !MPI_Allgather) {
        shmemb_errorf("shmemx_init_attr: SHMEMX_INIT_WITH_MPI_COMM, but the program is not "
                      "linked with MPI");
        return -ENOSYS;
    }
    if (MPI_Initialized(&init) != MPI_SUCCESS || !init) {
        shmemb_errorf("shmemx_init_attr: SHMEMX_INIT_WITH_MPI_COMM needs MPI_Init first");
        return -EINVAL;
    }
    m = calloc(1, sizeof(*m));
    if (!m)
        return -ENOMEM;
    /* A private copy, so our collectives never match the application's. */
    if (MPI_Comm_dup(*(MPI_Comm *)comm_p, &m->comm) != MPI_SUCCESS ||
        MPI_Comm_rank(m->comm, &rank) != MPI_SUCCESS ||
        MPI_Comm_size(m->comm, &size) != MPI_SUCCESS) {
        free(m);
        return -EIO;
    }
    /* The job id names the shared objects: rank 0's pid and host. */
    memset(&id, 0, sizeof(id));
    id.pid = (long)getpid();
    gethostname(id.host, sizeof(id.host) - 1);
    if (MPI_Bcast(&id, (int)sizeof(id), MPI_BYTE, 0, m->comm) != MPI_SUCCESS) {
        MPI_Comm_free(&m->comm);
        free(m);
        return -EIO;
    }
    {
        unsigned long long h = 1469598103934665603ULL;
        for (size_t i = 0; i < sizeof(id.host) && id.host[i]; i++) {
            h ^= (unsigned char)id.host[i];
            h *= 1099511628211ULL;
        }
        snprintf(m->pub.job_id, sizeof(m->pub.job_id), "m%lx_%llx", id.pid, h & 0xffffffffULL);
    }
    m->comm_live = 1;
    m->keyval = -1;
    if (MPI_Comm_create_keyval && MPI_Comm_set_attr &&
        MPI_Comm_create_keyval(mpib_self_copy, mpib_self_delete, &m->keyval, NULL) ==
            MPI_SUCCESS &&
        MPI_Comm_set_attr(MPI_COMM_SELF, m->keyval, m) != MPI_SUCCESS) {
        MPI_Comm_free_keyval(&m->keyval);
        m->keyval = -1;
    }
    m->pub.name = "mpi";
    m->pub.rank = rank;
    m->pub.nranks = size;
    m->pub.allgather = mpib_allgather;
    m->pub.barrier = mpib_barrier;
    m->pub.abort = mpib_abort;
    m->pub.leave = mpib_leave;
    m->pub.fini = mpib_fini;
    m->pub.node_peers = NULL; /* The host names make the node map. */
    *b_p = &m->pub;
    return 0;
}
