/*
 * Unique-id bootstrap: PEs find each other without a launcher or a PMIx
 * server.  One process makes an id (shmemx_get_uniqueid): it opens a
 * listening TCP socket and the id carries that address, a random 128-bit
 * secret and a random job id.  The application hands the id to the other
 * processes any way it likes; each calls init with its rank, the job size
 * and the id.  The process that made the id is the hub: every other
 * process connects to it and presents the secret with its rank; the hub
 * refuses a connection with a wrong secret, a malformed or oversized
 * hello, a rank out of range or taken twice, or another job size.  It
 * serves the connections that have yet to present themselves together
 * (poll), so a silent or slow client delays nobody: it is dropped after
 * UID_HELLO_SECONDS, or sooner when UID_MAX_PENDING connections wait and a
 * new one comes (the oldest goes).  Collectives are a star through the
 * hub.
 *
 * A reader thread in every process owns the sockets: it hands collective
 * replies to the caller, executes an abort sent by any process (the hub
 * forwards it to everybody), and ends the job with a message naming what
 * happened when a peer disappears without saying goodbye or breaks the
 * protocol, so a dead process never leaves the others waiting.
 *
 * The interface the hub listens on: FABSHMEM_BOOTSTRAP_IFNAME (e.g. eth0),
 * else the first IPv4 interface that is up and not loopback, else loopback.
 * The wire format is in pmix/uid_wire.h.
 */
#define _GNU_SOURCE
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/random.h>
#include "pmix/shmemb.h"
#include "uid_wire.h"

/* The listener of the id this process made (one at a time). */
static int listen_fd = -1;
static struct uid_wire listen_uid;

typedef struct uidb {
    shmemb_t pub;
    int hub;             /* 1 in the process that made the id */
    int hub_rank;        /* the hub's rank (from its welcome) */
    int fd;              /* non-hub: the socket to the hub */
    int *fds;            /* hub: socket of every rank (-1 for itself) */
    int *said_bye;       /* hub: rank sent UID_M_BYE */
    pthread_t reader;
    int reader_started;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    /* Collective messages received by the reader, one per rank (hub) or
     * one in all (non-hub), consumed by the collective in progress. */
    void **msg;
    uint64_t *msg_len;
    int *have;
    int closing;
    int wake_fd[2];      /* wakes the reader at fini */
} uidb_t;

static int write_all(int fd, const void *buf, size_t len)
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

static int read_all(int fd, void *buf, size_t len)
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

static int send_frame(int fd, uint32_t type, uint32_t rank, const void *data, uint64_t len)
{
    struct uid_frame_hdr h = { type, rank, len };
    int ret = write_all(fd, &h, sizeof(h));
    if (!ret && len)
        ret = write_all(fd, data, len);
    return ret;
}

/* ---- choosing the address ---- */

static int pick_addr(struct in_addr *out)
{
    const char *want = getenv("FABSHMEM_BOOTSTRAP_IFNAME");
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
        fprintf(stderr, "fabshmem error: shmemx_get_uniqueid: FABSHMEM_BOOTSTRAP_IFNAME: no "
                "interface '%s' with an IPv4 address that is up (there are: %s)\n", want,
                names[0] ? names : "none");
        return -ENODEV;
    }
    out->s_addr = htonl(INADDR_LOOPBACK);
    return 0;
}

int shmemb_uid_create(void *uid, size_t uid_len)
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
    if ((ret = pick_addr(&sa.sin_addr)))
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
    if (listen_fd >= 0)
        close(listen_fd);
    listen_fd = fd;
    w.magic = UID_MAGIC;
    w.version = UID_VERSION;
    w.addr = sa.sin_addr.s_addr;
    w.port = sa.sin_port;
    w.creator_pid = (uint32_t)getpid();
    listen_uid = w;
    memset(uid, 0, uid_len);
    memcpy(uid, &w, sizeof(w));
    return 0;
}

/* ---- the reader thread ---- */

static void die(uidb_t *u, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(uidb_t *u, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "fabshmem error: [PE %d] unique-id bootstrap: ", u->pub.rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "; ending the job\n");
    fflush(stderr);
    _exit(1);
}

/* Reads one frame from fd; *data is malloc'd.  0, or <0 (EOF: -EPIPE; a
 * frame longer than UID_MAX_MSG: -EMSGSIZE, with *h read). */
