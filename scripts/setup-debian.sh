#!/bin/sh
# Installs what fabshmem needs on Debian 12 and generates ./configure.
# (iproute2, util-linux and iptables serve the tests across hosts of
# tests/cluster, iptables only where the kernel has no netem; gnuplot-nox
# draws the plots of bench/report.sh.  The python3-* packages and cython3
# serve the Python binding (python/): the first of their lines builds it
# (python3-venv for pip's route, README.md), the second tests it: pytest,
# mpi4py for the MPI init methods, torch for interop.torch.)
set -e
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
pkgs="build-essential autoconf automake libtool pkg-config libfabric-dev libfabric-bin \
libpmix-dev libhwloc-dev libnuma-dev libcmocka-dev openmpi-bin libopenmpi-dev \
iproute2 util-linux iptables gnuplot-nox \
python3-dev cython3 python3-numpy python3-setuptools python3-pip python3-venv \
python3-pytest python3-mpi4py python3-torch"
missing=""
for p in $pkgs; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
