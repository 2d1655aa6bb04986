/*
 * The GPU steps of init (docs/gpu.md): before the transport, each PE
 * brings up its GPU and creates its device heap alone (the transport then
 * asks the provider for FI_HMEM when there is a heap to register); after
 * it, the PEs agree that every one of them has a device heap (or none
 * keeps one), node peers map each other's heaps, and the PEs choose how
 * device memory reaches those that do not map it: the provider, with the
 * heap registered (FI_HMEM), or staging through host memory.
 *
 * A failure is every PE's when FABSHMEM_CUDA=1 asked for a GPU (init then
 * fails on every PE alike) or FABSHMEM_CUDA_REMOTE=hmem for the
 * provider; otherwise a PE that cannot have a device heap warns, and the
 * job runs without device heaps.
 */
#include "init/init.h"
#include "proxy/proxy.h"
#include "mem/mem.h"
#include "core/dev.h"
#include <stdlib.h>
#include <unistd.h>

/* How this PE's step before the transport went: a failure that fails
 * init (cls), and its message. */
static struct {
    int cls;
    char msg[200];
} dev_open;

/* FABSHMEM_CUDA: -1 auto, 0 never, 1 required; -2 auto in a program
 * linked with the device library, which loads the CUDA driver if the
 * program has not yet (its kernels need the device heap and the state
 * whatever the program called before shmem_init). */
static int dev_mode(void)
{
    if (shmemi_g.env.cuda == SHMEMI_ENV_CUDA_AUTO)
        return shmemi_devapi_hooked() ? -2 : -1;
    return shmemi_g.env.cuda == SHMEMI_ENV_CUDA_ON;
}

/* Keeps a failure of this PE's step for the agreement: the class and the
 * message recorded. */
static void dev_open_failed(int rc)
{
    dev_open.cls = rc;
    snprintf(dev_open.msg, sizeof(dev_open.msg), "%.*s", (int)sizeof(dev_open.msg) - 1,
             shmemi_err_last()->msg);
}

void shmemi_init_dev_open(int host_rank, const char *rtn)
{
    int rc;

    memset(&dev_open, 0, sizeof(dev_open));
    shmemi_dheap_none("%s", "");
    if ((rc = shmemi_cuda_open(dev_mode(), host_rank, rtn))) {
        dev_open_failed(rc);
        return;
    }
    if (!shmemi_cuda.on) {
        shmemi_dheap_none("%s", shmemi_cuda.why);
        return;
    }
    if (shmemi_g.env.device_heap_size == 0) {
        shmemi_dheap_none("FABSHMEM_DEVICE_HEAP_SIZE=0");
        return;
    }
    if ((rc = shmemi_dheap_create(shmemi_g.env.device_heap_size, rtn))) {
        shmemi_dheap_none("%s", shmemi_err_last()->msg);
        if (dev_mode() > 0)
            dev_open_failed(rc);
        else
            shmemi_log_emit(SHMEMI_LOG_WARN, "%s; this job has no device heap",
                            shmemi_err_last()->msg);
    }
}

int shmemi_init_dev_hmem_wanted(void)
{
    return shmemi_g.dheap_size && shmemi_g.env.cuda_remote != SHMEMI_ENV_CUDA_REMOTE_STAGED;
}

/* What each PE tells the others after its step before the transport. */
typedef struct dev_card {
    int cls;       /* a failure that fails init, or 0 */
    int have;      /* 1: a device heap */
    int pid;
    int gpu;       /* 1: the PE brought up a GPU, whose UUID follows */
    unsigned char uuid[16];
    uint64_t size; /* of the device heap */
    char why[200];
} dev_card_t;

/* shmemi_g.gpu_of from the cards: for each PE, the lowest PE of its node
 * with the same GPU (itself when it has none). */
static int dev_gpu_of(const dev_card_t *all, const char *rtn)
{
    int pe, q;

    shmemi_g.gpu_of = malloc(sizeof(int) * (size_t)shmemi_g.n_pes);
    if (!shmemi_g.gpu_of)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    for (pe = 0; pe < shmemi_g.n_pes; pe++) {
        shmemi_g.gpu_of[pe] = pe;
        for (q = 0; all[pe].gpu && q < pe; q++)
            if (all[q].gpu && shmemi_g.node_of[q] == shmemi_g.node_of[pe] &&
                !memcmp(all[q].uuid, all[pe].uuid, sizeof(all[pe].uuid))) {
                shmemi_g.gpu_of[pe] = q;
                break;
            }
    }
    return 0;
}