static int read_frame(int fd, struct uid_frame_hdr *h, void **data)
{
    int ret = read_all(fd, h, sizeof(*h));

    *data = NULL;
    if (ret)
        return ret;
    if (h->len > UID_MAX_MSG)
        return -EMSGSIZE;
    if (h->len) {
        *data = malloc(h->len);
        if (!*data)
            return -ENOMEM;
        if ((ret = read_all(fd, *data, h->len))) {
            free(*data);
            *data = NULL;
            return ret == -EPIPE ? -EIO : ret; /* cut inside a frame */
        }
    }
    return 0;
}

/* What a failed read_frame from who ("PE 3", "the hub (PE 0)") means. */
static void describe(char *buf, size_t len, const char *who, int ret, const struct uid_frame_hdr *h)
{
    switch (ret) {
    case -EPIPE:
        snprintf(buf, len, "%s left the job without shmem_finalize (its bootstrap connection "
                 "closed)", who);
        break;
    case -EMSGSIZE:
        snprintf(buf, len, "%s sent a bootstrap message of %llu bytes, more than the limit of "
                 "%llu", who, (unsigned long long)h->len, (unsigned long long)UID_MAX_MSG);
        break;
    case -ENOMEM:
        snprintf(buf, len, "no memory for a bootstrap message of %llu bytes from %s",
                 (unsigned long long)h->len, who);
        break;
    default:
        snprintf(buf, len, "the bootstrap connection of %s failed (%s)", who,
                 ret == -EIO ? "a message was cut short or the socket failed" : strerror(-ret));
    }
}

static void deliver(uidb_t *u, int slot, void *data, uint64_t len)
{
    pthread_mutex_lock(&u->lock);
    u->msg[slot] = data;
    u->msg_len[slot] = len;
    u->have[slot] = 1;
    pthread_cond_broadcast(&u->cond);
    pthread_mutex_unlock(&u->lock);
}

static void hub_abort_all(uidb_t *u, int from, int status, const char *msg)
{
    int r;
    for (r = 0; r < u->pub.nranks; r++)
        if (u->fds[r] >= 0 && r != from)
            send_frame(u->fds[r], UID_M_ABORT, (uint32_t)status, msg, msg ? strlen(msg) + 1 : 0);
}

static void *reader_main(void *arg)
{
    uidb_t *u = arg;
    int n = u->pub.nranks, r;
    struct pollfd *pf = calloc((size_t)n + 1, sizeof(*pf));

    if (!pf)
        die(u, "reader thread: out of memory");
    for (;;) {
        int np = 0;
        if (u->hub) {
            for (r = 0; r < n; r++) {
                pf[r].fd = __atomic_load_n(&u->said_bye[r], __ATOMIC_ACQUIRE) ? -1 : u->fds[r];
                pf[r].events = POLLIN;
            }
            np = n;
        } else {
            pf[0].fd = u->fd;
            pf[0].events = POLLIN;
            np = 1;
        }
        pf[np].fd = u->wake_fd[0];
        pf[np].events = POLLIN;
        if (poll(pf, (nfds_t)np + 1, -1) < 0) {
            if (errno == EINTR)
                continue;
            die(u, "reader thread: poll: %s", strerror(errno));
        }
        if (pf[np].revents)
            break;
        for (r = 0; r < np; r++) {
            struct uid_frame_hdr h;
            char who[48], msg[256];
            void *data;
            int from = u->hub ? r : -1, ret;

            if (pf[r].fd < 0 || !pf[r].revents)
                continue;
            if (u->hub)
                snprintf(who, sizeof(who), "PE %d", r);
            else
                snprintf(who, sizeof(who), "the hub (PE %d)", u->hub_rank);
            ret = read_frame(pf[r].fd, &h, &data);
            if (ret) {
                int closing;
                pthread_mutex_lock(&u->lock);
                closing = u->closing;
                pthread_mutex_unlock(&u->lock);
                if (closing && ret == -EPIPE) {
                    if (u->hub)
                        __atomic_store_n(&u->said_bye[r], 1, __ATOMIC_RELEASE);
                    else
                        goto out;
                    continue;
                }
                describe(msg, sizeof(msg), who, ret, &h);
                if (u->hub)
                    hub_abort_all(u, r, 1, msg);
                die(u, "%s", msg);
            }
            switch (h.type) {
            case UID_M_GATHER:
            case UID_M_RESULT:
                deliver(u, u->hub ? r : 0, data, h.len);
                break;
            case UID_M_ABORT:
                if (u->hub)
                    hub_abort_all(u, from, (int)h.rank, data);
                if (u->hub)
                    fprintf(stderr, "fabshmem: [PE %d] job aborted by PE %d: %s\n", u->pub.rank,
                            from, data ? (char *)data : "");
                else
                    fprintf(stderr, "fabshmem: [PE %d] job aborted: %s\n", u->pub.rank,
                            data ? (char *)data : "");
                fflush(stderr);
                _exit((int)h.rank ? (int)h.rank : 1);
            case UID_M_BYE:
                free(data);
                if (u->hub)
                    __atomic_store_n(&u->said_bye[r], 1, __ATOMIC_RELEASE);
                break;
            default:
                free(data);
                snprintf(msg, sizeof(msg), "%s sent a bootstrap message of unknown type %u", who,
                         h.type);
                if (u->hub)
                    hub_abort_all(u, r, 1, msg);
                die(u, "%s", msg);
            }
        }
    }
out:
    free(pf);
    return NULL;
}

