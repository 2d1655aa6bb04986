/*
 * shmemx_init_attr and its bootstrap choices (unique id; MPI when built
 * with it), the helpers that fill its attributes, and the unique-id
 * bootstrap of FABSHMEM_BOOTSTRAP=uid.  The public routines are in
 * src/api/shmem_setup.c.
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
#include "base/state.h"
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

/* Checks the version word of a versioned structure: 0, or
 * SHMEMX_ERROR_INVALID_VALUE, recorded, naming the routine and the field. */
static int version_check(const char *rtn, const char *field, int version, const size_t *sizes,
                         int nsizes, const char *initializer)
{
    unsigned v = (unsigned)version >> 16, size = (unsigned)version & 0xffff;
    const int bad = SHMEMX_ERROR_INVALID_VALUE;

    if (version > 0 && v >= 1 && (int)v < nsizes && size == sizes[v])
        return 0;
    if (version == 0)
        return shmemi_err(bad, rtn, "%s is 0: the structure was not initialized (declare it "
                          "with %s)", field, initializer);
    if (version < 0 || v == 0)
        return shmemi_err(bad, rtn, "%s is %d: not a version word (declare the structure with "
                          "%s)", field, version, initializer);
    if ((int)v >= nsizes)
        return shmemi_err(bad, rtn, "%s: struct version %u is newer than this library's (%d): "
                          "the program was built against a newer shmemx.h than the fabshmem it "
                          "runs with", field, v, nsizes - 1);
    return shmemi_err(bad, rtn, "%s: %u bytes for struct version %u, which has %zu: the "
                      "structure is corrupt or from another ABI", field, size, v, sizes[v]);
}

#define UID_CHECK(rtn, field, uid)                                                            \
    version_check(rtn, field, (uid)->version, uid_sizes, NSIZES(uid_sizes),                   \
                  "SHMEMX_UNIQUEID_INITIALIZER")

/* Copies the caller's attr, as far as its version goes, over the
 * initializer's values.  0 or the error. */
static int attr_read(const char *rtn, const shmemx_init_attr_t *attr, shmemx_init_attr_t *out_p)
{
    shmemx_init_attr_t a = SHMEMX_INIT_ATTR_INITIALIZER;
    int rc = version_check(rtn, "attr->version", attr->version, attr_sizes, NSIZES(attr_sizes),
                           "SHMEMX_INIT_ATTR_INITIALIZER");

    if (rc)
        return rc;
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
                         "SHMEMX_INIT_ATTR_INITIALIZER");
}

/* The bootstrap's init arguments from the configuration table env, with
 * timeout_s seconds for the ranks to join. */
static void boot_args(const shmemi_env_t *env, double timeout_s, shmemb_init_args_t *a)
{
    a->ifname = env->bootstrap_ifname;
    a->timeout_s = timeout_s;
}

int shmemi_uniqueid_get(shmemx_uniqueid_t *uid, const char *rtn)
{
    shmemb_init_args_t args;
    shmemi_env_t env;
    int ret;

    if (!uid)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "uid is NULL");
    memset(uid, 0, sizeof(*uid));
    uid->version = SHMEMX_UNIQUEID_VERSION;
    /* Called before shmem_init too: the table is read here for the
     * interface (FABSHMEM_BOOTSTRAP_IFNAME). */
    if (shmemi_env_parse(NULL, &env))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "invalid environment (see the "
                          "message above)");
    boot_args(&env, 0, &args);
    ret = shmemb_uid_create(&args, uid->internal, sizeof(uid->internal));
    if (ret)
        return shmemi_err_fatal(ret == -ENOMEM ? SHMEMX_ERROR_OUT_OF_MEMORY
                                               : SHMEMX_ERROR_BOOTSTRAP,
                                "%s: cannot open the rendezvous socket: %s", rtn, strerror(-ret));
    return 0;
}

int shmemi_attr_uniqueid_set(int rank, int nranks, const shmemx_uniqueid_t *uid,
                             shmemx_init_attr_t *attr, const char *rtn)
{
    int rc;

    if (!attr || !uid)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "%s is NULL", !attr ? "attr" : "uid");
    if ((rc = UID_CHECK(rtn, "uid->version", uid)))
        return rc;
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "rank %d, nranks %d: rank must be in "
                          "0 .. nranks-1 and nranks >= 1", rank, nranks);
    if ((rc = attr_stamp(rtn, attr)))
        return rc;
    attr->uid_args.version = SHMEMX_UNIQUEID_ARGS_VERSION;
    attr->uid_args.rank = rank;
    attr->uid_args.nranks = nranks;
    attr->uid_args.uid = *uid;
    return 0;
}

