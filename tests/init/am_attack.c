/*
 * A process outside the job that sends fabshmem's own active messages to
 * a PE (providers/ofi/ofi_am.h), for tests/init/am_attack.sh.  It knows
 * the wire format and where the PE's canaries are (am_victim tells it);
 * it does not know the PE's key.
 *
 *   am_attack forge DIR PE IP PORT
 *       Sends to IP:PORT, as PE PE's: AMOs (add, set) and a put with
 *       signal at the canaries, under a zero and a random MAC; replies
 *       whose tokens name every slot and stream that could be waiting, and
 *       the old format's reply whose token was the address of a counter
 *       (PRIVATE + 1); malformed messages (too short, a length that is
 *       not the message's, an unknown type).
 *   am_attack capture DIR
 *       Captures loopback traffic (needs CAP_NET_RAW: status 77 without
 *       it) from when it writes DIR/capturing until DIR/pe0.legit and
 *       DIR/pe1.legit exist, finds PE 1's add of MAGIC to PE 0 in it, and
 *       writes that message, byte for byte, to DIR/captured.
 *   am_attack replay DIR IP PORT
 *       Sends DIR/captured to IP:PORT, twice.
 *
 * Exit status 0, 77 when the provider (or the capture) is not there, 1 on
 * a local failure.  Whether anything changed is for the PEs to check.
 */
#define _GNU_SOURCE
#include "outsider.h"
#include "providers/ofi/ofi_am.h"
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAGIC 0x0123456789abcdefull
#define TIMEOUT 2 /* seconds a send may take */

static outsider_t x;
static int sent, failed;

/* Sends len bytes of msg on x's connection and waits for the local
 * completion (the provider put it on the wire). */
static void send_msg(const void *msg, size_t len)
{
    struct fi_cq_entry e;
    struct fi_cq_err_entry err;
    time_t end = time(NULL) + TIMEOUT;
    int done = 0;
    ssize_t rc;

    do {
        rc = fi_send(x.ep, msg, len, NULL, x.peer, &done);
        if (rc == -FI_EAGAIN)
            fi_cq_read(x.cq, &e, 1);
    } while (rc == -FI_EAGAIN && time(NULL) <= end);
    if (rc) {
        failed++;
        return;
    }
    while (!done && time(NULL) <= end) {
        rc = fi_cq_read(x.cq, &e, 1);
        if (rc == 1)
            done = 1;
        else if (rc == -FI_EAVAIL) {
            fi_cq_readerr(x.cq, &err, 0);
            done = -1;
        }
    }
    if (done == 1)
        sent++;
    else
        failed++;
}

static uint64_t rand64(void)
{
    uint64_t v = 0;

    if (getrandom(&v, sizeof(v), 0) != sizeof(v))
        v = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull;
    return v;
}

static void hdr(ofi_am_hdr_t *h, int type, int op, int pe, uint64_t off)
{
    memset(h, 0, sizeof(*h));
    h->type = (uint8_t)type;
    h->op = (uint8_t)op;
    h->size = 8;
    h->seg = SHMEMT_SEG_HEAP;
    h->src_pe = (uint32_t)pe;
    h->off = off;
}

/* Each message once under MAC 0 and once under a random MAC, numbered as
 * a stream's first messages would be. */
static void send_forged(ofi_am_hdr_t *h, size_t len)
{
    int m;

    for (m = 0; m < 2; m++) {
        h->seq = 1 + (uint32_t)m;
        h->mac = m ? rand64() : 0;
        send_msg(h, len);
    }
}

