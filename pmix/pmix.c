/*
 * PMIx bootstrap: the default way PEs find each other.  Works under any PMIx
 * launcher (prterun, Open MPI's mpirun, srun --mpi=pmix).
 *
 * A PE whose launcher dies (killed, crashed) would otherwise outlive it,
 * waiting for ever for peers that the launcher no longer ends: the PMIx
 * client library's own thread sees the server's connection close and
 * raises a lost-connection event, whose handler here ends the process with
 * a message.  It costs the PE nothing while the launcher lives (no polling,
 * no wake-up).
 */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pmix.h>
#include "pmix/shmemb.h"

typedef struct pmixb {
    shmemb_t pub;
    pmix_proc_t me;
    unsigned long seq;   /* sequence number of the next allgather */
    size_t lost_ref;     /* the lost-connection handler's registration */
    int lost_registered;
} pmixb_t;

/* This process's rank for the lost-connection handler's message, and
 * whether it is finalizing (the server's connection then closes on
 * purpose). */
static int pmixb_rank = -1;
static int pmixb_closing;

/* Copies the namespace into job_id keeping [A-Za-z0-9_]; other characters
 * become '_'.  A namespace longer than 40 characters is replaced by a short
 * prefix and a hash of the whole name, so shm_open names stay short. */
static void pmixb_job_id(const char *nspace, char *out, size_t outlen)
{
    size_t n = strlen(nspace), i;
    char tmp[64];

    if (n <= 40) {
        for (i = 0; i < n; i++) {
            char c = nspace[i];
            int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                     (c >= '0' && c <= '9') || c == '_';
            tmp[i] = ok ? c : '_';
        }
        tmp[n] = '\0';
    } else {
        /* FNV-1a 64-bit of the full namespace. */
        uint64_t h = 1469598103934665603ULL;
        for (i = 0; i < n; i++) {
            h ^= (unsigned char)nspace[i];
            h *= 1099511628211ULL;
        }
        snprintf(tmp, sizeof(tmp), "j%016llx", (unsigned long long)h);
    }
    snprintf(out, outlen, "%s", tmp);
}

static int pmixb_err(const char *call, pmix_status_t rc)
{
    shmemb_errorf("%s: %s", call, PMIx_Error_string(rc));
    return -EIO;
}

static int pmixb_allgather(shmemb_t *b, const void *in, void *out, size_t len)
{
    pmixb_t *p = (pmixb_t *)b;
    pmix_value_t val, *got = NULL;
    pmix_proc_t wild, peer;
    pmix_info_t info;
    pmix_status_t rc;
    char key[PMIX_MAX_KEYLEN + 1];
    bool collect = true;
    int r;

    snprintf(key, sizeof(key), "fabshmem.ag.%lu", p->seq++);
    memset(&val, 0, sizeof(val));
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)in;
    val.data.bo.size = len;
    rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc != PMIX_SUCCESS)
        return pmixb_err("PMIx_Put", rc);
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return pmixb_err("PMIx_Commit", rc);

    PMIX_PROC_LOAD(&wild, p->me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&wild, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        return pmixb_err("PMIx_Fence", rc);

    for (r = 0; r < b->nranks; r++) {
        if (r == b->rank) {
            memcpy((char *)out + (size_t)r * len, in, len);
            continue;
        }
        PMIX_PROC_LOAD(&peer, p->me.nspace, r);
        rc = PMIx_Get(&peer, key, NULL, 0, &got);
        if (rc != PMIX_SUCCESS)
            return pmixb_err("PMIx_Get", rc);
        if (got->type != PMIX_BYTE_OBJECT || got->data.bo.size != len) {
            fprintf(stderr, "fabshmem error: PMIx_Get: rank %d sent %zu bytes for %s, "
                    "expected %zu\n", r, got->type == PMIX_BYTE_OBJECT ?
                    got->data.bo.size : 0, key, len);
            PMIX_VALUE_RELEASE(got);
            return -EPROTO;
        }
        memcpy((char *)out + (size_t)r * len, got->data.bo.bytes, len);
        PMIX_VALUE_RELEASE(got);
        got = NULL;
    }
    return 0;
}

