/*
 * libfabric transport: the network interface the endpoint listens on
 * (docs/design/trust.md).  Providers over IP sockets (tcp;ofi_rxm,
 * sockets, net) list one domain per interface, named after it, and the
 * endpoint listens on that interface's address: the first one listed,
 * unless told otherwise.  A job whose PEs all run on this host listens on
 * loopback, out of reach of other machines; the init arguments' iface
 * (FABSHMEM_IFACE) names the interface of a job that spans hosts; else the
 * provider's own choice stands (which its variables, FI_TCP_IFACE or
 * FI_SOCKETS_IFACE, set).  Providers whose domains are not interfaces
 * (shm, verbs) are left as they are.
 */
#include "ofi.h"
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* 1 when the domain of info is a network interface of this host. */
static int ofi_domain_is_iface(const struct fi_info *info)
{
    const char *name = info->domain_attr ? info->domain_attr->name : NULL;

    return name && *name && if_nametoindex(name) != 0;
}

/* How well info fits: 2 an IPv4 address, 1 another one, 0 not at all;
 * iface NULL: on loopback, else on the interface named iface. */
static int ofi_bind_fit(const struct fi_info *info, const char *iface)
{
    const struct sockaddr *sa = info->src_addr;
    int v4 = sa && info->src_addrlen >= sizeof(struct sockaddr_in) && sa->sa_family == AF_INET;

    if (iface)
        return info->domain_attr->name && !strcmp(info->domain_attr->name, iface) ? 1 + v4 : 0;
    if (v4)
        return (ntohl(((const struct sockaddr_in *)info->src_addr)->sin_addr.s_addr) >> 24) ==
               127 ? 2 : 0;
    if (sa && info->src_addrlen >= sizeof(struct sockaddr_in6) && sa->sa_family == AF_INET6)
        return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)info->src_addr)->sin6_addr);
    return 0;
}

/* The interfaces that list holds for the provider prov, into buf ("eth0,
 * lo"), for a message. */
static void ofi_bind_names(const struct fi_info *list, const char *prov, char *buf, size_t len)
{
    const struct fi_info *cur, *prev;
    size_t n = 0;
    int w;

    snprintf(buf, len, "none");
    for (cur = list; cur && n < len; cur = cur->next) {
        if (strcmp(cur->fabric_attr->prov_name, prov) || !cur->domain_attr->name)
            continue;
        for (prev = list; prev != cur; prev = prev->next)
            if (!strcmp(prev->fabric_attr->prov_name, prov) && prev->domain_attr->name &&
                !strcmp(prev->domain_attr->name, cur->domain_attr->name))
                break;
        if (prev != cur)
            continue;
        w = snprintf(buf + n, len - n, "%s%s", n ? ", " : "", cur->domain_attr->name);
        n += w > 0 ? (size_t)w : 0;
    }
}

/* The capabilities a domain must have: what ofi_select asked for, not the
 * secondary ones that the provider reports beside them (sockets lists its
 * loopback domain without FI_RMA_EVENT). */
#define OFI_BIND_CAPS                                                            \
    (FI_MSG | FI_RMA | FI_ATOMIC | FI_TRIGGER | FI_HMEM | FI_READ | FI_WRITE | FI_SEND | \
     FI_RECV | FI_REMOTE_READ | FI_REMOTE_WRITE)

/* Every fi_info of o's provider and capabilities, whatever its domain. */
static struct fi_info *ofi_bind_list(shmemt_ofi_t *o)
{
    struct fi_info *h = fi_dupinfo(o->info), *list = NULL;

    if (!h)
        return NULL;
    h->caps &= OFI_BIND_CAPS;
    free(h->domain_attr->name);
    h->domain_attr->name = NULL;
    free(h->fabric_attr->name);
    h->fabric_attr->name = NULL;
    free(h->src_addr);
    h->src_addr = NULL;
    h->src_addrlen = 0;
    free(h->dest_addr);
    h->dest_addr = NULL;
    h->dest_addrlen = 0;
    h->mode = 0;
    if (fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, h, &list))
        list = NULL;
    fi_freeinfo(h);
    return list;
}

int ofi_bind(shmemt_ofi_t *o, const char *iface, int single_host)
{
    struct fi_info *list, *cur, *best = NULL, *dup, *next;
    int fit, best_fit = 0;
    char names[256];

    if (iface && !*iface)
        iface = NULL;
    if (!iface && !single_host)
        return 0;
    if (!ofi_domain_is_iface(o->info)) {
        if (iface)
            ofi_info_log(o, "ofi: provider %s has no domain per network interface: "
                         "FABSHMEM_IFACE=%s does not apply to it", o->prov_name, iface);
        return 0;
    }
    list = ofi_bind_list(o);
    for (cur = list; cur; cur = cur->next) {
        if (strcmp(cur->fabric_attr->prov_name, o->prov_name))
            continue;
        fit = ofi_bind_fit(cur, iface);
        if (fit > best_fit) {
            best = cur;
            best_fit = fit;
        }
    }
    if (!best) {
        ofi_bind_names(list, o->prov_name, names, sizeof(names));
        if (list)
            fi_freeinfo(list);
        if (!iface) {
            /* FI_TCP_IFACE or FI_SOCKETS_IFACE may have left loopback out. */
            ofi_info_log(o, "ofi: provider %s offers no loopback interface (only %s): listening "
                         "on %s", o->prov_name, names, o->info->domain_attr->name);
            return 0;
        }
        ofi_err(o, "FABSHMEM_IFACE=%s: provider %s has no endpoint on that interface (its "
                "interfaces: %s)", iface, o->prov_name, names);
        return -ENODEV;
    }
    /* best alone, not the entries that follow it. */
    next = best->next;
    best->next = NULL;
    dup = fi_dupinfo(best);
    best->next = next;
    if (dup) {
        fi_freeinfo(o->info);
        o->info = dup;
    }
    fi_freeinfo(list);
    if (!dup)
        return -ENOMEM;
    ofi_info_log(o, "ofi: endpoints listen on %s (%s)", o->info->domain_attr->name,
                 iface ? "FABSHMEM_IFACE" : "every PE on this host: loopback");
    return 0;
}
