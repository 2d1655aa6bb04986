#!/bin/sh
# One PE of a Python program (an example, a check script): tests/python/run.sh
# hands this to tests/run.sh, which starts NP of them under the launcher.
exec "${FABPY_PYTHON:-python3}" "$@"
