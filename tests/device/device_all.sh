#!/bin/sh
# make check's test of the device API's compilation: in a CUDA build, make
# check has built tests/device/device_all_1.o to _4.o (the four parts of
# tests/device/device_all.cu: every routine of
# include/fabshmem/shmem_device.cuh for every type, by nvcc),
# tests/gpu/gpu_device and tests/gpu/gpu_types (the device API's test
# programs, linked with the device library as oshnvcc links); this says
# so, checking that each part holds the kernels of its families and that
# no kernel is in two parts, or skips (77) in a build without CUDA.  The
# programs run on a GPU host (tests/gpu/run.sh).
parts="1 2 3 4"
# The kernels each part must hold (device_all.cu, its table of parts):
# the first and the last type of each of its families' lists
# (include/fabshmem/types.def).
must_1="k_red_uchar_and k_red_size_and k_red_char_min k_red_double_min"
must_2="k_red_uchar_or k_red_size_or k_red_char_max k_red_double_max"
must_3="k_red_uchar_xor k_red_size_xor k_red_char_sum k_red_double_sum"
must_4="k_red_char_prod k_red_double_prod k_misc k_rma_float k_rma_ptrdiff
        k_sized_8 k_sized_128 k_ext_float k_ext_ptrdiff k_std_int k_std_ptrdiff
        k_bit_uint k_bit_uint64 k_p2p_short k_p2p_ptrdiff"

have=0
for p in $parts; do
    [ -f tests/device/device_all_$p.o ] && have=$((have + 1))
done
if [ $have -gt 0 ] || [ -x tests/gpu/gpu_device ] || [ -x tests/gpu/gpu_types ]; then
    fail=0
    for f in tests/gpu/gpu_device tests/gpu/gpu_types; do
        [ -x $f ] || { echo "FAIL $f was not built"; fail=1; }
    done
    tmp=$(mktemp -d) || exit 1
    trap 'rm -rf "$tmp"' EXIT
    counts=
    for p in $parts; do
        o=tests/device/device_all_$p.o
        if [ ! -f $o ]; then
            echo "FAIL $o was not built"; fail=1; continue
        fi
        # The kernels' host stubs: _Z<length><name>Pcii (the device stubs,
        # _Z..__device_stub__.., do not match).
        nm $o | sed -n 's/.* T _Z[0-9]*\(k_[a-z0-9_]*\)Pc.*/\1/p' | sort > "$tmp/$p"
        eval must=\$must_$p
        for k in $must; do
            grep -qx "$k" "$tmp/$p" || { echo "FAIL $o lacks the kernel $k"; fail=1; }
        done
        counts="$counts $(wc -l < "$tmp/$p")"
    done
    dup=$(cat "$tmp"/[0-9]* 2>/dev/null | sort | uniq -d)
    [ -z "$dup" ] || { echo "FAIL kernels in two parts:" $dup; fail=1; }
    [ $fail -eq 0 ] || exit 1
    echo "PASS the device API compiles for every routine and type (kernels in parts 1-4:$counts); gpu_device and gpu_types link"
    exit 0
fi
if grep -q '^#define HAVE_CUDA 1' config.h 2>/dev/null; then
    echo "FAIL a CUDA build without tests/device/device_all_[1-4].o, tests/gpu/gpu_device or tests/gpu/gpu_types"
    exit 1
fi
echo "SKIP device_all: configure found no CUDA (nvcc)"
exit 77
