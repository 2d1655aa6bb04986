/*
 * Passing file descriptors between the PEs of a node: the device heap's
 * memory is exported as a POSIX file descriptor (a handle of the CUDA
 * driver that only the descriptor itself carries: opening
 * /proc/PID/fd/N makes a new, unrelated open), so the node peers receive
 * it over a Unix socket with SCM_RIGHTS.  pidfd_getfd would need ptrace
 * permission, which Ubuntu's default (Yama ptrace_scope 1) refuses
 * between sibling processes.
 *
 * Each PE listens on a socket of the abstract namespace named after the
 * job, itself and its pid; after a barrier it connects to each peer and
 * sends its PE number, accepts its peers' connections and answers each
 * with its descriptor, then reads the peers' descriptors from its own
 * connections.  Sends are queued by the kernel, so nobody waits for a
 * peer that waits for it.  An accepted connection counts only if it comes
 * from one of the listed processes (SO_PEERCRED) and claims that
 * process's PE: another process of the host cannot fetch the handle; and
 * a connection counts only if the listener is the peer's process: nobody
 * else can hand us a descriptor to map as the peer's memory.
 */
#define _GNU_SOURCE
#include "mem/mem.h"
#include "base/state.h"
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Seconds to wait for a peer's connection or descriptor. */
#define FD_TIMEOUT_S 60

static socklen_t fd_addr(struct sockaddr_un *a, int pe, int pid)
{
    int n;

    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "fabshmem-%s-dheap-%d-%d",
                 shmemi_g.boot->job_id, pe, pid);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static void fd_why(char *why, size_t len, const char *fmt, int pe, int err)
{
    if (why[0] == '\0')
        snprintf(why, len, fmt, pe, strerror(err));
}

/* Waits until sock is readable; 0, or -ETIMEDOUT. */
static int fd_wait(int sock)
{
    struct pollfd p = { .fd = sock, .events = POLLIN };
    int n;

    do
        n = poll(&p, 1, FD_TIMEOUT_S * 1000);
    while (n < 0 && errno == EINTR);
    return n > 0 ? 0 : n == 0 ? -ETIMEDOUT : -errno;
}

static int fd_send(int sock, int fd)
{
    union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
    char c = 'F';
    struct iovec iov = { &c, 1 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                        .msg_controllen = sizeof(u.buf) };
    struct cmsghdr *h = CMSG_FIRSTHDR(&m);

    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(h), &fd, sizeof(int));
    return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

/* The descriptor that came on sock, or a negative errno. */
static int fd_recv(int sock)
{
    union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
    char c;
    struct iovec iov = { &c, 1 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                        .msg_controllen = sizeof(u.buf) };
    struct cmsghdr *h;
    int fd, ret = fd_wait(sock);

    if (ret)
        return ret;
    if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
        return -EPROTO;
    h = CMSG_FIRSTHDR(&m);
    if (!h || h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS ||
        h->cmsg_len != CMSG_LEN(sizeof(int)))
        return -EPROTO;
    memcpy(&fd, CMSG_DATA(h), sizeof(int));
    return fd;
}

/* Accepts one peer's connection and answers it with fd; 0 or a negative
 * errno (a connection from an unlisted process is closed and does not
 * count: -EPERM). */
static int fd_serve_one(int lsock, int fd, const int *pes, int n, const int *pids)
{
    struct ucred cr;
    socklen_t crlen = sizeof(cr);
    int c, pe, i, ok = 0, ret = fd_wait(lsock);

    if (ret)
        return ret;
    c = accept4(lsock, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0)
        return -errno;
    if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) == 0 && fd_wait(c) == 0 &&
        read(c, &pe, sizeof(pe)) == (ssize_t)sizeof(pe))
        for (i = 0; i < n; i++)
            ok |= pes[i] == pe && pe != shmemi_g.my_pe && pids[pe] == (int)cr.pid;
    ret = ok ? fd_send(c, fd) : -EPERM;
    close(c);
    return ret;
}

/* Connects to the listening socket of PE pe and presents this PE.  The
 * listener must be that PE's process (SO_PEERCRED): an abstract name can
 * be bound by anyone who comes first, and a squatter's descriptor would be
 * mapped as the peer's memory. */
static int fd_connect(int pe, int pid)
{
    struct sockaddr_un a;
    struct ucred cr;
    socklen_t crlen = sizeof(cr), len = fd_addr(&a, pe, pid);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), me = shmemi_g.my_pe;

    if (s < 0)
        return -errno;
    if (connect(s, (struct sockaddr *)&a, len) ||
        getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) ||
        write(s, &me, sizeof(me)) != sizeof(me)) {
        int err = errno;
        close(s);
        return -err;
    }
    if ((int)cr.pid != pid || cr.uid != geteuid()) {
        close(s);
        return -EPERM;
    }
    return s;
}

static int fd_listen(int n)
{
    struct sockaddr_un a;
    socklen_t len = fd_addr(&a, shmemi_g.my_pe, (int)getpid());
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (s < 0)
        return -errno;
    if (bind(s, (struct sockaddr *)&a, len) || listen(s, n)) {
        int err = errno;
        close(s);
        return -err;
    }
    return s;
}

int shmemi_fd_exchange(int fd, const int *pes, int n, const int *pids, int *fds, char *why,
                       size_t whylen)
{
    int i, lsock = -1, served = 0, ret, *conn = calloc((size_t)n, sizeof(int));

    why[0] = '\0';
    for (i = 0; i < n; i++)
        fds[i] = -1;
    if (n > 1 && (lsock = fd_listen(n)) < 0)
        fd_why(why, whylen, "PE %d cannot listen for the descriptors: %s", shmemi_g.my_pe, -lsock);
    ret = shmemi_g.boot->barrier(shmemi_g.boot);
    if (ret || !conn) {
        fd_why(why, whylen, "PE %d: the barrier of the exchange failed: %s", shmemi_g.my_pe,
               ret ? -ret : ENOMEM);
        n = 0;
    }
    for (i = 0; i < n; i++) {
        conn[i] = pes[i] == shmemi_g.my_pe ? -1 : fd_connect(pes[i], pids[pes[i]]);
        if (pes[i] != shmemi_g.my_pe && conn[i] < 0)
            fd_why(why, whylen, "connecting to PE %d: %s", pes[i], -conn[i]);
    }
    /* Every listed peer that could connect to us does; one that could not
     * leaves us waiting until the time-out. */
    while (lsock >= 0 && served < n - 1) {
        ret = fd_serve_one(lsock, fd, pes, n, pids);
        if (ret == -ETIMEDOUT || ret == -EINTR) {
            fd_why(why, whylen, "PE %d: waiting for the peers' connections: %s",
                   shmemi_g.my_pe, -ret);
            break;
        }
        served += ret != -EPERM;
    }
    for (i = 0; i < n; i++) {
        if (conn[i] < 0)
            continue;
        fds[i] = fd_recv(conn[i]);
        if (fds[i] < 0) {
            fd_why(why, whylen, "receiving PE %d's descriptor: %s", pes[i], -fds[i]);
            fds[i] = -1;
        }
        close(conn[i]);
    }
    if (lsock >= 0)
        close(lsock);
    free(conn);
    return why[0] ? -1 : 0;
}
