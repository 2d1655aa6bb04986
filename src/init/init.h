/*
 * Setup: init and finalize (init.c), the bootstrap choices of
 * shmemx_init_attr (init_attr.c).
 */
#ifndef SHMEMI_INIT_H
#define SHMEMI_INIT_H

#include "core/shmemi.h"

/* Makes the bootstrap *b_p (0 or a negative errno, with a message). */
typedef int (*shmemi_boot_fn)(void *arg, shmemb_t **b_p);
/* Initializes at thread level requested (checked by the caller), booting
 * with boot(arg) when no bootstrap is up (NULL: by FABSHMEM_BOOTSTRAP);
 * rtn names the routine in messages.  SHMEMX_SUCCESS or SHMEMX_ERROR_*. */
int shmemi_init(const char *rtn, int requested, int *provided, shmemi_boot_fn boot, void *arg);
/* 1 in a child made by fork() of a process that had joined a job. */
int shmemi_forked(void);
/* FABSHMEM_BOOTSTRAP=uid: joins the job that FABSHMEM_BOOTSTRAP_RANK,
 * _NRANKS and _UID_FILE describe (arg unused). */
int shmemi_boot_uid_env(void *arg, shmemb_t **b_p);
/* The local address of symmetric dest on world PE pe (shmem_ptr), or NULL. */
void *shmemi_ptr_world(const void *dest, int pe);

#endif
