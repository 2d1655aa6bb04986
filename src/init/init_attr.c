/*
 * shmemx_init_attr and its bootstrap choices (unique id; MPI when built
 * with it), the unique-id bootstrap of FABSHMEM_BOOTSTRAP=uid, and
 * shmemx_init_status.
 *
 * A chosen bootstrap is made inside the ordinary initialization (after the
 * environment is checked), which then uses it instead of PMIx.  It stays
 * for the life of the process, as the PMIx one does, so that init and
 * finalize may pair more than once.
 *
 * The versioned structures (shmemx_init.h): every layout ever published is
 * listed below with its size, and a caller's structure is read only as far
 * as its own layout goes.
 */
#include "init/init.h"
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Version 1 of shmemx_init_attr_t: everything before thread_level. */
typedef struct {
    int version;
    void *mpi_comm;
    shmemx_uniqueid_args_t uid_args;
} init_attr_v1_t;

/* sizes[v]: the size of struct version v (1 .. n-1). */
static const size_t attr_sizes[] = { 0, sizeof(init_attr_v1_t), sizeof(shmemx_init_attr_t) };
static const size_t uid_args_sizes[] = { 0, sizeof(shmemx_uniqueid_args_t) };
static const size_t uid_sizes[] = { 0, sizeof(shmemx_uniqueid_t) };
#define NSIZES(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Checks the version word of a versioned structure: 0, or -1 after a
 * message naming the routine and the field (quiet: no message). */
static int version_check(const char *rtn, const char *field, int version, const size_t *sizes,
                         int nsizes, const char *initializer, int quiet)
{
    unsigned v = (unsigned)version >> 16, size = (unsigned)version & 0xffff;

    if (version > 0 && v >= 1 && (int)v < nsizes && size == sizes[v])
        return 0;
    if (quiet)
        return -1;
    if (version == 0)
        shmemi_log(SHMEMI_LOG_ERR, "%s: %s is 0: the structure was not initialized (declare it "
                   "with %s)", rtn, field, initializer);
    else if (version < 0 || v == 0)
        shmemi_log(SHMEMI_LOG_ERR, "%s: %s is %d: not a version word (declare the structure "
                   "with %s)", rtn, field, version, initializer);
    else if ((int)v >= nsizes)
        shmemi_log(SHMEMI_LOG_ERR, "%s: %s: struct version %u is newer than this library's "
                   "(%d): the program was built against a newer shmemx.h than the fabshmem it "
                   "runs with", rtn, field, v, nsizes - 1);
    else
        shmemi_log(SHMEMI_LOG_ERR, "%s: %s: %u bytes for struct version %u, which has %zu: the "
                   "structure is corrupt or from another ABI", rtn, field, size, v, sizes[v]);
    return -1;
}

#define UID_CHECK(rtn, field, uid, quiet)                                                     \
    version_check(rtn, field, (uid)->version, uid_sizes, NSIZES(uid_sizes),                   \
                  "SHMEMX_UNIQUEID_INITIALIZER", quiet)

/* Copies the caller's attr, as far as its version goes, over the
 * initializer's values.  0, or -1 after a message. */
static int attr_read(const char *rtn, const shmemx_init_attr_t *attr, shmemx_init_attr_t *out_p)
{
    shmemx_init_attr_t a = SHMEMX_INIT_ATTR_INITIALIZER;

    if (version_check(rtn, "attr->version", attr->version, attr_sizes, NSIZES(attr_sizes),
                      "SHMEMX_INIT_ATTR_INITIALIZER", 0))
        return -1;
    memcpy(&a, attr, attr_sizes[(unsigned)attr->version >> 16]);
    *out_p = a;
    return 0;
}

/* For the shmemx_set_attr_* helpers: attr keeps a version this library
 * knows, or a zeroed attr becomes version 1 (the layout every version
 * starts with, so nothing past the caller's structure is read later). */
static int attr_stamp(const char *rtn, shmemx_init_attr_t *attr)
{
    if (attr->version == 0) {
        shmemi_warn("%s: attr->version is 0: attr is taken as a version 1 attribute, without "
                    "thread_level (declare it with SHMEMX_INIT_ATTR_INITIALIZER)", rtn);
        attr->version = SHMEMX_STRUCT_VERSION(1, init_attr_v1_t);
        return 0;
    }
    return version_check(rtn, "attr->version", attr->version, attr_sizes, NSIZES(attr_sizes),
                         "SHMEMX_INIT_ATTR_INITIALIZER", 0);
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
    const char *rtn = "shmemx_set_attr_uniqueid_args";

    if (!attr || !uid) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: %s is NULL", rtn, !attr ? "attr" : "uid");
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    if (UID_CHECK(rtn, "uid->version", uid, 0))
        return SHMEMX_ERROR_INVALID_VALUE;
    if (nranks < 1 || rank < 0 || rank >= nranks) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: rank %d, nranks %d: rank must be in 0 .. nranks-1 and "
                   "nranks >= 1", rtn, rank, nranks);
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    if (attr_stamp(rtn, attr))
        return SHMEMX_ERROR_INVALID_VALUE;
    attr->uid_args.version = SHMEMX_UNIQUEID_ARGS_VERSION;
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
    if (attr_stamp("shmemx_set_attr_mpi_comm_args", attr))
        return SHMEMX_ERROR_INVALID_VALUE;
    attr->mpi_comm = mpi_comm;
    return 0;
}

