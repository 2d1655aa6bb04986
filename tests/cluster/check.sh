#!/bin/sh
# The short form of the tests across hosts, for `make check`: 2 hosts x 2
# PEs over tcp, the core tests and one cut link (tests/cluster/run.sh;
# `tests/cluster/run.sh --full` runs the rest).  Skips (77) with the reason
# where network namespaces cannot be made or Open MPI's mpirun is missing.
# CLUSTER_FULL=1 (make check-full) runs the full form.
if [ "${CLUSTER_FULL:-0}" = 1 ]; then
    exec bash "${srcdir:-.}/tests/cluster/run.sh" --full
fi
exec bash "${srcdir:-.}/tests/cluster/run.sh"
