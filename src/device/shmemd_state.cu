/*
 * The device library's state (docs/device.md): the one copy of
 * shmemd_state_c of a program built with relocatable device code, and the
 * hook that fills it when shmem_init is done (the host library calls it
 * with its state; cudaMemcpyToSymbol here reaches this program's module).
 */
#define SHMEMD_STATE_HERE
#include <fabshmem/shmem_device.cuh>
#include <stdio.h>

extern "C" {
int shmemdi_device_linked = 1;
}

static void shmemdi_load_state(const void *state, size_t len)
{
    cudaError_t e;

    if (len != sizeof(shmemd_state_t) ||
        ((const shmemd_state_t *)state)->version != SHMEMD_STATE_VERSION) {
        fprintf(stderr, "fabshmem: libfabshmem_device.a: the library's device state (%zu bytes, "
                "version %d) is not this device library's (%zu bytes, version %d): rebuild the "
                "program against the installed fabshmem\n", len,
                ((const shmemd_state_t *)state)->version, sizeof(shmemd_state_t),
                SHMEMD_STATE_VERSION);
        return;
    }
    if ((e = cudaMemcpyToSymbol(shmemd_state_c, state, len)) != cudaSuccess)
        fprintf(stderr, "fabshmem: libfabshmem_device.a: cannot load the device state into the "
                "program's module: %s\n", cudaGetErrorString(e));
}

__attribute__((constructor)) static void shmemdi_register(void)
{
    shmemx_device_state_hook(shmemdi_load_state);
}
