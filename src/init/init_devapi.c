/*
 * The host side of the device API (docs/device.md): at init, on a job with
 * device heaps, the state that kernels read (include/fabshmem/device/
 * state.h) and its area; team handles for kernels; the report of the
 * errors kernels record.
 *
 * The area is one block of the device heap, taken by every PE at init
 * right after the stream synchronizations' (so at the same offset
 * everywhere): first the barrier words, which peers store into
 * ([teams_max][SHMEMD_BAR_ROUNDS], symmetric), then this PE's own tables:
 * the barrier epochs, the sequences of small reductions, where each peer's
 * heap is mapped, the teams and
 * their members, the word that claims the first error, and the scratch
 * of in-place reductions.  The error record is pinned host memory, which
 * kernels write (stores only) and the host reads without a copy.
 */
#include "init/init.h"
#include "team/team.h"
#include "mem/mem.h"
#include "core/dev.h"
#include "proxy/proxy.h"
#include <fabshmem/device/state.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The fields of the first checks in one line of constant memory
 * (include/fabshmem/device/state.h). */
_Static_assert(offsetof(shmemd_state_t, bar_world) == 64 && offsetof(shmemd_state_t, peer_c) == 128,
               "shmemd_state_t: the hot fields are not in the first 64 bytes");

static shmemd_state_t devapi;  /* version 0: no device API (no device heap) */
static void *devapi_block;     /* the area in the device heap */
static int *devapi_pes;        /* [teams_max][n_pes] in the area */
static void (*devapi_hook)(const void *state, size_t len);

/* Publishes team t (its slot) to the kernels: the entry and its members. */
static int devapi_publish(const struct shmemi_team *t, const char *rtn)
{
    shmemd_team_t_ e;
    int *pes = devapi_pes + (size_t)t->slot * (size_t)shmemi_g.n_pes;
    int rc;

    e.n_pes = t->n_pes;
    e.my_pe = t->my_pe;
    e.pes = pes;
    if ((rc = shmemi_cuda_copy(pes, t->pes, sizeof(int) * (size_t)t->n_pes, rtn)))
        return rc;
    return shmemi_cuda_copy(devapi.teams + t->slot, &e, sizeof(e), rtn);
}

int shmemi_devapi_init(const char *rtn)
{
    size_t tm = (size_t)shmemi_g.env.teams_max, np = (size_t)shmemi_g.n_pes;
    size_t bar = tm * SHMEMD_BAR_ROUNDS * 8, epochs = tm * 8 * 2, peers = np * sizeof(char *);
    size_t teams = tm * sizeof(shmemd_team_t_), pes = tm * np * sizeof(int);
    size_t claim = 64; /* the error claim word, on a line of its own */
    size_t push = (size_t)SHMEMD_PUSH_TEAMS * 2 * SHMEMD_PUSH_BYTES;
    /* The push areas and the scratch on 256-byte lines (16-byte words). */
    size_t head = (bar + epochs + peers + teams + pes + claim + 255) & ~(size_t)255;
    size_t len = head + push + SHMEMD_SCRATCH_BYTES;
    char *p;
    int rc;

    memset(&devapi, 0, sizeof(devapi));
    if ((rc = shmemi_dheap_get(len, SHMEMI_DEV_ALIGN, &devapi_block, rtn)))
        return rc;
    p = devapi_block;
    if ((rc = shmemi_cuda_zero(p, head + push, rtn))) /* the push areas' flags too */
        goto fail;
    devapi.err = shmemi_cuda_host_alloc(sizeof(shmemd_err_t), rtn);
    if (!devapi.err) {
        rc = shmemi_err_last()->code;
        goto fail;
    }
    memset(devapi.err, 0, sizeof(shmemd_err_t));
    devapi.my_pe = shmemi_g.my_pe;
    devapi.n_pes = shmemi_g.n_pes;
    devapi.teams_max = (int)tm;
    devapi.heap_base = shmemi_g.dheap_base;
    devapi.heap_size = shmemi_g.dheap_span;
    devapi.bar = (unsigned long long *)p;
    devapi.bar_epoch = (unsigned long long *)(p + bar);
    devapi.coll_seq = devapi.bar_epoch + tm;
    devapi.peer_base = (char **)(p + bar + epochs);
    devapi.teams = (shmemd_team_t_ *)(p + bar + epochs + peers);
    devapi_pes = (int *)(p + bar + epochs + peers + teams);
    devapi.err_claim = (unsigned int *)(p + bar + epochs + peers + teams + pes);
    devapi.push = p + head;
    devapi.scratch = devapi.push + push;
    for (size_t pe = 0; pe < np && pe < SHMEMD_PEERS_C; pe++)
        devapi.peer_c[pe] = shmemi_g.peer_dheap[pe];
    if (!(rc = shmemi_cuda_copy(devapi.peer_base, shmemi_g.peer_dheap, peers, rtn)))
        return 0;
fail:
    shmemi_devapi_fini();
    return rc;
}

