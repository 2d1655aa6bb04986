#!/bin/sh
# make check's test of the device API's compilation: in a CUDA build, make
# check has built tests/device/device_all.o (every routine of
# include/fabshmem/shmem_device.cuh for every type, by nvcc),
# tests/gpu/gpu_device and tests/gpu/gpu_types (the device API's test
# programs, linked with the device library as oshnvcc links); this says
# so, or skips (77) in a build without CUDA.  The programs run on a GPU
# host (tests/gpu/run.sh).
if [ -f tests/device/device_all.o ] && [ -x tests/gpu/gpu_device ] && [ -x tests/gpu/gpu_types ]; then
    nm tests/device/device_all.o | grep -q k_red_double_prod || {
        echo "FAIL device_all.o lacks the kernels it must hold"; exit 1; }
    echo "PASS the device API compiles for every routine and type; gpu_device and gpu_types link"
    exit 0
fi
if grep -q '^#define HAVE_CUDA 1' config.h 2>/dev/null; then
    echo "FAIL a CUDA build without tests/device/device_all.o, tests/gpu/gpu_device or tests/gpu/gpu_types"
    exit 1
fi
echo "SKIP device_all: configure found no CUDA (nvcc)"
exit 77
