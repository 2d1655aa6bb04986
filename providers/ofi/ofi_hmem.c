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
#include <stdlib.h>
#include <string.h>

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

void ofi_want_hmem(shmemt_ofi_t *o)
{
    struct fi_info *h = fi_dupinfo(o->info), *dup;
    uint32_t v = fi_version();

    if (!h)
        return;
    dup = ofi_hmem_info(h, o->info->fabric_attr->prov_name);
    fi_freeinfo(h);
    if (dup) {
        fi_freeinfo(o->info);
        o->info = dup;
    } else {
        snprintf(o->pub.hmem_why, sizeof(o->pub.hmem_why), "libfabric %u.%u offers no FI_HMEM "
                 "for the %s provider (a libfabric built with CUDA is needed)", FI_MAJOR(v),
                 FI_MINOR(v), o->info->fabric_attr->prov_name);
    }
}

int shmemt_ofi_hmem(const char *prov_name)
{
    struct fi_info *h, *dup;
    int has;

    ofi_quirks_env();
    h = fi_allocinfo();
    if (!h)
        return 0;
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
    return has;
}