/* The agreement: 0 with every card in all[] (allocated), or the class of
 * a failure every PE returns (*agreed_p). */
static int dev_agree(dev_card_t **all_p, int *agreed_p, const char *rtn)
{
    dev_card_t me = { dev_open.cls, shmemi_g.dheap_size != 0, (int)getpid(), shmemi_cuda.on,
                      { 0 }, shmemi_g.dheap_size, "" }, *all;
    int pe;

    memcpy(me.uuid, shmemi_cuda.uuid, sizeof(me.uuid));
    snprintf(me.why, sizeof(me.why), "%s", dev_open.cls ? dev_open.msg : shmemi_dheap_why());
    all = calloc((size_t)shmemi_g.n_pes, sizeof(*all));
    if (!all)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    if (shmemi_g.boot->allgather(shmemi_g.boot, &me, all, sizeof(me))) {
        free(all);
        return shmemi_err_fatal(SHMEMX_ERROR_BOOTSTRAP, "%s: the exchange of the GPUs' state "
                                "failed", rtn);
    }
    if ((pe = dev_gpu_of(all, rtn))) {
        free(all);
        return pe;
    }
    for (pe = 0; pe < shmemi_g.n_pes; pe++) {
        if (!all[pe].cls)
            continue;
        int cls = dev_open.cls;

        *agreed_p = 1;
        if (pe != shmemi_g.my_pe)
            cls = shmemi_err_fatal(all[pe].cls, "%s: PE %d cannot set up its GPU (%s); "
                                   "initialization is undone on every PE", rtn, pe,
                                   all[pe].why);
        free(all);
        return cls;
    }
    *all_p = all;
    return 0;
}

/* Registers the device heap with the provider on every PE, or on none:
 * 1 when every PE could (the cards exchanged), 0 otherwise. */
static int dev_register(const char *rtn)
{
    shmemt_t *tp = shmemi_g.tp;
    struct { int ok; uint64_t card[3]; char why[256]; } me, *all;
    int pe, ok = 1;

    memset(&me, 0, sizeof(me));
    if (shmemi_g.env.cuda_remote == SHMEMI_ENV_CUDA_REMOTE_STAGED)
        snprintf(me.why, sizeof(me.why), "FABSHMEM_CUDA_REMOTE=staged");
    else if (tp->caps & SHMEMT_CAP_HMEM)
        me.ok = tp->ops->seg_reg_dev(tp, SHMEMT_SEG_DEV, shmemi_g.dheap_base,
                                     shmemi_g.dheap_size, shmemi_cuda.device, me.card) == 0;
    if (!me.ok && !me.why[0])
        snprintf(me.why, sizeof(me.why), "%s", tp->hmem_why[0] ? tp->hmem_why :
                 "the provider does not offer FI_HMEM");
    all = calloc((size_t)shmemi_g.n_pes, sizeof(*all));
    if (!all || shmemi_g.boot->allgather(shmemi_g.boot, &me, all, sizeof(me)))
        ok = 0;
    for (pe = 0; ok && pe < shmemi_g.n_pes; pe++)
        if (!(ok = all[pe].ok))
            snprintf(shmemi_g.dheap_hmem_why, sizeof(shmemi_g.dheap_hmem_why), "PE %d: %s", pe,
                     all[pe].why);
    for (pe = 0; ok && pe < shmemi_g.n_pes; pe++)
        ok = tp->ops->seg_peer(tp, SHMEMT_SEG_DEV, pe, all[pe].card) == 0;
    if (!ok && me.ok)
        tp->ops->seg_dereg(tp, SHMEMT_SEG_DEV);
    free(all);
    shmemi_debug("%s: the device heap %s registered with the %s provider", rtn,
                 ok ? "is" : "is not (on every PE)", tp->prov_name);
    return ok;
}

/* How device memory reaches the PEs that do not map it, and the staging
 * area (its bounce buffer always, its slots and thread where some PE is
 * not mapped). */
