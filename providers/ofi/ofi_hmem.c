/*
 * libfabric transport: GPU memory (FI_HMEM).  Where the provider moves
 * device memory itself (FI_HMEM, with a libfabric built with CUDA), the
 * device heap is registered with the iface FI_HMEM_CUDA (ofi_seg_reg_dev
 * in ofi_mr.c) and puts and gets reach it like any segment; elsewhere the
 * core stages it through host memory (docs/gpu.md).  Asking for FI_HMEM
 * is a second fi_getinfo for the provider already chosen, as for
 * FI_TRIGGER: fi_getinfo reports only the capabilities asked for.
 */
#include "ofi.h"
#include "ofi_mr.h"
#include "ofi_am.h"
#include <stdlib.h>
#include <string.h>

/* The capabilities of the transport's that the hints with FI_HMEM keep. */
#define OFI_HMEM_CAPS                                                                  \
    (FI_MSG | FI_RMA | FI_ATOMIC | FI_TRIGGER | FI_READ | FI_WRITE | FI_SEND | FI_RECV | \
     FI_REMOTE_READ | FI_REMOTE_WRITE | FI_RMA_EVENT | FI_FENCE)

/* The first fi_info of provider prov_name that has FI_HMEM among the
 * answers to hints h (whose caps and mr_mode this adds FI_HMEM to), or
 * NULL. */
static struct fi_info *ofi_hmem_info(struct fi_info *h, const char *prov_name)
{
    struct fi_info *list = NULL, *cur, *dup = NULL;

    h->caps |= FI_HMEM;
    h->mode = 0;
    h->domain_attr->mr_mode |= FI_MR_HMEM;
    if (fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, h, &list))
        return NULL;
    for (cur = list; cur; cur = cur->next)
        if ((cur->caps & FI_HMEM) && !strcmp(cur->fabric_attr->prov_name, prov_name))
            break;
    if (cur) {
        struct fi_info *next = cur->next;

        cur->next = NULL;
        dup = fi_dupinfo(cur);
        cur->next = next;
    }
    fi_freeinfo(list);
    return dup;
}

/* Hints for the provider and domain of info i with FI_HMEM: i's
 * capabilities (those of ours, less drop), endpoint type, mode, address
 * format and memory registration mode, and nothing else.  A copy of i
 * itself would carry its sizes (inject, queue sizes), which the provider's
 * FI_HMEM variant may not match (libfabric 2.1's shm offers no inject
 * with FI_HMEM). */
static struct fi_info *ofi_hmem_hints(const struct fi_info *i, uint64_t drop)
{
    struct fi_info *h = fi_allocinfo();

    if (!h)
        return NULL;
    h->caps = i->caps & OFI_HMEM_CAPS & ~drop;
    h->mode = i->mode;
    h->addr_format = i->addr_format;
    h->ep_attr->type = i->ep_attr->type;
    h->domain_attr->mr_mode = i->domain_attr->mr_mode;
    h->fabric_attr->prov_name = strdup(i->fabric_attr->prov_name);
    if (i->domain_attr->name)
        h->domain_attr->name = strdup(i->domain_attr->name);
    return h;
}

/* What ofi_want_hmem may leave out, in turn, to get FI_HMEM: nothing;
 * FI_TRIGGER (libfabric 2.1's shm cannot have both); and FI_ATOMIC too
 * where AMOs go by active messages anyway (libfabric 1.17's shm offers
 * FI_HMEM only without atomics). */
static const uint64_t ofi_hmem_drops[] = { 0, FI_TRIGGER, FI_TRIGGER | FI_ATOMIC };

int ofi_hmem_amo_way(const char *prov_name, const struct fi_info *info,
                     const shmemt_ofi_cfg_t *cfg)
{
    ofi_quirks_t q;

    ofi_quirks_for(prov_name, info, cfg, &q);
    if (q.am && info->tx_attr->inject_size >= sizeof(ofi_am_hdr_t))
        return 1;
    return (info->caps & FI_ATOMIC) && !q.no_atomics;
}

/* The FI_HMEM answer of o's provider with the least left out, or NULL;
 * *drop_p: what was left out. */
static struct fi_info *ofi_hmem_find(shmemt_ofi_t *o, const ofi_quirks_t *q, uint64_t *drop_p)
{
    const char *prov = o->info->fabric_attr->prov_name;
    struct fi_info *h, *dup = NULL;
    size_t k;

