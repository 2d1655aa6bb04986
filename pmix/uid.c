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
 * A refused connection is told why (a UID_M_REFUSE frame) before the hub
 * closes it, so a misconfigured rank fails at once with the reason; the
 * hub counts its refusals by reason and reports them in one line when the
 * joining ends (a flood of connections does not flood stderr).  A rank
 * whose hub does not listen any more (it died, or its job is complete)
 * fails at once too.
 *
 * A reader thread in every process owns the sockets: it hands collective
 * replies to the caller, executes an abort sent by any process (the hub
 * forwards it to everybody), and ends the job with a message naming what
 * happened when a peer disappears without saying goodbye or breaks the
 * protocol, so a dead process never leaves the others waiting: a PE
 * notices at once that the hub's connection closed, and the hub that a
 * PE's did (TCP keepalive covers a host that vanishes).  It sleeps in
 * poll() meanwhile: it costs the PE's hot path nothing and never wakes an
 * idle PE.
 *
 * The end of a job (an abort, shmem_global_exit, a PE that leaves without
 * shmem_finalize, a dead PE) is one path, uid_end: the ending process
 * sends UID_M_ABORT with the others' status, and every process exits with
 * its status once the connections it waits for have closed (the hub:
 * every PE's; a PE: the hub's), so nobody takes the closing connections
 * of the end for a death and exits with another status.
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

struct refusals;

typedef struct uidb {
    shmemb_t pub;
    int hub;             /* 1 in the process that made the id */
    int hub_rank;        /* the hub's rank (from its welcome) */
    int fd;              /* non-hub: the socket to the hub */
    int *fds;            /* hub: socket of every rank (-1 for itself) */
    int *said_bye;       /* hub: rank sent UID_M_BYE */
    /* Connections closed while the job ends: the hub's PEs (by rank), or
     * the hub's (slot 0 of another PE). */
    int *gone;
    pthread_t reader;
    int reader_started;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    /* One frame at a time on the sockets (the reader forwards aborts
     * while the application's thread runs collectives). */
    pthread_mutex_t send_lock;
    /* Collective messages received by the reader, one per rank (hub) or
     * one in all (non-hub), consumed by the collective in progress. */
    void **msg;
    uint64_t *msg_len;
    int *have;
    int closing;
    int wake_fd[2];      /* wakes the reader (fini, the end of the job) */
    /* Set once when the job ends (uid_end, or an abort or a death that the
     * hub's reader learns of): this process then exits with end_status as
     * soon as the connections it waits for have closed (end_done), or at
     * end_deadline. */
    int ending;
    int end_status;
    double end_deadline;
    struct refusals *refused; /* hub, while the PEs join */
} uidb_t;

/* Seconds a process that ends the job waits for the others to close
 * their connections before it exits all the same. */
#define UID_END_SECONDS 5.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

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

