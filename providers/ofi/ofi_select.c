/*
 * libfabric transport, selection: the provider's choice (FABSHMEM_PROVIDER,
 * the capabilities asked for, FI_TRIGGER when streams want it), fi_getinfo,
 * and the listing of what libfabric offers (fabshmem_info).  The endpoints
 * are in ofi_ep.c, init and the card exchange in ofi.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setname_np */
#endif
#include "ofi.h"
#include <rdma/fi_cm.h>
#include <dlfcn.h>
#include <stdint.h>
#include <errno.h>
#include <sys/eventfd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static struct fi_info *ofi_hints(const char *prov, uint64_t caps)
{
    struct fi_info *h;

    /* Before libfabric reads its providers' parameters. */
    ofi_quirks_env();
    h = fi_allocinfo();

    if (!h)
        return NULL;
    h->caps = caps;
    h->mode = 0;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
                              FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_SAFE;
    if (prov) {
        h->fabric_attr->prov_name = strdup(prov);
        if (!h->fabric_attr->prov_name) {
            fi_freeinfo(h);
            return NULL;
        }
    }
    return h;
}

/* A copy of info alone (fi_dupinfo copies it and whatever follows it). */
static struct fi_info *ofi_dup_one(struct fi_info *info)
{
    struct fi_info *next = info->next, *dup;

    info->next = NULL;
    dup = fi_dupinfo(info);
    info->next = next;
    return dup;
}

/* 1 when an entry before cur in list has the same provider name (fi_getinfo
 * lists a provider once per fabric and domain). */
static int ofi_name_seen(const struct fi_info *list, const struct fi_info *cur)
{
    for (; list != cur; list = list->next)
        if (!strcmp(list->fabric_attr->prov_name, cur->fabric_attr->prov_name))
            return 1;
    return 0;
}

/* The best fi_info for requested with the given caps, duplicated, or NULL
 * with *ret_p set (-ENOENT: none fits).  log: where a failure of
 * fi_getinfo itself is reported. */
static struct fi_info *ofi_pick(const char *requested, uint64_t caps, int *ret_p,
                                const ofi_log_t *log)
{
    struct fi_info *hints, *list = NULL, *cur, *best = NULL, *dup = NULL;
    int best_rank = -1, r, ret;
    const char *full = requested && *requested ? ofi_quirks_full_name(requested) : NULL;

    hints = ofi_hints(full, caps);
    if (!hints) {
        *ret_p = -ENOMEM;
        return NULL;
    }
    ret = fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (ret) {
        *ret_p = ret == -FI_ENODATA ? -ENOENT : -EIO;
        if (ret != -FI_ENODATA)
            ofi_log(log, SHMEMT_LOG_ERR, "fi_getinfo: %s", fi_strerror(-ret));
        return NULL;
    }
    for (cur = list; cur; cur = cur->next) {
        r = shmemt_ofi_rank_provider(requested, cur->fabric_attr->prov_name);
        if (r < 0)
            continue;
        if (!best || r < best_rank) {
            best = cur;
            best_rank = r;
        }
    }
    if (best)
        dup = ofi_dup_one(best);
    fi_freeinfo(list);
    *ret_p = best ? (dup ? 0 : -ENOMEM) : -ENOENT;
    return dup;
}

/* The best fi_info for requested, asking for the most capabilities first:
 * messages carry the active messages (ofi_am.c); a provider without them
 * still does RMA, and its own atomics where it has them. */
static struct fi_info *ofi_pick_any(const char *requested, int *ret_p, const ofi_log_t *log)
{
    static const uint64_t caps[] = { FI_RMA | FI_ATOMIC | FI_MSG, FI_RMA | FI_MSG,
                                     FI_RMA | FI_ATOMIC, FI_RMA };
    struct fi_info *info = NULL;
    size_t i;

    *ret_p = -ENOENT;
    for (i = 0; i < sizeof(caps) / sizeof(caps[0]) && !info && *ret_p == -ENOENT; i++)
        info = ofi_pick(requested, caps[i], ret_p, log);
    return info;
}

/* The names of the providers with RDM endpoints and RMA, with the short
 * name a user may give first ("tcp (tcp;ofi_rxm), shm, sockets"), into
 * buf: for the message of a request that none of them fits. */
static void ofi_names_found(char *buf, size_t len)
{
    struct fi_info *hints = ofi_hints(NULL, FI_RMA), *list = NULL, *cur;
    const char *name, *alias;
    size_t n = 0;
    int w;

    snprintf(buf, len, "none");
    if (!hints)
        return;
    if (fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, hints, &list))
        list = NULL;
    fi_freeinfo(hints);
    for (cur = list; cur && n < len; cur = cur->next) {
        if (ofi_name_seen(list, cur))
            continue;
        name = cur->fabric_attr->prov_name;
        alias = ofi_quirks_short_name(name);
        w = alias ? snprintf(buf + n, len - n, "%s%s (%s)", n ? ", " : "", alias, name)
                  : snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name);
        n += w > 0 ? (size_t)w : 0;
    }
    if (list)
        fi_freeinfo(list);
}
/* Asks for o->info again with FI_TRIGGER (fi_getinfo reports only the caps
 * asked for) and keeps the answer of the same provider when there is one. */
static void ofi_want_trigger(shmemt_ofi_t *o)
{
    struct fi_info *h = fi_dupinfo(o->info), *list = NULL, *cur, *dup;

    if (!h)
        return;
    h->caps |= FI_TRIGGER;
    h->mode = 0;
    if (fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, h, &list) == 0) {
        for (cur = list; cur; cur = cur->next)
            if ((cur->caps & FI_TRIGGER) &&
                !strcmp(cur->fabric_attr->prov_name, o->info->fabric_attr->prov_name))
                break;
        if (cur && (dup = ofi_dup_one(cur)) != NULL) {
            fi_freeinfo(o->info);
            o->info = dup;
        }
        fi_freeinfo(list);
    }
    fi_freeinfo(h);
}

