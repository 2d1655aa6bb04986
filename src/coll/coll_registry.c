/*
 * The registry of the collectives' algorithms (coll.h): the kinds and their
 * tables, the names, the parsing of FABSHMEM_*_ALGO at init, the
 * documentation of those variables, the choice of an algorithm for a call
 * and the per-team counts of what ran.
 */
#include "coll/coll.h"
#include <stddef.h>

static const char *const algo_names[SHMEMI_CA_COUNT] = {
    [SHMEMI_CA_DIRECT] = "direct", [SHMEMI_CA_SMALL] = "small", [SHMEMI_CA_LL] = "ll",
    [SHMEMI_CA_CENTRAL] = "central", [SHMEMI_CA_DISSEMINATION] = "dissemination",
    [SHMEMI_CA_TREE] = "tree", [SHMEMI_CA_LINEAR] = "linear", [SHMEMI_CA_RING] = "ring",
    [SHMEMI_CA_RD] = "rd", [SHMEMI_CA_BRUCK] = "bruck", [SHMEMI_CA_PAIRWISE] = "pairwise",
    [SHMEMI_CA_RSAG] = "rsag", [SHMEMI_CA_HIER] = "hier", [SHMEMI_CA_ONESHOT] = "oneshot",
    [SHMEMI_CA_RMA] = "rma",
};

static const shmemi_coll_kind_t kinds[SHMEMI_CK_COUNT] = {
    [SHMEMI_CK_BARRIER] = { "barrier", "FABSHMEM_BARRIER_ALGO",
                            offsetof(shmemi_env_t, barrier_algo), "Barrier and sync algorithm",
                            shmemi_coll_barrier_rows },
    [SHMEMI_CK_BCAST] = { "broadcast", "FABSHMEM_BCAST_ALGO", offsetof(shmemi_env_t, bcast_algo),
                          "Broadcast algorithm", shmemi_coll_bcast_rows },
    [SHMEMI_CK_COLLECT] = { "collect", "FABSHMEM_COLLECT_ALGO",
                            offsetof(shmemi_env_t, collect_algo),
                            "collect and fcollect algorithm", shmemi_coll_collect_rows },
    [SHMEMI_CK_ALLTOALL] = { "alltoall", "FABSHMEM_ALLTOALL_ALGO",
                             offsetof(shmemi_env_t, alltoall_algo),
                             "alltoall and alltoalls algorithm (no hierarchical form: it would "
                             "move the same bytes between nodes through one PE per node, "
                             "docs/design/collectives.md)", shmemi_coll_alltoall_rows },
    [SHMEMI_CK_REDUCE] = { "reduce", "FABSHMEM_REDUCE_ALGO", offsetof(shmemi_env_t, reduce_algo),
                           "Reduction algorithm (the scans and reduce-scatter read mapped "
                           "sources in place unless rd or rsag is forced)",
                           shmemi_coll_reduce_rows },
    [SHMEMI_CK_GPU_REDUCE] = { "gpu_reduce", "FABSHMEM_GPU_REDUCE_ALGO",
                               offsetof(shmemi_env_t, gpu_reduce_algo),
                               "Algorithm of the reductions and reduce-scatter on GPU memory "
                               "(docs/gpu.md), blocking and on CUDA streams",
                               shmemi_coll_gpu_reduce_rows },
};

/* The forced row of each kind (NULL: auto), set by shmemi_coll_algo_init. */
static const shmemi_coll_row_t *forced[SHMEMI_CK_COUNT];

const char *shmemi_coll_algo_name(int a)
{
    return a >= 0 && a < SHMEMI_CA_COUNT ? algo_names[a] : "auto";
}

const char *shmemi_coll_kind_name(int k)
{
    return kinds[k].name;
}

const shmemi_coll_kind_t *shmemi_coll_kind(int k)
{
    return &kinds[k];
}

static const shmemi_coll_row_t *row_of(int k, int algo)
{
    for (const shmemi_coll_row_t *r = kinds[k].rows; r->run; r++)
        if (r->algo == algo)
            return r;
    return NULL;
}

int shmemi_coll_algo_parse(int k, const char *name)
{
    if (!name || !*name || !strcmp(name, "auto"))
        return SHMEMI_CA_AUTO;
    for (const shmemi_coll_row_t *r = kinds[k].rows; r->run; r++)
        if (!strcmp(name, algo_names[r->algo]))
            return r->algo;
    return SHMEMI_CA_COUNT;
}

/* Appends "a, b, ... or z" of the n names name(i) to buf. */
static void list_names(char *buf, size_t len, int n, const char *(*name)(int i, const void *arg),
                       const void *arg)
{
    for (int i = 0; i < n; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " or ",
                 name(i, arg));
    }
}

static const char *row_name(int i, const void *arg)
{
    return i == 0 ? "auto" : algo_names[((const shmemi_coll_row_t *)arg)[i - 1].algo];
}

