"""The docs' MPI-based initialization (init-fini page) on fabshmem: the PEs
are the ranks of an mpi4py communicator, through the library's MPI
bootstrap.  The docs bind a GPU first (cuda.core's Device); fabshmem's PEs
are CPU processes, so device stays None.

    mpirun -n 4 /usr/bin/python3 examples/python/init_mpi.py
"""
import sys

from mpi4py import MPI

import fabshmem.core as nvshmem

rank = MPI.COMM_WORLD.Get_rank()

nvshmem.init(mpi_comm=MPI.COMM_WORLD, initializer_method="mpi")

# ... use NVSHMEM ...
ok = (nvshmem.init_status() == nvshmem.InitStatus.STATUS_IS_INITIALIZED
      and nvshmem.my_pe() == rank and nvshmem.n_pes() == MPI.COMM_WORLD.Get_size())
src = nvshmem.array((1,), "int32")
dst = nvshmem.array((1,), "int32")
src[0] = rank
nvshmem.reduce(nvshmem.Teams.TEAM_WORLD, dst, src, "sum")
ok = ok and dst[0] == sum(range(nvshmem.n_pes()))
print(f"init_mpi: PE {nvshmem.my_pe()} of {nvshmem.n_pes()} (MPI rank {rank}): "
      f"sum of the PE numbers {dst[0]}", flush=True)
nvshmem.free_array(src)
nvshmem.free_array(dst)

nvshmem.finalize()
sys.exit(0 if ok else 1)
