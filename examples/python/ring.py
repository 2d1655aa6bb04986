"""The README's demo in Python: a ring of puts and a barrier, each PE
printing what it received.

    scripts/oshrun -n 4 /usr/bin/python3 examples/python/ring.py

Exits 1 when a PE received a wrong value."""
import sys

import numpy as np

import fabshmem.core as nvshmem

nvshmem.init()
me, n = nvshmem.my_pe(), nvshmem.n_pes()

# A symmetric array: the same object on every PE, on the symmetric heap.
received = nvshmem.array((1,), "int64")
received[0] = -1
nvshmem.barrier_all()

# Put my number into the next PE's copy, then wait until every put landed.
nvshmem.put(received, np.array([me], dtype=np.int64), remote_pe=(me + 1) % n)
nvshmem.barrier_all()

expected = (me - 1) % n
print(f"Python PE {me} of {n}: received {received[0]} from PE {expected}", flush=True)
ok = received[0] == expected
nvshmem.free_array(received)
nvshmem.finalize()
sys.exit(0 if ok else 1)