static int dev_remote(int all_mapped, int *agreed_p, const char *rtn)
{
    shmemi_g.dheap_remote = SHMEMI_DEV_REMOTE_NONE;
    if (!all_mapped && shmemi_g.tp)
        shmemi_g.dheap_remote = dev_register(rtn) ? SHMEMI_DEV_REMOTE_HMEM
                                                  : SHMEMI_DEV_REMOTE_STAGED;
    if (shmemi_g.dheap_remote == SHMEMI_DEV_REMOTE_STAGED &&
        shmemi_g.env.cuda_remote == SHMEMI_ENV_CUDA_REMOTE_HMEM) {
        *agreed_p = 1;
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, "FABSHMEM_CUDA_REMOTE", "hmem: the %s "
                          "provider cannot move GPU memory on every PE (%s)",
                          shmemi_g.tp->prov_name, shmemi_g.dheap_hmem_why);
    }
    /* The slots and the thread wherever some PE is not mapped: staging,
     * and with FI_HMEM the atomics on GPU memory, which the target's GPU
     * applies (the provider's would not be atomic against its kernels'). */
    return shmemi_dev_stage_init(shmemi_g.dheap_remote != SHMEMI_DEV_REMOTE_NONE, rtn);
}

/* The device heap's first block: the words of the team synchronizations
 * on CUDA streams (shmemi_g.dheap_sync), then the block counters of the
 * fused reductions (shmemi_g.dheap_ctr, one per team slot), zeroed.
 * Every PE takes it first, so it has the same offset everywhere. */
static int dev_sync_area(const char *rtn)
{
    size_t words = (size_t)shmemi_g.env.teams_max * SHMEMI_DSYNC_MEMBERS * sizeof(uint64_t);
    size_t len = words + (size_t)shmemi_g.env.teams_max * sizeof(unsigned);
    void *p;
    int rc;

    if ((rc = shmemi_dheap_get(len, SHMEMI_DEV_ALIGN, &p, rtn)))
        return rc;
    if ((rc = shmemi_cuda_zero(p, len, rtn))) {
        shmemi_dheap_put(p);
        return rc;
    }
    shmemi_g.dheap_sync = p;
    shmemi_g.dheap_ctr = (unsigned *)((char *)p + words);
    return 0;
}

int shmemi_init_device(int *agreed_p, const char *rtn)
{
    dev_card_t *all = NULL;
    int *pids, pe, have_all = 1, all_mapped = 0, rc;

    shmemi_g.peer_dheap = calloc((size_t)shmemi_g.n_pes, sizeof(char *));
    if (!shmemi_g.peer_dheap)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    if ((rc = dev_agree(&all, agreed_p, rtn)))
        return rc;
    for (pe = 0; pe < shmemi_g.n_pes && have_all; pe++)
        if (all[pe].have && all[pe].size != all[0].size)
            snprintf(all[pe].why, sizeof(all[pe].why), "its device heap has %llu bytes, PE 0's "
                     "%llu (FABSHMEM_DEVICE_HEAP_SIZE and the GPUs' granularity must agree)",
                     (unsigned long long)all[pe].size, (unsigned long long)all[0].size);
    for (pe = 0; pe < shmemi_g.n_pes && have_all; pe++)
        if (!all[pe].have || all[pe].size != all[0].size) {
            have_all = 0;
            if (shmemi_g.dheap_size)
                shmemi_dheap_destroy();
            if (pe == shmemi_g.my_pe)
                shmemi_dheap_none("%s", all[pe].why);
            else
                shmemi_dheap_none("PE %d has none: %s", pe, all[pe].why);
        }
    pids = malloc(sizeof(int) * (size_t)shmemi_g.n_pes);
    for (pe = 0; pids && pe < shmemi_g.n_pes; pe++)
        pids[pe] = all[pe].pid;
    free(all);
    if (!pids)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    rc = have_all ? shmemi_dheap_map_peers(shmemi_g.env.direct, pids, &all_mapped, rtn) : 0;
    free(pids);
    if (!rc && have_all)
        rc = dev_sync_area(rtn);
    /* Now, while no work of the program's waits for ours (a failure is
     * reported again at the kernels' first use). */
    if (!rc && have_all && shmemi_cuda_kern_preload(rtn)) {
        shmemi_debug("%s: the library's GPU kernels did not load: %s", rtn,
                     shmemi_err_last()->msg);
        shmemi_err_clear();
    }
    if (!rc && have_all)
        rc = dev_remote(all_mapped, agreed_p, rtn);
    if (!rc && have_all)
        rc = shmemi_devapi_init(rtn);
    return rc;
}

