#!/bin/sh
# The Python binding as an installation meets it (a TESTS entry, run from
# the build tree; about half a minute, most of it one build of the
# extension):
#   1. make install prefix=TMP/p (the build tree's make, with the prefix
#      overridden as ./configure --prefix would set it): the package must
#      land in TMP/p/lib/python3.X/site-packages (not TMP/p/local/...), make
#      install's last lines must name it and the PYTHONPATH to set, and
#      with that PYTHONPATH alone (no LD_LIBRARY_PATH) fabshmem.core must
#      load TMP/p/lib's libfabshmem and run examples/python/ring.py at 2
#      PEs (each PE checks what it received); make uninstall removes it
#      (at the end); nothing of the benchmark (bench/python/c_loops.c, once a
#      part of the extension) is installed; the default prefix, /usr/local,
#      keeps Debian's dist-packages, which is on the interpreter's path;
#   2. which library python/setup.py links (python/buildpaths.py locate):
#      the installed one that pkg-config finds; an uninstalled build tree
#      refused unless FABPY_BUILD_TREE asks for it; a fabshmem.pc naming a
#      directory without the library refused;
#   3. the route of the README for Debian 12's pip (PEP 668): a virtual
#      environment with --system-site-packages, pip install
#      --no-build-isolation --no-index of a copy of python/ whose build
#      folder holds an extension linked against another library (the
#      build tree's, as a stale folder would): pip must link TMP/p's
#      library found by pkg-config (RUNPATH TMP/p/lib), and the ring must
#      run at 2 PEs in the environment's Python.
# Exit status 0 when all passed, 77 (skipped) when configure did not build
# the binding, 1 otherwise.

here=$(cd "$(dirname "$0")" && pwd)
top_src=$(cd "$here/.." && pwd)
build=$(pwd)
if [ ! -f "$build/python/build/stamp" ]; then
    echo "SKIP install: configure did not build the Python binding (see its summary)"
    exit 77
fi
py=$(cat "$build/python/build/python")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabshmem-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
rc=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; rc=1; }
# The library a Python run loads: the line of /proc/self/maps.
loaded='import fabshmem.core; print([l.split()[-1] for l in open("/proc/self/maps") if "/libfabshmem.so" in l][0])'
# Nothing of the build tree's own paths: the installed tree must hold up alone.
unset LD_LIBRARY_PATH PYTHONPATH
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
# A sanitized build: its runtime first (tests/lsan_default.sh).
tests_dir=$here
. "$tests_dir/lsan_default.sh"
san_preload "$build/.libs/libfabshmem.so.0"

# ---- 1. make install prefix=TMP/p ----
p=$tmp/p
# (A make of its own: not the jobs and goals of the make check that runs this.)
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$build" install prefix="$p" >"$tmp/install.log" 2>&1; then
    fail "make install prefix=$p:"; cat "$tmp/install.log"
    exit 1
fi
site=$("$py" -c 'import sys; print("%s/lib/python%d.%d/site-packages" % ((sys.argv[1],) + sys.version_info[:2]))' "$p")
if [ -f "$site/fabshmem/core/__init__.py" ] && ls "$site"/fabshmem/core/_lib*.so >/dev/null 2>&1; then
    pass "make install prefix=TMP/p puts the package in TMP/p/${site#"$p"/}"
else
    fail "make install prefix=TMP/p: no package in $site; python files installed:"
    find "$p" -name '*.py' | head -n 5
fi
[ -e "$p/local" ] && fail "make install prefix=TMP/p made TMP/p/local: $(find "$p/local" | head -n 3)"
printed=$(sed -n 's/^ *PYTHONPATH=//p' "$tmp/install.log")
if [ "$printed" = "$site" ] && tail -n 8 "$tmp/install.log" | grep -q "is in $site"; then
    pass "make install says where the package is, and PYTHONPATH=$printed"
else
    fail "make install's lines do not name $site and PYTHONPATH=$site; its last lines:"
    tail -n 8 "$tmp/install.log"
fi
if lib=$(PYTHONPATH=$printed "$py" -c "$loaded" 2>"$tmp/err") &&
   [ "$(readlink -f "$lib")" = "$(readlink -f "$p/lib/libfabshmem.so")" ]; then
    pass "PYTHONPATH=(the printed one) imports fabshmem.core over TMP/p/lib's libfabshmem"