/* Waits for the collective message of slot. */
static void *take(uidb_t *u, int slot, uint64_t *len)
{
    void *d;
    pthread_mutex_lock(&u->lock);
    while (!u->have[slot])
        pthread_cond_wait(&u->cond, &u->lock);
    d = u->msg[slot];
    *len = u->msg_len[slot];
    u->have[slot] = 0;
    u->msg[slot] = NULL;
    pthread_mutex_unlock(&u->lock);
    return d;
}

/* ---- collectives ---- */

static int uid_allgather(shmemb_t *b, const void *in, void *out, size_t len)
{
    uidb_t *u = (uidb_t *)b;
    int n = b->nranks, r, ret;
    uint64_t got;
    void *d;

    if (n == 1) {
        memmove(out, in, len);
        return 0;
    }
    if ((uint64_t)len * (uint64_t)n > UID_MAX_MSG)
        return -EMSGSIZE;
    if (!u->hub) {
        if ((ret = send_frame(u->fd, UID_M_GATHER, (uint32_t)b->rank, in, len)))
            return ret;
        d = take(u, 0, &got);
        if (got != (uint64_t)len * n) {
            free(d);
            return -EPROTO;
        }
        memcpy(out, d, got);
        free(d);
        return 0;
    }
    memcpy((char *)out + (size_t)b->rank * len, in, len);
    for (r = 0; r < n; r++) {
        if (r == b->rank)
            continue;
        d = take(u, r, &got);
        if (got != len) {
            free(d);
            fprintf(stderr, "fabshmem error: bootstrap allgather: PE %d sent %llu bytes, "
                    "expected %zu\n", r, (unsigned long long)got, len);
            return -EPROTO;
        }
        memcpy((char *)out + (size_t)r * len, d, len);
        free(d);
    }
    for (r = 0; r < n; r++)
        if (r != b->rank && (ret = send_frame(u->fds[r], UID_M_RESULT, 0, out, (uint64_t)len * n)))
            return ret;
    return 0;
}

static int uid_barrier(shmemb_t *b)
{
    char c = 0, *all = malloc((size_t)b->nranks);
    int ret;

    if (!all)
        return -ENOMEM;
    ret = uid_allgather(b, &c, all, 1);
    free(all);
    return ret;
}

static void uid_abort(shmemb_t *b, int status, const char *msg)
{
    uidb_t *u = (uidb_t *)b;

    if (msg)
        fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    if (u->hub)
        hub_abort_all(u, -1, status ? status : 1, msg);
    else
        send_frame(u->fd, UID_M_ABORT, (uint32_t)(status ? status : 1), msg,
                   msg ? strlen(msg) + 1 : 0);
    /* Give the message a moment to leave before the process ends. */
    usleep(100000);
    _exit(status);
}

