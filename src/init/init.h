/*
 * Setup: init and finalize (init.c), the node map's exchange at init
 * (init_nodemap.c), shmemx_init_attr and its bootstrap choices
 * (init_attr.c).  The init layer is the one that calls into every layer
 * below it: it makes them in order and undoes them in reverse.
 *
 * Every routine returns 0 or the class of its failure, recorded
 * (base/error.h); the public routines are in src/api/shmem_setup.c.
 */
#ifndef SHMEMI_INIT_H
#define SHMEMI_INIT_H

#include "base/error.h"

/* Makes the bootstrap *b_p: 0 or the class of the failure, recorded. */
typedef int (*shmemi_boot_fn)(void *arg, shmemb_t **b_p);

/* ---- init and finalize (init.c) ---- */
/* Initializes at thread level requested (checked by the caller), booting
 * with boot(arg) when no bootstrap is up (NULL: by FABSHMEM_BOOTSTRAP);
 * rtn names the routine in messages.  A failure that every PE shares (a
 * bad environment value, a heap that some PE cannot create) is undone on
 * every PE, which stays bootstrapped and may try again; one that a single
 * PE meets past the first exchange ends the job, since the others may
 * wait for it in a collective. */
int shmemi_init(const char *rtn, int requested, int *provided, shmemi_boot_fn boot,
                void *arg) SHMEMI_WUR;
/* shmem_init_thread: checks requested, then shmemi_init. */
int shmemi_init_thread(int requested, int *provided, const char *rtn) SHMEMI_WUR;
/* start_pes: shmem_init, and shmem_finalize at exit (programs of the
 * pre-1.2 API never call it). */
int shmemi_start_pes(const char *rtn) SHMEMI_WUR;
/* Completes everything, synchronizes and undoes init (nothing when the
 * library is not initialized).  The bootstrap stays. */
void shmemi_finalize(void);
/* Ends the job with status on every PE. */
void shmemi_global_exit(int status) __attribute__((noreturn));
/* SHMEMX_STATUS_* of shmemx_init_status. */
int shmemi_init_status(void);
/* 1 in a child made by fork() of a process that had joined a job. */
int shmemi_forked(void);
/* The class of a bootstrap's failure, a negative errno value ret:
 * OUT_OF_MEMORY, INVALID_VALUE (a malformed id or argument) or BOOTSTRAP. */
int shmemi_boot_class(int ret);
/* Records the failure of a bootstrap that the layer below reported by ret
 * (with its own messages): what names the bootstrap, rtn (or NULL) the
 * routine.  Returns the class. */
int shmemi_boot_fail(int ret, const char *what, const char *rtn);

/* ---- the node map's exchange at init (init_nodemap.c) ---- */
/* How the steps of init that each PE takes alone went (heap creation):
 * carried in the node map's allgather, so that when one PE fails them
 * every PE learns it, undoes its own steps and returns the same error, and
 * the job stays bootstrapped and able to try again. */
typedef struct shmemi_init_status {
    int err; /* 0 or the errno behind the failure */
    int cls; /* its SHMEMX_ERROR_* class; 0: no failure */
    int pe;  /* the PE that failed */
} shmemi_init_status_t;
/* Builds the node map (shmemi_g.node_of, n_nodes, nodemap_src) and counts
 * the PEs of this host (*host_pes_p), those before this PE among them
 * (*host_rank_p) and the cores they may run on together (*host_ncpu_p).  Collective.  *st: in, this PE's init status;
 * out, the first failed PE's (then nothing is built and 0 is returned).
 * 0 or the class of a failure of the exchange itself, recorded. */
int shmemi_init_nodemap(shmemi_init_status_t *st, int *host_pes_p, int *host_rank_p,
                        int *host_ncpu_p) SHMEMI_WUR;

