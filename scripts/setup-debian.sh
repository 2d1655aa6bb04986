#!/bin/sh
# Installs what fabshmem needs on Debian 12 and generates ./configure.
# (iproute2, util-linux and iptables serve the tests across hosts of
# tests/cluster, iptables only where the kernel has no netem; gnuplot-nox
# draws the plots of bench/report.sh.)
set -e
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
pkgs="build-essential autoconf automake libtool pkg-config libfabric-dev libfabric-bin \
libpmix-dev libhwloc-dev libnuma-dev libcmocka-dev openmpi-bin libopenmpi-dev \
iproute2 util-linux iptables gnuplot-nox"
missing=""
for p in $pkgs; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
