#!/bin/sh
# One PE of the Python binding's pytest run: tests/python/run.sh hands this
# to tests/run.sh, which starts NP of them under the launcher.  The PE of
# rank 0 reports; the others keep pytest's report to themselves, but a
# failure there is printed on stderr by conftest.py, which then ends the job.
rank=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${FABSHMEM_BOOTSTRAP_RANK:-0}}}
py=${FABPY_PYTHON:-python3}
if [ "$rank" = 0 ]; then
    exec "$py" -m pytest -q --color=no -p no:cacheprovider "$@"
fi
exec "$py" -m pytest -q --color=no -p no:cacheprovider "$@" >/dev/null
