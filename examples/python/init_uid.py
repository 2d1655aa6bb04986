"""The docs' UID-based initialization (init-fini page) on fabshmem: rank 0
makes a unique id, MPI broadcasts its bytes (uid._data), and every rank
initializes with it, its rank and the number of ranks.  MPI only carries
the id: any channel would do (a file, a socket).

    mpirun -n 4 /usr/bin/python3 examples/python/init_uid.py
"""
import sys

import numpy as np
from mpi4py import MPI

import fabshmem.core as nvshmem

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
nranks = comm.Get_size()

uid = nvshmem.get_unique_id(empty=(rank != 0))
comm.Bcast(uid._data.view(np.int8), root=0)

nvshmem.init(uid=uid, rank=rank, nranks=nranks, initializer_method="uid")

# ... use NVSHMEM ...
ok = nvshmem.my_pe() == rank and nvshmem.n_pes() == nranks
a = nvshmem.array((nranks,), "int64")
mine = nvshmem.array((1,), "int64")
mine[0] = 10 * rank
nvshmem.fcollect(nvshmem.Teams.TEAM_WORLD, a, mine)
ok = ok and list(a) == [10 * r for r in range(nranks)]
print(f"init_uid: PE {nvshmem.my_pe()} of {nvshmem.n_pes()}: collected {list(a)}", flush=True)
nvshmem.free_array(a)
nvshmem.free_array(mine)

nvshmem.finalize()
sys.exit(0 if ok else 1)
