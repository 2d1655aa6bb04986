/*
 * fabshmem extensions: bootstrap choices and init status (included by
 * shmemx.h), modelled on NVSHMEM's nvshmemx_init_attr family.
 *
 * Structures that may grow carry a version first:
 *   version = (struct_version << 16) + sizeof(struct)
 * so that the library can tell which layout a caller was compiled with.
 */
#ifndef FABSHMEMX_INIT_H
#define FABSHMEMX_INIT_H

#define SHMEMX_STRUCT_VERSION(v, type) ((int)(((v) << 16) + sizeof(type)))

/* An opaque unique id: a rendezvous address and a random secret. */
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

typedef struct {
    int version;
    /* SHMEMX_INIT_WITH_MPI_COMM: a pointer to the MPI_Comm to boot over. */
    void *mpi_comm;
    /* SHMEMX_INIT_WITH_UNIQUEID. */
    shmemx_uniqueid_args_t uid_args;
} shmemx_init_attr_t;
#define SHMEMX_INIT_ATTR_VERSION SHMEMX_STRUCT_VERSION(1, shmemx_init_attr_t)
#define SHMEMX_INIT_ATTR_INITIALIZER \
    { SHMEMX_INIT_ATTR_VERSION, 0, { 0, 0, 0, SHMEMX_UNIQUEID_INITIALIZER } }

/* Flags of shmemx_init_attr (NVSHMEM's values). */
#define SHMEMX_INIT_THREAD_PES     (1u << 0)
#define SHMEMX_INIT_WITH_MPI_COMM  (1u << 1)
#define SHMEMX_INIT_WITH_UNIQUEID  (1u << 3)

/* What shmemx_init_status returns. */
enum {
    SHMEMX_STATUS_NOT_INITIALIZED = 0,
    SHMEMX_STATUS_IS_BOOTSTRAPPED = 1,
    SHMEMX_STATUS_IS_INITIALIZED = 2,
    SHMEMX_STATUS_INVALID = 3
};

/* Makes a unique id on one process (which then takes part in the job as
 * the rendezvous point); the application hands it to the others.
 * SHMEMX_SUCCESS, or (with a message on stderr) SHMEMX_ERROR_INVALID_VALUE
 * for a NULL uid, SHMEMX_ERROR_BOOTSTRAP when the rendezvous socket cannot
 * be opened. */
SHMEM_API int shmemx_get_uniqueid(shmemx_uniqueid_t *uid);
/* Fills attr for SHMEMX_INIT_WITH_UNIQUEID: this process is rank of
 * nranks.  SHMEMX_SUCCESS, or SHMEMX_ERROR_INVALID_VALUE on bad arguments. */
SHMEM_API int shmemx_set_attr_uniqueid_args(int rank, int nranks, const shmemx_uniqueid_t *uid,
                                            shmemx_init_attr_t *attr);
/* Fills attr for SHMEMX_INIT_WITH_MPI_COMM (mpi_comm points to an
 * MPI_Comm; its ranks become the PEs).  SHMEMX_SUCCESS, or
 * SHMEMX_ERROR_INVALID_VALUE for a NULL argument. */
SHMEM_API int shmemx_set_attr_mpi_comm_args(void *mpi_comm, shmemx_init_attr_t *attr);
/* Initializes with the bootstrap flags choose (0: PMIx or a single PE,
 * as shmem_init).  SHMEMX_SUCCESS, or with a message:
 * SHMEMX_ERROR_INVALID_VALUE (unknown or conflicting flags, an attr not
 * filled by shmemx_set_attr_*_args, a malformed id), SHMEMX_ERROR_NOT_
 * SUPPORTED (SHMEMX_INIT_WITH_MPI_COMM in a build without MPI),
 * SHMEMX_ERROR_INVALID_STATE (the process was bootstrapped another way),
 * SHMEMX_ERROR_BOOTSTRAP (the rendezvous failed), or what shmem_init_thread
 * returns (shmemx_error.h). */
SHMEM_API int shmemx_init_attr(unsigned int flags, shmemx_init_attr_t *attr);
/* SHMEMX_STATUS_*. */
SHMEM_API int shmemx_init_status(void);

#endif
