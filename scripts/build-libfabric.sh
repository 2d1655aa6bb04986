#!/bin/sh
# Builds libfabric with CUDA (FI_HMEM) and installs it to PREFIX.
#
#   scripts/build-libfabric.sh SRC PREFIX
#
# SRC: a libfabric source tarball (e.g. ../shared/third_party/
# libfabric-1.17.1.tar.gz, a `git archive` of the tag) or a source tree;
# it is extracted or copied into a scratch folder, never built in place.
# PREFIX: where it is installed (PREFIX/lib/libfabric.so.1, PREFIX/bin/
# fi_info, PREFIX/include).
#
# Debian 12's libfabric (1.17.0, soname libfabric.so.1) has no CUDA, so
# fabshmem's FI_HMEM path cannot run with it; this one has the same ABI
# and is put first on LD_LIBRARY_PATH where the GPU path is wanted
# (docs/gpu.md, "FI_HMEM").  CUDA is loaded with dlopen
# (--enable-cuda-dlopen), so the library runs on a machine without a GPU
# or driver like Debian's.  Providers: the ones fabshmem uses (shm, tcp,
# ofi_rxm, sockets, udp, ofi_rxd, net; docs/design/transport.md), all
# others off (--enable-only).  The libraries are stripped.
#
# Environment: CUDA_HOME (/usr/local/cuda), JOBS (2), LIBFABRIC_PROVIDERS
# (the list above, space separated), KEEP_BUILD=1 keeps the scratch
# folder (its path is printed).  Missing build tools are installed with
# apt-get on Debian.
set -e

usage() {
    echo "usage: $0 SRC PREFIX   (SRC: libfabric tarball or source tree)" >&2
    exit 2
}
[ $# -eq 2 ] || usage
SRC=$1
PREFIX=$2
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
JOBS=${JOBS:-2}
PROVS=${LIBFABRIC_PROVIDERS:-"shm tcp rxm sockets udp rxd net"}

[ -e "$SRC" ] || { echo "$0: SRC '$SRC' does not exist" >&2; exit 2; }
[ -f "$CUDA_HOME/include/cuda_runtime.h" ] || {
    echo "$0: no CUDA toolkit at CUDA_HOME=$CUDA_HOME (cuda_runtime.h)" >&2
    exit 2
}
case $PREFIX in /*) ;; *) PREFIX=$(pwd)/$PREFIX ;; esac
case $SRC in /*) ;; *) SRC=$(pwd)/$SRC ;; esac

# Build tools (Debian 12 package names).
need=""
for t in gcc:build-essential make:build-essential autoconf:autoconf \
         automake:automake libtoolize:libtool pkg-config:pkg-config \
         tar:tar strip:binutils; do
    command -v "${t%%:*}" >/dev/null 2>&1 || need="$need ${t#*:}"
done
if [ -n "$need" ]; then
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO=sudo
    echo "build-libfabric: installing$need"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/build-libfabric.XXXXXX")
[ "${KEEP_BUILD:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
if [ -d "$SRC" ]; then
    cp -a "$SRC" "$WORK/src"
else
    mkdir "$WORK/src"
    tar -xf "$SRC" -C "$WORK/src" --strip-components=1
fi
cd "$WORK/src"
[ -f src/fabric.c ] || { echo "$0: $SRC is not a libfabric source" >&2; exit 2; }
[ -x configure ] || ./autogen.sh >"$WORK/autogen.log" 2>&1 || {
    tail -30 "$WORK/autogen.log" >&2; exit 1; }

enables=""
for p in $PROVS; do enables="$enables --enable-$p=yes"; done
echo "build-libfabric: configure (CUDA $CUDA_HOME, providers: $PROVS)"
./configure --prefix="$PREFIX" --disable-static --enable-only $enables \
    --with-cuda="$CUDA_HOME" --enable-cuda-dlopen \
    >"$WORK/configure.log" 2>&1 || { tail -30 "$WORK/configure.log" >&2; exit 1; }
grep -q '^#define HAVE_CUDA 1' config.h || {
    echo "$0: configure did not enable CUDA (see $WORK/configure.log)" >&2; exit 1; }
echo "build-libfabric: make -j$JOBS"
make -j"$JOBS" >"$WORK/make.log" 2>&1 || { tail -40 "$WORK/make.log" >&2; exit 1; }
make install-strip >"$WORK/install.log" 2>&1 || { tail -30 "$WORK/install.log" >&2; exit 1; }
rm -f "$PREFIX"/lib/libfabric.la
echo "build-libfabric: installed to $PREFIX ($(du -sh "$PREFIX/lib" | cut -f1) in lib)"
LD_LIBRARY_PATH="$PREFIX/lib" "$PREFIX/bin/fi_info" -l | grep -v version: | tr -d ':' |
    tr '\n' ' ' | sed 's/^/build-libfabric: providers: /; s/ *$/\n/'
