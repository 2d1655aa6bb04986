/*
 * fabshmem core: what every file of the library includes first (the public
 * headers, the transport and bootstrap interfaces, a few macros).
 */
#ifndef SHMEMI_BASE_H
#define SHMEMI_BASE_H



#include "config.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdarg.h>
#include <errno.h>
#include <stdatomic.h>
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>
#include "pmix/shmemb.h"
#include "providers/shmemt.h"

#define SHMEMI_LIKELY(x)   __builtin_expect(!!(x), 1)
#define SHMEMI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SHMEMI_HIDDEN      __attribute__((visibility("hidden")))
/* The functions of the fast path (a put, get or AMO to a mapped peer is a
 * branch and a memcpy or a CPU atomic inside the public routine, no
 * call): the compiler inlines them whatever its size heuristics say. */
#define SHMEMI_INLINE      static inline __attribute__((always_inline))

/* Weak shmem_* alias of a pshmem_* implementation (profiling interface). */
#define SHMEMI_ALIAS(name) \
    extern __typeof__(p##name) name __attribute__((weak, alias("p" #name), visibility("default")));

/* What a thread does in each turn of a spin loop: tells the CPU so. */
static inline void shmemi_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
