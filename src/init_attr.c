/*
 * shmemx_init_attr and its bootstrap choices (unique id; MPI when built
 * with it), and shmemx_init_status.
 *
 * A chosen bootstrap is installed as shmemi_g.boot before the ordinary
 * initialization runs, which then uses it instead of PMIx.  It stays for
 * the life of the process, as the PMIx one does, so that init and finalize
 * may pair more than once.
 */
#include "shmemi.h"
#include <stdlib.h>

static int uid_version_ok(const shmemx_uniqueid_t *uid)
{
    return uid && (uid->version >> 16) == 1 && (size_t)(uid->version & 0xffff) ==
                                                 sizeof(shmemx_uniqueid_t);
}

SHMEM_API int shmemx_get_uniqueid(shmemx_uniqueid_t *uid)
{
    int ret;

    if (!uid) {
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_get_uniqueid: uid is NULL");
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    memset(uid, 0, sizeof(*uid));
    uid->version = SHMEMX_UNIQUEID_VERSION;
    ret = shmemb_uid_create(uid->internal, sizeof(uid->internal));
    if (ret) {
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_get_uniqueid: cannot open the rendezvous socket: %s",
                   strerror(-ret));
        return ret == -ENOMEM ? SHMEMX_ERROR_OUT_OF_MEMORY : SHMEMX_ERROR_BOOTSTRAP;
    }
    return 0;
}

SHMEM_API int shmemx_set_attr_uniqueid_args(int rank, int nranks, const shmemx_uniqueid_t *uid,
                                            shmemx_init_attr_t *attr)
{
    if (!attr || !uid_version_ok(uid) || nranks < 1 || rank < 0 || rank >= nranks) {
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_set_attr_uniqueid_args: %s",
                   !attr ? "attr is NULL" : !uid_version_ok(uid) ?
                   "uid is NULL or not initialized with SHMEMX_UNIQUEID_INITIALIZER / "
                   "shmemx_get_uniqueid" : "rank must be in 0 .. nranks-1 and nranks >= 1");
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    attr->version = SHMEMX_INIT_ATTR_VERSION;
    attr->uid_args.version = SHMEMX_STRUCT_VERSION(1, shmemx_uniqueid_args_t);
    attr->uid_args.rank = rank;
    attr->uid_args.nranks = nranks;
    attr->uid_args.uid = *uid;
    return 0;
}

SHMEM_API int shmemx_set_attr_mpi_comm_args(void *mpi_comm, shmemx_init_attr_t *attr)
{
    if (!attr || !mpi_comm) {
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_set_attr_mpi_comm_args: %s is NULL",
                   !attr ? "attr" : "mpi_comm");
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    attr->version = SHMEMX_INIT_ATTR_VERSION;
    attr->mpi_comm = mpi_comm;
    return 0;
}

SHMEM_API int shmemx_init_attr(unsigned int flags, shmemx_init_attr_t *attr)
{
    unsigned known = SHMEMX_INIT_THREAD_PES | SHMEMX_INIT_WITH_MPI_COMM | SHMEMX_INIT_WITH_UNIQUEID;
    int ret, provided;

    if (flags & ~known) {
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_init_attr: unknown flags 0x%x", flags & ~known);
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    if ((flags & SHMEMX_INIT_WITH_MPI_COMM) && (flags & SHMEMX_INIT_WITH_UNIQUEID)) {
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_init_attr: flags: choose one of "
                   "SHMEMX_INIT_WITH_MPI_COMM and SHMEMX_INIT_WITH_UNIQUEID");
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    if ((flags & (SHMEMX_INIT_WITH_MPI_COMM | SHMEMX_INIT_WITH_UNIQUEID)) &&
        (!attr || (attr->version >> 16) != 1 ||
         (size_t)(attr->version & 0xffff) != sizeof(shmemx_init_attr_t))) {
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_init_attr: attr is NULL or was not filled by "
                   "shmemx_set_attr_*_args (version %d)", attr ? attr->version : 0);
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    if (flags & SHMEMX_INIT_WITH_MPI_COMM) {
#ifdef HAVE_MPI
        if (shmemi_g.boot && strcmp(shmemi_g.boot->name, "mpi")) {
            shmemi_log(SHMEMI_LOG_ERR, "shmemx_init_attr: this process was already bootstrapped "
                       "by %s; a process joins one job only", shmemi_g.boot->name);
            return SHMEMX_ERROR_INVALID_STATE;
        }
        if (!shmemi_g.boot && !attr->mpi_comm) {
            shmemi_log(SHMEMI_LOG_ERR, "shmemx_init_attr: SHMEMX_INIT_WITH_MPI_COMM: attr holds "
                       "no communicator (shmemx_set_attr_mpi_comm_args)");
            return SHMEMX_ERROR_INVALID_VALUE;
        }
        if (!shmemi_g.boot && shmemb_mpi_init(attr->mpi_comm, &shmemi_g.boot))
            return SHMEMX_ERROR_BOOTSTRAP;
#else
        shmemi_log(SHMEMI_LOG_ERR, "shmemx_init_attr: SHMEMX_INIT_WITH_MPI_COMM: this build of "
                   "fabshmem has no MPI bootstrap (configure found no MPI); use "
                   "SHMEMX_INIT_WITH_UNIQUEID (an id passed with MPI_Bcast works) or a PMIx "
                   "launcher");
        return SHMEMX_ERROR_NOT_SUPPORTED;
#endif
    }
    if (flags & SHMEMX_INIT_WITH_UNIQUEID) {
        if (shmemi_g.boot && strcmp(shmemi_g.boot->name, "uniqueid")) {
            shmemi_log(SHMEMI_LOG_ERR, "shmemx_init_attr: this process was already bootstrapped "
                       "by %s; a process joins one job only", shmemi_g.boot->name);
            return SHMEMX_ERROR_INVALID_STATE;
        }
        if (!shmemi_g.boot) {
            if (!uid_version_ok(&attr->uid_args.uid)) {
                shmemi_log(SHMEMI_LOG_ERR, "shmemx_init_attr: the unique id in attr is not "
                           "initialized");
                return SHMEMX_ERROR_INVALID_VALUE;
            }
            ret = shmemb_uid_init(attr->uid_args.uid.internal, sizeof(attr->uid_args.uid.internal),
                                  attr->uid_args.rank, attr->uid_args.nranks, &shmemi_g.boot);
            if (ret)
                return ret == -ENOMEM   ? SHMEMX_ERROR_OUT_OF_MEMORY
                       : ret == -EINVAL ? SHMEMX_ERROR_INVALID_VALUE /* a malformed id */
                                        : SHMEMX_ERROR_BOOTSTRAP;
        }
    }
    return pshmem_init_thread(SHMEM_THREAD_SINGLE, &provided);
}

SHMEM_API int shmemx_init_status(void)
{
    switch (atomic_load(&shmemi_g.state)) {
    case SHMEMI_STATE_INITIALIZED: return SHMEMX_STATUS_IS_INITIALIZED;
    case SHMEMI_STATE_BOOTSTRAPPED: return SHMEMX_STATUS_IS_BOOTSTRAPPED;
    case SHMEMI_STATE_NONE:
    case SHMEMI_STATE_FINALIZED: return SHMEMX_STATUS_NOT_INITIALIZED;
    default: return SHMEMX_STATUS_INVALID;
    }
}