static int uid_fini(shmemb_t *b)
{
    uidb_t *u = (uidb_t *)b;
    int r;

    pthread_mutex_lock(&u->lock);
    u->closing = 1;
    pthread_mutex_unlock(&u->lock);
    if (!u->hub) {
        send_frame(u->fd, UID_M_BYE, (uint32_t)b->rank, NULL, 0);
    } else {
        /* Wait until every rank said goodbye (or closed), so that no rank
         * sees the hub vanish while it still runs. */
        for (;;) {
            int all = 1;
            for (r = 0; r < b->nranks; r++)
                if (r != b->rank && !__atomic_load_n(&u->said_bye[r], __ATOMIC_ACQUIRE))
                    all = 0;
            if (all)
                break;
            usleep(1000);
        }
    }
    if (write(u->wake_fd[1], "x", 1) < 0) { /* the reader ends anyway at close */ }
    if (u->reader_started)
        pthread_join(u->reader, NULL);
    if (u->hub) {
        for (r = 0; r < b->nranks; r++)
            if (u->fds[r] >= 0)
                close(u->fds[r]);
    } else {
        close(u->fd);
    }
    close(u->wake_fd[0]);
    close(u->wake_fd[1]);
    free(u->fds);
    free(u->said_bye);
    free(u->msg);
    free(u->msg_len);
    free(u->have);
    free(u);
    return 0;
}