/* ---- the bootstraps shmemi_init makes on our behalf ---- */

static int boot_uid(void *arg, shmemb_t **b_p)
{
    const shmemx_uniqueid_args_t *a = arg;

    return shmemb_uid_init(a->uid.internal, sizeof(a->uid.internal), a->rank, a->nranks,
                           (double)shmemi_g.env.bootstrap_timeout, b_p);
}

#ifdef HAVE_MPI
static int boot_mpi(void *arg, shmemb_t **b_p)
{
    return shmemb_mpi_init(arg, b_p);
}
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Writes uid to path through a private temporary file and a rename. */
static int uid_file_write(const char *path, const shmemx_uniqueid_t *uid)
{
    char tmp[PATH_MAX];
    int fd, ret = 0;

    if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof(tmp))
        return -ENAMETOOLONG;
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    if (write(fd, uid, sizeof(*uid)) != (ssize_t)sizeof(*uid))
        ret = errno ? -errno : -EIO;
    if (close(fd) && !ret)
        ret = -errno;
    if (!ret && rename(tmp, path))
        ret = -errno;
    if (ret)
        unlink(tmp);
    return ret;
}

/* Waits for path to appear (until deadline) and reads a unique id from it. */
static int uid_file_read(const char *path, shmemx_uniqueid_t *uid, double deadline)
{
    ssize_t n;
    int fd;

    while ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        if (errno != ENOENT) {
            int err = errno;
            shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_BOOTSTRAP_UID_FILE: cannot open '%s': %s", path,
                       strerror(err));
            return -err;
        }
        if (now_s() > deadline) {
            shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_BOOTSTRAP_UID_FILE: '%s' did not appear within "
                       "%ld s (FABSHMEM_BOOTSTRAP_TIMEOUT): is rank 0 running?", path,
                       shmemi_g.env.bootstrap_timeout);
            return -ETIMEDOUT;
        }
        usleep(10000);
    }
    n = read(fd, uid, sizeof(*uid));
    close(fd);
    if (n != (ssize_t)sizeof(*uid) || UID_CHECK("FABSHMEM_BOOTSTRAP_UID_FILE", "the id's version",
                                                uid, 0)) {
        shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_BOOTSTRAP_UID_FILE: '%s' does not hold a unique id "
                   "(%zd bytes)", path, n);
        return -EINVAL;
    }
    return 0;
}

int shmemi_boot_uid_env(void *arg, shmemb_t **b_p)
{
    long rank = shmemi_g.env.bootstrap_rank, n = shmemi_g.env.bootstrap_nranks;
    const char *path = shmemi_g.env.bootstrap_uid_file;
    double deadline = now_s() + (double)shmemi_g.env.bootstrap_timeout;
    shmemx_uniqueid_t uid = SHMEMX_UNIQUEID_INITIALIZER;
    int ret;

    (void)arg;
    if (n < 1 || n > INT_MAX) {
        shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_BOOTSTRAP=uid: FABSHMEM_BOOTSTRAP_NRANKS is %ld: "
                   "expected the number of processes of the job", n);
        return -EINVAL;
    }
    if (rank < 0 || rank >= n) {
        shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_BOOTSTRAP=uid: FABSHMEM_BOOTSTRAP_RANK is %ld: "
                   "expected 0 to %ld", rank, n - 1);
        return -EINVAL;
    }
    if (!path[0]) {
        shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_BOOTSTRAP=uid: FABSHMEM_BOOTSTRAP_UID_FILE is not "
                   "set: rank 0 writes the id there and the others read it");
        return -EINVAL;
    }
    if (rank == 0) {
        ret = shmemb_uid_create(uid.internal, sizeof(uid.internal));
        if (ret) {
            shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_BOOTSTRAP=uid: cannot open the rendezvous "
                       "socket: %s", strerror(-ret));
            return ret;
        }
        ret = uid_file_write(path, &uid);
        if (ret) {
            shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_BOOTSTRAP_UID_FILE: cannot write '%s': %s",
                       path, strerror(-ret));
            return ret;
        }
    } else {
        ret = uid_file_read(path, &uid, deadline);
        if (ret)
            return ret;
    }
    ret = shmemb_uid_init(uid.internal, sizeof(uid.internal), (int)rank, (int)n,
                          deadline - now_s(), b_p);
    /* Every rank has read the id: it is of no more use, and holds the
     * secret. */
    if (rank == 0 && ret == 0)
        unlink(path);
    return ret;
}

/* ---- shmemx_init_attr ---- */

