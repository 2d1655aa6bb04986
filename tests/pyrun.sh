#!/bin/sh
# The log compiler of the .py tests (tests/Makefile.include): runs SCRIPT
# with the Python that configure found (PYTHON), or skips (exit 77) when
# there is none.
# Usage: pyrun.sh PYTHON SCRIPT [ARGS...]
py=$1
shift
if [ -z "$py" ] || ! command -v "$py" >/dev/null 2>&1; then
    echo "SKIP $1: no Python interpreter (configure's PYTHON is '${py}')"
    exit 77
fi
exec "$py" "$@"
