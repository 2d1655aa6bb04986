/*
 * The unique-id bootstrap's hub side of the joining (pmix/uid.h lists the
 * other parts): it serves the connections that have yet to present their
 * hello together, refuses the wrong ones with a reason, and counts the
 * refusals to report them in one line (pmix/uid.c describes the design).
 */
#define _GNU_SOURCE
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include "uid.h"

/* A connection to the hub that has yet to present its hello. */
struct pending {
    int fd;
    double deadline;
    size_t got;
    char peer[48]; /* address:port, for the messages */
    unsigned char buf[sizeof(struct uid_frame_hdr) + sizeof(struct uid_hello)];
};

/* The refusals of one joining, counted by reason (the format of its
 * message) and reported in one line when the joining ends: a flood of
 * connections must not flood stderr. */
#define UID_REFUSE_KINDS 16
struct refusals {
    int total;
    int nkinds;
    struct {
        const char *fmt;
        int count;
        char first[160]; /* the first refusal's reason */
        char peer[48];   /* and its peer */
    } kind[UID_REFUSE_KINDS];
};

/* Refuses p: tells its peer why (a UID_M_REFUSE frame, without waiting:
 * the socket is non-blocking), closes it and counts the refusal. */
static void pending_refuse(struct refusals *rs, struct pending *p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void pending_refuse(struct refusals *rs, struct pending *p, const char *fmt, ...)
{
    unsigned char frame[sizeof(struct uid_frame_hdr) + UID_MAX_REASON];
    struct uid_frame_hdr h = { UID_M_REFUSE, 0, 0 };
    char why[160];
    va_list ap;
    int k;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    h.len = strlen(why) + 1;
    memcpy(frame, &h, sizeof(h));
    memcpy(frame + sizeof(h), why, h.len);
    if (send(p->fd, frame, sizeof(h) + h.len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
        /* A peer that does not read is refused all the same. */
    }
    close(p->fd);
    p->fd = -1;
    rs->total++;
    for (k = 0; k < rs->nkinds && rs->kind[k].fmt != fmt; k++)
        ;
    if (k == rs->nkinds) {
        if (k == UID_REFUSE_KINDS)
            return; /* Counted in the total only. */
        rs->nkinds++;
        rs->kind[k].fmt = fmt;
        rs->kind[k].count = 0;
        snprintf(rs->kind[k].first, sizeof(rs->kind[k].first), "%s", why);
        snprintf(rs->kind[k].peer, sizeof(rs->kind[k].peer), "%s", p->peer);
    }
    rs->kind[k].count++;
}

/* The one line that reports the refusals of a joining, e.g. "refused 10
 * connections while the PEs joined: 9 x (no hello within 5 s), the first
 * from 10.0.0.2:4711; 1 x (wrong secret) from 10.0.0.3:5000". */
static void refusals_report(const struct refusals *rs)
{
    char line[2048];
    size_t used;
    int k, listed = 0;

    if (!rs->total)
        return;
    used = (size_t)snprintf(line, sizeof(line), "fabshmem warning: unique-id bootstrap: refused "
                            "%d connection%s while the PEs joined: ", rs->total,
                            rs->total == 1 ? "" : "s");
    for (k = 0; k < rs->nkinds && used < sizeof(line); k++) {
        used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%d x (%s)%s from %s",
                                 k ? "; " : "", rs->kind[k].count, rs->kind[k].first,
                                 rs->kind[k].count > 1 ? ", the first" : "", rs->kind[k].peer);
        listed += rs->kind[k].count;
    }
    if (listed < rs->total && used < sizeof(line))
        snprintf(line + used, sizeof(line) - used, "; %d for other reasons", rs->total - listed);
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

/* Reads what p's peer sent.  0: more to come; 1: a valid hello, its rank
 * in *rank_p; -1: refused (p->fd closed). */
static int pending_read(uidb_t *u, struct pending *p, int *rank_p)
{
    const size_t hlen = sizeof(struct uid_frame_hdr), need = sizeof(p->buf);
    struct uid_frame_hdr h;
    struct uid_hello hl;
    ssize_t n = recv(p->fd, p->buf + p->got, need - p->got, MSG_DONTWAIT);

    if (n == 0) {
        pending_refuse(u->refused, p, "closed before its hello was complete");
        return -1;
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return 0;
        pending_refuse(u->refused, p, "recv: %s", strerror(errno));
        return -1;
    }
    p->got += (size_t)n;
    if (p->got < hlen)
        return 0;
    /* The header shows at once whether a hello follows. */
    memcpy(&h, p->buf, hlen);
    if (h.type != UID_M_HELLO) {
        pending_refuse(u->refused, p, "malformed hello: message type %u", h.type);
        return -1;
    }
    if (h.len != sizeof(hl)) {
        if (h.len > sizeof(hl))
            pending_refuse(u->refused, p, "oversized hello: %llu bytes, expected %zu",
                           (unsigned long long)h.len, sizeof(hl));
        else
            pending_refuse(u->refused, p, "malformed hello: %llu bytes, expected %zu",
                           (unsigned long long)h.len, sizeof(hl));
        return -1;
    }
    if (p->got < need)
        return 0;
    memcpy(&hl, p->buf + hlen, sizeof(hl));
    if (hl.magic != UID_MAGIC)
        pending_refuse(u->refused, p, "wrong magic 0x%08x: not a fabshmem peer", hl.magic);
    else if (hl.version != UID_VERSION)
        pending_refuse(u->refused, p, "protocol version %u, this fabshmem speaks %u",
                       hl.version, UID_VERSION);
    else if (!uid_secret_eq(hl.secret, uid_listen_uid.secret))
        pending_refuse(u->refused, p, "wrong secret: the id is not this job's (an id of "
                       "another job, or a damaged copy)");
    else if ((int)hl.nranks != u->pub.nranks || hl.nranks > INT32_MAX)
        pending_refuse(u->refused, p, "another job size: %u PEs, this job has %d", hl.nranks,
                       u->pub.nranks);
    else if (hl.rank >= (uint32_t)u->pub.nranks)
        pending_refuse(u->refused, p, "rank %u out of range", hl.rank);
    else if ((int)hl.rank == u->pub.rank)
        pending_refuse(u->refused, p, "rank %u is the hub's own", hl.rank);
    else if (u->fds[hl.rank] >= 0)
        pending_refuse(u->refused, p, "rank %u taken twice", hl.rank);
    else {
        *rank_p = (int)hl.rank;
        return 1;
    }
    return -1;
}

/* Takes in the other ranks' connections until every rank has joined.  The
 * connections that have not yet presented themselves are served together,
 * each with UID_HELLO_SECONDS to do it; the refusals are reported in one
 * line at the end.  (long: one poll loop over the listener and the
 * pending connections, with its clean-up.) */
int uid_hub_accept_all(uidb_t *u, double deadline)
{
    int n = u->pub.nranks, joined = 1, np = 0, ret = 0, i;
    struct pending *pend = calloc(UID_MAX_PENDING, sizeof(*pend));
    struct pollfd *pf = calloc(UID_MAX_PENDING + 1, sizeof(*pf));
    struct refusals refused;

    refused.total = 0;
    refused.nkinds = 0;
    u->refused = &refused;
    if (!pend || !pf) {
        ret = -ENOMEM;
        goto out;
    }
    while (joined < n) {
        double t = uid_now_s(), wake = deadline;
        int ms;

        if (t >= deadline) {
            shmemb_errorf("unique-id bootstrap: only %d of %d PEs joined "
                    "within the time limit (FABSHMEM_BOOTSTRAP_TIMEOUT)\n", joined, n);
            ret = -ETIMEDOUT;
            goto out;
        }
        for (i = np - 1; i >= 0; i--) {
            if (pend[i].deadline <= t) {
                pending_refuse(&refused, &pend[i], "no hello within %d s", UID_HELLO_SECONDS);
                pend[i] = pend[--np];
            } else if (pend[i].deadline < wake) {
                wake = pend[i].deadline;
            }
        }
        pf[0].fd = uid_listen_fd;
        pf[0].events = POLLIN;
        for (i = 0; i < np; i++) {
            pf[i + 1].fd = pend[i].fd;
            pf[i + 1].events = POLLIN;
            pf[i + 1].revents = 0;
        }
        ms = (int)((wake - t) * 1000) + 1;
        if (poll(pf, (nfds_t)np + 1, ms) <= 0)
            continue;
        /* From the top: a removal moves the last entry, already served,
         * into the hole. */
        for (i = np - 1; i >= 0; i--) {
            int rank, r;

            if (!pf[i + 1].revents)
                continue;
            r = pending_read(u, &pend[i], &rank);
            if (r == 0)
                continue;
            if (r > 0) {
                int fl = fcntl(pend[i].fd, F_GETFL);
                fcntl(pend[i].fd, F_SETFL, fl & ~O_NONBLOCK);
                u->fds[rank] = pend[i].fd;
                joined++;
            }
            pend[i] = pend[--np];
        }
        if (pf[0].revents & POLLIN) {
            struct sockaddr_in sa;
            socklen_t sl = sizeof(sa);
            int fd = accept4(uid_listen_fd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
            char a[INET_ADDRSTRLEN] = "?";

            if (fd < 0) {
                /* Out of descriptors (a flood): the oldest waiting
                 * connection makes room, as when UID_MAX_PENDING wait. */
                if ((errno == EMFILE || errno == ENFILE) && np > 0) {
                    int old = 0;
                    for (i = 1; i < np; i++)
                        if (pend[i].deadline < pend[old].deadline)
                            old = i;
                    pending_refuse(&refused, &pend[old], "the oldest of %d connections waiting "
                                   "for their hello, out of file descriptors", np);
                    pend[old] = pend[--np];
                } else if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
                    usleep(10000); /* Nothing to free: no busy loop meanwhile. */
                }
                continue;
            }
            inet_ntop(AF_INET, &sa.sin_addr, a, sizeof(a));
            if (np == UID_MAX_PENDING) {
                /* Full: the oldest goes.  A real peer sends its hello at
                 * once, so a flood of silent connections pushes out its
                 * own before it reaches one. */
                int old = 0;
                for (i = 1; i < np; i++)
                    if (pend[i].deadline < pend[old].deadline)
                        old = i;
                pending_refuse(&refused, &pend[old], "the oldest of %d connections waiting "
                               "for their hello", UID_MAX_PENDING);
                pend[old] = pend[--np];
            }
            pend[np].fd = fd;
            /* Its own time from now: poll may have slept for as long as the
             * joining has taken so far (t is older). */
            pend[np].deadline = uid_now_s() + UID_HELLO_SECONDS;
            pend[np].got = 0;
            snprintf(pend[np].peer, sizeof(pend[np].peer), "%s:%u", a, ntohs(sa.sin_port));
            uid_sock_opts(fd);
            np++;
        }
    }
    for (i = 0; i < n; i++)
        if (i != u->pub.rank &&
            uid_send_frame(u->fds[i], UID_M_WELCOME, (uint32_t)u->pub.rank, NULL, 0)) {
            ret = -EIO;
            goto out;
        }
out:
    for (i = 0; i < np; i++)
        pending_refuse(&refused, &pend[i], "%s",
                       ret ? "the hub gave up" : "every rank has joined");
    refusals_report(&refused);
    u->refused = NULL;
    free(pend);
    free(pf);
    return ret;
}