int shmemi_attr_mpi_comm_set(void *mpi_comm, shmemx_init_attr_t *attr, const char *rtn)
{
    int rc;

    if (!attr || !mpi_comm)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "%s is NULL",
                          !attr ? "attr" : "mpi_comm");
    if ((rc = attr_stamp(rtn, attr)))
        return rc;
    attr->mpi_comm = mpi_comm;
    return 0;
}

/* ---- the bootstraps shmemi_init makes on our behalf ---- */

static int boot_uid(void *arg, shmemb_t **b_p)
{
    const shmemx_uniqueid_args_t *a = arg;
    shmemb_init_args_t args;
    int ret;

    boot_args(&shmemi_g.env, (double)shmemi_g.env.bootstrap_timeout, &args);
    ret = shmemb_uid_init(&args, a->uid.internal, sizeof(a->uid.internal), a->rank, a->nranks,
                          b_p);

    return ret ? shmemi_boot_fail(ret, "unique-id", "shmemx_init_attr") : 0;
}

#ifdef HAVE_MPI
static int boot_mpi(void *arg, shmemb_t **b_p)
{
    int ret = shmemb_mpi_init(arg, b_p);

    return ret ? shmemi_boot_fail(ret, "MPI", "shmemx_init_attr") : 0;
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
    const char *var = "FABSHMEM_BOOTSTRAP_UID_FILE";
    ssize_t n;
    int fd;

    while ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        if (errno != ENOENT) {
            int err = errno;
            return shmemi_err(shmemi_boot_class(-err), var, "cannot open '%s': %s", path,
                              strerror(err));
        }
        if (now_s() > deadline)
            return shmemi_err(SHMEMX_ERROR_BOOTSTRAP, var, "'%s' did not appear within %ld s "
                              "(FABSHMEM_BOOTSTRAP_TIMEOUT): is rank 0 running?", path,
                              shmemi_g.env.bootstrap_timeout);
        usleep(10000);
    }
    n = read(fd, uid, sizeof(*uid));
    close(fd);
    if (n != (ssize_t)sizeof(*uid) || UID_CHECK(var, "the id's version", uid))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, var, "'%s' does not hold a unique id "
                          "(%zd bytes)", path, n);
    return 0;
}

/* Rank 0's part of FABSHMEM_BOOTSTRAP=uid: makes the id and writes it to
 * path. */
static int uid_env_make(const char *path, shmemx_uniqueid_t *uid)
{
    shmemb_init_args_t args;
    int ret;

    boot_args(&shmemi_g.env, 0, &args);
    ret = shmemb_uid_create(&args, uid->internal, sizeof(uid->internal));

    if (ret)
        return shmemi_err(shmemi_boot_class(ret), "FABSHMEM_BOOTSTRAP=uid", "cannot open the "
                          "rendezvous socket: %s", strerror(-ret));
    ret = uid_file_write(path, uid);
    if (ret)
        return shmemi_err(shmemi_boot_class(ret), "FABSHMEM_BOOTSTRAP_UID_FILE", "cannot write "
                          "'%s': %s", path, strerror(-ret));
    return 0;
}

int shmemi_boot_uid_env(void *arg, shmemb_t **b_p)
{
    const char *rtn = "FABSHMEM_BOOTSTRAP=uid";
    long rank = shmemi_g.env.bootstrap_rank, n = shmemi_g.env.bootstrap_nranks;
    const char *path = shmemi_g.env.bootstrap_uid_file;
    double deadline = now_s() + (double)shmemi_g.env.bootstrap_timeout;
    shmemx_uniqueid_t uid = SHMEMX_UNIQUEID_INITIALIZER;
    shmemb_init_args_t args;
    int ret, rc;

    (void)arg;
    if (n < 1 || n > INT_MAX)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "FABSHMEM_BOOTSTRAP_NRANKS is %ld: "
                          "expected the number of processes of the job", n);
    if (rank < 0 || rank >= n)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "FABSHMEM_BOOTSTRAP_RANK is %ld: "
                          "expected 0 to %ld", rank, n - 1);
    if (!path[0])
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "FABSHMEM_BOOTSTRAP_UID_FILE is not "
                          "set: rank 0 writes the id there and the others read it");
    rc = rank == 0 ? uid_env_make(path, &uid) : uid_file_read(path, &uid, deadline);
    if (rc)
        return rc;
    boot_args(&shmemi_g.env, deadline - now_s(), &args);
    ret = shmemb_uid_init(&args, uid.internal, sizeof(uid.internal), (int)rank, (int)n, b_p);
    if (ret)
        return shmemi_boot_fail(ret, "unique-id", rtn);
    /* Every rank has read the id: it is of no more use, and holds the
     * secret. */
    if (rank == 0)
        unlink(path);
    return 0;
}

