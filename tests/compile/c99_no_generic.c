/*
 * Compile-only check: in C99 shmem.h declares every routine but hides the
 * C11 generic forms, so a C99 program may use the generic names itself.
 *   cc -std=c99 -Wall -Wextra -Werror -pedantic -c c99_no_generic.c
 */
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>

#if defined(shmem_put) || defined(shmem_p) || defined(shmem_iput) || defined(shmem_ibput) || \
    defined(shmem_get) || defined(shmem_g) || defined(shmem_iget) || defined(shmem_ibget) || \
    defined(shmem_put_nbi) || defined(shmem_get_nbi)
#error "C11 generic forms visible in C99"
#endif

/* Names the generic forms would have taken are free in C99. */
static int shmem_put = 1;

int c99_calls(shmem_ctx_t ctx, long *dest, const long *source, double *d);
int c99_calls(shmem_ctx_t ctx, long *dest, const long *source, double *d)
{
    shmem_long_put(dest, source, 4, 1);
    shmem_ctx_long_iput(ctx, dest, source, 2, 1, 2, 1);
    shmem_double_ibget(d, d, 4, 2, 2, 3, 1);
    shmem_put64_nbi(dest, source, 4, 1);
    shmem_ctx_iget8(ctx, dest, source, 1, 1, 8, 1);
    shmem_ctx_putmem(ctx, dest, source, 32, 1);
    pshmem_long_get(dest, source, 4, 1);
    return (int)shmem_long_g(source, 0) + (int)shmem_ctx_double_g(ctx, d, 0) + shmem_put;
}