SHMEM_API int shmemx_init_attr(unsigned int flags, shmemx_init_attr_t *attr)
{
    const char *rtn = "shmemx_init_attr";
    unsigned known = SHMEMX_INIT_THREAD_PES | SHMEMX_INIT_WITH_MPI_COMM | SHMEMX_INIT_WITH_UNIQUEID;
    shmemx_init_attr_t a = SHMEMX_INIT_ATTR_INITIALIZER;
    int provided;

    if (flags & ~known) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: unknown flags 0x%x", rtn, flags & ~known);
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    if ((flags & SHMEMX_INIT_WITH_MPI_COMM) && (flags & SHMEMX_INIT_WITH_UNIQUEID)) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: flags: choose one of SHMEMX_INIT_WITH_MPI_COMM and "
                   "SHMEMX_INIT_WITH_UNIQUEID", rtn);
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    if (attr) {
        if (attr_read(rtn, attr, &a))
            return SHMEMX_ERROR_INVALID_VALUE;
    } else if (flags & (SHMEMX_INIT_WITH_MPI_COMM | SHMEMX_INIT_WITH_UNIQUEID)) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: attr is NULL (fill it with shmemx_set_attr_%s_args)",
                   rtn, (flags & SHMEMX_INIT_WITH_MPI_COMM) ? "mpi_comm" : "uniqueid");
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    if (a.thread_level < SHMEM_THREAD_SINGLE || a.thread_level > SHMEM_THREAD_MULTIPLE) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: attr->thread_level %d is not one of SHMEM_THREAD_SINGLE, "
                   "FUNNELED, SERIALIZED, MULTIPLE", rtn, a.thread_level);
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    if (flags & SHMEMX_INIT_WITH_MPI_COMM) {
#ifdef HAVE_MPI
        if (shmemi_g.boot && strcmp(shmemi_g.boot->name, "mpi")) {
            shmemi_log(SHMEMI_LOG_ERR, "%s: this process was already bootstrapped by %s; a "
                       "process joins one job only", rtn, shmemi_g.boot->name);
            return SHMEMX_ERROR_INVALID_STATE;
        }
        if (!shmemi_g.boot && !a.mpi_comm) {
            shmemi_log(SHMEMI_LOG_ERR, "%s: SHMEMX_INIT_WITH_MPI_COMM: attr->mpi_comm is NULL "
                       "(shmemx_set_attr_mpi_comm_args)", rtn);
            return SHMEMX_ERROR_INVALID_VALUE;
        }
        return shmemi_init(rtn, a.thread_level, &provided, boot_mpi, a.mpi_comm);
#else
        shmemi_log(SHMEMI_LOG_ERR, "%s: SHMEMX_INIT_WITH_MPI_COMM: this build of fabshmem has no "
                   "MPI bootstrap (configure found no MPI, or --without-mpi); use "
                   "SHMEMX_INIT_WITH_UNIQUEID (an id passed with MPI_Bcast works) or a PMIx "
                   "launcher", rtn);
        return SHMEMX_ERROR_NOT_SUPPORTED;
#endif
    }
    if (flags & SHMEMX_INIT_WITH_UNIQUEID) {
        if (shmemi_g.boot && strcmp(shmemi_g.boot->name, "uniqueid")) {
            shmemi_log(SHMEMI_LOG_ERR, "%s: this process was already bootstrapped by %s; a "
                       "process joins one job only", rtn, shmemi_g.boot->name);
            return SHMEMX_ERROR_INVALID_STATE;
        }
        if (!shmemi_g.boot &&
            (version_check(rtn, "attr->uid_args.version", a.uid_args.version, uid_args_sizes,
                           NSIZES(uid_args_sizes), "shmemx_set_attr_uniqueid_args", 0) ||
             UID_CHECK(rtn, "attr->uid_args.uid.version", &a.uid_args.uid, 0)))
            return SHMEMX_ERROR_INVALID_VALUE;
        return shmemi_init(rtn, a.thread_level, &provided, boot_uid, &a.uid_args);
    }
    return shmemi_init(rtn, a.thread_level, &provided, NULL, NULL);
}

SHMEM_API int shmemx_init_status(void)
{
    if (shmemi_forked())
        return SHMEMX_STATUS_INVALID;
    switch (atomic_load(&shmemi_g.state)) {
    case SHMEMI_STATE_INITIALIZED: return SHMEMX_STATUS_IS_INITIALIZED;
    case SHMEMI_STATE_BOOTSTRAPPED: return SHMEMX_STATUS_IS_BOOTSTRAPPED;
    case SHMEMI_STATE_FINALIZED:
        /* The bootstrap stays after finalize, until exit. */
        return shmemi_g.boot ? SHMEMX_STATUS_IS_BOOTSTRAPPED : SHMEMX_STATUS_NOT_INITIALIZED;
    case SHMEMI_STATE_NONE: return SHMEMX_STATUS_NOT_INITIALIZED;
    default: return SHMEMX_STATUS_INVALID;
    }
}