/* send_frame on a socket that the reader thread shares. */
static int send_locked(uidb_t *u, int fd, uint32_t type, uint32_t rank, const void *data,
                       uint64_t len)
{
    int ret;

    pthread_mutex_lock(&u->send_lock);
    ret = send_frame(fd, type, rank, data, len);
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
static void sock_opts(int fd)
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

/* Ends this process after the job's end (end_begin): every thread of it
 * may, the first one wins. */
static void end_now(uidb_t *u) __attribute__((noreturn));
static void end_now(uidb_t *u)
{
    _exit(__atomic_load_n(&u->end_status, __ATOMIC_ACQUIRE));
}

/* The job ends, and this process with status: 0 the first time, -1 when
 * it had begun already (the first status stays). */
static int end_begin(uidb_t *u, int status)
{
    int first;

    pthread_mutex_lock(&u->lock);
    first = !u->ending;
    if (first) {
        u->end_status = status;
        u->end_deadline = now_s() + UID_END_SECONDS;
        __atomic_store_n(&u->ending, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&u->lock);
    return first ? 0 : -1;
}

/* Whether every connection that this ending process waits for has
 * closed: the hub waits for every PE that has not said goodbye (a PE that
 * sent the abort waits for the hub instead: it is marked gone), another
 * PE for the hub. */
static int end_done(uidb_t *u)
{
    int r;

    if (!u->hub)
        return __atomic_load_n(&u->gone[0], __ATOMIC_ACQUIRE);
    for (r = 0; r < u->pub.nranks; r++)
        if (u->fds[r] >= 0 && !__atomic_load_n(&u->said_bye[r], __ATOMIC_ACQUIRE) &&
            !__atomic_load_n(&u->gone[r], __ATOMIC_ACQUIRE))
            return 0;
    return 1;
}

/* A bootstrap failure in a PE that is not the hub: the job cannot go on. */
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
    _exit(SHMEMB_EXIT_LOST);
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
        snprintf(buf, len, "%s is gone without shmem_finalize: its bootstrap connection closed "
                 "(the process was killed, crashed or called _exit)", who);
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

/* The hub sends the abort to every PE but from. */
static void hub_abort_all(uidb_t *u, int from, int status, const char *msg)
{
    int r;
    for (r = 0; r < u->pub.nranks; r++)
        if (u->fds[r] >= 0 && r != from)
            send_locked(u, u->fds[r], UID_M_ABORT, (uint32_t)status, msg,
                        msg ? strlen(msg) + 1 : 0);
}

/* The hub ends the job with status, told by (or about) PE from, which it
 * does not wait for (-1: none). */
static void hub_end(uidb_t *u, int status, int from, const char *msg)
{
    if (from >= 0)
        __atomic_store_n(&u->gone[from], 1, __ATOMIC_RELEASE);
    if (end_begin(u, status))
        return;
    hub_abort_all(u, from, status, msg);
}

/* A frame (or a failed read, ret) from slot while the job ends: the
 * connections close, and nothing but their closing matters any more. */
static void end_read(uidb_t *u, int slot, int ret, const struct uid_frame_hdr *h, void *data)
{
    free(data);
    if (!ret && h->type != UID_M_ABORT)
        return;
    /* Closed or failed; or an abort crossing ours: the hub marks the PE
     * that sent it gone (it waits for the hub to close), a PE ends. */
    if (!u->hub && !ret)
        end_now(u);
    __atomic_store_n(&u->gone[slot], 1, __ATOMIC_RELEASE);
}

/* A frame from slot (the hub: rank slot; a PE: 0, the hub) while the job
 * runs.  who names the sender. */
static void reader_frame(uidb_t *u, int slot, const char *who, const struct uid_frame_hdr *h,
                         void *data)
{
    char msg[320];

    switch (h->type) {
    case UID_M_GATHER:
    case UID_M_RESULT:
        deliver(u, slot, data, h->len);
        return;
    case UID_M_ABORT:
        /* The message is a string; a frame of another sender may lack
         * the NUL. */
        if (data)
            ((char *)data)[h->len - 1] = '\0';
        if (!u->hub) {
            fprintf(stderr, "fabshmem: [PE %d] job aborted (status %u): %s\n", u->pub.rank,
                    h->rank, data ? (char *)data : "");
            fflush(stderr);
            _exit((int)h->rank);
        }
        fprintf(stderr, "fabshmem: [PE %d] job aborted by PE %d (status %u): %s\n", u->pub.rank,
                slot, h->rank, data ? (char *)data : "");
        fflush(stderr);
        hub_end(u, (int)h->rank, slot, data);
        free(data);
        return;
    case UID_M_BYE:
        free(data);
        if (u->hub)
            __atomic_store_n(&u->said_bye[slot], 1, __ATOMIC_RELEASE);
        return;
    default:
        free(data);
        snprintf(msg, sizeof(msg), "%s sent a bootstrap message of unknown type %u", who,
                 h->type);
        if (!u->hub)
            die(u, "%s", msg);
        fprintf(stderr, "fabshmem error: [PE %d] unique-id bootstrap: %s; ending the job\n",
                u->pub.rank, msg);
        hub_end(u, SHMEMB_EXIT_LOST, slot, msg);
    }
}

/* Serves the connection of slot, which poll found ready.  Returns 1 when
 * the reader is to stop (fini closes the connection to the hub). */
static int reader_serve(uidb_t *u, int slot, int fd)
{
    struct uid_frame_hdr h;
    char who[48], msg[320];
    void *data;
    int ret, closing;

    ret = read_frame(fd, &h, &data);
    if (__atomic_load_n(&u->ending, __ATOMIC_ACQUIRE)) {
        end_read(u, slot, ret, &h, data);
        return 0;
    }
    if (u->hub)
        snprintf(who, sizeof(who), "PE %d", slot);
    else
        snprintf(who, sizeof(who), "the hub (PE %d)", u->hub_rank);
    if (!ret) {
        reader_frame(u, slot, who, &h, data);
        return 0;
    }
    pthread_mutex_lock(&u->lock);
    closing = u->closing;
    pthread_mutex_unlock(&u->lock);
    if (closing && ret == -EPIPE) {
        if (!u->hub)
            return 1;
        __atomic_store_n(&u->said_bye[slot], 1, __ATOMIC_RELEASE);
        return 0;
    }
    describe(msg, sizeof(msg), who, ret, &h);
    if (!u->hub)
        die(u, "%s", msg);
    fprintf(stderr, "fabshmem error: [PE %d] unique-id bootstrap: %s; ending the job\n",
            u->pub.rank, msg);
    fflush(stderr);
    hub_end(u, SHMEMB_EXIT_LOST, slot, msg);
    return 0;
}

/* The reader thread: sleeps in poll() until a frame comes, a connection
 * closes, fini or the end of the job wakes it; once the job ends, it ends
 * the process when the connections it waits for have closed. */
static void *reader_main(void *arg)
{
    uidb_t *u = arg;
    int n = u->pub.nranks, r;
    struct pollfd *pf = calloc((size_t)n + 1, sizeof(*pf));

    if (!pf)
        die(u, "reader thread: out of memory");
    for (;;) {
        int np = 0, ms = -1;

        if (__atomic_load_n(&u->ending, __ATOMIC_ACQUIRE)) {
            if (end_done(u))
                end_now(u);
            ms = (int)((u->end_deadline - now_s()) * 1000);
            if (ms <= 0)
                end_now(u);
        }
        if (u->hub) {
            for (r = 0; r < n; r++) {
                pf[r].fd = __atomic_load_n(&u->said_bye[r], __ATOMIC_ACQUIRE) ||
                                   __atomic_load_n(&u->gone[r], __ATOMIC_ACQUIRE)
                               ? -1 : u->fds[r];
                pf[r].events = POLLIN;
            }
            np = n;
        } else {
            pf[0].fd = __atomic_load_n(&u->gone[0], __ATOMIC_ACQUIRE) ? -1 : u->fd;
            pf[0].events = POLLIN;
            np = 1;
        }
        pf[np].fd = u->wake_fd[0];
        pf[np].events = POLLIN;
        if (poll(pf, (nfds_t)np + 1, ms) < 0) {
            if (errno == EINTR)
                continue;
            die(u, "reader thread: poll: %s", strerror(errno));
        }
        if (pf[np].revents) {
            char buf[16];
            int closing;

            while (read(u->wake_fd[0], buf, sizeof(buf)) > 0)
                ;
            pthread_mutex_lock(&u->lock);
            closing = u->closing;
            pthread_mutex_unlock(&u->lock);
            if (closing)
                break;
        }
        for (r = 0; r < np; r++)
            if (pf[r].fd >= 0 && pf[r].revents && reader_serve(u, r, pf[r].fd))
                goto out;
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
        if ((ret = send_locked(u, u->fd, UID_M_GATHER, (uint32_t)b->rank, in, len)))
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
        if (r != b->rank &&
            (ret = send_locked(u, u->fds[r], UID_M_RESULT, 0, out, (uint64_t)len * n)))
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

/* Ends the job: this process exits with own, the others with peers.
 * The message goes out (the hub sends it to every PE, a PE to the hub,
 * which forwards it); then the reader ends this process once the
 * connections it waits for have closed, so the abort reached them and
 * none of them takes the closing for a death. */
static void uid_end(uidb_t *u, int own, int peers, const char *msg) __attribute__((noreturn));
static void uid_end(uidb_t *u, int own, int peers, const char *msg)
{
    double until;

    if (msg)
        fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    if (!u->reader_started)
        _exit(own);
    if (end_begin(u, own) == 0) {
        if (u->hub)
            hub_abort_all(u, -1, peers, msg);
        else
            send_locked(u, u->fd, UID_M_ABORT, (uint32_t)peers, msg, msg ? strlen(msg) + 1 : 0);
        if (write(u->wake_fd[1], "e", 1) < 0) { /* the reader looks at its deadline anyway */ }
    }
    /* The reader exits first; should it be unable to, the deadline holds. */
    pthread_mutex_lock(&u->lock);
    until = u->end_deadline + 1.0;
    pthread_mutex_unlock(&u->lock);
    while (now_s() < until)
        usleep(10000);
    end_now(u);
}

static void uid_abort(shmemb_t *b, int status, const char *msg)
{
    uid_end((uidb_t *)b, status, status, msg);
}

static void uid_leave(shmemb_t *b, int status, const char *msg)
{
    uid_end((uidb_t *)b, status, SHMEMB_EXIT_LEFT, msg);
}

/* Frees what uidb_new made (the sockets are closed by the caller). */
static void uidb_free(uidb_t *u)
{
    if (u->wake_fd[0] >= 0) {
        close(u->wake_fd[0]);
        close(u->wake_fd[1]);
    }
    free(u->fds);
    free(u->said_bye);
    free(u->gone);
    free(u->msg);
    free(u->msg_len);
    free(u->have);
    pthread_mutex_destroy(&u->lock);
    pthread_mutex_destroy(&u->send_lock);
    pthread_cond_destroy(&u->cond);
    free(u);
}

static int uid_fini(shmemb_t *b)
{
    uidb_t *u = (uidb_t *)b;
    int r;

    pthread_mutex_lock(&u->lock);
    u->closing = 1;
    pthread_mutex_unlock(&u->lock);
    if (!u->hub) {
        send_locked(u, u->fd, UID_M_BYE, (uint32_t)b->rank, NULL, 0);
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
    uidb_free(u);
    return 0;
}

/* ---- joining ---- */

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
    else if (!secret_eq(hl.secret, listen_uid.secret))
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
static int hub_accept_all(uidb_t *u, double deadline)
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
        double t = now_s(), wake = deadline;
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
                pending_refuse(&refused, &pend[old], "the oldest of %d connections waiting "
                               "for their hello", UID_MAX_PENDING);
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
        pending_refuse(&refused, &pend[i], "%s",
                       ret ? "the hub gave up" : "every rank has joined");
    refusals_report(&refused);
    u->refused = NULL;
    free(pend);
    free(pf);
    return ret;
}

/* Connects to the hub at sa, trying again until deadline while it cannot
 * be reached.  Nobody listening there (connection refused) is final: the
 * hub listens from the moment it made the id until every rank has joined,
 * so the process that made the id has exited, its job is complete, or
 * the id is not the job's.  The connected socket, or <0. */
static int hub_connect(const uidb_t *u, const struct sockaddr_in *sa, const char *where,
                       double deadline)
{
    int fd, err;

    for (;;) {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -errno;
        if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0)
            return fd;
        err = errno;
        close(fd);
        if (err == ECONNREFUSED) {
            shmemb_errorf("unique-id bootstrap: rank %d of %d: nobody listens at the hub's "
                          "address %s (connection refused): the process that made the id has "
                          "exited or its job is complete (every rank joined); is the id this "
                          "job's?\n", u->pub.rank, u->pub.nranks, where);
            return -ECONNREFUSED;
        }
        if (now_s() > deadline) {
            shmemb_errorf("unique-id bootstrap: cannot reach the hub at %s "
                          "(%s)\n", where, strerror(err));
            return -ETIMEDOUT;
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
    int ret = read_deadline(fd, &h, sizeof(h), deadline);

    if (!ret && h.type == UID_M_WELCOME && h.rank < (uint32_t)u->pub.nranks) {
        *hub_rank_p = (int)h.rank;
        return 0;
    }
    if (ret == -ETIMEDOUT) {
        shmemb_errorf("unique-id bootstrap: rank %d of %d: the hub at %s did not welcome "
                      "this process within the time limit (FABSHMEM_BOOTSTRAP_TIMEOUT): not "
                      "every rank joined\n", u->pub.rank, u->pub.nranks, where);
        return -ETIMEDOUT;
    }
    if (!ret && h.type == UID_M_REFUSE && h.len >= 1 && h.len <= UID_MAX_REASON &&
        !read_deadline(fd, why, h.len, now_s() + UID_HELLO_SECONDS)) {
        why[h.len - 1] = '\0';
        shmemb_errorf("unique-id bootstrap: the hub at %s refused rank %d of "
                      "%d: %s\n", where, u->pub.rank, u->pub.nranks, why);
    } else {
        shmemb_errorf("unique-id bootstrap: the hub at %s refused rank %d of "
                      "%d without a reason (wrong id, job size or rank?)\n", where, u->pub.rank,
                      u->pub.nranks);
    }
    return -ECONNREFUSED;
}

static int join_hub(uidb_t *u, const struct uid_wire *w, double deadline)
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
    sock_opts(fd);
    memset(&hl, 0, sizeof(hl));
    hl.magic = UID_MAGIC;
    hl.version = UID_VERSION;
    memcpy(hl.secret, w->secret, sizeof(hl.secret));
    hl.rank = (uint32_t)u->pub.rank;
    hl.nranks = (uint32_t)u->pub.nranks;
    ret = send_frame(fd, UID_M_HELLO, hl.rank, &hl, sizeof(hl));
    if (ret)
        shmemb_errorf("unique-id bootstrap: rank %d of %d: the hub at %s closed the "
                      "connection before the hello went out\n", u->pub.rank, u->pub.nranks,
                      where);
    else
        ret = hub_answer(u, fd, where, deadline, &u->hub_rank);
    if (ret) {
        close(fd);
        return ret == -EIO ? -ECONNREFUSED : ret;
    }
    u->fd = fd;
    return 0;
}

/* The bootstrap of rank of nranks for the id w, not yet joined. */
static int uidb_new(const struct uid_wire *w, int rank, int nranks, uidb_t **u_p)
{
    uidb_t *u = calloc(1, sizeof(*u));
    int r;

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
    u->pub.leave = uid_leave;
    u->pub.fini = uid_fini;
    u->pub.node_peers = NULL; /* The host names make the node map. */
    u->fd = -1;
    u->hub_rank = rank;
    u->wake_fd[0] = u->wake_fd[1] = -1;
    pthread_mutex_init(&u->lock, NULL);
    pthread_mutex_init(&u->send_lock, NULL);
    pthread_cond_init(&u->cond, NULL);
    u->hub = listen_fd >= 0 && secret_eq(listen_uid.secret, w->secret) &&
             listen_uid.creator_pid == (uint32_t)getpid();
    u->fds = malloc(sizeof(int) * nranks);
    u->said_bye = calloc(nranks, sizeof(int));
    u->gone = calloc(nranks, sizeof(int));
    u->msg = calloc(nranks, sizeof(void *));
    u->msg_len = calloc(nranks, sizeof(uint64_t));
    u->have = calloc(nranks, sizeof(int));
    if (!u->fds || !u->said_bye || !u->gone || !u->msg || !u->msg_len || !u->have) {
        uidb_free(u);
        return -ENOMEM;
    }
    for (r = 0; r < nranks; r++)
        u->fds[r] = -1;
    /* Non-blocking: the reader drains every wake-up at once. */
    if (pipe2(u->wake_fd, O_CLOEXEC | O_NONBLOCK)) {
        r = -errno;
        u->wake_fd[0] = u->wake_fd[1] = -1;
        uidb_free(u);
        return r;
    }
    *u_p = u;
    return 0;
}

int shmemb_uid_init(const void *uid, size_t uid_len, int rank, int nranks, double timeout_s,
                    shmemb_t **b_p)
{
    const struct uid_wire *w = uid;
    double deadline = now_s() + (timeout_s > 0 ? timeout_s : 120.0);
    uidb_t *u = NULL;
    int ret, r;

    shmemb_error_clear();
    if (uid_len < sizeof(*w) || w->magic != UID_MAGIC || w->version != UID_VERSION) {
        size_t i = 0;

        while (i < uid_len && !((const unsigned char *)uid)[i])
            i++;
        if (i == uid_len)
            shmemb_errorf("shmemx_init_attr: the unique id is empty (all zero): the id that "
                          "shmemx_get_uniqueid made on one process must be handed to every "
                          "other one before init\n");
        else
            shmemb_errorf("shmemx_init_attr: the unique id is not one made by "
                          "shmemx_get_uniqueid of this library version\n");
        return -EINVAL;
    }
    if (nranks < 1 || rank < 0 || rank >= nranks) {
        shmemb_errorf("shmemx_init_attr: rank %d / nranks %d out of range\n",
                      rank, nranks);
        return -EINVAL;
    }
    if ((ret = uidb_new(w, rank, nranks, &u)))
        return ret;
    if (nranks > 1) {
        ret = u->hub ? hub_accept_all(u, deadline) : join_hub(u, w, deadline);
        if (!ret && pthread_create(&u->reader, NULL, reader_main, u))
            ret = -EAGAIN;
        if (ret) {
            if (u->fd >= 0)
                close(u->fd);
            for (r = 0; r < nranks; r++)
                if (u->fds[r] >= 0)
                    close(u->fds[r]);
            uidb_free(u);
            return ret;
        }
        u->reader_started = 1;
    }
    if (u->hub) {
        close(listen_fd);
        listen_fd = -1;
    }
    *b_p = &u->pub;
    return 0;
}