else
    fail "PYTHONPATH=$printed: fabshmem.core loads '$lib', not $p/lib's libfabshmem:"; cat "$tmp/err"
fi
# (Counted by matches, not lines: the launcher relays each PE's output in
# chunks, and two PEs' lines can run together on one line.)
if out=$(PYTHONPATH=$printed timeout 120 "$build/scripts/oshrun" -n 2 "$py" "$top_src/examples/python/ring.py" 2>&1) &&
   [ "$(echo "$out" | grep -o 'received [0-9]* from PE' | wc -l)" = 2 ]; then
    pass "the installed package runs examples/python/ring.py at 2 PEs"
else
    fail "the installed package: examples/python/ring.py at 2 PEs:"; echo "$out"
fi
# The package is the binding alone: the benchmark's C loops
# (bench/python/c_loops.c) are the build tree's, not an installed module's.
bench_in=$(PYTHONPATH=$printed "$py" -c 'import fabshmem.core._lib as l; print(sorted(n for n in dir(l) if "loop" in n or "bench" in n))' 2>&1)
libs=$(find "$p" -name '*c_loops*' | head -n 3)
if [ "$bench_in" = "[]" ] && [ -z "$libs" ]; then
    pass "the installed package and prefix carry nothing of the benchmark"
else
    fail "the installed package carries the benchmark's helpers: $bench_in $libs"
fi
# The default prefix: Debian's python3 has /usr/local/lib/python3.X/dist-packages on its path.
deb=$("$py" -E -s -c 'import site, sys; d = "/usr/local/lib/python%d.%d/dist-packages" % sys.version_info[:2]; print(d if d in site.getsitepackages() else "")')
if [ -n "$deb" ]; then
    d=$("$py" -E -s "$top_src/python/buildpaths.py" sitedir /usr/local)
    if [ "$d" = "$deb" ] && "$py" -E -s "$top_src/python/buildpaths.py" note "$d" | grep -q "is on .*path"; then
        pass "make install to /usr/local keeps $deb, on $py's path"
    else
        fail "the default prefix: make install would use '$d', not $deb"
    fi
fi

# ---- 2. which library setup.py links ----
# TMP/p's fabshmem.pc (the installed one names the configured prefix).
mkdir -p "$tmp/pc" "$tmp/nopc" "$tmp/badpc"
printf 'prefix=%s\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\nName: fabshmem\nDescription: test\nVersion: 0.1.0\nLibs: -L${libdir} -lfabshmem\nCflags: -I${includedir}\n' \
    "$p" >"$tmp/pc/fabshmem.pc"
sed "s|^prefix=.*|prefix=$tmp/nowhere|" "$tmp/pc/fabshmem.pc" >"$tmp/badpc/fabshmem.pc"
locate() {
    env -u FABPY_PREFIX -u FABPY_INCLUDE_DIRS -u FABPY_LIB_DIR -u FABPY_BUILD_TREE -u PKG_CONFIG_PATH \
        "$@" "$py" "$top_src/python/buildpaths.py" locate 2>&1
}
if out=$(locate PKG_CONFIG_LIBDIR="$tmp/pc") && echo "$out" | grep -q "links $p/lib/libfabshmem.so (pkg-config fabshmem: $tmp/pc/fabshmem.pc"; then
    pass "setup.py links the library pkg-config finds, and says which: $out"
else
    fail "setup.py with fabshmem.pc in TMP/pc: $out"
fi
if out=$(locate PKG_CONFIG_LIBDIR="$tmp/nopc"); then
    fail "setup.py without an installed fabshmem links something: $out"
elif [ -f "$top_src/.libs/libfabshmem.so" ] && ! echo "$out" | grep -q "FABPY_BUILD_TREE=1"; then
    fail "setup.py refuses the build tree around it without saying FABPY_BUILD_TREE=1: $out"
else
    pass "setup.py without an installed fabshmem refuses: $out"
fi
if out=$(locate PKG_CONFIG_LIBDIR="$tmp/nopc" FABPY_BUILD_TREE="$build") &&
   echo "$out" | grep -q "links $build/.libs/libfabshmem.so (FABPY_BUILD_TREE"; then
    pass "setup.py links a build tree when FABPY_BUILD_TREE names it"