/* Why no provider fits, with the providers there are. */
static void ofi_select_failed(shmemt_ofi_t *o, const char *requested)
{
    char found[512];
    const char *full;

    if (!requested || !*requested) {
        ofi_err(o, "no libfabric provider with RDM endpoints and RMA found "
                "(tried verbs;ofi_rxm, tcp;ofi_rxm, sockets, shm)");
        return;
    }
    ofi_names_found(found, sizeof(found));
    full = ofi_quirks_full_name(requested);
    ofi_err(o, "libfabric provider \"%s\"%s%s%s is not available with RDM endpoints and RMA; "
            "the providers there are: %s (fabshmem_info shows what each can do)", requested,
            strcmp(full, requested) ? " (" : "", strcmp(full, requested) ? full : "",
            strcmp(full, requested) ? ")" : "", found);
}

int ofi_select(shmemt_ofi_t *o, const char *requested, int trigger)
{
    int ret;

    o->info = ofi_pick_any(requested, &ret, &o->log);
    if (!o->info) {
        if (ret == -ENOENT)
            ofi_select_failed(o, requested);
        return ret;
    }
    if (trigger)
        ofi_want_trigger(o);
    snprintf(o->prov_name, sizeof(o->prov_name), "%s", o->info->fabric_attr->prov_name);
    return 0;
}

static void ofi_mr_mode_str(uint64_t m, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s%s%s", m & FI_MR_LOCAL ? "local," : "",
             m & FI_MR_VIRT_ADDR ? "virt_addr," : "", m & FI_MR_ALLOCATED ? "allocated," : "",
             m & FI_MR_PROV_KEY ? "prov_key," : "", m & FI_MR_ENDPOINT ? "endpoint," : "",
             m ? "" : "none");
    size_t n = strlen(buf);
    if (n && buf[n - 1] == ',')
        buf[n - 1] = '\0';
}

int shmemt_ofi_list(FILE *fp)
{
    struct fi_info *hints, *list = NULL, *alist = NULL, *cur, *prev;
    char mr[96];
    int ret;

    hints = ofi_hints(NULL, FI_RMA);
    if (!hints)
        return -ENOMEM;
    ret = fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (ret == -FI_ENODATA) {
        fprintf(fp, "  (no libfabric provider with RDM endpoints and RMA)\n");
        return 0;
    }
    if (ret) {
        fprintf(fp, "  (fi_getinfo: %s)\n", fi_strerror(-ret));
        return -EIO;
    }
    /* fi_getinfo reports only the caps asked for: ask again with atomics. */
    hints = ofi_hints(NULL, FI_RMA | FI_ATOMIC);
    if (hints && fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, hints, &alist))
        alist = NULL;
    fi_freeinfo(hints);
    for (cur = list; cur; cur = cur->next) {
        const char *name = cur->fabric_attr->prov_name;
        int atomics = 0, rank = shmemt_ofi_rank_provider(NULL, name);
        if (ofi_name_seen(list, cur))
            continue;
        for (prev = alist; prev; prev = prev->next)
            if (!strcmp(prev->fabric_attr->prov_name, name))
                atomics = 1;
        ofi_mr_mode_str(cur->domain_attr->mr_mode, mr, sizeof(mr));
        fprintf(fp, "  %-16s rma%s%s%s  progress=%s  mr_mode=%s  inject=%zu", name,
                atomics ? " atomic" : "", cur->caps & FI_FENCE ? " fence" : "",
                cur->caps & FI_TRIGGER ? " trigger" : "",
                cur->domain_attr->data_progress == FI_PROGRESS_AUTO ? "auto" : "manual", mr,
                cur->tx_attr->inject_size);
        if (rank >= 0)
            fprintf(fp, "  (automatic choice %d)", rank + 1);
        fputc('\n', fp);
    }
    fi_freeinfo(list);
    if (alist)
        fi_freeinfo(alist);
    return 0;
}

int shmemt_ofi_choice(const char *requested, char *name, size_t len, int *trigger_p)
{
    struct fi_info *info, *trig;
    int ret;

    /* As ofi_select picks, then asks the pick for triggered operations as
     * ofi_want_trigger does. */
    info = ofi_pick_any(requested, &ret, NULL);
    if (!info)
        return ret;
    snprintf(name, len, "%s", info->fabric_attr->prov_name);
    trig = ofi_pick(info->fabric_attr->prov_name, info->caps | FI_TRIGGER, &ret, NULL);
    *trigger_p = trig && (trig->caps & FI_TRIGGER);
    if (trig)
        fi_freeinfo(trig);
    fi_freeinfo(info);
    return 0;
}

const char *shmemt_ofi_version(void)
{
    static char buf[64];
    const char *s;
    int dummy = 0;
    size_t n;

    /* The loaded library's own version ("1.17.1"): fi_version() is only
     * the API's (1.17), the same for Debian's 1.17.0 and a 1.17.1 built
     * with CUDA put first on LD_LIBRARY_PATH. */
    s = fi_tostr(&dummy, FI_TYPE_VERSION);
    if (s && *s) {
        n = strcspn(s, " \t\n");
        snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) ? n : sizeof(buf) - 1), s);
    } else {
        uint32_t v = fi_version();
        snprintf(buf, sizeof(buf), "%u.%u", FI_MAJOR(v), FI_MINOR(v));
    }
    return buf;
}

const char *shmemt_ofi_library(void)
{
    Dl_info dl;

    if (dladdr((void *)(uintptr_t)&fi_getinfo, &dl) && dl.dli_fname)
        return dl.dli_fname;
    return "";
}
