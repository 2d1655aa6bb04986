/*
 * libfabric transport, quirks (ofi_quirks.c): what differs by provider,
 * decided from its name, what fi_getinfo says of it and the init
 * arguments' switches.
 */
#ifndef SHMEMT_OFI_QUIRKS_H
#define SHMEMT_OFI_QUIRKS_H

#include <stddef.h>
#include <rdma/fabric.h>
#include "providers/shmemt.h"

typedef struct ofi_quirks {
    int rc_mode;          /* OFI_RC_* */
    int needs_progress;   /* passive target needs software progress */
    size_t max_inject;    /* cap on inject size (0: provider's value) */
    int base_atomic_wait; /* non-fetching atomics wait for their completion */
    int no_atomics;       /* the provider's atomics are known broken */
    int no_threads;       /* concurrent threads are not safe (the core then
                           * serializes: shmemt_t.serial) */
    int ordered_writes;   /* writes to one PE are applied in order (WAW) */
    int fd_blind;         /* the CQ's wait fd does not wake on incoming
                           * traffic: no wait fd, the thread polls */
    int force_mr_local;   /* act as if the provider wanted FI_MR_LOCAL */
    int am;               /* AMOs (and small puts with signal) are active
                           * messages (ofi_am.c) */
    int hmem_copies;      /* its FI_HMEM copies GPU memory with the CUDA
                           * runtime (SHMEMT_CAP_HMEM_COPY) */
    int same_user;        /* only processes of our user on this host can
                           * reach the endpoints: active messages need no
                           * MAC (docs/design/trust.md) */
} ofi_quirks_t;

/* Why provider prov_name's FI_HMEM must not move the device heap with
 * the switches cfg, or NULL (ofi_quirks.c). */
const char *ofi_quirk_no_hmem(const char *prov_name, const shmemt_ofi_cfg_t *cfg);

/* ofi_quirks.c */
/* The quirks of provider prov_name (info: what fi_getinfo said of it) with
 * the switches of the init arguments: pure logic (unit tested). */
void ofi_quirks_for(const char *prov_name, const struct fi_info *info,
                    const shmemt_ofi_cfg_t *cfg, ofi_quirks_t *q);
/* Provider parameters fabshmem sets where the user has not (environment
 * variables that libfabric reads when it first initializes). */
void ofi_quirks_env(void);
/* The libfabric provider name a user request stands for ("tcp" ->
 * "tcp;ofi_rxm"); the request itself when it is a full name. */
const char *ofi_quirks_full_name(const char *requested);
/* The first short name of a full provider name ("tcp;ofi_rxm" -> "tcp"),
 * or NULL when it has none. */
const char *ofi_quirks_short_name(const char *full);


#endif
