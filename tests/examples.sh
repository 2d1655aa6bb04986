#!/bin/sh
# The examples as tests: examples/walkthrough over the usual matrix at 1 to
# 4 PEs (it checks every step and exits non-zero on a wrong value).
here=$(dirname "$0")
NPROCS_LIST=${NPROCS_LIST-"1 2 3 4"} TEST_SMOKE=${TEST_SMOKE-""} exec sh "$here/run.sh" examples/walkthrough