void shmemi_fini_device(void)
{
    shmemi_dev_stage_fini();
    if (shmemi_g.dheap_remote == SHMEMI_DEV_REMOTE_HMEM && shmemi_g.tp)
        shmemi_g.tp->ops->seg_dereg(shmemi_g.tp, SHMEMT_SEG_DEV);
    shmemi_g.dheap_remote = SHMEMI_DEV_REMOTE_NONE;
    shmemi_devapi_fini();
    shmemi_g.dheap_sync = NULL;
    shmemi_g.dheap_ctr = NULL;
    shmemi_dheap_destroy();
    free(shmemi_g.peer_dheap);
    shmemi_g.peer_dheap = NULL;
    free(shmemi_g.gpu_of);
    shmemi_g.gpu_of = NULL;
    shmemi_cuda_close();
}

static void devapi_info(FILE *fp, int mapped);

void shmemi_init_dev_info(FILE *fp)
{
    static const char *remote[] = { "none needed", "the provider, with the device heap "
                                    "registered (FI_HMEM)", "staged through pinned host memory "
                                    "by the target's staging thread" };
    int pe, mapped = 0, staged = shmemi_g.dheap_remote == SHMEMI_DEV_REMOTE_STAGED;

    if (!shmemi_g.dheap_size) {
        fprintf(fp, "GPU: no device heap (%s)%s\n", shmemi_dheap_why(), shmemi_proxy_running() ?
                "; the device API's proxy runs for CPU producers (FABSHMEM_PROXY=1)" : "");
        return;
    }
    for (pe = 0; pe < shmemi_g.n_pes; pe++)
        mapped += pe != shmemi_g.my_pe && shmemi_g.peer_dheap[pe];
    fprintf(fp, "GPU: device %d (%s, %s), device heap %zu MiB; node peers' device heaps mapped "
            "here: %d; GPU memory of PEs that are not mapped: %s%s%s%s%s%s\n",
            shmemi_cuda.device, shmemi_cuda.name, shmemi_cuda.pci, shmemi_g.dheap_size >> 20,
            mapped, remote[shmemi_g.dheap_remote], shmemi_g.tp ? " over " : "",
            shmemi_g.tp ? shmemi_g.tp->prov_name : "",
            staged ? " (no FI_HMEM: " : "", staged ? shmemi_g.dheap_hmem_why : "",
            staged ? ")" : "");
    if (shmemi_dev_hmem_copies())
        fprintf(fp, "GPU: streams' transfers of GPU memory to PEs that are not mapped: staged "
                "(the provider's FI_HMEM copies it with CUDA calls that would wait for the "
                "streams)\n");
    devapi_info(fp, mapped);
}

/* The device API's line of SHMEM_INFO: which PEs kernels reach, and
 * whether PEs sharing this GPU run their kernels at the same time. */
static void devapi_info(FILE *fp, int mapped)
{
    int pe, sharing = 0;

    for (pe = 0; shmemi_g.gpu_of && pe < shmemi_g.n_pes; pe++)
        sharing += pe != shmemi_g.my_pe && shmemi_g.gpu_of[pe] == shmemi_g.gpu_of[shmemi_g.my_pe];
    fprintf(fp, "GPU kernels (device API): reach this PE and the %d mapped here directly; the "
            "other %d PE%s: %s%s; other PEs on this GPU: %d%s\n", mapped,
            shmemi_g.n_pes - 1 - mapped, shmemi_g.n_pes - 1 - mapped == 1 ? "" : "s",
            shmemi_g.n_pes - 1 == mapped ? "none" : shmemi_proxy_path(),
            shmemi_proxy_running() && shmemi_cuda.lazy == 1 ? " (CUDA loads kernels lazily: "
            "set CUDA_MODULE_LOADING=EAGER, or a kernel launched while another waits for the "
            "proxy can stop it)" : "", sharing,
            !sharing ? "" : shmemi_cuda.mps == 1 ? ", under MPS (their kernels run at once)"
            : ", without MPS: their kernels take turns of time slices, so a device-side wait "
              "for one of them (barrier, wait_until, signal) takes milliseconds; start "
              "nvidia-cuda-mps-control -d for microseconds");
}
