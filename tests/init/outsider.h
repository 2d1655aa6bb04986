/*
 * A process outside the job that speaks the job's provider (tcp;ofi_rxm)
 * to a PE's listening port: what tests/init/mr_attack and
 * tests/init/am_attack share.
 */
#ifndef FABSHMEM_TESTS_OUTSIDER_H
#define FABSHMEM_TESTS_OUTSIDER_H

#include <netinet/in.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

typedef struct outsider {
    const char *name; /* for messages */
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    /* The endpoint of one connection (outsider_connect). */
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    fi_addr_t peer;
} outsider_t;

/* Opens tcp;ofi_rxm's fabric and domain with the job's rxm settings: 0,
 * 77 when the provider is not there, 1 on failure. */
int outsider_open(outsider_t *x, const char *name);
void outsider_close(outsider_t *x);
/* IP and PORT (strings) into sin: 0, or 1 with a message. */
int outsider_addr(outsider_t *x, const char *ip, const char *port, struct sockaddr_in *sin);
/* A fresh endpoint whose peer is sin: its own connection (a target that
 * refuses a write closes the connection it came on).  0 or 1. */
int outsider_connect(outsider_t *x, const struct sockaddr_in *sin);
void outsider_disconnect(outsider_t *x);
/* Prints what failed and returns 1. */
int outsider_fail(outsider_t *x, const char *what, int ret);

#endif