/* ---- shmemx_init_attr ---- */

/* The flags and the attributes: 0 with the attributes in *a_p (the
 * initializer's values past the caller's version), or the error. */
static int attr_check(unsigned int flags, const shmemx_init_attr_t *attr, shmemx_init_attr_t *a_p,
                      const char *rtn)
{
    unsigned known = SHMEMX_INIT_THREAD_PES | SHMEMX_INIT_WITH_MPI_COMM | SHMEMX_INIT_WITH_UNIQUEID;
    const int bad = SHMEMX_ERROR_INVALID_VALUE;
    int rc;

    if (flags & ~known)
        return shmemi_err(bad, rtn, "unknown flags 0x%x", flags & ~known);
    if ((flags & SHMEMX_INIT_WITH_MPI_COMM) && (flags & SHMEMX_INIT_WITH_UNIQUEID))
        return shmemi_err(bad, rtn, "flags: choose one of SHMEMX_INIT_WITH_MPI_COMM and "
                          "SHMEMX_INIT_WITH_UNIQUEID");
    if (attr) {
        if ((rc = attr_read(rtn, attr, a_p)))
            return rc;
    } else if (flags & (SHMEMX_INIT_WITH_MPI_COMM | SHMEMX_INIT_WITH_UNIQUEID)) {
        return shmemi_err(bad, rtn, "attr is NULL (fill it with shmemx_set_attr_%s_args)",
                          (flags & SHMEMX_INIT_WITH_MPI_COMM) ? "mpi_comm" : "uniqueid");
    }
    if (a_p->thread_level < SHMEM_THREAD_SINGLE || a_p->thread_level > SHMEM_THREAD_MULTIPLE)
        return shmemi_err(bad, rtn, "attr->thread_level %d is not one of SHMEM_THREAD_SINGLE, "
                          "FUNNELED, SERIALIZED, MULTIPLE", a_p->thread_level);
    return 0;
}

/* A process joins one job only: booting by name (mpi, uniqueid) when
 * another bootstrap is up is refused. */
static int boot_other(const char *name, const char *rtn)
{
    if (shmemi_g.boot && strcmp(shmemi_g.boot->name, name))
        return shmemi_err(SHMEMX_ERROR_INVALID_STATE, rtn, "this process was already "
                          "bootstrapped by %s; a process joins one job only",
                          shmemi_g.boot->name);
    return 0;
}

/* SHMEMX_INIT_WITH_MPI_COMM. */
static int init_mpi(const shmemx_init_attr_t *a, const char *rtn)
{
#ifdef HAVE_MPI
    int provided, rc;

    if ((rc = boot_other("mpi", rtn)))
        return rc;
    if (!shmemi_g.boot && !a->mpi_comm)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "SHMEMX_INIT_WITH_MPI_COMM: "
                          "attr->mpi_comm is NULL (shmemx_set_attr_mpi_comm_args)");
    return shmemi_init(rtn, a->thread_level, &provided, boot_mpi, a->mpi_comm);
#else
    (void)a;
    return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "SHMEMX_INIT_WITH_MPI_COMM: this build "
                      "of fabshmem has no MPI bootstrap (configure found no MPI, or "
                      "--without-mpi); use SHMEMX_INIT_WITH_UNIQUEID (an id passed with "
                      "MPI_Bcast works) or a PMIx launcher");
#endif
}

/* SHMEMX_INIT_WITH_UNIQUEID. */
static int init_uid(shmemx_init_attr_t *a, const char *rtn)
{
    int provided, rc;

    if ((rc = boot_other("uniqueid", rtn)))
        return rc;
    if (!shmemi_g.boot &&
        ((rc = version_check(rtn, "attr->uid_args.version", a->uid_args.version, uid_args_sizes,
                             NSIZES(uid_args_sizes), "shmemx_set_attr_uniqueid_args")) ||
         (rc = UID_CHECK(rtn, "attr->uid_args.uid.version", &a->uid_args.uid))))
        return rc;
    return shmemi_init(rtn, a->thread_level, &provided, boot_uid, &a->uid_args);
}

int shmemi_init_attr(unsigned int flags, shmemx_init_attr_t *attr, const char *rtn)
{
    shmemx_init_attr_t a = SHMEMX_INIT_ATTR_INITIALIZER;
    int provided, rc;

    if ((rc = attr_check(flags, attr, &a, rtn)))
        return rc;
    if (flags & SHMEMX_INIT_WITH_MPI_COMM)
        return init_mpi(&a, rtn);
    if (flags & SHMEMX_INIT_WITH_UNIQUEID)
        return init_uid(&a, rtn);
    return shmemi_init(rtn, a.thread_level, &provided, NULL, NULL);
}
