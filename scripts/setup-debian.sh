#!/bin/sh
# Installs what fabshmem needs on Debian 12 and generates ./configure.
set -e
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
pkgs="build-essential autoconf automake libtool pkg-config libfabric-dev libfabric-bin \
libpmix-dev libhwloc-dev libnuma-dev libcmocka-dev openmpi-bin libopenmpi-dev"
missing=""
for p in $pkgs; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
