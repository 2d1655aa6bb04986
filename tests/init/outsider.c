/* See outsider.h. */
#include "outsider.h"
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int outsider_fail(outsider_t *x, const char *what, int ret)
{
    fprintf(stderr, "%s: %s: %s\n", x->name, what, fi_strerror(ret < 0 ? -ret : ret));
    return 1;
}

int outsider_open(outsider_t *x, const char *name)
{
    struct fi_info *hints = fi_allocinfo();
    int ret;

    memset(x, 0, sizeof(*x));
    x->name = name;
    if (!hints)
        return 1;
    /* The job's rxm settings (providers/ofi/ofi_quirks.c): rxm refuses a
     * connection from a peer whose buffer size differs. */
    setenv("FI_OFI_RXM_BUFFER_SIZE", "4096", 1);
    setenv("FI_OFI_RXM_MSG_RX_SIZE", "32", 1);
    hints->caps = FI_RMA | FI_MSG;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = 0;
    hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
    ret = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, hints,
                     &x->info);
    fi_freeinfo(hints);
    if (ret) {
        fprintf(stderr, "%s: fi_getinfo (tcp;ofi_rxm): %s\n", name, fi_strerror(-ret));
        return 77;
    }
    if ((ret = fi_fabric(x->info->fabric_attr, &x->fabric, NULL)))
        return outsider_fail(x, "fi_fabric", ret);
    if ((ret = fi_domain(x->fabric, x->info, &x->domain, NULL)))
        return outsider_fail(x, "fi_domain", ret);
    return 0;
}

void outsider_close(outsider_t *x)
{
    if (x->domain)
        fi_close(&x->domain->fid);
    if (x->fabric)
        fi_close(&x->fabric->fid);
    if (x->info)
        fi_freeinfo(x->info);
}

int outsider_addr(outsider_t *x, const char *ip, const char *port, struct sockaddr_in *sin)
{
    memset(sin, 0, sizeof(*sin));
    sin->sin_family = AF_INET;
    sin->sin_port = htons((uint16_t)atoi(port));
    if (inet_pton(AF_INET, ip, &sin->sin_addr) != 1) {
        fprintf(stderr, "%s: bad IPv4 address %s\n", x->name ? x->name : "outsider", ip);
        return 1;
    }
    return 0;
}

int outsider_connect(outsider_t *x, const struct sockaddr_in *sin)
{
    struct fi_cq_attr cq_attr;
    struct fi_av_attr av_attr;
    int ret;

    memset(&av_attr, 0, sizeof(av_attr));
    av_attr.type = FI_AV_TABLE;
    if ((ret = fi_av_open(x->domain, &av_attr, &x->av, NULL)))
        return outsider_fail(x, "fi_av_open", ret);
    memset(&cq_attr, 0, sizeof(cq_attr));
    cq_attr.format = FI_CQ_FORMAT_CONTEXT;
    if ((ret = fi_cq_open(x->domain, &cq_attr, &x->cq, NULL)))
        return outsider_fail(x, "fi_cq_open", ret);
    if ((ret = fi_endpoint(x->domain, x->info, &x->ep, NULL)))
        return outsider_fail(x, "fi_endpoint", ret);
    if ((ret = fi_ep_bind(x->ep, &x->cq->fid, FI_TRANSMIT | FI_RECV)) ||
        (ret = fi_ep_bind(x->ep, &x->av->fid, 0)) || (ret = fi_enable(x->ep)))
        return outsider_fail(x, "binding the endpoint", ret);
    if (fi_av_insert(x->av, sin, 1, &x->peer, 0, NULL) != 1)
        return outsider_fail(x, "fi_av_insert", FI_EINVAL);
    return 0;
}

void outsider_disconnect(outsider_t *x)
{
    fi_close(&x->ep->fid);
    fi_close(&x->cq->fid);
    fi_close(&x->av->fid);
    x->ep = NULL;
    x->cq = NULL;
    x->av = NULL;
}
