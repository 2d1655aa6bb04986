/*
 * Host routines of the device API (docs/device.md), in libfabshmem: the
 * state that kernels read, team handles for kernels, and the check that
 * reports a kernel's error.  Plain C; <fabshmem/shmem_device.cuh> includes
 * it for CUDA code.
 */
#ifndef FABSHMEM_SHMEMX_DEVICE_H
#define FABSHMEM_SHMEMX_DEVICE_H

#include <stddef.h>
#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Copies the device API's state (a shmemd_state_t of
 * <fabshmem/device/state.h>) into buf of len bytes, for the loader of a
 * module (NVRTC, a file compiled whole): 0, or an SHMEMX_ERROR_ code (no
 * device heap; len not the size of this version's state). */
int shmemx_device_state(void *buf, size_t len);

/* The device handle (shmemd_team_t) of team, after publishing it to the
 * kernels: the team's slot, or -1 for SHMEM_TEAM_INVALID, a team this PE is
 * not a member of, or a job without a device heap. */
int shmemx_team_device(shmem_team_t team);

/* Reports the first error a kernel of this PE recorded since the last
 * check (the routine, the PE, the reason) as the error mode says, and
 * clears it: 0 when there was none, else SHMEMX_ERROR_INVALID_VALUE or
 * SHMEMX_ERROR_NOT_SUPPORTED (a peer the GPU does not map). */
int shmemx_device_check(void);

/* Called with the device API's state at shmem_init (and at once, if
 * shmem_init is done): how the device library fills the state of a
 * program linked with relocatable device code.  fn NULL unregisters. */
void shmemx_device_state_hook(void (*fn)(const void *state, size_t len));

#ifdef __cplusplus
}
#endif

#endif