static int forge(const char *dir, int pe, const char *ip, const char *port)
{
    union {
        ofi_am_hdr_t h;
        char bytes[OFI_AM_BUF];
    } m;
    struct sockaddr_in sin;
    unsigned long heapoff = 0, priv = 0;
    char path[4096];
    int pid, idx, gen;
    FILE *f;

    snprintf(path, sizeof(path), "%s/pe%d.info", dir, pe);
    f = fopen(path, "r");
    if (!f || fscanf(f, "%d %lx %lx", &pid, &heapoff, &priv) != 3) {
        fprintf(stderr, "am_attack: cannot read %s\n", path);
        return 1;
    }
    fclose(f);
    if (outsider_addr(&x, ip, port, &sin) || outsider_connect(&x, &sin))
        return 1;
    /* AMOs at canary[0]: add 1, set 0; each from both PEs' names. */
    for (idx = 0; idx < 2; idx++) {
        hdr(&m.h, OFI_AM_REQ_AMO, SHMEMT_AOP_ADD, idx, heapoff);
        m.h.operand = 1;
        send_forged(&m.h, sizeof(m.h));
        hdr(&m.h, OFI_AM_REQ_AMO, SHMEMT_AOP_SET, idx, heapoff);
        m.h.token = OFI_AM_TOK(OFI_AM_TOK_ACK, 0, 1);
        send_forged(&m.h, sizeof(m.h));
    }
    /* A put with signal: 8 bytes at canary[2], the signal at canary[3]. */
    hdr(&m.h, OFI_AM_REQ_PUTSIG, SHMEMT_AOP_SET, 1 - pe, heapoff + 2 * sizeof(long));
    m.h.len = 8;
    m.h.sig_seg = SHMEMT_SEG_HEAP;
    m.h.aux = heapoff + 3 * sizeof(long);
    m.h.operand = 7;
    memset(m.bytes + sizeof(m.h), 0xa5, 8);
    send_forged(&m.h, sizeof(m.h) + 8);
    /* Replies: every acknowledgement counter and every request slot that
     * could be waiting, in the first generations. */
    for (gen = 0; gen < 4; gen++) {
        for (idx = 0; idx < 8; idx++) {
            hdr(&m.h, OFI_AM_REPLY, 0, 1 - pe, 0);
            m.h.size = 0;
            m.h.token = OFI_AM_TOK(OFI_AM_TOK_ACK, idx, gen);
            m.h.operand = 7;
            send_forged(&m.h, sizeof(m.h));
        }
        for (idx = 0; idx < 64; idx++) {
            hdr(&m.h, OFI_AM_REPLY, 0, 1 - pe, 0);
            m.h.size = 0;
            m.h.token = OFI_AM_TOK(0, idx, gen);
            m.h.operand = 7;
            send_forged(&m.h, sizeof(m.h));
        }
    }
    /* The old format's attacks (48 bytes, the token an address): add 7 to
     * the private word, and a reply pointing at 0x10. */
    memset(m.bytes, 0, 48);
    m.bytes[0] = 0x51;
    m.bytes[1] = (char)0xfa;
    m.bytes[2] = OFI_AM_REPLY;
    {
        uint64_t tok = priv + 1, seven = 7;
        uint32_t src = (uint32_t)(1 - pe);
        memcpy(m.bytes + 8, &src, 4);
        memcpy(m.bytes + 32, &seven, 8);
        memcpy(m.bytes + 40, &tok, 8);
        send_msg(m.bytes, 48);
        tok = 0x10;
        memcpy(m.bytes + 40, &tok, 8);
        send_msg(m.bytes, 48);
    }
    /* Malformed: too short, a length beyond the message, no such type. */
    hdr(&m.h, OFI_AM_REQ_PUTSIG, SHMEMT_AOP_SET, 1 - pe, heapoff);
    send_msg(&m.h, 8);
    m.h.len = 512;
    send_forged(&m.h, sizeof(m.h) + 8);
    hdr(&m.h, 9, SHMEMT_AOP_ADD, 1 - pe, heapoff);
    send_forged(&m.h, sizeof(m.h));
    outsider_disconnect(&x);
    printf("am_attack: forge: PE %d at %s:%s: %d messages sent, %d not sent\n", pe, ip, port,
           sent, failed);
    return 0;
}

