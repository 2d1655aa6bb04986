/*
 * C++ check of the public headers: they parse as C++, give the routines C
 * linkage, hide the C11 generic forms, and (GNU C++) take C's _Complex
 * types in the complex routines beside std::complex.
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

/* GNU C++: the complex routines take C's _Complex types too, overloads
 * beside the std::complex ones (the typedefs keep -pedantic quiet about
 * the extension; a program may write double _Complex as it is). */
#ifdef __GNUC__
__extension__ typedef double _Complex gnu_cd;
__extension__ typedef float _Complex gnu_cf;
int cxx_gnu_complex(gnu_cd *zd, gnu_cf *zf, long *psync)
{
    shmem_complexd_prod_to_all(zd, zd, 1, 0, 0, 2, zd, psync);
    pshmem_complexf_sum_to_all(zf, zf, 1, 0, 0, 2, zf, psync);
    return shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, zd, zd, 1) +
           shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, zf, zf, 1) +
           shmem_complexd_sum_inscan(SHMEM_TEAM_WORLD, zd, zd, 1) +
           pshmem_complexf_sum_exscan(SHMEM_TEAM_WORLD, zf, zf, 1) +
           shmemx_complexd_prod_reducescatter(SHMEM_TEAM_WORLD, zd, zd, 1);
}
/* Both spellings call one routine: the overload's symbol is the C one. */
static_assert(sizeof(gnu_cd) == sizeof(std::complex<double>) &&
                  alignof(gnu_cd) == alignof(std::complex<double>),
              "double _Complex and std::complex<double> differ in layout");
static_assert(sizeof(gnu_cf) == sizeof(std::complex<float>) &&
                  alignof(gnu_cf) == alignof(std::complex<float>),
              "float _Complex and std::complex<float> differ in layout");
#endif

[[noreturn]] void cxx_exit(void)
{
    shmem_global_exit(0);
}
