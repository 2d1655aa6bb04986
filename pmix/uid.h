/*
 * The unique-id bootstrap's private header (pmix/uid*.c): the bootstrap
 * object that every part shares, and what each part offers the others.
 * The files, by object:
 *   uid.c       the bootstrap of one process: its reader thread, the
 *               collectives, the end of the job, init and fini;
 *   uid_hub.c   the hub's side of the joining: the connections that have
 *               yet to present their hello, the refusals;
 *   uid_peer.c  a rank's side of the joining: reaching the hub, the hello
 *               and the hub's answer;
 *   uid_net.c   the network: the id and its listener (shmemb_uid_create,
 *               the interface), sockets and framing.
 * The wire format is in pmix/uid_wire.h; the design in pmix/uid.c.
 */
#ifndef SHMEMB_UID_H
#define SHMEMB_UID_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include "pmix/shmemb.h"
#include "uid_wire.h"

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

/* ---- uid_net.c: the id, sockets and framing ---- */

/* The listener of the id this process made (one at a time), and that id. */
extern int uid_listen_fd;
extern struct uid_wire uid_listen_uid;

/* Seconds on the monotonic clock. */
double uid_now_s(void);
/* Writes one frame (a header, then len bytes of data): 0 or <0. */
int uid_send_frame(int fd, uint32_t type, uint32_t rank, const void *data, uint64_t len);
/* uid_send_frame on a socket that the reader thread shares. */
int uid_send_locked(uidb_t *u, int fd, uint32_t type, uint32_t rank, const void *data,
                    uint64_t len);
/* The options of a connection between a rank and the hub (uid_net.c says which). */
void uid_sock_opts(int fd);
/* Reads one frame from fd; *data is malloc'd.  0, or <0 (EOF: -EPIPE; a
 * frame longer than UID_MAX_MSG: -EMSGSIZE, with *h read). */
int uid_read_frame(int fd, struct uid_frame_hdr *h, void **data);
/* Makes a string from another process printable (control characters
 * become '?'). */
void uid_printable(char *s);
/* Whether two 16-byte secrets are equal (in constant time). */
int uid_secret_eq(const uint8_t *a, const uint8_t *b);
/* Reads exactly len bytes with a deadline; 0 or <0. */
int uid_read_deadline(int fd, void *buf, size_t len, double deadline);
/* One connection attempt to sa that gives up at until: the connected
 * socket, or -errno. */
int uid_connect_until(const struct sockaddr_in *sa, double until);

/* ---- uid_hub.c: the hub's side of the joining ---- */

/* Takes in the other ranks' connections until every rank has joined (or
 * deadline): 0 or <0, with a message. */
int uid_hub_accept_all(uidb_t *u, double deadline);

/* ---- uid_peer.c: a rank's side of the joining ---- */

/* Connects to the hub of the id w, says hello and waits for its welcome
 * (or deadline): 0 with u->fd and u->hub_rank set, or <0 with a message. */
int uid_join_hub(uidb_t *u, const struct uid_wire *w, double deadline);

#endif