static int exists(const char *dir, const char *name)
{
    char path[4096];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* Looks for PE 1's add of MAGIC in one TCP payload. */
static int find_add(const unsigned char *p, size_t n, ofi_am_hdr_t *out)
{
    ofi_am_hdr_t h;
    size_t i;

    for (i = 0; i + sizeof(h) <= n; i++) {
        memcpy(&h, p + i, sizeof(h));
        if (h.type == OFI_AM_REQ_AMO && h.op == SHMEMT_AOP_ADD && h.size == 8 && h.src_pe == 1 &&
            h.len == 0 && h.operand == MAGIC) {
            *out = h;
            return 1;
        }
    }
    return 0;
}

static int capture(const char *dir)
{
    unsigned char buf[65536];
    struct sockaddr_ll sll;
    ofi_am_hdr_t found;
    char path[4096];
    int fd, have = 0, packets = 0;
    time_t end = time(NULL) + 120, drain = 0;
    FILE *f;

    fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    if (fd < 0) {
        printf("am_attack: capture: no raw socket (%s): the replay is not tried\n",
               strerror(errno));
        return 77;
    }
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = (int)if_nametoindex("lo");
    if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
        printf("am_attack: capture: cannot bind to lo (%s): the replay is not tried\n",
               strerror(errno));
        return 77;
    }
    snprintf(path, sizeof(path), "%s/capturing", dir);
    f = fopen(path, "w");
    if (!f)
        return 1;
    fclose(f);
    while (time(NULL) <= end) {
        struct pollfd pfd = { fd, POLLIN, 0 };
        ssize_t n;

        if (!drain && exists(dir, "pe0.legit") && exists(dir, "pe1.legit"))
            drain = time(NULL) + 1;
        if (drain && (have || time(NULL) > drain))
            break;
        if (poll(&pfd, 1, 50) <= 0)
            continue;
        n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n < (ssize_t)(ETH_HLEN + sizeof(struct iphdr)) || have)
            continue;
        packets++;
        {
            /* Copies of the headers: after the 14-byte Ethernet header
             * they are not aligned for their types (UBSan). */
            struct iphdr ip;
            struct tcphdr tcp;
            size_t iphl, thl;

            memcpy(&ip, buf + ETH_HLEN, sizeof(ip));
            iphl = (size_t)ip.ihl * 4;
            if (ip.version != 4 || ip.protocol != IPPROTO_TCP ||
                (size_t)n < ETH_HLEN + iphl + sizeof(tcp))
                continue;
            memcpy(&tcp, buf + ETH_HLEN + iphl, sizeof(tcp));
            thl = (size_t)tcp.doff * 4;
            if ((size_t)n < ETH_HLEN + iphl + thl)
                continue;
            have = find_add(buf + ETH_HLEN + iphl + thl, (size_t)n - ETH_HLEN - iphl - thl,
                            &found);
        }
    }
    close(fd);
    printf("am_attack: capture: %d packets seen, PE 1's add %s\n", packets,
           have ? "found" : "not found");
    if (!have)
        return 1;
    snprintf(path, sizeof(path), "%s/captured", dir);
    f = fopen(path, "wb");
    if (!f || fwrite(&found, sizeof(found), 1, f) != 1)
        return 1;
    fclose(f);
    return 0;
}

static int replay(const char *dir, const char *ip, const char *port)
{
    struct sockaddr_in sin;
    ofi_am_hdr_t h;
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/captured", dir);
    f = fopen(path, "rb");
    if (!f || fread(&h, sizeof(h), 1, f) != 1) {
        fprintf(stderr, "am_attack: cannot read %s\n", path);
        return 1;
    }
    fclose(f);
    if (outsider_addr(&x, ip, port, &sin) || outsider_connect(&x, &sin))
        return 1;
    send_msg(&h, sizeof(h));
    send_msg(&h, sizeof(h));
    outsider_disconnect(&x);
    printf("am_attack: replay to %s:%s: %d messages sent, %d not sent\n", ip, port, sent, failed);
    return 0;
}

int main(int argc, char **argv)
{
    int ret;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 3 && !strcmp(argv[1], "capture"))
        return capture(argv[2]);
    if (!(argc == 6 && !strcmp(argv[1], "forge")) && !(argc == 5 && !strcmp(argv[1], "replay"))) {
        fprintf(stderr, "usage: am_attack forge DIR PE IP PORT | capture DIR | "
                        "replay DIR IP PORT\n");
        return 1;
    }
    if ((ret = outsider_open(&x, "am_attack")))
        return ret;
    if (!strcmp(argv[1], "forge"))
        ret = forge(argv[2], atoi(argv[3]), argv[4], argv[5]);
    else
        ret = replay(argv[2], argv[3], argv[4]);
    outsider_close(&x);
    return ret;
}