    for (k = 0; k < sizeof(ofi_hmem_drops) / sizeof(ofi_hmem_drops[0]) && !dup; k++) {
        *drop_p = ofi_hmem_drops[k];
        if (k && !(o->info->caps & *drop_p & ~ofi_hmem_drops[k - 1]))
            continue;
        if ((*drop_p & FI_ATOMIC) && !q->am)
            break;
        if (!(h = ofi_hmem_hints(o->info, *drop_p)))
            return NULL;
        dup = ofi_hmem_info(h, prov);
        fi_freeinfo(h);
    }
    return dup;
}

void ofi_want_hmem(shmemt_ofi_t *o)
{
    const char *prov = o->info->fabric_attr->prov_name;
    struct fi_info *dup;
    uint32_t v = fi_version();
    const char *broken = ofi_quirk_no_hmem(prov, &o->cfg);
    uint64_t drop = 0;
    ofi_quirks_t q;

    if (broken) {
        snprintf(o->pub.hmem_why, sizeof(o->pub.hmem_why), "%s", broken);
        return;
    }
    ofi_quirks_for(o->prov_name, o->info, &o->cfg, &q);
    if (!(dup = ofi_hmem_find(o, &q, &drop))) {
        snprintf(o->pub.hmem_why, sizeof(o->pub.hmem_why), "libfabric %u.%u offers no FI_HMEM "
                 "for the %s provider with the capabilities the transport needs (a libfabric "
                 "built with CUDA is needed)", FI_MAJOR(v), FI_MINOR(v), prov);
        return;
    }
    /* An answer without inject and atomics (libfabric 1.17.1's and 2.1's
     * shm: inject size 0) leaves AMOs and signals to PEs that are not
     * mapped no way: refused, but where a developer asked for it
     * (FABSHMEM_OFI_SHM_HMEM=1: the transfers of GPU memory are tried,
     * and an AMO fails naming the provider). */
    if (ofi_hmem_amo_way(o->prov_name, o->info, &o->cfg) &&
        !ofi_hmem_amo_way(o->prov_name, dup, &o->cfg)) {
        if (!(o->cfg.shm_hmem && !strcmp(prov, "shm"))) {
            snprintf(o->pub.hmem_why, sizeof(o->pub.hmem_why), "libfabric %s's %s provider "
                     "offers FI_HMEM only with inject size %zu and %s: AMOs to PEs that are "
                     "not mapped would have no way", shmemt_ofi_version(), prov,
                     dup->tx_attr->inject_size, dup->caps & FI_ATOMIC ? "atomics the "
                     "transport does not use" : "no atomics");
            fi_freeinfo(dup);
            return;
        }
        ofi_info_log(o, "ofi: FABSHMEM_OFI_SHM_HMEM=1: the %s provider's FI_HMEM has inject "
                     "size %zu and no atomics the transport uses: AMOs and signals to PEs that "
                     "are not mapped fail", prov, dup->tx_attr->inject_size);
    }
    if ((drop & FI_TRIGGER) && (o->info->caps & FI_TRIGGER))
        ofi_info_log(o, "ofi: the %s provider offers FI_HMEM only without FI_TRIGGER: the "
                     "streams' offload is off", prov);
    if ((drop & FI_ATOMIC) && (o->info->caps & FI_ATOMIC))
        ofi_info_log(o, "ofi: the %s provider offers FI_HMEM only without FI_ATOMIC", prov);
    fi_freeinfo(o->info);
    o->info = dup;
}

const char *shmemt_ofi_hmem(const char *prov_name, const shmemt_ofi_cfg_t *cfg)
{
    static const char none[] = "the provider has no FI_HMEM";
    const char *broken;
    struct fi_info *h, *dup;
    int has;

    ofi_quirks_env();
    if ((broken = ofi_quirk_no_hmem(prov_name, cfg)))
        return broken;
    h = fi_allocinfo();
    if (!h)
        return none;
    h->caps = FI_RMA;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
                              FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->fabric_attr->prov_name = strdup(prov_name);
    dup = h->fabric_attr->prov_name ? ofi_hmem_info(h, prov_name) : NULL;
    has = dup != NULL;
    if (dup)
        fi_freeinfo(dup);
    fi_freeinfo(h);
    return has ? NULL : none;
}
