/*
 * Inside the proxy layer: the proxy object shared by its files.
 */
#ifndef SHMEMI_PROXY_INT_H
#define SHMEMI_PROXY_INT_H

#include "proxy/proxy.h"
#include <pthread.h>
#include <stdint.h>

typedef struct shmemi_proxy {
    shmemd_proxy_t pub;       /* what kernels read (slots, tail, ctl, nslots, flags) */
    int pinned;               /* slots and ctl are pinned host memory, tail GPU memory */
    shmem_ctx_t ctx;          /* the private context of its operations */
    shmemd_err_t err;         /* the requests' errors (shmemi_proxy_err) */
    pthread_t thread;
    pthread_mutex_t lock;     /* stop and sleeping, and why */
    pthread_cond_t wake;
    int stop;                 /* finalize asks it to drain and stop */
    int deep;                 /* it sleeps deep (10 s without requests); set under lock */
    int kicked;               /* the host woke it from a deep sleep; set under lock */
    int failed;               /* an operation failed: the ring is SHMEMD_PX_FAILED */
    char why[512];            /* the message of x->err's first error, under lock */
    int why_class;            /* and its SHMEMX_ERROR_* */
    unsigned long long requests, wakeups; /* read by shmemi_proxy_stats */
} shmemi_proxy_t;

/* proxy_ring.c: the ring, in pinned host memory with the tail in GPU
 * memory when the job has a GPU, else in host memory.  0 or the class. */
int shmemi_proxy_ring_alloc(shmemi_proxy_t *x, unsigned nslots, int gpu, const char *rtn)
    SHMEMI_WUR;
void shmemi_proxy_ring_free(shmemi_proxy_t *x);

/* proxy_exec.c: carries out request r (ticket t) completely, stores its
 * ret and then done = t + 1.  A bad request is recorded in x->err and the
 * proxy goes on; a failed operation (the transport) also sets x->failed. */
void shmemi_proxy_exec(shmemi_proxy_t *x, shmemd_proxy_req_t *r, uint64_t t);

#endif