int shmemi_devapi_proxy(const char *rtn)
{
    return shmemi_proxy_start(&devapi.proxy, rtn);
}

/* What the state says of the synchronizations (state.h): sync_gpu,
 * world_mapped, and the world's partners' words (bar_world), once the
 * proxy is known. */
static void devapi_sync_ways(void)
{
    int n = shmemi_g.n_pes, me = shmemi_g.my_pe, pe;

    devapi.world_mapped = !devapi.proxy.slots;
    for (pe = 0; pe < n && devapi.world_mapped; pe++)
        if (!shmemi_g.peer_dheap[pe])
            devapi.world_mapped = 0;
    devapi.sync_gpu = devapi.world_mapped && shmemi_g.gpu_of != NULL;
    for (pe = 0; pe < n && devapi.sync_gpu; pe++)
        if (shmemi_g.gpu_of[pe] != shmemi_g.gpu_of[me])
            devapi.sync_gpu = 0;
    for (int k = 0; k < SHMEMD_BAR_WORLD && (1 << k) < n && n <= (1 << SHMEMD_BAR_WORLD); k++) {
        char *base = shmemi_g.peer_dheap[(me + (1 << k)) % n];
        devapi.bar_world[k] = !base ? NULL
                              : (unsigned long long *)(base + ((char *)(devapi.bar + k) -
                                                               devapi.heap_base));
    }
}

int shmemi_devapi_ready(const char *rtn)
{
    int rc;

    if (!devapi_block)
        return 0;
    if ((rc = devapi_publish(SHMEM_TEAM_WORLD, rtn)) ||
        (SHMEM_TEAM_SHARED->my_pe >= 0 && (rc = devapi_publish(SHMEM_TEAM_SHARED, rtn))) ||
        (SHMEMX_TEAM_NODE->my_pe >= 0 && (rc = devapi_publish(SHMEMX_TEAM_NODE, rtn))))
        return rc;
    devapi_sync_ways();
    devapi.version = SHMEMD_STATE_VERSION;
    if (devapi_hook)
        devapi_hook(&devapi, sizeof(devapi));
    return 0;
}

int shmemi_devapi_slot_clear(int slot, const char *rtn)
{
    int rc;

    if (!devapi.version || slot < 0 || slot >= devapi.teams_max)
        return 0;
    if ((rc = shmemi_cuda_zero(devapi.bar + (size_t)slot * SHMEMD_BAR_ROUNDS,
                               SHMEMD_BAR_ROUNDS * 8, rtn)) ||
        (rc = shmemi_cuda_zero(devapi.bar_epoch + slot, 8, rtn)) ||
        (rc = shmemi_cuda_zero(devapi.coll_seq + slot, 8, rtn)))
        return rc;
    for (int h = 0; h < 2 && slot < SHMEMD_PUSH_TEAMS; h++)
        if ((rc = shmemi_cuda_zero(devapi.push + ((size_t)slot * 2 + (size_t)h) * SHMEMD_PUSH_BYTES,
                                   SHMEMD_PUSH_BYTES / 2, rtn)))
            return rc;
    return 0;
}

void shmemi_devapi_fini(void)
{
    if (devapi.err)
        shmemi_cuda_host_free(devapi.err);
    if (devapi_block)
        shmemi_dheap_put(devapi_block);
    devapi_block = NULL;
    devapi_pes = NULL;
    memset(&devapi, 0, sizeof(devapi));
}

int shmemi_devapi_state(void *buf, size_t len, const char *rtn)
{
    if (!devapi.version)
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "the device API needs a device heap, "
                          "and the PEs have none: %s", shmemi_dheap_why());
    if (!buf || len != sizeof(devapi))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "len is %zu, but this library's "
                          "state (shmemd_state_t, version %d) has %zu bytes: the module was built "
                          "against another fabshmem", len, SHMEMD_STATE_VERSION, sizeof(devapi));
    memcpy(buf, &devapi, sizeof(devapi));
    return 0;
}

int shmemi_devapi_hooked(void)
{
    return devapi_hook != NULL;
}

void shmemi_devapi_hook(void (*fn)(const void *state, size_t len))
{
    devapi_hook = fn;
    if (fn && devapi.version)
        fn(&devapi, sizeof(devapi));
}

int shmemi_devapi_team(struct shmemi_team *t, const char *rtn)
{
    if (!devapi.version || !shmemi_team_ok(t) || t->slot < 0)
        return -1;
    if (devapi_publish(t, rtn))
        return -1;
    return t->slot;
}

/* Takes the errors recorded since the last check into *e: 1 with the
 * first (its message and class, where the proxy gave one, in why and
 * *cls), 0 when there are none, or the class of a failure to clear them
 * (negated, recorded).  Two records: the kernels' and the proxy's (apart,
 * since the kernels claim the first of theirs through a word of GPU
 * memory that the proxy cannot take with them); the first is the
 * kernels', else the proxy's (which of the two came first is not known),
 * and the count is both records'.  In each the count comes after the
 * first error's fields, which the acquire loads then see. */
