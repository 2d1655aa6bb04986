#!/bin/sh
# The build carried to a GPU host (docs/gpu.md, "Running on a GPU host"),
# from a CUDA build tree after make gpu-carry has built the programs:
#   DEST/lib    libfabshmem.so.0
#   DEST/bin    the programs of tests/gpu and bench/gpu (libtool's real
#               binaries where it wraps them), debug information stripped
#   DEST/tools  eu-stack with its libdw and libelf, where this machine has
#               them (Debian's elfutils), for the stacks of every thread of
#               a hung run there (eu-stack -p PID; docs/gpu.md, FI_HMEM)
# Files of DEST's other folders (fabric-hmem from make gpu-carry-fabric,
# libx, anchor) are left as they are.
#   scripts/carry-build.sh [DEST]        (default gpu-carry)
dest=${1:-gpu-carry}
[ -f .libs/libfabshmem.so.0 ] || { echo "carry-build: no .libs/libfabshmem.so.0: run make first" >&2; exit 1; }
mkdir -p "$dest/lib" "$dest/bin" "$dest/tools" || exit 1
cp -L .libs/libfabshmem.so.0 "$dest/lib/" || exit 1
n=0
for d in tests/gpu bench/gpu; do
    for f in "$d"/*; do
        [ -f "$f" ] && [ -x "$f" ] || continue
        case $f in *.sh | *.py | *.o | *.cu | *.c | *.h) continue ;; esac
        b=$(basename "$f")
        if [ -f "$d/.libs/$b" ]; then
            cp "$d/.libs/$b" "$dest/bin/"
        elif head -c 4 "$f" | grep -q ELF; then
            cp "$f" "$dest/bin/"
        else
            continue
        fi
        n=$((n + 1))
    done
done
strip --strip-debug "$dest/lib/libfabshmem.so.0" "$dest"/bin/* 2>/dev/null
tools=""
if command -v eu-stack >/dev/null 2>&1; then
    cp "$(command -v eu-stack)" "$dest/tools/"
    for l in libdw.so.1 libelf.so.1; do
        p=$(ldd "$(command -v eu-stack)" | awk -v l="$l" '$1 == l { print $3 }')
        [ -n "$p" ] && cp -L "$p" "$dest/tools/"
    done
    tools=", eu-stack in $dest/tools (LD_LIBRARY_PATH=$dest/tools $dest/tools/eu-stack -p PID)"
fi
echo "carry-build: $dest: libfabshmem.so.0, $n programs$tools ($(du -sh "$dest" | cut -f1) in all)"
