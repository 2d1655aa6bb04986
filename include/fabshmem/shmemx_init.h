/*
 * fabshmem extensions: bootstrap choices and init status (included by
 * shmemx.h), modelled on NVSHMEM's nvshmemx_init_attr family.
 *
 * Structures that may grow carry a version first:
 *   version = (struct_version << 16) + sizeof(struct)
 * so that the library can tell which layout a caller was compiled with.
 * The library reads every layout it has ever published (a program built
 * against an older shmemx.h keeps working; the fields it does not have
 * take their initializer's value) and refuses a newer or unknown one with
 * SHMEMX_ERROR_INVALID_VALUE and a message naming the field.  Declare
 * these structures with their *_INITIALIZER.
 */
#ifndef FABSHMEMX_INIT_H
#define FABSHMEMX_INIT_H

#define SHMEMX_STRUCT_VERSION(v, type) ((int)(((v) << 16) + sizeof(type)))

/* An opaque unique id: a rendezvous address and a random secret.  It is a
 * key to the job: pass it only to the processes that are to join. */
#define SHMEMX_UNIQUEID_BYTES 120
typedef struct {
    int version;
    char internal[SHMEMX_UNIQUEID_BYTES];
} shmemx_uniqueid_t;
#define SHMEMX_UNIQUEID_VERSION SHMEMX_STRUCT_VERSION(1, shmemx_uniqueid_t)
#define SHMEMX_UNIQUEID_INITIALIZER { SHMEMX_UNIQUEID_VERSION, { 0 } }

typedef struct {
    int version;
    int rank;
    int nranks;
    shmemx_uniqueid_t uid;
} shmemx_uniqueid_args_t;
#define SHMEMX_UNIQUEID_ARGS_VERSION SHMEMX_STRUCT_VERSION(1, shmemx_uniqueid_args_t)
#define SHMEMX_UNIQUEID_ARGS_INITIALIZER \
    { SHMEMX_UNIQUEID_ARGS_VERSION, 0, 0, SHMEMX_UNIQUEID_INITIALIZER }

/* Version 1 ended after uid_args; version 2 added thread_level. */
typedef struct {
    int version;
    /* SHMEMX_INIT_WITH_MPI_COMM: a pointer to the MPI_Comm to boot over. */
    void *mpi_comm;
    /* SHMEMX_INIT_WITH_UNIQUEID. */
    shmemx_uniqueid_args_t uid_args;
    /* Version 2: the thread level to initialize at (SHMEM_THREAD_SINGLE,
     * FUNNELED, SERIALIZED or MULTIPLE), as shmem_init_thread's requested;
     * shmem_query_thread tells the level provided.  An attr of version 1
     * initializes at SHMEM_THREAD_SINGLE. */
    int thread_level;
} shmemx_init_attr_t;
#define SHMEMX_INIT_ATTR_VERSION SHMEMX_STRUCT_VERSION(2, shmemx_init_attr_t)
#define SHMEMX_INIT_ATTR_INITIALIZER \
    { SHMEMX_INIT_ATTR_VERSION, 0, SHMEMX_UNIQUEID_ARGS_INITIALIZER, 0 /* SINGLE */ }

/* Flags of shmemx_init_attr (NVSHMEM's values).  SHMEMX_INIT_THREAD_PES
 * is accepted for NVSHMEM's sake and changes nothing (PEs are processes;
 * the thread level is attr->thread_level). */
#define SHMEMX_INIT_THREAD_PES     (1u << 0)
#define SHMEMX_INIT_WITH_MPI_COMM  (1u << 1)
#define SHMEMX_INIT_WITH_UNIQUEID  (1u << 3)

/* What shmemx_init_status returns (NVSHMEM's values and meanings). */
enum {
    /* The process has not joined a job: before the first init, or after
     * an init that failed before or in the bootstrap. */
    SHMEMX_STATUS_NOT_INITIALIZED = 0,
    /* The process has joined a job (the bootstrap knows its rank and the
     * job size) but the library is not initialized: after
     * shmem_finalize (the bootstrap stays, so that init may come again),
     * after an init that failed past the bootstrap and was undone on every
     * PE, and while init runs. */
    SHMEMX_STATUS_IS_BOOTSTRAPPED = 1,
    SHMEMX_STATUS_IS_INITIALIZED = 2,
    /* (3 and 4 are NVSHMEM's multi-process-per-GPU states.)  The library's
     * state is not this process's: a child made by fork() of a process
     * that had joined a job.  Init there fails with
     * SHMEMX_ERROR_INVALID_STATE; the child may exec or exit. */
    SHMEMX_STATUS_INVALID = 0x7fffffff
};

/* Makes a unique id on one process (which then takes part in the job as
 * the rendezvous point); the application hands it to the others.
 * SHMEMX_SUCCESS, or (with a message on stderr) SHMEMX_ERROR_INVALID_VALUE
 * for a NULL uid, SHMEMX_ERROR_BOOTSTRAP when the rendezvous socket cannot
 * be opened (FABSHMEM_BOOTSTRAP_IFNAME names no interface that is up). */
SHMEM_API int shmemx_get_uniqueid(shmemx_uniqueid_t *uid);
/* Fills attr for SHMEMX_INIT_WITH_UNIQUEID: this process is rank of
 * nranks.  attr keeps its version (an attr never initialized is taken as
 * version 1, with a warning).  SHMEMX_SUCCESS, or
 * SHMEMX_ERROR_INVALID_VALUE on bad arguments (uid->version included). */
SHMEM_API int shmemx_set_attr_uniqueid_args(int rank, int nranks, const shmemx_uniqueid_t *uid,
                                            shmemx_init_attr_t *attr);
/* Fills attr for SHMEMX_INIT_WITH_MPI_COMM (mpi_comm points to an
 * MPI_Comm; its ranks become the PEs), keeping attr's version as
 * shmemx_set_attr_uniqueid_args does.  SHMEMX_SUCCESS, or
 * SHMEMX_ERROR_INVALID_VALUE for a NULL argument. */
SHMEM_API int shmemx_set_attr_mpi_comm_args(void *mpi_comm, shmemx_init_attr_t *attr);
/* Initializes with the bootstrap flags choose (0: as shmem_init, by
 * FABSHMEM_BOOTSTRAP) at attr->thread_level (attr NULL: flags 0 or
 * SHMEMX_INIT_THREAD_PES only, SHMEM_THREAD_SINGLE).  SHMEMX_SUCCESS, or
 * with a message: SHMEMX_ERROR_INVALID_VALUE (unknown or conflicting flags;
 * attr->version, attr->uid_args.version or attr->uid_args.uid.version not
 * one this library knows; an attr not filled by shmemx_set_attr_*_args; a
 * malformed id; an unknown thread level), SHMEMX_ERROR_NOT_SUPPORTED
 * (SHMEMX_INIT_WITH_MPI_COMM in a build without MPI),
 * SHMEMX_ERROR_INVALID_STATE (the process was bootstrapped another way, or
 * is a fork of one that was), SHMEMX_ERROR_BOOTSTRAP (the rendezvous
 * failed), or what shmem_init_thread returns (shmemx_error.h). */
SHMEM_API int shmemx_init_attr(unsigned int flags, shmemx_init_attr_t *attr);
/* SHMEMX_STATUS_*. */
SHMEM_API int shmemx_init_status(void);

#endif
