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
 * fails at once too; an id whose check value does not match (a damaged
 * copy) is refused before any connection; a hub that cannot be reached
 * otherwise is tried again until the time limit, and the rank says every
 * few seconds that it still tries, and where.
 *
 * A reader thread in every process owns the sockets: it hands collective
 * replies to the caller, executes an abort sent by any process (the hub
 * forwards it to everybody), and ends the job with a message naming what
 * happened when a peer disappears without saying goodbye or breaks the
 * protocol (a frame type that is not the sender's to send, a second
 * collective message before the first was used), so a dead process never
 * leaves the others waiting: a PE notices at once that the hub's
 * connection closed, and the hub that a PE's did (TCP keepalive covers a
 * host that vanishes).  It sleeps in poll() meanwhile: it costs the PE's
 * hot path nothing and never wakes an idle PE.
 *
 * The end of a job (an abort, shmem_global_exit, a PE that leaves without
 * shmem_finalize, a dead PE) is one path, uid_end: the ending process
 * sends UID_M_ABORT with the others' status, and every process exits with
 * its status once the connections it waits for have closed (the hub:
 * every PE's; a PE: the hub's), so nobody takes the closing connections
 * of the end for a death and exits with another status.
 *
 * The interface the hub listens on: the init arguments' ifname (the core
 * passes FABSHMEM_BOOTSTRAP_IFNAME, e.g. eth0), else the first IPv4
 * interface that is up and not loopback, else loopback.
 * The wire format is in pmix/uid_wire.h; the files of the bootstrap, by
 * object, are listed in pmix/uid.h.
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
#include "uid.h"

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
        u->end_deadline = uid_now_s() + UID_END_SECONDS;
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

/* What a failed uid_read_frame from who ("PE 3", "the hub (PE 0)") means. */
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

/* Hands a collective message of slot to the collective in progress: 0, or
 * -1 when slot's previous one is still unused (a peer sends the next
 * message only after the collective's answer: a second one breaks the
 * protocol and is not taken). */
static int deliver(uidb_t *u, int slot, void *data, uint64_t len)
{
    int ret = -1;

    pthread_mutex_lock(&u->lock);
    if (!u->have[slot]) {
        u->msg[slot] = data;
        u->msg_len[slot] = len;
        u->have[slot] = 1;
        pthread_cond_broadcast(&u->cond);
        ret = 0;
    }
    pthread_mutex_unlock(&u->lock);
    return ret;
}

/* The hub sends the abort to every PE but from. */
static void hub_abort_all(uidb_t *u, int from, int status, const char *msg)
{
    int r;
    for (r = 0; r < u->pub.nranks; r++)
        if (u->fds[r] >= 0 && r != from)
            uid_send_locked(u, u->fds[r], UID_M_ABORT, (uint32_t)status, msg,
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
        /* PEs send the hub their part, the hub sends them the result. */
        if (h->type != (u->hub ? UID_M_GATHER : UID_M_RESULT))
            break;
        if (deliver(u, slot, data, h->len) == 0)
            return;
        free(data);
        snprintf(msg, sizeof(msg), "%s sent a second bootstrap collective message before the "
                 "collective of the first had completed", who);
        goto fail;
    case UID_M_ABORT:
        /* The message is a string; a frame of another sender may lack
         * the NUL. */
        if (data) {
            ((char *)data)[h->len - 1] = '\0';
            uid_printable(data);
        }
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
        if (!u->hub)
            break;
        free(data);
        __atomic_store_n(&u->said_bye[slot], 1, __ATOMIC_RELEASE);
        return;
    default:
        break;
    }
    free(data);
    snprintf(msg, sizeof(msg), "%s sent a bootstrap message of %s type %u", who,
             h->type >= UID_M_HELLO && h->type <= UID_M_REFUSE ? "unexpected" : "unknown",
             h->type);
fail:
    if (!u->hub)
        die(u, "%s", msg);
    fprintf(stderr, "fabshmem error: [PE %d] unique-id bootstrap: %s; ending the job\n",
            u->pub.rank, msg);
    hub_end(u, SHMEMB_EXIT_LOST, slot, msg);
}

/* Serves the connection of slot, which poll found ready.  Returns 1 when
 * the reader is to stop (fini closes the connection to the hub). */
static int reader_serve(uidb_t *u, int slot, int fd)
{
    struct uid_frame_hdr h;
    char who[48], msg[320];
    void *data;
    int ret, closing;

    ret = uid_read_frame(fd, &h, &data);
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
            ms = (int)((u->end_deadline - uid_now_s()) * 1000);
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
        if ((ret = uid_send_locked(u, u->fd, UID_M_GATHER, (uint32_t)b->rank, in, len)))
            return ret;
        d = take(u, 0, &got);
        if (got != (uint64_t)len * n) {
            free(d);
            fprintf(stderr, "fabshmem error: bootstrap allgather: the hub (PE %d) sent %llu "
                    "bytes, expected %llu\n", u->hub_rank, (unsigned long long)got,
                    (unsigned long long)len * n);
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
            (ret = uid_send_locked(u, u->fds[r], UID_M_RESULT, 0, out, (uint64_t)len * n)))
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

    /* The prefix of the abort's text where it arrives (reader_frame). */
    if (msg && own == peers)
        fprintf(stderr, "fabshmem: [PE %d] job aborted by this PE (status %d): %s\n",
                u->pub.rank, own, msg);
    else if (msg)
        fprintf(stderr, "fabshmem: [PE %d] job aborted by this PE (status %d, the others %d): "
                "%s\n", u->pub.rank, own, peers, msg);
    fflush(stderr);
    if (!u->reader_started)
        _exit(own);
    if (end_begin(u, own) == 0) {
        if (u->hub)
            hub_abort_all(u, -1, peers, msg);
        else
            uid_send_locked(u, u->fd, UID_M_ABORT, (uint32_t)peers, msg, msg ? strlen(msg) + 1 : 0);
        if (write(u->wake_fd[1], "e", 1) < 0) { /* the reader looks at its deadline anyway */ }
    }
    /* The reader exits first; should it be unable to, the deadline holds. */
    pthread_mutex_lock(&u->lock);
    until = u->end_deadline + 1.0;
    pthread_mutex_unlock(&u->lock);
    while (uid_now_s() < until)
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
        uid_send_locked(u, u->fd, UID_M_BYE, (uint32_t)b->rank, NULL, 0);
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
    u->hub = uid_listen_fd >= 0 && uid_secret_eq(uid_listen_uid.secret, w->secret) &&
             uid_listen_uid.creator_pid == (uint32_t)getpid();
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

int shmemb_uid_init(const shmemb_init_args_t *args, const void *uid, size_t uid_len, int rank,
                    int nranks, shmemb_t **b_p)
{
    const struct uid_wire *w = uid;
    double deadline = uid_now_s() + (args->timeout_s > 0 ? args->timeout_s : 120.0);
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
    if (w->check != uid_check(w)) {
        struct in_addr a = { w->addr };
        char as[INET_ADDRSTRLEN] = "?";

        inet_ntop(AF_INET, &a, as, sizeof(as));
        shmemb_errorf("shmemx_init_attr: the unique id is damaged: its check "
                "value does not match its hub address (%s:%u as read), creator or job id; it "
                "was corrupted on its way to rank %d (hand every rank the bytes that "
                "shmemx_get_uniqueid made)\n", as, ntohs(w->port), rank);
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
        ret = u->hub ? uid_hub_accept_all(u, deadline) : uid_join_hub(u, w, deadline);
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
        close(uid_listen_fd);
        uid_listen_fd = -1;
    }
    *b_p = &u->pub;
    return 0;
}