static const char *kind_name(int i, const void *arg) { return kinds[i].name; }
static const char *any_algo_name(int i, const void *arg) { return algo_names[i]; }

static int rows_count(int k)
{
    int n = 0;
    while (kinds[k].rows[n].run)
        n++;
    return n;
}

/* "auto, a, b or c": the valid names of kind k. */
static void names_list(int k, char *buf, size_t len)
{
    buf[0] = '\0';
    list_names(buf, len, rows_count(k) + 1, row_name, kinds[k].rows);
}

int shmemi_coll_algo_init(const shmemi_env_t *env)
{
    for (int k = 0; k < SHMEMI_CK_COUNT; k++) {
        const shmemi_coll_kind_t *K = &kinds[k];
        const char *v;
        char names[256];
        int a;

        memcpy(&v, (const char *)env + K->env_off, sizeof(v));
        a = shmemi_coll_algo_parse(k, v);
        if (a == SHMEMI_CA_COUNT) {
            names_list(k, names, sizeof(names));
            return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, K->var, "unknown value '%s' (%s)", v,
                              names);
        }
        forced[k] = a == SHMEMI_CA_AUTO ? NULL : row_of(k, a);
    }
    return 0;
}

int shmemi_coll_forced(int k)
{
    return forced[k] ? forced[k]->algo : SHMEMI_CA_AUTO;
}

int shmemi_coll_env_doc(const char *var, char *buf, size_t len)
{
    for (int k = 0; k < SHMEMI_CK_COUNT; k++) {
        const shmemi_coll_kind_t *K = &kinds[k];
        int n = rows_count(k);
        size_t used;

        if (strcmp(var, K->var))
            continue;
        snprintf(buf, len, "%s: auto (the first of the following that it takes)", K->doc);
        for (int i = 0; i < n; i++) {
            const shmemi_coll_row_t *r = &K->rows[i];
            used = strlen(buf);
            snprintf(buf + used, len - used, "%s%s (%s; auto: %s)", i + 1 < n ? ", " : " or ",
                     algo_names[r->algo], r->doc, r->pick_doc);
        }
        used = strlen(buf);
        snprintf(buf + used, len - used, ". A forced algorithm that cannot apply falls back to "
                 "auto's choice, or where its description says.");
        return 1;
    }
    return 0;
}

const shmemi_coll_row_t *shmemi_coll_choose(int k, shmemi_coll_args_t *a)
{
    const shmemi_coll_row_t *r = forced[k];

    while (r && r->can && !r->can(a))
        r = r->fallback == SHMEMI_CA_AUTO ? NULL : row_of(k, r->fallback);
    /* auto: the first row that picks itself; the last row always does. */
    if ((a->by_auto = !r))
        for (r = kinds[k].rows; r[1].run && r->pick && !r->pick(a); r++)
            ;
    return r;
}

int shmemi_coll_dispatch(int k, shmemi_coll_args_t *a)
{
    const shmemi_coll_row_t *r = shmemi_coll_choose(k, a);
    int rc;

    a->algo = r->algo;
    if (SHMEMI_UNLIKELY(shmemi_g.env.watchdog)) {
        shmemi_coll_watch_t w;
        shmemi_coll_watch_begin(&w, a->t, a->algo, a->rtn);
        rc = r->run(a);
        shmemi_coll_watch_end(&w);
    } else {
        rc = r->run(a);
    }
    if (!rc)
        shmemi_coll_count(a->t, k, a->algo);
    return rc;
}

int shmemi_coll_count_get(shmem_team_t team, const char *coll, const char *algo, long *count_p,
                          const char *rtn)
{
    char names[256] = "";
    int k, a, rc;

    if ((rc = shmemi_coll_check_team(team, rtn)))
        return rc;
    for (k = 0; k < SHMEMI_CK_COUNT && (!coll || strcmp(coll, kinds[k].name)); k++)
        ;
    for (a = 0; a < SHMEMI_CA_COUNT && (!algo || strcmp(algo, algo_names[a])); a++)
        ;
    if (k == SHMEMI_CK_COUNT) {
        list_names(names, sizeof(names), SHMEMI_CK_COUNT, kind_name, NULL);
        return shmemi_err_warn(SHMEMX_ERROR_INVALID_VALUE, rtn, "argument coll '%s' is not a "
                               "collective (%s)", coll ? coll : "(null)", names);
    }
    if (a == SHMEMI_CA_COUNT) {
        list_names(names, sizeof(names), SHMEMI_CA_COUNT, any_algo_name, NULL);
        return shmemi_err_warn(SHMEMX_ERROR_INVALID_VALUE, rtn, "argument algo '%s' is not an "
                               "algorithm (%s)", algo ? algo : "(null)", names);
    }
    *count_p = team->coll ? (long)((struct shmemi_coll_team *)team->coll)->count[k][a] : 0;
    return 0;
}
