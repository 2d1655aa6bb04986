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
#include <stdlib.h>
#include <string.h>

/* The first fi_info of provider prov_name that has FI_HMEM among the
 * answers to hints h (whose caps and mr_mode this adds FI_HMEM to), or
 * NULL. */
/* The capabilities of the transport's that the hints with FI_HMEM keep. */
#define OFI_HMEM_CAPS                                                                  \
    (FI_MSG | FI_RMA | FI_ATOMIC | FI_TRIGGER | FI_READ | FI_WRITE | FI_SEND | FI_RECV | \
     FI_REMOTE_READ | FI_REMOTE_WRITE | FI_RMA_EVENT | FI_FENCE)

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

void ofi_want_hmem(shmemt_ofi_t *o)
{
    const char *prov = o->info->fabric_attr->prov_name;
    struct fi_info *h, *dup = NULL;
    uint32_t v = fi_version();
    const char *broken = ofi_quirk_no_hmem(prov);
    int k;

    if (broken) {
        snprintf(o->pub.hmem_why, sizeof(o->pub.hmem_why), "%s", broken);
        return;
    }
    /* With the transport's capabilities; then, where the provider cannot
     * have both (libfabric 2.1's shm), without FI_TRIGGER: GPU memory
     * moved by the provider is worth more than offloaded streams. */
    for (k = 0; k < 2 && !dup; k++) {
        if (k == 1 && !(o->info->caps & FI_TRIGGER))
            break;
        if (!(h = ofi_hmem_hints(o->info, k ? FI_TRIGGER : 0)))
            return;
        dup = ofi_hmem_info(h, prov);
        fi_freeinfo(h);
        if (dup && k)
            ofi_info_log(o, "ofi: the %s provider offers FI_HMEM only without FI_TRIGGER: the "
                         "streams' offload is off", prov);
    }
    if (dup) {
        fi_freeinfo(o->info);
        o->info = dup;
    } else {
        snprintf(o->pub.hmem_why, sizeof(o->pub.hmem_why), "libfabric %u.%u offers no FI_HMEM "
                 "for the %s provider with the capabilities the transport needs (a libfabric "
                 "built with CUDA is needed)", FI_MAJOR(v), FI_MINOR(v), prov);
    }
}

const char *shmemt_ofi_hmem(const char *prov_name)
{
    static const char none[] = "the provider has no FI_HMEM";
    const char *broken;
    struct fi_info *h, *dup;
    int has;

    ofi_quirks_env();
    if ((broken = ofi_quirk_no_hmem(prov_name)))
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
