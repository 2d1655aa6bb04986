/*
 * The unique-id bootstrap's rank side of the joining (pmix/uid.h lists the
 * other parts): a rank reaches the hub, trying again while it cannot,
 * says hello and reads the hub's welcome or refusal (pmix/uid.c describes
 * the design).
 */
#define _GNU_SOURCE
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "uid.h"

/* Seconds between the lines that say a rank still tries to reach the hub. */
#define UID_RETRY_REPORT_SECONDS 3.0

/* Connects to the hub at sa, trying again until deadline while it cannot
 * be reached, and saying so every UID_RETRY_REPORT_SECONDS (where, and
 * why).  Nobody listening there (connection refused) is final: the hub
 * listens from the moment it made the id until every rank has joined, so
 * the process that made the id has exited, its job is complete, or the id
 * is not the job's.  The connected socket, or <0. */
static int hub_connect(const uidb_t *u, const struct sockaddr_in *sa, const char *where,
                       double deadline)
{
    double t0 = uid_now_s(), report = t0 + UID_RETRY_REPORT_SECONDS;

    for (;;) {
        double t = uid_now_s(), until = t + UID_RETRY_REPORT_SECONDS;
        int fd = uid_connect_until(sa, until < deadline ? until : deadline);

        if (fd >= 0)
            return fd;
        if (fd == -ECONNREFUSED) {
            shmemb_errorf("unique-id bootstrap: rank %d of %d: nobody listens "
                    "at the hub's address %s (connection refused): the process that made the "
                    "id has exited or its job is complete (every rank joined); is the id this "
                    "job's?\n", u->pub.rank, u->pub.nranks, where);
            return -ECONNREFUSED;
        }
        t = uid_now_s();
        if (t >= deadline) {
            shmemb_errorf("unique-id bootstrap: rank %d of %d: cannot reach "
                    "the hub at %s (%s) within the time limit (FABSHMEM_BOOTSTRAP_TIMEOUT)\n",
                    u->pub.rank, u->pub.nranks, where, strerror(-fd));
            return -ETIMEDOUT;
        }
        if (t >= report) {
            fprintf(stderr, "fabshmem warning: unique-id bootstrap: rank %d of %d: still trying "
                    "to reach the hub at %s (%s) after %.0f s; giving up in %.0f s "
                    "(FABSHMEM_BOOTSTRAP_TIMEOUT)\n", u->pub.rank, u->pub.nranks, where,
                    strerror(-fd), t - t0, deadline - t);
            fflush(stderr);
            report = t + UID_RETRY_REPORT_SECONDS;
        }
        usleep(20000);
    }
}

/* Reads the hub's answer to our hello: 0 with the hub's rank in
 * *hub_rank_p (welcome), or <0 with a message (refused, with the hub's
 * reason; the connection closed; no answer by deadline). */
static int hub_answer(const uidb_t *u, int fd, const char *where, double deadline,
                      int *hub_rank_p)
{
    struct uid_frame_hdr h;
    char why[UID_MAX_REASON + 1];
    int ret = uid_read_deadline(fd, &h, sizeof(h), deadline);

    /* A welcome is a bare header (anything after it would be read as the
     * next frame). */
    if (!ret && h.type == UID_M_WELCOME && h.len == 0 && h.rank < (uint32_t)u->pub.nranks) {
        *hub_rank_p = (int)h.rank;
        return 0;
    }
    if (ret == -ETIMEDOUT) {
        shmemb_errorf("unique-id bootstrap: rank %d of %d: the hub at %s did "
                "not welcome this process within the time limit (FABSHMEM_BOOTSTRAP_TIMEOUT): "
                "not every rank joined\n", u->pub.rank, u->pub.nranks, where);
        return -ETIMEDOUT;
    }
    if (!ret && h.type == UID_M_REFUSE && h.len >= 1 && h.len <= UID_MAX_REASON &&
        !uid_read_deadline(fd, why, h.len, uid_now_s() + UID_HELLO_SECONDS)) {
        why[h.len - 1] = '\0';
        uid_printable(why);
        shmemb_errorf("unique-id bootstrap: the hub at %s refused rank %d of "
                "%d: %s\n", where, u->pub.rank, u->pub.nranks, why);
    } else {
        shmemb_errorf("unique-id bootstrap: the hub at %s refused rank %d of "
                "%d without a reason (wrong id, job size or rank?)\n", where, u->pub.rank,
                u->pub.nranks);
    }
    return -ECONNREFUSED;
}

int uid_join_hub(uidb_t *u, const struct uid_wire *w, double deadline)
{
    struct sockaddr_in sa;
    struct uid_hello hl;
    char a[INET_ADDRSTRLEN] = "?", where[INET_ADDRSTRLEN + 8];
    int fd, ret;

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = w->addr;
    sa.sin_port = w->port;
    inet_ntop(AF_INET, &sa.sin_addr, a, sizeof(a));
    snprintf(where, sizeof(where), "%s:%u", a, ntohs(sa.sin_port));
    fd = hub_connect(u, &sa, where, deadline);
    if (fd < 0)
        return fd;
    uid_sock_opts(fd);
    memset(&hl, 0, sizeof(hl));
    hl.magic = UID_MAGIC;
    hl.version = UID_VERSION;
    memcpy(hl.secret, w->secret, sizeof(hl.secret));
    hl.rank = (uint32_t)u->pub.rank;
    hl.nranks = (uint32_t)u->pub.nranks;
    ret = uid_send_frame(fd, UID_M_HELLO, hl.rank, &hl, sizeof(hl));
    if (ret)
        shmemb_errorf("unique-id bootstrap: rank %d of %d: the hub at %s closed "
                "the connection before the hello went out\n", u->pub.rank, u->pub.nranks, where);
    else
        ret = hub_answer(u, fd, where, deadline, &u->hub_rank);
    if (ret) {
        close(fd);
        return ret == -EIO ? -ECONNREFUSED : ret;
    }
    u->fd = fd;
    return 0;
}