static int devapi_take(shmemd_err_t *e, char *why, size_t len, int *cls, const char *rtn)
{
    shmemd_err_t *krec = devapi.err, *prec = shmemi_proxy_err(), *rec;
    unsigned kc = 0, pc = 0;

    if (krec)
        kc = __atomic_load_n(&krec->count, __ATOMIC_ACQUIRE);
    if (prec)
        pc = __atomic_load_n(&prec->count, __ATOMIC_ACQUIRE);
    if (SHMEMI_LIKELY(!kc && !pc))
        return 0;
    rec = kc ? krec : prec;
    e->routine = rec->routine;
    e->what = rec->what;
    e->pe = rec->pe;
    e->addr = rec->addr;
    /* The claim word first (kernels claim the first error there), then the
     * count: an error of a kernel between the two is the first of the next
     * report. */
    if (kc && devapi.err_claim && shmemi_cuda_zero(devapi.err_claim, sizeof(unsigned int), rtn))
        return -shmemi_err_last()->code;
    /* The proxy's message of its record (it says nothing of the kernels'),
     * taken while its count still stands: the proxy's errors until the
     * count is taken only add to it, the later ones are the next
     * report's.  A kernel's SHMEMD_ERR_PROXY (the proxy stopped under its
     * request) is told by it too. */
    why[0] = 0;
    *cls = pc ? shmemi_proxy_why(why, len) : 0;
    e->count = (kc ? __atomic_exchange_n(&krec->count, 0, __ATOMIC_ACQ_REL) : 0) +
               (pc ? __atomic_exchange_n(&prec->count, 0, __ATOMIC_ACQ_REL) : 0);
    return 1;
}

int shmemi_devapi_check(const char *rtn)
{
    shmemd_err_t e = { 0 };
    char why[640];
    int cls = 0, rc;

    /* The requests kernels posted to the proxy are carried out first (and
     * their errors recorded). */
    (void)shmemi_proxy_drain();
    if (SHMEMI_LIKELY((rc = devapi_take(&e, why, sizeof(why), &cls, rtn)) == 0))
        return 0;
    if (rc < 0)
        return -rc;
    switch (e.what) {
    case SHMEMD_ERR_UNMAPPED:
        snprintf(why, sizeof(why), "this GPU does not map PE %d's device heap (another node, a "
                 "GPU without peer access, or FABSHMEM_DIRECT=0); kernels reach only the PEs of "
                 "SHMEM_TEAM_SHARED", e.pe);
        return shmemi_err_ends(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "a kernel's %s to PE %d (%u error%s "
                          "since the last check; the first): %s", shmemi_proxy_rtn_name(e.routine),
                          e.pe, e.count, e.count == 1 ? "" : "s", why);
    case SHMEMD_ERR_PROXY:
        return shmemi_err_ends(cls ? cls : SHMEMX_ERROR_TRANSPORT, rtn, "a kernel's %s to PE "
                               "%d through the proxy (%u error%s since the last check; the "
                               "first): %s",
                               shmemi_proxy_rtn_name(e.routine), e.pe, e.count,
                               e.count == 1 ? "" : "s", why[0] ? why : "the proxy stopped "
                               "(shmem_finalize) or failed before it");
    case SHMEMD_ERR_NOT_GLOBAL:
        snprintf(why, sizeof(why), "the buffer at %#llx is in shared or local memory; the proxy "
                 "(to PEs this GPU does not map) reaches only global memory: the device heap or "
                 "host memory", e.addr);
        break;
    case SHMEMD_ERR_NOT_SYMMETRIC:
        snprintf(why, sizeof(why), "address %#llx is not inside the device heap", e.addr);
        break;
    case SHMEMD_ERR_TOO_LARGE:
        snprintf(why, sizeof(why), "the object at %#llx runs past the end of the device heap",
                 e.addr);
        break;
    case SHMEMD_ERR_BAD_PE:
        snprintf(why, sizeof(why), "PE %d is out of range (0 to %d, or the team's size)", e.pe,
                 shmemi_g.n_pes - 1);
        break;
    case SHMEMD_ERR_BAD_TEAM:
        snprintf(why, sizeof(why), "team %d is not a device team of which this PE is a member "
                 "(SHMEMD_TEAM_WORLD, SHMEMD_TEAM_SHARED, SHMEMD_TEAM_NODE, or "
                 "shmemx_team_device)", e.pe);
        break;
    default:
        snprintf(why, sizeof(why), "unknown error %d", e.what);
    }
    return shmemi_err_ends(SHMEMX_ERROR_INVALID_VALUE, rtn, "a kernel's %s (%u error%s since the "
                      "last check; the first): %s", shmemi_proxy_rtn_name(e.routine), e.count,
                      e.count == 1 ? "" : "s", why);
}
