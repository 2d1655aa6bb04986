"""The overview page's usage model, step by step: initialize, allocate
symmetric memory, communicate (put/get, collectives), synchronize,
finalize.  Exits 1 when a check failed.

    scripts/oshrun -n 4 /usr/bin/python3 examples/python/overview.py
"""
import sys

import numpy as np

import fabshmem.core as nvshmem

# 1. Initialize (under oshrun or mpirun: PMIx; alone: one PE).
nvshmem.init()
me, n = nvshmem.my_pe(), nvshmem.n_pes()

# 2. Allocate symmetric memory (collective: every PE gets its own copy).
data = nvshmem.array((8,), "float64")
total = nvshmem.array((8,), "float64")
data[:] = np.arange(8) * (me + 1)

# 3. Communicate: a get from the previous PE, a sum over every PE.
nvshmem.barrier_all()
theirs = np.empty(8)
nvshmem.get(theirs, data, remote_pe=(me - 1) % n)
nvshmem.reduce(nvshmem.Teams.TEAM_WORLD, total, data, "sum")

# 4. Synchronize.
nvshmem.barrier_all()
ok = (theirs == np.arange(8) * ((me - 1) % n + 1)).all()
ok &= (total == np.arange(8) * n * (n + 1) / 2).all()
print(f"overview: PE {me} of {n}: {'all checks passed' if ok else 'FAILED'}", flush=True)

# 5. Free and finalize.
nvshmem.free_array(data)
nvshmem.free_array(total)
nvshmem.finalize()
sys.exit(0 if ok else 1)