static int pmixb_barrier(shmemb_t *b)
{
    pmixb_t *p = (pmixb_t *)b;
    pmix_proc_t wild;
    pmix_status_t rc;

    PMIX_PROC_LOAD(&wild, p->me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Fence(&wild, 1, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return pmixb_err("PMIx_Fence", rc);
    return 0;
}

static void pmixb_abort(shmemb_t *b, int status, const char *msg)
{
    (void)b;
    PMIx_Abort(status, msg ? msg : "fabshmem abort", NULL, 0);
    /* PMIx_Abort may return (for instance when the server is gone). */
    _exit(status);
}

/* The launcher ends the job with SHMEMB_EXIT_LEFT (and kills this
 * process); where PMIx_Abort returns, this process keeps its status. */
static void pmixb_leave(shmemb_t *b, int status, const char *msg)
{
    (void)b;
    PMIx_Abort(SHMEMB_EXIT_LEFT, msg ? msg : "fabshmem: a PE left the job", NULL, 0);
    _exit(status);
}

/* The lost-connection event (run by the PMIx client's thread): the
 * launcher's server is gone, and with it whatever would end this PE when
 * the job ends.  stderr may be a pipe to the dead launcher: a write there
 * must not kill the process with SIGPIPE before it says why it ends. */
static void pmixb_lost(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    if (!__atomic_load_n(&pmixb_closing, __ATOMIC_ACQUIRE)) {
        signal(SIGPIPE, SIG_IGN);
        fprintf(stderr, "fabshmem error: [PE %d] the launcher's PMIx server is gone (%s): the "
                "launcher (mpirun, prterun, its daemon or srun) was killed or died; this PE ends "
                "(status %d) instead of waiting for ever\n", pmixb_rank,
                PMIx_Error_string(status), SHMEMB_EXIT_LOST);
        fflush(stderr);
        _exit(SHMEMB_EXIT_LOST);
    }
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Registers pmixb_lost for the codes by which PMIx versions report the
 * loss of the server: PMIX_ERR_LOST_CONNECTION (v4 and later),
 * PMIX_ERR_LOST_CONNECTION_TO_SERVER (v2, v3), PMIX_ERR_UNREACH.  A PMIx
 * that refuses leaves the PE as it was (a warning says so). */
static void pmixb_watch_server(pmixb_t *p)
{
    pmix_status_t codes[3];
    size_t n = 0;
    pmix_status_t rc;

#ifdef PMIX_ERR_LOST_CONNECTION
    codes[n++] = PMIX_ERR_LOST_CONNECTION;
#endif
#ifdef PMIX_ERR_LOST_CONNECTION_TO_SERVER
    codes[n++] = PMIX_ERR_LOST_CONNECTION_TO_SERVER;
#endif
    codes[n++] = PMIX_ERR_UNREACH;
    pmixb_rank = p->pub.rank;
    /* Blocking (no callback): a non-negative return is the reference. */
    rc = PMIx_Register_event_handler(codes, n, NULL, 0, pmixb_lost, NULL, NULL);
    if (rc < 0) {
        fprintf(stderr, "fabshmem warning: PMIx_Register_event_handler: %s: a PE will not notice "
                "that its launcher died\n", PMIx_Error_string(rc));
        return;
    }
    p->lost_ref = (size_t)rc;
    p->lost_registered = 1;
}

static int pmixb_fini(shmemb_t *b)
{
    pmixb_t *p = (pmixb_t *)b;
    pmix_status_t rc;

    __atomic_store_n(&pmixb_closing, 1, __ATOMIC_RELEASE);
    if (p->lost_registered)
        PMIx_Deregister_event_handler(p->lost_ref, NULL, NULL);
    rc = PMIx_Finalize(NULL, 0);
    free(b);
    if (rc != PMIX_SUCCESS)
        return pmixb_err("PMIx_Finalize", rc);
    return 0;
}

/* PMIX_LOCAL_PEERS: the job's ranks on this node, a job-level string.
 * PMIX_OPTIONAL keeps PMIx from asking the server for a key that the
 * launcher did not give. */
static int pmixb_node_peers(shmemb_t *b, int *ranks, int max, int *n_p)
{
    pmixb_t *p = (pmixb_t *)b;
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    pmix_info_t info;
    pmix_status_t rc;
    bool optional = true;
    int ret;

    PMIX_PROC_LOAD(&wild, p->me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
    rc = PMIx_Get(&wild, PMIX_LOCAL_PEERS, &info, 1, &v);
    PMIX_INFO_DESTRUCT(&info);
    if (rc == PMIX_ERR_NOT_FOUND || rc == PMIX_ERR_NOT_SUPPORTED)
        return -ENOENT;
    if (rc != PMIX_SUCCESS)
        return pmixb_err("PMIx_Get(PMIX_LOCAL_PEERS)", rc);
    if (v->type == PMIX_STRING && v->data.string)
        ret = shmemb_peers_parse(v->data.string, b->nranks, ranks, max, n_p);
    else
        ret = -EPROTO;
    PMIX_VALUE_RELEASE(v);
    return ret;
}

/* Reads an unsigned 32-bit job attribute. */
static int pmixb_get_u32(const pmix_proc_t *me, const char *key, uint32_t *val_p)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    int ret = 0;

    PMIX_PROC_LOAD(&wild, me->nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        return pmixb_err("PMIx_Get", rc);
    switch (v->type) {
    case PMIX_UINT32: *val_p = v->data.uint32; break;
    case PMIX_INT: *val_p = (uint32_t)v->data.integer; break;
    case PMIX_UINT64: *val_p = (uint32_t)v->data.uint64; break;
    case PMIX_SIZE: *val_p = (uint32_t)v->data.size; break;
    default: ret = -EPROTO; break;
    }
    PMIX_VALUE_RELEASE(v);
    return ret;
}

/* A PMIx launcher leaves its server's address in the environment; without
 * one PMIx_Init could only fail (after trying to connect), so skip it. */
static int pmixb_launched(void)
{
    extern char **environ;
    char **e;

    for (e = environ; e && *e; e++)
        if (!strncmp(*e, "PMIX_SERVER_URI", 15) || !strncmp(*e, "PMIX_NAMESPACE=", 15))
            return 1;
    return 0;
}

int shmemb_pmix_init(shmemb_t **b_p)
{
    pmixb_t *p;
    pmix_status_t rc;
    uint32_t size = 0;
    int ret;

    shmemb_error_clear();
    p = calloc(1, sizeof(*p));
    if (!p)
        return -ENOMEM;

    /* Without a launcher there is nothing to talk to; PMIx_Init fails fast
     * (PMIX_ERR_UNREACH or similar) and the caller falls back to singleton. */
    if (!pmixb_launched()) {
        ret = -ENOENT;
        goto err_free;
    }
    rc = PMIx_Init(&p->me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        ret = -ENOENT;
        goto err_free;
    }

    ret = pmixb_get_u32(&p->me, PMIX_JOB_SIZE, &size);
    if (ret)
        goto err_fini;
    if (size < 1 || p->me.rank >= size) {
        shmemb_errorf("PMIx: rank %u outside job size %u", p->me.rank, size);
        ret = -EPROTO;
        goto err_fini;
    }

    p->pub.name = "pmix";
    p->pub.rank = (int)p->me.rank;
    p->pub.nranks = (int)size;
    pmixb_job_id(p->me.nspace, p->pub.job_id, sizeof(p->pub.job_id));
    p->pub.allgather = pmixb_allgather;
    p->pub.barrier = pmixb_barrier;
    p->pub.abort = pmixb_abort;
    p->pub.leave = pmixb_leave;
    p->pub.fini = pmixb_fini;
    p->pub.node_peers = pmixb_node_peers;
    p->pub.priv = p;
    pmixb_watch_server(p);
    *b_p = &p->pub;
    return 0;

err_fini:
    PMIx_Finalize(NULL, 0);
err_free:
    free(p);
    return ret;
}
