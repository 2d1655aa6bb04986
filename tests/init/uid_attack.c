/*
 * A client of the unique-id hub that does not follow the protocol, for
 * tests/init/uid_boot.sh: it reads the id from IDFILE (as tests/init/uid_boot writes
 * it: a shmemx_uniqueid_t) and connects to the hub the id names.
 *
 *   uid_attack IDFILE show               prints addr=A.B.C.D:PORT
 *                                        secret=HEX job=HEX
 *   uid_attack IDFILE silent             connects and sends nothing
 *   uid_attack IDFILE flood N            N silent connections at once
 *                                        (says "uid_attack: flood: the hub
 *                                        closed one" when it first does)
 *   uid_attack IDFILE slow               sends a valid hello a byte per
 *                                        300 ms (it takes 14 s)
 *   uid_attack IDFILE garbage            16 bytes that are no header
 *   uid_attack IDFILE bighello           a hello header of 1 GiB
 *   uid_attack IDFILE badmagic           a hello with a wrong magic
 *   uid_attack IDFILE badsize RANK N     a valid hello for a job of N
 *   uid_attack IDFILE bigframe RANK N    joins as RANK of N, then sends
 *                                        a collective frame of 2 GiB
 *   uid_attack IDFILE result RANK N      joins as RANK of N, then sends
 *                                        the hub a frame that only the
 *                                        hub sends (UID_M_RESULT)
 *   uid_attack IDFILE twogather RANK N   joins as RANK-1 and as RANK of
 *                                        N, then sends two collective
 *                                        frames at once as RANK (and
 *                                        nothing as RANK-1, so that the
 *                                        hub's collective waits for it)
 *   uid_attack IDFILE deaf SECS OUT      writes to OUT the id with the hub
 *                                        at a socket of 127.0.0.1 that
 *                                        listens but never accepts (its
 *                                        backlog is full: connections
 *                                        time out), for SECS seconds
 *   uid_attack IDFILE corrupt OUT        writes to OUT the id with one bit
 *                                        of the hub's port flipped
 *
 * Every mode but show, corrupt and deaf then waits (up to 30 s) for the
 * hub to close the connection: exit status 0 when it did, 2 when it did
 * not, 1 on a local failure.  The hub's reason for a refusal (a UID_M_REFUSE frame before
 * the close) is printed as "uid_attack: refused: REASON".
 */
#include <shmemx.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "pmix/uid_wire.h"

