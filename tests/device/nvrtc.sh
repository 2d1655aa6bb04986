#!/bin/sh
# make check's test that the device API's header compiles under NVRTC (the
# compiler of CuPy's RawModule, which fabshmem.core.device feeds): the
# Python GPU check's kernels (tests/python/device_kernels.cu) compiled to
# PTX through libnvrtc by tests/device/nvrtc_check.py, which also checks
# that the module holds the state under its C name (shmemd_state_c); and
# the wrappers of fabshmem.core.device.numba (its _numba_shim.py).
# Skips (77) without libnvrtc or python3.  NVRTC_LIB names the library.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
lib=$NVRTC_LIB
if [ -z "$lib" ]; then
    for d in ${CUDA_HOME:+"$CUDA_HOME/lib64"} /usr/local/cuda/lib64; do
        if [ -f "$d/libnvrtc.so" ]; then
            lib=$d/libnvrtc.so
            break
        fi
    done
fi
if [ -z "$lib" ] || [ ! -f "$lib" ]; then
    echo "SKIP nvrtc: no libnvrtc.so (CUDA_HOME/lib64, /usr/local/cuda/lib64; NVRTC_LIB)"
    exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP nvrtc: no python3 (the check calls libnvrtc through ctypes)"
    exit 77
fi
python3 "$here/nvrtc_check.py" "$lib" "$top/include" "$top/tests/python/device_kernels.cu" || exit 1
# fabshmem.core.device.numba's wrappers (the headers inlined, as numba-cuda
# compiles them: relocatable, no include path), each name numba.py may
# declare defined.
shim=$(mktemp "${TMPDIR:-/tmp}/fabshmem-nvrtc.XXXXXX") || exit 1
trap 'rm -f "$shim"' EXIT
names=$(python3 "$top/python/fabshmem/core/device/_numba_shim.py" "$top/include" "$shim") || exit 1
python3 "$here/nvrtc_check.py" "$lib" /nonexistent --defines "$names" "$shim"
