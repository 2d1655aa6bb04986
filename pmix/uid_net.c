/*
 * The unique-id bootstrap's network part (pmix/uid.h lists the others):
 * the id and its listener (shmemb_uid_create, the interface the hub
 * listens on), and the sockets and frames that the hub and the ranks
 * share.  The wire format is in pmix/uid_wire.h.
 */
#define _GNU_SOURCE
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <time.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/random.h>
#include "uid.h"

int uid_listen_fd = -1;
struct uid_wire uid_listen_uid;

double uid_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int uid_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int uid_read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = recv(fd, p, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n == 0 ? -EPIPE : -EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int uid_send_frame(int fd, uint32_t type, uint32_t rank, const void *data, uint64_t len)
{
    struct uid_frame_hdr h = { type, rank, len };
    int ret = uid_write_all(fd, &h, sizeof(h));
    if (!ret && len)
        ret = uid_write_all(fd, data, len);
    return ret;
}

/* uid_send_frame on a socket that the reader thread shares. */
int uid_send_locked(uidb_t *u, int fd, uint32_t type, uint32_t rank, const void *data,
                    uint64_t len)
{
    int ret;

    pthread_mutex_lock(&u->send_lock);
    ret = uid_send_frame(fd, type, rank, data, len);
    pthread_mutex_unlock(&u->send_lock);
    return ret;
}

/* The options of a connection between a rank and the hub: no Nagle delay,
 * and a peer whose host vanishes (its link cut, its kernel gone: no FIN
 * ever comes) is found out by either side within about 20 s of silence
 * without waking the process (keepalive probes after 10 s idle, 2 s
 * apart, 5 unanswered), and data left unacknowledged is given up after
 * 30 s.  The kernel answers the probes, so a rank that computes for hours
 * is not taken for lost.  The reader thread then reads an error and ends
 * the job naming the rank (or the hub). */
void uid_sock_opts(int fd)
{
    int one = 1, idle = 10, intvl = 2, cnt = 5;
    unsigned int user_ms = 30000;

    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_ms, sizeof(user_ms));
}

/* ---- choosing the address ---- */

/* The address of interface want (NULL or "": the first IPv4 interface
 * that is up and not loopback, else loopback). */
static int pick_addr(const char *want, struct in_addr *out)
{
    struct ifaddrs *ifa, *i;
    char names[256] = "";
    size_t used = 0;
    int found = 0;

    if (getifaddrs(&ifa))
        return -errno;
    for (i = ifa; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
            continue;
        if (used < sizeof(names))
            used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
                                     used ? ", " : "", i->ifa_name);
        if (found)
            continue;
        if (want && *want) {
            if (strcmp(i->ifa_name, want))
                continue;
        } else if (i->ifa_flags & IFF_LOOPBACK) {
            continue;
        }
        *out = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
        found = 1;
    }
    freeifaddrs(ifa);
    if (found)
        return 0;
    if (want && *want) {
        shmemb_errorf("shmemx_get_uniqueid: FABSHMEM_BOOTSTRAP_IFNAME: no "
                "interface '%s' with an IPv4 address that is up (there are: %s)\n", want,
                names[0] ? names : "none");
        return -ENODEV;
    }
    out->s_addr = htonl(INADDR_LOOPBACK);
    return 0;
}

int shmemb_uid_create(const shmemb_init_args_t *args, void *uid, size_t uid_len)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);
    struct uid_wire w;
    int fd, ret, one = 1;

    if (uid_len < sizeof(w))
        return -EINVAL;
    memset(&w, 0, sizeof(w));
    if (getrandom(w.secret, sizeof(w.secret), 0) != (ssize_t)sizeof(w.secret) ||
        getrandom(w.job, sizeof(w.job), 0) != (ssize_t)sizeof(w.job))
        return -EIO;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    if ((ret = pick_addr(args->ifname, &sa.sin_addr)))
        return ret;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1024) ||
        getsockname(fd, (struct sockaddr *)&sa, &sl)) {
        ret = -errno;
        close(fd);
        return ret;
    }
    if (uid_listen_fd >= 0)
        close(uid_listen_fd);
    uid_listen_fd = fd;
    w.magic = UID_MAGIC;
    w.version = UID_VERSION;
    w.addr = sa.sin_addr.s_addr;
    w.port = sa.sin_port;
    w.creator_pid = (uint32_t)getpid();
    w.check = uid_check(&w);
    uid_listen_uid = w;
    memset(uid, 0, uid_len);
    memcpy(uid, &w, sizeof(w));
    return 0;
}

/* Reads one frame from fd; *data is malloc'd.  0, or <0 (EOF: -EPIPE; a
 * frame longer than UID_MAX_MSG: -EMSGSIZE, with *h read). */
int uid_read_frame(int fd, struct uid_frame_hdr *h, void **data)
{
    int ret = uid_read_all(fd, h, sizeof(*h));

    *data = NULL;
    if (ret)
        return ret;
    if (h->len > UID_MAX_MSG)
        return -EMSGSIZE;
    if (h->len) {
        *data = malloc(h->len);
        if (!*data)
            return -ENOMEM;
        if ((ret = uid_read_all(fd, *data, h->len))) {
            free(*data);
            *data = NULL;
            return ret == -EPIPE ? -EIO : ret; /* cut inside a frame */
        }
    }
    return 0;
}

/* Makes the text of an abort uid_printable: it comes from another process
 * (control characters become '?'). */
void uid_printable(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

/* ---- reading with a deadline ---- */

int uid_secret_eq(const uint8_t *a, const uint8_t *b)
{
    unsigned d = 0;
    for (int i = 0; i < 16; i++)
        d |= (unsigned)(a[i] ^ b[i]);
    return d == 0;
}

/* Reads exactly len bytes with a deadline; 0 or <0. */
int uid_read_deadline(int fd, void *buf, size_t len, double deadline)
{
    char *p = buf;
    while (len) {
        struct pollfd pf = { fd, POLLIN, 0 };
        int ms = (int)((deadline - uid_now_s()) * 1000);
        if (ms <= 0)
            return -ETIMEDOUT;
        if (poll(&pf, 1, ms) <= 0)
            continue;
        ssize_t n = recv(fd, p, len, 0);
        if (n <= 0)
            return -EPIPE;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* One connection attempt to sa that gives up at until: the connected
 * socket, or -errno (-ETIMEDOUT at until: a host that does not answer
 * would otherwise hold connect() for minutes). */
int uid_connect_until(const struct sockaddr_in *sa, double until)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), err = 0, fl;
    socklen_t el = sizeof(err);

    if (fd < 0)
        return -errno;
    if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) && errno != EINPROGRESS) {
        err = errno;
    } else {
        for (;;) {
            struct pollfd pf = { fd, POLLOUT, 0 };
            int ms = (int)((until - uid_now_s()) * 1000), r;

            if (ms <= 0) {
                err = ETIMEDOUT;
                break;
            }
            r = poll(&pf, 1, ms);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                err = errno;
            else if (r > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el))
                err = errno;
            if (r != 0)
                break;
        }
    }
    if (err) {
        close(fd);
        return -err;
    }
    fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}
