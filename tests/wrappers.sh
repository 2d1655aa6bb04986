#!/bin/sh
# The compiler wrappers of the build tree (scripts/oshcc.in; make install
# puts them beside fabshmem_info): each builds a program that links with
# full RELRO (GNU_RELRO and BIND_NOW), which then runs and checks its
# values on every PE.
#   - oshcc: examples/ring.c, at 2 PEs;
#   - oshc++: tests/coll/cxx_complex.cc, the complex reductions on GNU
#     _Complex arrays and on std::complex, over the matrix of run.sh
#     (NPROCS_LIST, TEST_PROVIDERS, TEST_MODES as there; default 1, 2 and 4
#     PEs, shm and tcp, the direct path on and off);
#   - oshcxx (the other name of oshc++): the same program, at 2 PEs.
# The C++ parts are skipped when there is no C++ compiler (the one that
# configure found, or FABSHMEM_CXX).  Exit status 0 when all passed, 77
# when everything was skipped.
here=$(cd "$(dirname "$0")" && pwd)
tmpd=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-wrappers.XXXXXX") || exit 1
trap 'rm -rf "$tmpd"' EXIT INT TERM
# The build tree's headers and library, even where fabshmem is installed.
FABSHMEM_USE_BUILDDIR=1
export FABSHMEM_USE_BUILDDIR
rc=0
npass=0

# build WRAPPER OUT SOURCE [FLAGS...]: builds OUT and checks full RELRO.
build() {
    w=$1 out=$2
    shift 2
    if ! "scripts/$w" -O2 -o "$out" "$@" 2>"$tmpd/err"; then
        echo "FAIL $w: $* did not build:"
        sed 's/^/    | /' "$tmpd/err"
        return 1
    fi
    if ! command -v readelf >/dev/null 2>&1; then
        echo "PASS $w builds $(basename "$out") (no readelf: full RELRO not checked)"
        return 0
    fi
    if ! readelf -lW "$out" | grep -q GNU_RELRO ||
        ! readelf -dW "$out" | grep -Eq 'BIND_NOW|FLAGS_1.* NOW'; then
        echo "FAIL $w: $out is not linked with full RELRO (-z relro -z now):"
        readelf -dW "$out" | grep -E 'FLAGS'
        return 1
    fi
    echo "PASS $w builds $(basename "$out") with full RELRO (GNU_RELRO, BIND_NOW)"
}

# run NPROCS_LIST PROG: the program over run.sh's matrix.
run() {
    NPROCS_LIST=$1 TEST_SMOKE="" TEST_UID_PROGS="" sh "$here/run.sh" "$2"
}

if build oshcc "$tmpd/ring" "$here/../examples/ring.c" && run 2 "$tmpd/ring"; then
    npass=$((npass + 1))
else
    rc=1
fi

# A wrapper whose compiler is missing exits 127 (its exec fails).
echo 'int main() { return 0; }' >"$tmpd/probe.cc"
scripts/oshc++ -c -o "$tmpd/probe.o" "$tmpd/probe.cc" >"$tmpd/err" 2>&1
if [ $? -eq 127 ]; then
    echo "SKIP oshc++ and oshcxx: no C++ compiler: $(cat "$tmpd/err")"
else
    cflags="-I$here -DFABSHMEM_TESTS_16"
    # shellcheck disable=SC2086
    if build oshc++ "$tmpd/cxx_complex" $cflags "$here/coll/cxx_complex.cc" &&
        run "${NPROCS_LIST:-1 2 4}" "$tmpd/cxx_complex"; then
        npass=$((npass + 1))
    else
        rc=1
    fi
    # shellcheck disable=SC2086
    if build oshcxx "$tmpd/cxx_complex_x" $cflags "$here/coll/cxx_complex.cc" &&
        run 2 "$tmpd/cxx_complex_x"; then
        npass=$((npass + 1))
    else
        rc=1
    fi
fi
[ "$rc" -eq 0 ] && [ "$npass" -eq 0 ] && exit 77
exit "$rc"
