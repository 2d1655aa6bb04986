/*
 * The GPU side of the GPU tests (gpu_kern.cu, built by nvcc in a CUDA
 * build): kernels and CUDA runtime calls behind C functions, so that the
 * test programs themselves are C and build without CUDA too (then
 * FABSHMEM_TEST_CUDA is 0 and these stand-ins report no GPU).
 *
 * Every function returns 0 on success or the CUDA runtime's error code,
 * except where it says otherwise.
 */
#ifndef FABSHMEM_TESTS_GPU_KERN_H
#define FABSHMEM_TESTS_GPU_KERN_H

#include <stddef.h>
#include <stdint.h>

#ifndef FABSHMEM_TEST_CUDA
#define FABSHMEM_TEST_CUDA 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if FABSHMEM_TEST_CUDA
/* The number of GPUs the CUDA runtime sees (0 when none or no driver).
 * It loads the CUDA driver, so that FABSHMEM_CUDA=auto brings the GPU up
 * at shmem_init. */
int gpu_count(void);
/* The device the runtime uses on this thread (the library's context after
 * shmem_init), or -1. */
int gpu_current(void);
/* Fills n bytes at d (GPU memory, or a peer's mapped through shmem_ptr)
 * with pattern seed: byte i is gpu_pattern(seed, i). */
int gpu_fill(void *d, size_t n, unsigned seed);
/* The index of the first byte of [d, d + n) that differs from pattern
 * seed, -1 when none, -2 on a CUDA error. */
long long gpu_find_mismatch(const void *d, size_t n, unsigned seed);
/* A kernel stores v + i into the 8-byte words p[0..n) (p: a peer's
 * device object mapped here) and the call waits for it. */
int gpu_store_u64(uint64_t *p, size_t n, uint64_t v);
/* cudaMalloc, cudaFree and a cudaMemcpy of any direction, waited for. */
void *gpu_malloc(size_t n);
void gpu_free(void *p);
int gpu_copy(void *dst, const void *src, size_t n);
/* The runtime's message for an error code. */
const char *gpu_error(int code);
/* Work on CUDA streams (gpu_stream): a new non-blocking stream (NULL on
 * failure), its synchronization and destruction; a fill of n bytes with
 * pattern seed, a copy, and a kernel that spins for us microseconds
 * (what follows on the stream waits for it), each queued on st. */
void *gpu_stream_create(void);
int gpu_stream_sync(void *st);
int gpu_stream_destroy(void *st);
int gpu_fill_on(void *d, size_t n, unsigned seed, void *st);
int gpu_copy_on(void *dst, const void *src, size_t n, void *st);
int gpu_delay_on(unsigned us, void *st);
/* Pinned host memory (cudaMallocHost), NULL on failure, and its release. */
void *gpu_host_alloc(size_t n);
void gpu_host_free(void *p);
/* GPU memory of the CUDA VMM API on the current device (cuMemCreate,
 * cuMemAddressReserve, cuMemMap, cuMemSetAccess), exportable as a POSIX
 * file descriptor or not: at least n bytes (the mapped length, a multiple
 * of the granularity, in *len_p), NULL on failure; and its release. */
void *gpu_vmm_alloc(size_t n, int exportable, size_t *len_p);
void gpu_vmm_free(void *p, size_t len);
#else
/* A build without CUDA: no GPU (the programs skip before they would call
 * the others). */
static inline int gpu_count(void) { return 0; }
static inline int gpu_current(void) { return -1; }
static inline int gpu_fill(void *d, size_t n, unsigned seed) { return -1; }
static inline long long gpu_find_mismatch(const void *d, size_t n, unsigned seed) { return -2; }
static inline int gpu_store_u64(uint64_t *p, size_t n, uint64_t v) { return -1; }
static inline void *gpu_malloc(size_t n) { return NULL; }
static inline void gpu_free(void *p) { }
static inline int gpu_copy(void *dst, const void *src, size_t n) { return -1; }
static inline const char *gpu_error(int code) { return "a build without CUDA"; }
static inline void *gpu_stream_create(void) { return NULL; }
static inline int gpu_stream_sync(void *st) { return -1; }
static inline int gpu_stream_destroy(void *st) { return -1; }
static inline int gpu_fill_on(void *d, size_t n, unsigned seed, void *st) { return -1; }
static inline int gpu_copy_on(void *dst, const void *src, size_t n, void *st) { return -1; }
static inline int gpu_delay_on(unsigned us, void *st) { return -1; }
static inline void *gpu_host_alloc(size_t n) { return NULL; }
static inline void gpu_host_free(void *p) { }
static inline void *gpu_vmm_alloc(size_t n, int exportable, size_t *len_p) { return NULL; }
static inline void gpu_vmm_free(void *p, size_t len) { }
#endif

/* The byte of pattern seed at index i (host and device agree). */
static inline unsigned char gpu_pattern(unsigned seed, size_t i)
{
    return (unsigned char)((seed * 131u + (unsigned)(i % 65521u) * 7u + (unsigned)(i >> 16)) % 251u + 1u);
}

#ifdef __cplusplus
}
#endif

#endif
