/*
 * The mock transport of the unit tests: an ops table (providers/shmemt.h)
 * that records every call and delivers puts, gets, signals and atomics
 * into in-memory copies of the PEs' heaps, so that a test checks both
 * what the core handed to the transport and the data that landed.
 *
 * The test sets mock_heap[pe] (PE pe's symmetric heap, segment
 * SHMEMT_SEG_HEAP) and mock_heap_len, points shmemi_g.tp at &mock_tp (or
 * a copy with other caps), and reads mock_recs[0 .. mock_nrec).
 * ctx_create makes a child with the same ops and caps (its calls are
 * recorded with its own t), ctx_destroy frees it.
 * mock_fail[op] makes every call of op return that negative errno until
 * it is set back to 0 (the call is recorded with its rc and moves
 * nothing).  The calls of the ops in the mask mock_ignore (1u << MOCK_*)
 * are not recorded (a test of what a collective sends leaves its quiets
 * and gets out).  mock_reset forgets the records and the failures.
 */
#ifndef MOCK_TP_H
#define MOCK_TP_H

#include "providers/shmemt.h"

#define MOCK_NPES 8
#define MOCK_RECS 4096

enum mock_op {
    MOCK_PUT, MOCK_PUT_NBI, MOCK_GET, MOCK_GET_NBI, MOCK_QUIET, MOCK_PE_QUIET, MOCK_FENCE,
    MOCK_ATOMIC, MOCK_SIGNAL, MOCK_PUT_SIGNAL, MOCK_BUF_REG, MOCK_BUF_DEREG, MOCK_CTX_CREATE,
    MOCK_CTX_DESTROY, MOCK_NOPS
};

typedef struct mock_rec {
    shmemt_t *t;       /* mock_tp or a child of it (ctx_create) */
    int op, pe, seg, rc;
    uint64_t off, len; /* the data (put, get, put with signal; atomic: off, size) */
    uint64_t sig_off;  /* the signal word (signal, put with signal) */
    uint64_t value;    /* the signal's value, the atomic's operand (SHMEMT_AOP_* in aop) */
    int aop;
} mock_rec_t;

extern shmemt_t mock_tp;
extern char *mock_heap[MOCK_NPES];
extern size_t mock_heap_len;
extern mock_rec_t mock_recs[MOCK_RECS];
extern int mock_nrec;
extern int mock_fail[MOCK_NOPS];
extern unsigned mock_ignore;

void mock_reset(void);
/* A job of n PEs (up to MOCK_NPES) seen from PE 0: zeroed heaps of len
 * bytes each (mock_heap, 4096-aligned), PE 0's the symmetric heap, no
 * peer mapped, the environment's defaults, the mock as the transport, the
 * library initialized.  0, or -1 out of memory.  mock_job_end frees the
 * heaps and takes the transport away. */
int mock_job(int n, size_t len);
void mock_job_end(void);
/* The number of recorded calls of op. */
int mock_count(int op);

#endif