else
    fail "setup.py with FABPY_BUILD_TREE=$build: $out"
fi
if out=$(locate PKG_CONFIG_LIBDIR="$tmp/badpc"); then
    fail "setup.py links what a fabshmem.pc without the library names: $out"
elif echo "$out" | grep -q "$tmp/badpc/fabshmem.pc.*has no libfabshmem.so"; then
    pass "setup.py refuses a fabshmem.pc whose libdir has no libfabshmem.so"
else
    fail "setup.py with a bad fabshmem.pc: $out"
fi

# ---- 3. pip in a virtual environment, over a stale build folder ----
venv=$tmp/venv
if ! "$py" -m venv --system-site-packages "$venv" >"$tmp/venv.log" 2>&1; then
    echo "SKIP pip in a virtual environment: $py -m venv failed (apt-get install python3-venv):"
    tail -n 3 "$tmp/venv.log"
else
    src=$tmp/src
    mkdir -p "$src"
    (cd "$top_src/python" && tar cf - --exclude=./build --exclude='*.egg-info' --exclude=__pycache__ .) |
        (cd "$src" && tar xf -)
    # The folder a build against the build tree's library left (pip's
    # build/lib.* and build/temp.*), and the generated C (saves a minute).
    tag=$("$py" -c 'import sys, sysconfig; print("%s-%s" % (sysconfig.get_platform(), sys.implementation.cache_tag))')
    mkdir -p "$src/build/lib.$tag/fabshmem/core" "$src/build/temp.$tag"
    cp -p "$build"/python/build/lib/fabshmem/core/_lib*.so "$src/build/lib.$tag/fabshmem/core/"
    cp -p "$build/python/build/temp/fabshmem-link.json" "$src/build/temp.$tag/" 2>/dev/null
    cp -pR "$build/python/build/cython" "$src/build/"
    if ! PKG_CONFIG_LIBDIR=$tmp/pc "$venv/bin/pip" install -v --no-build-isolation --no-index "$src" >"$tmp/pip.log" 2>&1; then
        fail "pip install --no-build-isolation --no-index in the environment:"; tail -n 30 "$tmp/pip.log"
    else
        grep "setup.py: links" "$tmp/pip.log" | sed 's/^ */pip: /'
        ext=$(ls "$venv"/lib/python3*/site-packages/fabshmem/core/_lib*.so 2>/dev/null)
        runpath=$(readelf -dW "$ext" 2>/dev/null | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
        if [ "$runpath" = "$p/lib" ]; then
            pass "pip linked the library pkg-config found, over a build folder linked otherwise (RUNPATH $runpath)"
        else
            fail "pip's extension $ext: RUNPATH '$runpath', not $p/lib (a stale build folder kept?)"
        fi
        if lib=$("$venv/bin/python" -c "$loaded" 2>"$tmp/err") && [ "$(readlink -f "$lib")" = "$(readlink -f "$p/lib/libfabshmem.so")" ]; then
            pass "the environment's python imports fabshmem.core over TMP/p/lib's libfabshmem"
        else
            fail "the environment's python loads '$lib', not $p/lib's libfabshmem:"; cat "$tmp/err"
        fi
        if out=$(timeout 120 "$build/scripts/oshrun" -n 2 "$venv/bin/python" "$top_src/examples/python/ring.py" 2>&1) &&
           [ "$(echo "$out" | grep -o 'received [0-9]* from PE' | wc -l)" = 2 ]; then
            pass "the environment's package runs examples/python/ring.py at 2 PEs"
        else
            fail "the environment's package: examples/python/ring.py at 2 PEs:"; echo "$out"
        fi
    fi
fi

# ---- make uninstall ----
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$build" uninstall prefix="$p" >"$tmp/uninstall.log" 2>&1 &&
   [ ! -e "$site/fabshmem" ] && ! ls -d "$site"/fabshmem-* >/dev/null 2>&1; then
    pass "make uninstall prefix=TMP/p removes the package"
else
    fail "make uninstall prefix=TMP/p left $(ls "$site")"; cat "$tmp/uninstall.log"
fi
[ "$rc" -eq 0 ] && echo "install: all passed" || echo "install: some failed"
exit "$rc"