/* ---- joining ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int secret_eq(const uint8_t *a, const uint8_t *b)
{
    unsigned d = 0;
    for (int i = 0; i < 16; i++)
        d |= (unsigned)(a[i] ^ b[i]);
    return d == 0;
}

/* Reads exactly len bytes with a deadline; 0 or <0. */
static int read_deadline(int fd, void *buf, size_t len, double deadline)
{
    char *p = buf;
    while (len) {
        struct pollfd pf = { fd, POLLIN, 0 };
        int ms = (int)((deadline - now_s()) * 1000);
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

/* A connection to the hub that has yet to present its hello. */
struct pending {
    int fd;
    double deadline;
    size_t got;
    char peer[48]; /* address:port, for the messages */
    unsigned char buf[sizeof(struct uid_frame_hdr) + sizeof(struct uid_hello)];
};

static void pending_refuse(struct pending *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void pending_refuse(struct pending *p, const char *fmt, ...)
{
    char why[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    fprintf(stderr, "fabshmem warning: unique-id bootstrap: refused a connection (%s) from %s\n",
            why, p->peer);
    close(p->fd);
    p->fd = -1;
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
        pending_refuse(p, "closed before its hello was complete");
        return -1;
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return 0;
        pending_refuse(p, "recv: %s", strerror(errno));
        return -1;
    }
    p->got += (size_t)n;
    if (p->got < hlen)
        return 0;
    /* The header shows at once whether a hello follows. */
    memcpy(&h, p->buf, hlen);
    if (h.type != UID_M_HELLO) {
        pending_refuse(p, "malformed hello: message type %u", h.type);
        return -1;
    }
    if (h.len != sizeof(hl)) {
        pending_refuse(p, "%s hello: %llu bytes, expected %zu",
                       h.len > sizeof(hl) ? "oversized" : "malformed",
                       (unsigned long long)h.len, sizeof(hl));
        return -1;
    }
    if (p->got < need)
        return 0;
    memcpy(&hl, p->buf + hlen, sizeof(hl));
    if (hl.magic != UID_MAGIC)
        pending_refuse(p, "wrong magic 0x%08x: not a fabshmem peer", hl.magic);
    else if (hl.version != UID_VERSION)
        pending_refuse(p, "protocol version %u, this fabshmem speaks %u", hl.version, UID_VERSION);
    else if (!secret_eq(hl.secret, listen_uid.secret))
        pending_refuse(p, "wrong secret");
    else if ((int)hl.nranks != u->pub.nranks || hl.nranks > INT32_MAX)
        pending_refuse(p, "another job size: %u PEs, this job has %d", hl.nranks,
                       u->pub.nranks);
    else if (hl.rank >= (uint32_t)u->pub.nranks)
        pending_refuse(p, "rank %u out of range", hl.rank);
    else if ((int)hl.rank == u->pub.rank)
        pending_refuse(p, "rank %u is the hub's own", hl.rank);
    else if (u->fds[hl.rank] >= 0)
        pending_refuse(p, "rank %u taken twice", hl.rank);
    else {
        *rank_p = (int)hl.rank;
        return 1;
    }
    return -1;
}

/* Takes in the other ranks' connections until every rank has joined.  The
 * connections that have not yet presented themselves are served together,
 * each with UID_HELLO_SECONDS to do it. */
/* The options of a connection between a rank and the hub: no Nagle delay,
 * and a host that falls silent (its link cut, its kernel gone) is noticed
 * within about 30 s by either side: keepalive probes after 10 s idle, 5 s
 * apart, 4 unanswered, and unacknowledged data given up after 30 s.  The
 * kernel answers the probes, so a rank that computes for hours is not
 * taken for lost.  The reader thread then reads an error and ends the job
 * naming the rank (or the hub). */
static void sock_opts(int fd)
{
    int one = 1, idle = 10, intvl = 5, cnt = 4;
    unsigned int user_ms = 30000;

    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_ms, sizeof(user_ms));
}

static int hub_accept_all(uidb_t *u, double deadline)
{
    int n = u->pub.nranks, joined = 1, np = 0, ret = 0, i;
    struct pending *pend = calloc(UID_MAX_PENDING, sizeof(*pend));
    struct pollfd *pf = calloc(UID_MAX_PENDING + 1, sizeof(*pf));

    if (!pend || !pf) {
        ret = -ENOMEM;
        goto out;
    }
    while (joined < n) {
        double t = now_s(), wake = deadline;
        int ms;

        if (t >= deadline) {
            fprintf(stderr, "fabshmem error: unique-id bootstrap: only %d of %d PEs joined "
                    "within the time limit (FABSHMEM_BOOTSTRAP_TIMEOUT)\n", joined, n);
            ret = -ETIMEDOUT;
            goto out;
        }
        for (i = np - 1; i >= 0; i--) {
            if (pend[i].deadline <= t) {
                pending_refuse(&pend[i], "no hello within %d s", UID_HELLO_SECONDS);
                pend[i] = pend[--np];
            } else if (pend[i].deadline < wake) {
                wake = pend[i].deadline;
            }
        }
        pf[0].fd = listen_fd;
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
            int fd = accept4(listen_fd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
            char a[INET_ADDRSTRLEN] = "?";

            if (fd < 0)
                continue;
            inet_ntop(AF_INET, &sa.sin_addr, a, sizeof(a));
            if (np == UID_MAX_PENDING) {
                /* Full: the oldest goes.  A real peer sends its hello at
                 * once, so a flood of silent connections pushes out its
                 * own before it reaches one. */
                int old = 0;
                for (i = 1; i < np; i++)
                    if (pend[i].deadline < pend[old].deadline)
                        old = i;
                pending_refuse(&pend[old], "the oldest of %d connections waiting for their "
                               "hello", UID_MAX_PENDING);
                pend[old] = pend[--np];
            }
            pend[np].fd = fd;
            pend[np].deadline = t + UID_HELLO_SECONDS;
            pend[np].got = 0;
            snprintf(pend[np].peer, sizeof(pend[np].peer), "%s:%u", a, ntohs(sa.sin_port));
            sock_opts(fd);
            np++;
        }
    }
    for (i = 0; i < n; i++)
        if (i != u->pub.rank &&
            send_frame(u->fds[i], UID_M_WELCOME, (uint32_t)u->pub.rank, NULL, 0)) {
            ret = -EIO;
            goto out;
        }
out:
    for (i = 0; i < np; i++)
        pending_refuse(&pend[i], "%s", ret ? "the hub gave up" : "every rank has joined");
    free(pend);
    free(pf);
    return ret;
}

static int join_hub(uidb_t *u, const struct uid_wire *w, double deadline)
{
    struct sockaddr_in sa;
    struct uid_hello hl;
    struct uid_frame_hdr h;
    int fd = -1;

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = w->addr;
    sa.sin_port = w->port;
    for (;;) {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -errno;
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
            break;
        close(fd);
        if (now_s() > deadline) {
            char a[32];
            inet_ntop(AF_INET, &sa.sin_addr, a, sizeof(a));
            fprintf(stderr, "fabshmem error: unique-id bootstrap: cannot reach the hub at %s:%u\n",
                    a, ntohs(sa.sin_port));
            return -ETIMEDOUT;
        }
        usleep(20000);
    }
    sock_opts(fd);
    memset(&hl, 0, sizeof(hl));
    hl.magic = UID_MAGIC;
    hl.version = UID_VERSION;
    memcpy(hl.secret, w->secret, sizeof(hl.secret));
    hl.rank = (uint32_t)u->pub.rank;
    hl.nranks = (uint32_t)u->pub.nranks;
    if (send_frame(fd, UID_M_HELLO, hl.rank, &hl, sizeof(hl)) ||
        read_deadline(fd, &h, sizeof(h), deadline) || h.type != UID_M_WELCOME ||
        h.rank >= (uint32_t)u->pub.nranks) {
        fprintf(stderr, "fabshmem error: unique-id bootstrap: the hub refused rank %d of %d (wrong "
                "id, job size or rank?)\n", u->pub.rank, u->pub.nranks);
        close(fd);
        return -ECONNREFUSED;
    }
    u->hub_rank = (int)h.rank;
    u->fd = fd;
    return 0;
}

int shmemb_uid_init(const void *uid, size_t uid_len, int rank, int nranks, double timeout_s,
                    shmemb_t **b_p)
{
    const struct uid_wire *w = uid;
    double deadline = now_s() + (timeout_s > 0 ? timeout_s : 120.0);
    uidb_t *u;
    int ret, r;

    if (uid_len < sizeof(*w) || w->magic != UID_MAGIC || w->version != UID_VERSION) {
        fprintf(stderr, "fabshmem error: shmemx_init_attr: the unique id is not one made by "
                "shmemx_get_uniqueid of this library version\n");
        return -EINVAL;
    }
    if (nranks < 1 || rank < 0 || rank >= nranks) {
        fprintf(stderr, "fabshmem error: shmemx_init_attr: rank %d / nranks %d out of range\n",
                rank, nranks);
        return -EINVAL;
    }
    u = calloc(1, sizeof(*u));
    if (!u)
        return -ENOMEM;
    u->pub.name = "uniqueid";
    u->pub.rank = rank;
    u->pub.nranks = nranks;
    /* The job id, not the secret: the names of shared objects are public. */
    snprintf(u->pub.job_id, sizeof(u->pub.job_id), "u%02x%02x%02x%02x%02x%02x%02x%02x",
             w->job[0], w->job[1], w->job[2], w->job[3], w->job[4], w->job[5], w->job[6],
             w->job[7]);
    u->pub.allgather = uid_allgather;
    u->pub.barrier = uid_barrier;
    u->pub.abort = uid_abort;
    u->pub.fini = uid_fini;
    u->pub.node_peers = NULL; /* The host names make the node map. */
    u->fd = -1;
    u->hub_rank = rank;
    pthread_mutex_init(&u->lock, NULL);
    pthread_cond_init(&u->cond, NULL);
    u->hub = listen_fd >= 0 && secret_eq(listen_uid.secret, w->secret) &&
             listen_uid.creator_pid == (uint32_t)getpid();
    u->fds = malloc(sizeof(int) * nranks);
    u->said_bye = calloc(nranks, sizeof(int));
    u->msg = calloc(nranks, sizeof(void *));
    u->msg_len = calloc(nranks, sizeof(uint64_t));
    u->have = calloc(nranks, sizeof(int));
    if (!u->fds || !u->said_bye || !u->msg || !u->msg_len || !u->have) {
        ret = -ENOMEM;
        goto err_free;
    }
    if (pipe2(u->wake_fd, O_CLOEXEC)) {
        ret = -errno;
        goto err_free;
    }
    for (r = 0; r < nranks; r++)
        u->fds[r] = -1;
    if (nranks > 1) {
        ret = u->hub ? hub_accept_all(u, deadline) : join_hub(u, w, deadline);
        if (ret)
            goto err_close;
        if (pthread_create(&u->reader, NULL, reader_main, u)) {
            ret = -EAGAIN;
            goto err_close;
        }
        u->reader_started = 1;
    }
    if (u->hub) {
        close(listen_fd);
        listen_fd = -1;
    }
    *b_p = &u->pub;
    return 0;

err_close:
    if (u->fd >= 0)
        close(u->fd);
    for (r = 0; r < nranks; r++)
        if (u->fds[r] >= 0)
            close(u->fds[r]);
    close(u->wake_fd[0]);
    close(u->wake_fd[1]);
err_free:
    free(u->fds);
    free(u->said_bye);
    free(u->msg);
    free(u->msg_len);
    free(u->have);
    pthread_mutex_destroy(&u->lock);
    pthread_cond_destroy(&u->cond);
    free(u);
    return ret;
}
