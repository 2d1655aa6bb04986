/*
 * C++ check of the public headers: they parse as C++, give the routines C
 * linkage, and hide the C11 generic forms.
 *   c++ -std=c++11 -Wall -Wextra -Werror -pedantic -fsyntax-only cxx_headers.cc
 */
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>
#include <complex>

#ifdef shmem_put
#error "C11 generic forms visible in C++"
#endif

/* A C++ declaration with C linkage must agree with the header's. */
extern "C" void shmem_int_put(int *dest, const int *source, size_t nelems, int pe);
extern "C" long double pshmem_ctx_longdouble_g(shmem_ctx_t ctx, const long double *source, int pe);

int cxx_calls(shmem_ctx_t ctx, int *dest, const int *source)
{
    shmem_int_put(dest, source, 1, 0);
    shmem_ctx_int_ibput(ctx, dest, source, 4, 2, 2, 3, 0);
    shmem_iput128(dest, source, 1, 1, 1, 0);
    void (*fp)(int *, const int *, size_t, int) = &pshmem_int_get;
    fp(dest, source, 1, 0);
    return shmem_int_g(source, 0) + shmem_team_n_pes(SHMEMX_TEAM_NODE);
}

/* The team form of shmem_sync beside the active-set one, and the complex
 * reductions (std::complex, laid out as C's _Complex). */
int cxx_sync_complex(std::complex<double> *zd, std::complex<float> *zf, long *psync)
{
    shmem_sync(0, 0, 2, psync);
    return shmem_sync(SHMEM_TEAM_WORLD) + shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, zd, zd, 1) +
           shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, zf, zf, 1);
}

[[noreturn]] void cxx_exit(void)
{
    shmem_global_exit(0);
}
