"""The docs' emulated-MPI initialization (init-fini page) on fabshmem: MPI
broadcasts a unique id inside init, which then boots by that id.

    mpirun -n 4 /usr/bin/python3 examples/python/init_emulated_mpi.py
"""
import sys

from mpi4py import MPI

import fabshmem.core as nvshmem

rank = MPI.COMM_WORLD.Get_rank()

nvshmem.init(mpi_comm=MPI.COMM_WORLD, initializer_method="emulated_mpi")

# ... use NVSHMEM ...
ok = nvshmem.my_pe() == rank
v = nvshmem.get_version()
buf = nvshmem.array((1,), "int32")
buf[0] = rank + 1 if rank == 0 else 0
nvshmem.broadcast(nvshmem.Teams.TEAM_WORLD, buf, buf, 0)
ok = ok and buf[0] == 1
print(f"init_emulated_mpi: PE {nvshmem.my_pe()} of {nvshmem.n_pes()}: fabshmem "
      f"{v.libfabshmem_version}, OpenSHMEM {v.openshmem_spec_version}, broadcast "
      f"{buf[0]}", flush=True)
nvshmem.free_array(buf)

nvshmem.finalize()
sys.exit(0 if ok else 1)
