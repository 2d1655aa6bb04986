#!/bin/sh
# Puts a libfabric built with CUDA (FI_HMEM) into a carried tree for the
# GPU host (make gpu-carry-fabric: gpu-carry/fabric-hmem):
#
#   scripts/carry-libfabric.sh [DEST [SRC]]
#
# DEST (default gpu-carry/fabric-hmem) gets lib/libfabric.so.1 (built by
# scripts/build-libfabric.sh from SRC, default $LIBFABRIC_SRC or
# ../shared/third_party/libfabric-1.17.1.tar.gz beside the repository),
# lib/libcudart.so (the toolkit's CUDA runtime, which that libfabric
# opens by this very name to copy GPU memory; the GPU host may have no
# toolkit), bin/fi_info and BUILD (what was built, how, and the sizes).
# Plain files, no links.  tests/gpu/run.sh runs its configurations again
# with DEST/lib first on LD_LIBRARY_PATH when GPU_TEST_FABRIC_HMEM=DEST
# (docs/gpu.md, "FI_HMEM").  An existing DEST/lib/libfabric.so.1 is kept
# unless FORCE=1.  Environment: CUDA_HOME (/usr/local/cuda), JOBS (2).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
DEST=${1:-gpu-carry/fabric-hmem}
SRC=${2:-${LIBFABRIC_SRC:-$top/../shared/third_party/libfabric-1.17.1.tar.gz}}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export CUDA_HOME

if [ -f "$DEST/lib/libfabric.so.1" ] && [ "${FORCE:-0}" != 1 ]; then
    echo "carry-libfabric: $DEST/lib/libfabric.so.1 exists (FORCE=1 rebuilds)"
    cat "$DEST/BUILD" 2>/dev/null || true
    exit 0
fi
cudart=$(ls "$CUDA_HOME"/lib64/libcudart.so.[0-9]* 2>/dev/null | sort | head -n 1)
[ -n "$cudart" ] || { echo "$0: no libcudart.so.N in $CUDA_HOME/lib64" >&2; exit 1; }
prefix=$(mktemp -d "${TMPDIR:-/tmp}/carry-libfabric.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
t0=$(date +%s)
sh "$top/scripts/build-libfabric.sh" "$SRC" "$prefix"
t1=$(date +%s)
mkdir -p "$DEST/lib" "$DEST/bin"
cp -L "$prefix/lib/libfabric.so.1" "$DEST/lib/libfabric.so.1"
cp -L "$cudart" "$DEST/lib/libcudart.so"
strip --strip-unneeded "$DEST/lib/libcudart.so" 2>/dev/null || true
cp -L "$prefix/bin/fi_info" "$DEST/bin/fi_info"
version=$(LD_LIBRARY_PATH="$DEST/lib" "$DEST/bin/fi_info" --version | sed -n 's/^libfabric: //p')
{
    echo "libfabric $version with CUDA (FI_HMEM), built $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname) in $((t1 - t0)) s"
    echo "  from: $SRC"
    echo "  by: scripts/build-libfabric.sh (--with-cuda=$CUDA_HOME --enable-cuda-dlopen --enable-only, providers: $(LD_LIBRARY_PATH="$DEST/lib" "$DEST/bin/fi_info" -l | sed -n 's/:$//p' | tr '\n' ' '))"
    echo "  CUDA runtime: $(basename "$cudart") as lib/libcudart.so"
    (cd "$DEST" && find . -type f ! -name BUILD | sort | while read -r f; do
        echo "  $(du -k "$f" | cut -f1) KiB $f"; done)
    echo "  total: $(du -sk "$DEST" | cut -f1) KiB"
} >"$DEST/BUILD"
cat "$DEST/BUILD"