/* ---- the GPU steps of init (init_dev.c; docs/gpu.md) ---- */
/* Before the transport, each PE alone: brings up its GPU as FABSHMEM_CUDA
 * says (host_rank: the PE's rank among its host's PEs) and creates its
 * device heap; how it went is kept for shmemi_init_device. */
void shmemi_init_dev_open(int host_rank, const char *rtn);
/* 1 when the transport should ask the provider for FI_HMEM (this PE has a
 * device heap that it may register). */
int shmemi_init_dev_hmem_wanted(void);
/* After the transport, collective: the PEs agree on their device heaps
 * (every PE has one, or none keeps one), node peers map each other's, and
 * the way to the others is chosen.  0, or the class of a failure, which
 * every PE returns alike when *agreed_p is set (FABSHMEM_CUDA=1 and some
 * PE has no GPU, FABSHMEM_CUDA_REMOTE=hmem and the provider cannot). */
int shmemi_init_device(int *agreed_p, const char *rtn) SHMEMI_WUR;
/* Undoes both steps (finalize, a failed init). */
void shmemi_fini_device(void);
/* The GPU line of SHMEM_INFO. */
void shmemi_init_dev_info(FILE *fp);

/* The device API's host side (init_devapi.c, docs/device.md): its state
 * and area at init (after the device heap; ready publishes the predefined
 * teams and the state once they exist; fini undoes it), the state
 * for a module's loader, the hook of the device library, a team's device
 * handle (its slot, published; -1 when it has none) and the report of a
 * kernel's recorded error (0 when none). */
int shmemi_devapi_init(const char *rtn) SHMEMI_WUR;
/* Starts the proxy (src/proxy) when the job needs it, into the state's
 * proxy member, before ready publishes the state. */
int shmemi_devapi_proxy(const char *rtn) SHMEMI_WUR;
int shmemi_devapi_ready(const char *rtn) SHMEMI_WUR;
void shmemi_devapi_fini(void);
int shmemi_devapi_state(void *buf, size_t len, const char *rtn) SHMEMI_WUR;
void shmemi_devapi_hook(void (*fn)(const void *state, size_t len));
/* 1 when the device library registered its hook (the program is linked
 * with libfabshmem_device.a: its kernels call the device API). */
int shmemi_devapi_hooked(void);
struct shmemi_team;
int shmemi_devapi_team(struct shmemi_team *t, const char *rtn);
/* Clears team slot's words of the device API on this PE (its barrier
 * words and epoch, its sequence of small reductions, the flagged words of
 * its push area), so that the next team in the slot starts from zero as
 * the first did: shmem_team_destroy calls it on each member after the
 * team's last synchronization (the program has waited for the kernels
 * that used the team).  0 or the class. */
int shmemi_devapi_slot_clear(int slot, const char *rtn) SHMEMI_WUR;
int shmemi_devapi_check(const char *rtn) SHMEMI_WUR;

/* ---- shmemx_init_attr and the bootstraps it chooses (init_attr.c) ---- */
/* The routines of include/fabshmem/shmemx_init.h (rtn names the public
 * routine in messages). */
int shmemi_init_attr(unsigned int flags, shmemx_init_attr_t *attr, const char *rtn) SHMEMI_WUR;
int shmemi_uniqueid_get(shmemx_uniqueid_t *uid, const char *rtn) SHMEMI_WUR;
int shmemi_attr_uniqueid_set(int rank, int nranks, const shmemx_uniqueid_t *uid,
                             shmemx_init_attr_t *attr, const char *rtn) SHMEMI_WUR;
int shmemi_attr_mpi_comm_set(void *mpi_comm, shmemx_init_attr_t *attr,
                             const char *rtn) SHMEMI_WUR;
/* FABSHMEM_BOOTSTRAP=uid: joins the job that FABSHMEM_BOOTSTRAP_RANK,
 * _NRANKS and _UID_FILE describe (arg unused). */
int shmemi_boot_uid_env(void *arg, shmemb_t **b_p) SHMEMI_WUR;

#endif
