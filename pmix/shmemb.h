/*
 * Bootstrap interface: how PEs find each other before any data moves.
 *
 * A bootstrap is a small table of collective operations over all processes
 * of the job.  PMIx is the default; a process started without a launcher
 * runs as a singleton.  Every operation returns 0 or a negative errno.
 */
#ifndef SHMEMB_H
#define SHMEMB_H

#include <stddef.h>

typedef struct shmemb shmemb_t;

/* Exit statuses of the processes that a bootstrap ends (docs/design/memory.md,
 * "Lifetime"): SHMEMB_EXIT_LEFT for the others when one process left the
 * job without shmem_finalize (leave); SHMEMB_EXIT_LOST for a process
 * whose job lost a member without a word (a PE killed or crashed, the
 * unique-id hub gone, the launcher's PMIx server gone) or whose bootstrap
 * connections broke. */
#define SHMEMB_EXIT_LEFT 250
#define SHMEMB_EXIT_LOST 251

struct shmemb {
    const char *name;   /* "pmix", "singleton", ... */
    int rank;           /* this process, 0 .. nranks-1 */
    int nranks;
    /* A job-unique string (PMIx namespace, ...), used to name shared objects. */
    char job_id[64];

    /* out (nranks * len bytes) receives every rank's in (len bytes), in rank
     * order.  Collective: every rank calls it with the same len. */
    int (*allgather)(shmemb_t *b, const void *in, void *out, size_t len);
    /* Collective barrier among all ranks. */
    int (*barrier)(shmemb_t *b);
    /* Ends the whole job: every process exits with status (msg, when not
     * NULL, is printed here and passed to the others).  Never returns. */
    void (*abort)(shmemb_t *b, int status, const char *msg);
    /* This process is leaving with status (it called exit() with the
     * library still initialized): it exits with status, and the job ends,
     * the other processes with SHMEMB_EXIT_LEFT (under a launcher, the
     * launcher's own status is SHMEMB_EXIT_LEFT).  Never returns. */
    void (*leave)(shmemb_t *b, int status, const char *msg);
    /* Releases the bootstrap.  Not collective. */
    int (*fini)(shmemb_t *b);
    /* Optional (NULL: the bootstrap does not know).  The ranks that the
     * launcher placed on this process's node, this one included: fills
     * ranks[0 .. *n_p - 1], at most max of them.  -ENOENT when the launcher
     * does not say; other errors (-EINVAL: what it says does not parse)
     * also leave the caller with the host names.  Not collective. */
    int (*node_peers)(shmemb_t *b, int *ranks, int max, int *n_p);
    void *priv;
};

/* A bootstrap's error message (pmix/boot_err.c): printed on stderr as
 * "fabshmem error: ..." and kept as the calling thread's last one (a
 * trailing newline dropped), which init puts into the error it records
 * when the bootstrap fails.  shmemb_error_last is "" when none was kept
 * since shmemb_error_clear. */
void shmemb_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *shmemb_error_last(void);
void shmemb_error_clear(void);

/* Parses a PMIX_LOCAL_PEERS string (pmix/peers.c): decimal ranks below
 * nranks separated by commas, blanks allowed around each.  Fills
 * ranks[0 .. *n_p - 1]; -EINVAL for anything else (an empty string, an
 * empty entry, a sign, a range "0-3", a rank out of range), -ENOSPC for
 * more than max entries. */
int shmemb_peers_parse(const char *s, int nranks, int *ranks, int max, int *n_p);

/* What the core tells a bootstrap at its init, parsed from the
 * environment table (src/core/env.def): a bootstrap reads no environment
 * variable of ours itself, as the transport (providers/shmemt.h). */
typedef struct shmemb_init_args {
    /* Unique id: the interface the hub listens on
     * (FABSHMEM_BOOTSTRAP_IFNAME); NULL or "": the first IPv4 interface
     * that is up and not loopback, else loopback. */
    const char *ifname;
    /* Unique id: seconds every rank has to join
     * (FABSHMEM_BOOTSTRAP_TIMEOUT; 0 or less: 120). */
    double timeout_s;
} shmemb_init_args_t;

/* Starts the PMIx client.  Returns -ENOENT when no PMIx server is reachable
 * (the process was not started by a launcher); other errors are real. */
int shmemb_pmix_init(shmemb_t **b_p);
/* A one-process job. */
int shmemb_singleton_init(shmemb_t **b_p);
/* Unique-id bootstrap (pmix/uid*.c): shmemb_uid_create makes an id (uid_len
 * bytes, at most SHMEMB_UID_BYTES used) and makes this process the hub of
 * the job that will use it (-ENODEV: args->ifname names no interface that
 * is up); shmemb_uid_init joins the job as rank of nranks (collective over
 * the nranks processes), all of whom must join within args->timeout_s
 * seconds.  -EINVAL for an id that is not one (a message says
 * so), -ECONNREFUSED when the hub refused this process, -ETIMEDOUT. */
#define SHMEMB_UID_BYTES 64
int shmemb_uid_create(const shmemb_init_args_t *args, void *uid, size_t uid_len);
int shmemb_uid_init(const shmemb_init_args_t *args, const void *uid, size_t uid_len, int rank,
                    int nranks, shmemb_t **b_p);
/* MPI bootstrap (pmix/mpi.c, when built with MPI): the ranks of the
 * communicator *comm_p (an MPI_Comm) become the PEs. */
int shmemb_mpi_init(void *comm_p, shmemb_t **b_p);

#endif
