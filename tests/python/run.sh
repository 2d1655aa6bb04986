#!/bin/sh
# The Python binding's tests, run by make check (a TESTS entry): the pytest
# suite (tests/python/test_*.py), the checks of init and finalize
# (preinit_check.py) and of the leak report (leak_check.py), and the
# examples of examples/python, each job started by tests/run.sh under the
# launcher (or tests/uid_launch.sh), so its lines read as the C tests' do.
#
# make check runs a few minutes' worth (on 2 cores):
#   - the suite at 1 to 4 PEs on shm with the direct path, at 2 PEs on tcp
#     without it and at 3 and 4 PEs on tcp with virtual nodes of 2, booted
#     by PMIx (initializer_method "");
#   - the suite's init, RMA and collective tests booted each other way at 2
#     PEs: "pmix", "mpi", "uid" (the id handed around with mpi4py, as the
#     docs show), "emulated_mpi", and "" without a launcher
#     (tests/uid_launch.sh);
#   - preinit_check at 1 PE without a launcher and at 1 and 2 PEs under
#     it, leak_check and gpu_check (GPU memory; it skips without a GPU)
#     at 1 and 2 PEs; every example at 2 PEs and the ring
#     at 2 and 4.
# PY_TEST_FULL=1 (make check-full) runs the suite over the whole matrix of
# tests/run.sh instead (NPROCS_LIST "1 2 3 4", TEST_PROVIDERS "shm tcp",
# TEST_MODES "direct nodirect vnode", or what they are set to) and at 2 PEs
# on sockets and net without the direct path, every init method at 2 and
# 4 PEs on shm and tcp, and the ring example over the matrix.  Setting NPROCS_LIST, TEST_PROVIDERS or TEST_MODES runs the suite
# over that matrix alone.  PY_TEST_ARGS adds pytest arguments (-k, -x, a
# file).
#
# Exit status: 0 when everything passed, 77 (skipped) when configure did
# not build the binding, 1 otherwise.

here=$(cd "$(dirname "$0")" && pwd)
top_src=$(cd "$here/../.." && pwd)
build=$(pwd)
if [ ! -f "$build/python/build/stamp" ]; then
    echo "SKIP python: configure did not build the Python binding (see its summary)"
    exit 77
fi
FABPY_PYTHON=$(cat "$build/python/build/python")
PYTHONPATH=$build/python/build/lib${PYTHONPATH:+:$PYTHONPATH}
LD_LIBRARY_PATH=$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Nothing is written into the source tree (__pycache__, .pytest_cache).
PYTHONDONTWRITEBYTECODE=1
export FABPY_PYTHON PYTHONPATH LD_LIBRARY_PATH PYTHONDONTWRITEBYTECODE
# A sanitized build: its runtime first (tests/lsan_default.sh).
tests_dir=$top_src/tests
. "$tests_dir/lsan_default.sh"
san_preload "$build/.libs/libfabshmem.so.0"

runsh="$top_src/tests/run.sh"
pytest_pe="$here/pytest.sh"
python_pe="$here/python.sh"
uid_launcher="$top_src/tests/uid_launch.sh"
rc=0
full=${PY_TEST_FULL:-0}

# The areas of the library that return errors rather than end the job
# (tests of bad input in the others are skipped, naming the routines).
FABPY_CONVERTED=$("$FABPY_PYTHON" "$here/probe.py")
export FABPY_CONVERTED
echo "python: the library returns errors in: $FABPY_CONVERTED"

have() {
    "$FABPY_PYTHON" -c "import importlib.util as u, sys; sys.exit(u.find_spec('$1') is None)"
}
if ! have pytest; then
    echo "SKIP python tests: no pytest for $FABPY_PYTHON (Debian: python3-pytest)"
    has_pytest=0
else
    has_pytest=1
fi
has_mpi4py=0
have mpi4py && has_mpi4py=1

