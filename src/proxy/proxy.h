/*
 * The device API's proxy (docs/device.md, "The proxy"): a host thread
 * that takes the requests kernels post to a ring (include/fabshmem/device/
 * proxy.h, the protocol) and carries each out with the core's own
 * operations on a private context, for the PEs whose device heap this
 * GPU does not map.  For the layers above (src/init) and the tests.
 */
#ifndef SHMEMI_PROXY_H
#define SHMEMI_PROXY_H

#include "base/state.h"
#include <fabshmem/device/state.h>
#include <stdio.h>

/* Starts the proxy when FABSHMEM_PROXY and the job ask for it (auto: a
 * device heap, and a peer whose device heap is not mapped here; 1:
 * always, the ring in host memory when there is no GPU).  It records the
 * errors of requests in a record of its own (shmemi_proxy_err), apart
 * from the kernels' (which they claim through a word of GPU memory that
 * the proxy cannot take atomically with them).  Fills *pub (slots NULL:
 * no proxy).
 * After the transport and the device heap, while no other thread of the
 * library uses the transport (it may wrap it: core/tp_serial.c).  0 or the
 * class, recorded. */
int shmemi_proxy_start(shmemd_proxy_t *pub, const char *rtn) SHMEMI_WUR;
/* Lets the proxy carry out every request whose ready word is set, marks
 * the ring SHMEMD_PX_STOPPED (or leaves SHMEMD_PX_FAILED), joins the
 * thread and frees the ring.  Nothing when none runs. */
void shmemi_proxy_stop(void);
/* 1 while a proxy runs. */
int shmemi_proxy_running(void);
/* Waits until the proxy has carried out every request posted so far (of
 * kernels that have finished, or made their requests visible): the host's
 * checks (barrier_all, stream sync, shmemx_device_check, finalize) do it,
 * so that what kernels put through the proxy is complete after them as
 * what they stored into mapped peers.  0 (nothing to wait for without a
 * proxy, or once it stopped). */
int shmemi_proxy_drain(void);
/* The proxy's record of its requests' errors, or NULL when none runs. */
shmemd_err_t *shmemi_proxy_err(void);
/* The message of the proxy's error in the record (the core's text, naming
 * the routine and the argument; "" when the proxy wrote none since the
 * last call) into buf, cleared; returns its class (SHMEMX_ERROR_INVALID_VALUE
 * for a bad request, the failed operation's otherwise), 0 with none. */
int shmemi_proxy_why(char *buf, size_t len);
/* The name of a device routine (SHMEMD_RTN_*) for messages. */
const char *shmemi_proxy_rtn_name(int routine);
/* The path a kernel's request to an unmapped peer takes, in words, for
 * SHMEM_INFO and fabshmem_info. */
const char *shmemi_proxy_path(void);

/* For the tests and bench/proxy_lat: the running proxy's ring into *out
 * (0), or -1 when none runs. */
int shmemi_proxy_ring(shmemd_proxy_t *out);
/* Counters of the running proxy: requests carried out, times it woke
 * from a sleep, and the CPU seconds its thread has used. */
typedef struct shmemi_proxy_stats {
    unsigned long long requests;
    unsigned long long wakeups;
    double cpu_s;
} shmemi_proxy_stats_t;
int shmemi_proxy_stats(shmemi_proxy_stats_t *st);

#endif
