/*
 * The wire format of the unique-id bootstrap (pmix/uid*.c, pmix/uid.h): what the id
 * holds and the frames on its TCP connections.  tests/init/uid_attack.c speaks
 * it too, to check how the hub treats peers that do not follow it.
 *
 * Every frame is a struct uid_frame_hdr followed by len bytes.  A joining
 * process opens its connection with one UID_M_HELLO frame carrying a
 * struct uid_hello; the hub answers UID_M_WELCOME (rank: the hub's rank)
 * once every rank has joined, or UID_M_REFUSE (the reason, a string of at
 * most UID_MAX_REASON bytes with its NUL) and closes the connection.
 *
 * UID_M_ABORT (rank: the exit status; the message, a string, may be
 * empty) ends the job: a PE sends it to the hub, the hub to every PE.
 * Then a PE sends the hub UID_M_GATHER (its part of a collective; one at
 * a time) and UID_M_BYE, the hub sends PEs UID_M_RESULT; any other type
 * from either ends the job.
 */
#ifndef SHMEMB_UID_WIRE_H
#define SHMEMB_UID_WIRE_H

#include <stdint.h>

#define UID_MAGIC   0x66616275u /* "fabu" */
/* Version 2: the id carries a job id of its own (version 1 named the
 * job's shared objects after the first half of the secret).  Version 3:
 * the id carries a check value (uid_check). */
#define UID_VERSION 3u
/* The most bytes one collective message may carry. */
#define UID_MAX_MSG ((uint64_t)1 << 30)
/* Seconds a new connection has to present its hello. */
#define UID_HELLO_SECONDS 5
/* Connections that may wait at once to present their hello (one more
 * pushes out the oldest). */
#define UID_MAX_PENDING 256

/* The longest reason a UID_M_REFUSE carries. */
#define UID_MAX_REASON 256

enum { UID_M_HELLO = 1, UID_M_WELCOME, UID_M_GATHER, UID_M_RESULT, UID_M_ABORT, UID_M_BYE,
       UID_M_REFUSE };

/* What the id holds (fits in SHMEMB_UID_BYTES). */
struct uid_wire {
    uint32_t magic, version;
    uint8_t secret[16];
    uint32_t addr;   /* IPv4, network order */
    uint16_t port;   /* network order */
    uint16_t pad;
    uint32_t creator_pid;
    /* Random, independent of the secret: names the job's shared objects
     * (visible to every user of the host in /dev/shm). */
    uint8_t job[8];
    /* uid_check(): a damaged id is refused before any connection is
     * tried (the hub checks the secret itself). */
    uint32_t check;
};

/* The check value of an id: FNV-1a over the bytes that the hub does not
 * check (the hub's address and port, the creator's pid, the job id; the
 * secret and the magic and version are checked anyway), started from the
 * magic so that an id of zeros does not pass. */
static inline uint32_t uid_check(const struct uid_wire *w)
{
    const uint8_t *p = (const uint8_t *)&w->addr, *end = (const uint8_t *)&w->check;
    uint32_t h = 2166136261u ^ UID_MAGIC;

    /* addr, port, pad (always 0), creator_pid, job: contiguous. */
    for (; p < end; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

struct uid_frame_hdr {
    uint32_t type;
    uint32_t rank;
    uint64_t len;
};

struct uid_hello {
    uint32_t magic, version;
    uint8_t secret[16];
    uint32_t rank, nranks;
};

#endif