# suite NPROCS PROVIDERS MODES [ARGS...]: the pytest suite over a matrix.
suite() {
    s_np=$1 s_prov=$2 s_modes=$3
    shift 3
    [ "$has_pytest" = 1 ] || return 0
    # shellcheck disable=SC2086
    NPROCS_LIST=$s_np TEST_PROVIDERS=$s_prov TEST_MODES=$s_modes TEST_SMOKE="" \
        TEST_UID_PROGS="" sh "$runsh" "$pytest_pe" "$here" $PY_TEST_ARGS "$@" || rc=1
}
# program NPROCS PROVIDERS MODES FILE [ARGS...]: a Python program over a matrix.
program() {
    p_np=$1 p_prov=$2 p_modes=$3
    shift 3
    NPROCS_LIST=$p_np TEST_PROVIDERS=$p_prov TEST_MODES=$p_modes TEST_SMOKE="" \
        TEST_UID_PROGS="" sh "$runsh" "$python_pe" "$@" || rc=1
}
# by_method METHOD NPROCS PROVIDERS MODES: the init, RMA and collective
# tests booted by METHOD.
by_method() {
    echo "== pytest booted by initializer_method=\"$1\""
    if [ "$1" != "" ] && [ "$1" != pmix ] && [ "$has_mpi4py" = 0 ]; then
        echo "SKIP initializer_method=$1: no mpi4py (Debian: python3-mpi4py)"
        return
    fi
    FABPY_INIT=$1
    export FABPY_INIT
    suite "$2" "$3" "$4" "$here/test_init.py" "$here/test_rma.py" "$here/test_coll.py"
    unset FABPY_INIT
}

if [ "$full" = 1 ] || [ -n "${NPROCS_LIST+x}${TEST_PROVIDERS+x}${TEST_MODES+x}" ]; then
    echo "== pytest over the matrix"
    suite "${NPROCS_LIST-1 2 3 4}" "${TEST_PROVIDERS-shm tcp}" \
        "${TEST_MODES-direct nodirect vnode}"
else
    echo "== pytest"
    suite "1 2 3 4" shm direct
    suite 2 tcp nodirect
    suite "3 4" tcp vnode
fi
if [ "$full" = 1 ]; then
    # The smoke providers (streams offloaded as triggered operations on
    # sockets), where fi_info lists them.
    for prov in sockets net; do
        if command -v fi_info >/dev/null 2>&1 && ! fi_info -p "$prov" >/dev/null 2>&1; then
            echo "SKIP pytest prov=$prov (fi_info does not list the provider)"
        else
            suite 2 "$prov" nodirect
        fi
    done
fi
[ -n "${NPROCS_LIST+x}${TEST_PROVIDERS+x}${TEST_MODES+x}" ] && [ "$full" != 1 ] && {
    [ $rc -eq 0 ] && echo "python: all passed" || echo "python: some failed"
    exit $rc
}

if [ "$full" = 1 ]; then
    for m in pmix mpi uid emulated_mpi; do by_method "$m" "2 4" "shm tcp" "direct vnode"; done
else
    for m in pmix mpi uid emulated_mpi; do by_method "$m" 2 shm direct; done
fi
echo "== pytest without a launcher (tests/uid_launch.sh, FABSHMEM_BOOTSTRAP=uid)"
FABSHMEM_TEST_LAUNCHER=$uid_launcher
export FABSHMEM_TEST_LAUNCHER
suite 2 shm direct "$here/test_init.py" "$here/test_rma.py" "$here/test_coll.py"
[ "$full" = 1 ] && suite 4 tcp vnode
unset FABSHMEM_TEST_LAUNCHER

echo "== init and finalize, the leak report"
if "$FABPY_PYTHON" "$here/preinit_check.py" >"$build/python/build/preinit.out" 2>&1; then
    echo "PASS preinit_check.py np=1 without a launcher"
else
    echo "FAIL preinit_check.py np=1 without a launcher:"
    sed 's/^/    | /' "$build/python/build/preinit.out"
    rc=1
fi
program "1 2" shm direct "$here/preinit_check.py"
program "1 2" shm direct "$here/leak_check.py"

echo "== the binding on GPU memory (skipped without a GPU, CuPy and cuda.core)"
# tests/run.sh exits 77 when every run skipped: that is no failure here.
NPROCS_LIST="1 2" TEST_PROVIDERS=shm TEST_MODES=direct TEST_SMOKE="" TEST_UID_PROGS="" \
    sh "$runsh" "$python_pe" "$here/gpu_check.py"
case $? in 0 | 77) ;; *) rc=1 ;; esac

echo "== examples"
ex="$top_src/examples/python"
if [ "$full" = 1 ]; then
    program "1 2 3 4" "shm tcp" "direct nodirect vnode" "$ex/ring.py"
else
    program "2 4" shm direct "$ex/ring.py"
fi
program 2 shm direct "$ex/overview.py"
program 2 shm direct "$ex/tutorial.py"
program 2 shm direct "$ex/interop.py"
if [ "$has_mpi4py" = 1 ]; then
    program 2 shm direct "$ex/init_mpi.py"
    program 2 shm direct "$ex/init_uid.py"
    program 2 shm direct "$ex/init_emulated_mpi.py"
else
    echo "SKIP the MPI init examples: no mpi4py (Debian: python3-mpi4py)"
fi

[ $rc -eq 0 ] && echo "python: all passed" || echo "python: some failed"
exit $rc