static int send_all(int fd, const void *buf, size_t len)
{
    return send(fd, buf, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* Waits until the peer closes fd (0) or 30 s pass (2), printing the
 * reason of a refusal that comes first. */
static int wait_closed(int fd)
{
    unsigned char buf[4096];
    size_t got = 0;

    for (;;) {
        struct pollfd pf = { fd, POLLIN, 0 };
        if (poll(&pf, 1, 30000) <= 0)
            return 2;
        ssize_t n = recv(fd, buf + got, sizeof(buf) - 1 - got, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
        if (got == sizeof(buf) - 1)
            got = 0; /* Not a refusal: keep reading to the close. */
    }
    if (got > sizeof(struct uid_frame_hdr)) {
        struct uid_frame_hdr h;
        memcpy(&h, buf, sizeof(h));
        if (h.type == UID_M_REFUSE) {
            buf[got] = '\0';
            printf("uid_attack: refused: %s\n", (char *)buf + sizeof(h));
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    shmemx_uniqueid_t uid;
    struct uid_wire w;
    struct uid_frame_hdr h;
    struct uid_hello hl;
    struct sockaddr_in sa;
    const char *mode;
    FILE *f;
    int fd, i;

    if (argc < 3) {
        fprintf(stderr, "usage: %s IDFILE show|silent|flood N|slow|garbage|bighello|badmagic|"
                "badsize RANK N|bigframe RANK N|result RANK N|twogather RANK N|corrupt OUT|"
                "deaf SECS OUT\n", argv[0]);
        return 1;
    }
    mode = argv[2];
    f = fopen(argv[1], "rb");
    if (!f || fread(&uid, sizeof(uid), 1, f) != 1) {
        fprintf(stderr, "uid_attack: cannot read an id from %s\n", argv[1]);
        return 1;
    }
    fclose(f);
    memcpy(&w, uid.internal, sizeof(w));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = w.addr;
    sa.sin_port = w.port;
    if (!strcmp(mode, "show")) {
        char a[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &sa.sin_addr, a, sizeof(a));
        printf("addr=%s:%u secret=", a, ntohs(sa.sin_port));
        for (i = 0; i < 16; i++)
            printf("%02x", w.secret[i]);
        printf(" job=");
        for (i = 0; i < 8; i++)
            printf("%02x", w.job[i]);
        printf("\n");
        return 0;
    }
    if (!strcmp(mode, "corrupt")) {
        if (argc < 4)
            return 1;
        w.port ^= htons(1);
        memcpy(uid.internal, &w, sizeof(w));
        f = fopen(argv[3], "wb");
        if (!f || fwrite(&uid, sizeof(uid), 1, f) != 1 || fclose(f)) {
            fprintf(stderr, "uid_attack: cannot write %s\n", argv[3]);
            return 1;
        }
        return 0;
    }
    if (!strcmp(mode, "deaf")) {
        struct sockaddr_in la;
        socklen_t ll = sizeof(la);
        int lfd = socket(AF_INET, SOCK_STREAM, 0), k;

        if (argc < 5)
            return 1;
        memset(&la, 0, sizeof(la));
        la.sin_family = AF_INET;
        la.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (lfd < 0 || bind(lfd, (struct sockaddr *)&la, sizeof(la)) || listen(lfd, 0) ||
            getsockname(lfd, (struct sockaddr *)&la, &ll)) {
            perror("uid_attack: deaf: listen");
            return 1;
        }
        /* Fill the backlog (of 0: one connection, two to be sure). */
        for (k = 0; k < 2; k++) {
            int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
            if (c < 0 || (connect(c, (struct sockaddr *)&la, sizeof(la)) && errno != EINPROGRESS))
                return 1;
        }
        w.addr = la.sin_addr.s_addr;
        w.port = la.sin_port;
        w.check = uid_check(&w);
        memcpy(uid.internal, &w, sizeof(w));
        f = fopen(argv[4], "wb");
        if (!f || fwrite(&uid, sizeof(uid), 1, f) != 1 || fclose(f)) {
            fprintf(stderr, "uid_attack: cannot write %s\n", argv[4]);
            return 1;
        }
        sleep((unsigned)atoi(argv[3]));
        return 0;
    }
    if (!strcmp(mode, "flood")) {
        int n = argc > 3 ? atoi(argv[3]) : 0, open_n, said = 0;
        int *fds = calloc((size_t)n + 1, sizeof(int));
        struct pollfd *pf = calloc((size_t)n + 1, sizeof(*pf));

        if (!fds || !pf || n < 1)
            return 1;
        for (i = 0; i < n; i++) {
            fds[i] = socket(AF_INET, SOCK_STREAM, 0);
            if (fds[i] < 0 || connect(fds[i], (struct sockaddr *)&sa, sizeof(sa))) {
                perror("uid_attack: flood: connect");
                return 1;
            }
        }
        /* Until the hub has closed every one of them. */
        for (open_n = n; open_n > 0;) {
            if (open_n < n && !said) {
                printf("uid_attack: flood: the hub closed one\n");
                fflush(stdout);
                said = 1;
            }
            char buf[64];
            for (i = 0; i < n; i++) {
                pf[i].fd = fds[i];
                pf[i].events = POLLIN;
            }
            if (poll(pf, (nfds_t)n, 30000) <= 0)
                return 2;
            for (i = 0; i < n; i++) {
                if (fds[i] >= 0 && pf[i].revents && recv(fds[i], buf, sizeof(buf), 0) <= 0) {
                    close(fds[i]);
                    fds[i] = -1;
                    open_n--;
                }
            }
        }
        free(fds);
        free(pf);
        return 0;
    }
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        perror("uid_attack: connect");
        return 1;
    }
    memset(&hl, 0, sizeof(hl));
    hl.magic = UID_MAGIC;
    hl.version = UID_VERSION;
    memcpy(hl.secret, w.secret, sizeof(hl.secret));
    hl.rank = argc > 3 ? (uint32_t)atoi(argv[3]) : 1;
    hl.nranks = argc > 4 ? (uint32_t)atoi(argv[4]) : 2;
    h.type = UID_M_HELLO;
    h.rank = hl.rank;
    h.len = sizeof(hl);
    if (!strcmp(mode, "silent")) {
        /* Nothing. */
    } else if (!strcmp(mode, "slow")) {
        unsigned char msg[sizeof(h) + sizeof(hl)];
        memcpy(msg, &h, sizeof(h));
        memcpy(msg + sizeof(h), &hl, sizeof(hl));
        for (i = 0; i < (int)sizeof(msg); i++) {
            if (send_all(fd, msg + i, 1))
                break; /* refused meanwhile */
            usleep(300000);
        }
    } else if (!strcmp(mode, "garbage")) {
        if (send_all(fd, "GET / HTTP/1.0\r\n", 16))
            return 1;
    } else if (!strcmp(mode, "bighello")) {
        h.len = (uint64_t)1 << 30;
        if (send_all(fd, &h, sizeof(h)) || send_all(fd, &hl, sizeof(hl)))
            return 1;
    } else if (!strcmp(mode, "badmagic")) {
        hl.magic = 0x12345678;
        if (send_all(fd, &h, sizeof(h)) || send_all(fd, &hl, sizeof(hl)))
            return 1;
    } else if (!strcmp(mode, "badsize")) {
        if (send_all(fd, &h, sizeof(h)) || send_all(fd, &hl, sizeof(hl)))
            return 1;
    } else if (!strcmp(mode, "bigframe") || !strcmp(mode, "result") ||
               !strcmp(mode, "twogather")) {
        struct uid_frame_hdr wel;
        char byte = 1;
        if (!strcmp(mode, "twogather")) {
            /* RANK-1 joins first, silent from then on. */
            struct uid_hello h1 = hl;
            struct uid_frame_hdr hh = h;
            int fd1 = socket(AF_INET, SOCK_STREAM, 0);
            h1.rank = hh.rank = hl.rank - 1;
            if (fd1 < 0 || connect(fd1, (struct sockaddr *)&sa, sizeof(sa)) ||
                send_all(fd1, &hh, sizeof(hh)) || send_all(fd1, &h1, sizeof(h1))) {
                perror("uid_attack: twogather: rank - 1");
                return 1;
            }
        }
        if (send_all(fd, &h, sizeof(h)) || send_all(fd, &hl, sizeof(hl)) ||
            recv(fd, &wel, sizeof(wel), MSG_WAITALL) != (ssize_t)sizeof(wel) ||
            wel.type != UID_M_WELCOME) {
            fprintf(stderr, "uid_attack: the hub did not welcome rank %u\n", hl.rank);
            return 1;
        }
        h.type = !strcmp(mode, "result") ? UID_M_RESULT : UID_M_GATHER;
        h.len = !strcmp(mode, "bigframe") ? (uint64_t)2 << 30 : 1;
        if (send_all(fd, &h, sizeof(h)) || (h.len == 1 && send_all(fd, &byte, 1)))
            return 1;
        if (!strcmp(mode, "twogather") && (send_all(fd, &h, sizeof(h)) || send_all(fd, &byte, 1)))
            return 1;
    } else {
        fprintf(stderr, "uid_attack: unknown mode %s\n", mode);
        return 1;
    }
    return wait_closed(fd);
}
