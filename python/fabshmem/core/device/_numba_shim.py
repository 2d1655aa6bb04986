"""The .cu source of fabshmem.core.device.numba's wrappers: the device
API's headers inlined (numba-cuda gives NVRTC no include path), then
extern "C" __device__ wrappers around the inline shmemd_ routines in
Numba's ABI for declared device functions (the result through the first
argument, 0 returned).  No numba here: tests/device/nvrtc.sh compiles the
source with NVRTC (relocatable, as numba-cuda does) and checks that it
defines every name of NAMES, the names numba.py may declare.
"""
import os
import re

WRAPPERS = r'''
#define FNB extern "C" __device__ int
FNB fabshmem_nb_my_pe(int *r) { *r = shmemd_my_pe(); return 0; }
FNB fabshmem_nb_n_pes(int *r) { *r = shmemd_n_pes(); return 0; }
#define FNB_TYPED(N, T) \
    FNB fabshmem_nb_##N##_p(int *r, void *d, T v, int pe) \
    { shmemd_##N##_p((T *)d, v, pe); *r = 0; return 0; } \
    FNB fabshmem_nb_##N##_g(T *r, void *s, int pe) { *r = shmemd_##N##_g((const T *)s, pe); return 0; }
FNB_TYPED(int, int)
FNB_TYPED(long, long)
FNB_TYPED(float, float)
FNB_TYPED(double, double)
#define FNB_FADD(N, T) \
    FNB fabshmem_nb_##N##_atomic_fetch_add(T *r, void *d, T v, int pe) \
    { *r = shmemd_##N##_atomic_fetch_add((T *)d, v, pe); return 0; }
FNB_FADD(int, int)
FNB_FADD(long, long)
#define FNB_MEM(S) \
    FNB fabshmem_nb_putmem##S(int *r, void *d, void *s, unsigned long long n, int pe) \
    { shmemd_putmem##S(d, s, (size_t)n, pe); *r = 0; return 0; } \
    FNB fabshmem_nb_getmem##S(int *r, void *d, void *s, unsigned long long n, int pe) \
    { shmemd_getmem##S(d, s, (size_t)n, pe); *r = 0; return 0; } \
    FNB fabshmem_nb_barrier_all##S(int *r) { shmemd_barrier_all##S(); *r = 0; return 0; } \
    FNB fabshmem_nb_sync_all##S(int *r) { shmemd_sync_all##S(); *r = 0; return 0; } \
    FNB fabshmem_nb_putmem_signal##S(int *r, void *d, void *s, unsigned long long n, void *sig, \
                                     unsigned long long v, int op, int pe) \
    { shmemd_putmem_signal##S(d, s, (size_t)n, (uint64_t *)sig, v, op, pe); *r = 0; return 0; }
FNB_MEM()
FNB_MEM(_warp)
FNB_MEM(_block)
#define FNB_RED(N, T, S) \
    FNB fabshmem_nb_##N##_sum_reduce##S(int *r, int team, void *d, void *s, unsigned long long n) \
    { *r = shmemd_##N##_sum_reduce##S(team, (T *)d, (const T *)s, (size_t)n); return 0; }
FNB_RED(int, int, )
FNB_RED(int, int, _block)
FNB_RED(float, float, )
FNB_RED(float, float, _block)
FNB fabshmem_nb_signal_op(int *r, void *sig, unsigned long long v, int op, int pe)
{ shmemd_signal_op((uint64_t *)sig, v, op, pe); *r = 0; return 0; }
FNB fabshmem_nb_signal_wait_until(unsigned long long *r, void *sig, int cmp, unsigned long long v)
{ *r = shmemd_signal_wait_until((uint64_t *)sig, cmp, v); return 0; }
FNB fabshmem_nb_signal_fetch(unsigned long long *r, void *sig)
{ *r = shmemd_signal_fetch((const uint64_t *)sig); return 0; }
FNB fabshmem_nb_quiet(int *r) { shmemd_quiet(); *r = 0; return 0; }
FNB fabshmem_nb_fence(int *r) { shmemd_fence(); *r = 0; return 0; }
'''

# The wrappers' names (without the prefix fabshmem_nb_).
NAMES = tuple(
    ["my_pe", "n_pes", "quiet", "fence", "signal_op", "signal_wait_until", "signal_fetch"]
    + [f"{t}_{op}" for t in ("int", "long", "float", "double") for op in ("p", "g")]
    + [f"{t}_atomic_fetch_add" for t in ("int", "long")]
    + [f"{n}{s}" for s in ("", "_warp", "_block")
       for n in ("putmem", "getmem", "barrier_all", "sync_all", "putmem_signal")]
    + [f"{t}_sum_reduce{s}" for t in ("int", "float") for s in ("", "_block")])

_INCLUDE = re.compile(r'\s*#\s*include\s*<(fabshmem/[^>]+)>')


def _inline(path, inc, seen):
    """The text of path with its #include <fabshmem/...> replaced by the
    files (each once)."""
    out = []
    with open(path) as f:
        for line in f:
            m = _INCLUDE.match(line)
            if m and os.path.isfile(os.path.join(inc, m.group(1))):
                if m.group(1) not in seen:
                    seen.add(m.group(1))
                    out.append(_inline(os.path.join(inc, m.group(1)), inc, seen))
            else:
                out.append(line)
    return "".join(out)


def source(inc):
    """The wrappers' .cu source over the headers in the include directory
    inc.  (NVRTC's remark for each inline routine the wrappers do not use,
    which numba would print as a warning, is suppressed.)"""
    return "#pragma nv_diag_suppress 177\n" + _inline(
        os.path.join(inc, "fabshmem", "shmem_device.cuh"), inc,
        {"fabshmem/shmem_device.cuh"}) + WRAPPERS


if __name__ == "__main__":  # tests/device/nvrtc.sh: python3 _numba_shim.py INCLUDE OUT.cu
    import sys
    with open(sys.argv[2], "w") as f:
        f.write(source(sys.argv[1]))
    print(" ".join("fabshmem_nb_" + n for n in NAMES))
