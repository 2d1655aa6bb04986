#!/bin/sh
# The C++ check of the public headers (tests/compile/cxx_headers.cc): they
# parse as strict C++11, the team form of shmem_sync and the complex
# reductions (std::complex, and C's _Complex under GNU C++) are declared.
# Skipped without a C++ compiler.
cxx=${CXX:-c++}
if ! command -v "$cxx" >/dev/null 2>&1; then
    echo "SKIP: no C++ compiler ($cxx)"
    exit 77
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
"$cxx" -std=c++11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$top/include" \
    "$top/tests/compile/cxx_headers.cc" && echo "PASS cxx_headers"
